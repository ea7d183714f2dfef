// Paints one page of the signal browser (labels, grid, annotations, traces, time axis, scale bar)
// into any QPainter: the widget, a QImage for PNG export and the benchmark, QSvgGenerator,
// QPdfWriter. It only draws what PageCache computed; it reads no samples.
//
// Cost: on raster targets (the widget, QImage) the traces are rasterised straight into an image
// layer, one vertical run of pixels per column and channel (what a 1-px line covers there),
// which is ~20x faster than QPainter's polyline stroker for 256 channels; the layer is cached so
// a repaint without a view change only composites it. Vector targets (SVG, PDF) get one
// drawPolyline per channel. Grid and annotation markers are one drawLines each; annotation
// texts are thinned so they never overlap (thousands of annotations in one page cost a marker
// each, not a label each).
#pragma once

#include <QColor>
#include <QDateTime>
#include <QFontMetricsF>
#include <QImage>
#include <QRectF>
#include <QString>
#include <vector>

#include "engine/core/recording.h"
#include "widgets/annotation_index.h"
#include "widgets/page_cache.h"

class QPainter;

namespace modescope::browser {

// Where things are. Computed from the target rectangle, the number of rows and the font, so the
// widget's hit tests and its painting agree.
struct BrowserLayout {
  QRectF area;            // everything
  QRectF labels;          // channel labels, left of the traces
  QRectF traces;          // the traces (clipped to it)
  QRectF annotationBand;  // annotation texts above the traces
  QRectF axis;            // time axis below the traces
  int rows = 0;
  double rowHeight = 0.0;  // px between neighbouring channels' zero lines

  double rowCentre(int row) const { return traces.top() + (row + 0.5) * rowHeight; }
  // The row under `y` (any x), or -1 outside the traces' vertical extent.
  int rowAt(double y) const;

  static BrowserLayout compute(const QRectF& area, int rows, const QFontMetricsF& metrics);
};

struct RowStyle {
  QString label;
  QColor colour;
  bool bad = false;
  bool selected = false;
};

struct PageScene {
  double start = 0.0;                   // s
  double length = 10.0;                 // s
  double microvoltsPerDivision = 50.0;  // one row spacing in uV
  std::vector<RowStyle> rows;           // one per visible channel, top to bottom
  const DecimatedPage* page = nullptr;  // traces in the same order as rows
  std::vector<IndexedAnnotation> annotations;
  QDateTime clockStart;  // recording start; invalid when unknown (axis then shows seconds only)
  QString status;        // montage / filter summary drawn above the labels
  QString message;       // shown across the traces instead of them (e.g. a read error)
};

// Trace and label colour per channel type; bad channels are drawn in kBadChannelColour.
QColor channelTypeColour(ChannelType type);
inline const QColor kBadChannelColour{0xb4, 0xb4, 0xb4};

// The smallest "nice" step (0.01 .. 3600 s in 1-2-5 and clock steps) whose ticks lie at least
// `minPixels` apart at `pixelsPerSecond`.
double chooseTimeStep(double pixelsPerSecond, double minPixels);

// At most this many annotation texts per page; markers are always all drawn.
constexpr int kMaxAnnotationTexts = 200;

// The traces rasterised for one page, scale and size; reused while none of them changes.
// Owned by the caller (the widget keeps one); not shared between threads.
struct TraceLayer {
  QImage image;
  uint64_t pageSerial = 0;
  double microvoltsPerDivision = 0.0;
  double rowHeight = 0.0;
  std::vector<QRgb> colours;
};

// Rasterises one trace into `image` (Format_ARGB32_Premultiplied, device pixels): the polyline
// through (x * xScale, centreY - (y - offset) * yScale), one run of pixels per column.
void rasterizeTrace(QImage& image, const DecimatedTrace& trace, double xScale, double centreY,
                    double yScale, QRgb colour);

// `layer` may be null (no caching; the raster path is still used on raster targets).
void paintPage(QPainter& painter, const BrowserLayout& layout, const PageScene& scene,
               TraceLayer* layer = nullptr);

}  // namespace modescope::browser
