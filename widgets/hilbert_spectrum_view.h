// The Hilbert spectrum H(f, t) of a channel's IMFs as an image (engine/hht/hht.h defines it):
// time across, frequency up, the value as a colour from ColourMap with a colour bar in the
// value's unit; linear or logarithmic colour scale; zoom by mouse wheel (around the cursor;
// ctrl: frequency only, shift: time only) or by dragging a rectangle, reset by double-click,
// right-click, R or Escape; a cursor read-out (time, frequency, value of the bin under it).
//
// Input is a value grid plus its bin edges (SpectrumGrid), not an image. Two drawing paths show
// the same pixels:
// - OpenGL (where the platform has it): a SpectrumGlCanvas child covers the plot and draws the
//   visible bins from a texture filled through a pixel buffer object, either by an installed
//   SpectrumPixelWriter (the app's CUDA-OpenGL interop: coloured on the GPU, never in host
//   memory) or from host memory (renderSpectrumImage);
// - QPainter: the grid coloured into a QImage (mapGridToImage), drawn with the axes. This path
//   always serves exports (PNG/SVG/PDF, renderTo) and draws on screen when there is no OpenGL
//   (offscreen platform, MODESCOPE_SPECTRUM_GL=0, a context without pixel buffer objects).
// drawingPath() says which one draws and why ("drawn by CUDA-OpenGL interop on NVIDIA H100 ...",
// "drawn from host memory through OpenGL: <why>"); it is the tool tip over the axes.
//
// Frequency rows are drawn at equal heights: a grid with logarithmic bins therefore gets a
// logarithmic frequency axis, a linear one a linear axis.
//
// Thread rules: a GUI-thread widget.
#pragma once

#include <QImage>
#include <QPolygonF>
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "engine/hht/hht.h"
#include "widgets/colour_map.h"

namespace modescope {

class SpectrumGlCanvas;
class SpectrumOverlayWidget;
class SpectrumPixelWriter;

struct SpectrumGrid {
  std::vector<float> values;           // rows x cols, row-major, row 0 = lowest frequency
  int rows = 0;                        // frequency bins
  int cols = 0;                        // time bins
  std::vector<double> frequencyEdges;  // rows + 1, Hz, ascending
  std::vector<double> timeEdges;       // cols + 1, seconds from the recording start, ascending
  bool logFrequency = false;           // the edges are geometric (frequencyEdges[0] > 0)
  QString valueUnit;                   // of the values, e.g. "uV" or "uV^2"
  QString quantity;                    // "Amplitude" / "Energy"

  bool valid() const;  // sizes agree and rows, cols >= 1
};

// One channel of an HhtResult as a grid; time edges in recording seconds
// ((firstSample + edge) / sampleRate). `inputUnit` is the channel's unit ("uV"); energy grids get
// its square. Returns an invalid grid when `resultChannel` is out of range.
SpectrumGrid spectrumGridFromHht(const HhtResult& hht, std::size_t resultChannel,
                                 const QString& inputUnit);

struct SpectrumReadout {
  double seconds = 0.0;  // time under the cursor (recording time)
  double hz = 0.0;       // frequency under the cursor
  int row = 0;           // frequency bin
  int col = 0;           // time bin
  float value = 0.0f;    // grid value of that bin
};

class HilbertSpectrumView : public QWidget {
  Q_OBJECT

 public:
  explicit HilbertSpectrumView(QWidget* parent = nullptr);
  ~HilbertSpectrumView() override;

  // Whether this process can draw spectra with OpenGL widgets; `why` says why not. False on the
  // offscreen and minimal platforms (QOpenGLWidget crashes there in Qt 6.4), when no OpenGL
  // context can be created, and when the environment sets MODESCOPE_SPECTRUM_GL=0.
  static bool openGlDrawingPossible(QString* why = nullptr);

  // Installs the GPU writer of the OpenGL path (ignored, and destroyed, without OpenGL).
  void setPixelWriter(std::unique_ptr<SpectrumPixelWriter> writer);
  // The OpenGL canvas, or nullptr when this view draws with QPainter only.
  SpectrumGlCanvas* glCanvas() const { return canvas_; }
  // Which path draws the image and why (the tool tip over the axes and colour bar).
  QString drawingPath() const { return drawingPath_; }

  void setGrid(SpectrumGrid grid);  // resets the zoom and fits the colour range
  const SpectrumGrid& grid() const { return grid_; }

  // What the view shows, for its empty text and export titles (default "Hilbert spectrum"; the
  // time-frequency view: "Spectrogram", "Synchrosqueezed (order 3)").
  void setFigureTitle(const QString& title);
  QString figureTitle() const { return figureTitle_; }
  // Curves drawn over the image (ridges), points in (seconds, Hz); on both drawing paths and in
  // exports. Empty: none.
  void setOverlayCurves(std::vector<QPolygonF> curves);
  const std::vector<QPolygonF>& overlayCurves() const { return overlay_; }

  void setColourScaleKind(ColourScaleKind kind);  // refits the range to the grid
  ColourScaleKind colourScaleKind() const { return scale_.kind; }
  const ColourScale& colourScale() const { return scale_; }
  // Log scale: how many decades below the maximum the colour bar reaches (default 3).
  void setLogDecades(double decades);
  void setColourMap(const ColourMap& map);

  // The visible part, in seconds and Hz.
  double visibleTimeStart() const;
  double visibleTimeEnd() const;
  double visibleFrequencyLow() const;
  double visibleFrequencyHigh() const;
  bool isZoomed() const;
  // Shows [t0, t1] x [f0, f1] (clipped to the grid).
  void zoomTo(double t0, double t1, double f0, double f1);

  // Where the image is drawn in widget coordinates (for tests and for mouse mapping).
  QRectF plotRect() const;
  // The bin under a widget position, or nullopt outside the image.
  std::optional<SpectrumReadout> readoutAt(const QPointF& pos) const;
  // "t 12.345 s  f 10.2 Hz  3.21 uV" for a read-out.
  QString readoutText(const SpectrumReadout& r) const;
  QString lastReadout() const { return lastReadout_; }

  void renderTo(QPainter& painter, const QRect& area) const;
  bool exportImage(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {520, 320}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 public slots:
  void resetZoom();
  // Time axis link (IMF stack, signal browser): shows [start, start + seconds] with the
  // frequency range unchanged. Emits nothing.
  void setTimeWindow(double startSeconds, double seconds);

 signals:
  void cursorMoved(const QString& readout);  // empty when the cursor left the image
  void drawingPathChanged(const QString& text);
  // The user zoomed or panned the time range (not emitted for setTimeWindow()).
  void timeWindowChanged(double startSeconds, double seconds);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  // Continuous bin coordinates: col in [0, cols], row in [0, rows].
  double colOfTime(double seconds) const;
  double timeOfCol(double col) const;
  double rowOfFrequency(double hz) const;
  double frequencyOfRow(double row) const;
  QRectF plotRectIn(const QRect& area) const;
  void renderFrame(QPainter& painter, const QRect& area, bool drawImage) const;
  const QImage& image() const;  // built on demand from the grid
  void colouringChanged();
  void viewChanged();  // zoom or selection changed: the canvas follows, then repaint
  bool canvasDraws() const;
  void syncCanvas();
  void setDrawingPath(const QString& text);
  void emitTimeWindow();
  // The overlay curves in coordinates of `plot` (the visible bins).
  std::vector<QPolygonF> overlayIn(const QRectF& plot) const;

  SpectrumGrid grid_;
  ColourMap map_ = ColourMap::viridis();
  ColourScale scale_;
  double logDecades_ = 3.0;
  mutable QImage image_;
  mutable bool imageStale_ = true;
  SpectrumGlCanvas* canvas_ = nullptr;              // child; nullptr without OpenGL
  SpectrumOverlayWidget* canvasOverlay_ = nullptr;  // the overlay over the canvas, when needed
  bool canvasFailed_ = false;                       // it cannot draw the current grid
  QString drawingPath_;
  QString noGlWhy_;
  // Visible bin range.
  double c0_ = 0, c1_ = 1, r0_ = 0, r1_ = 1;
  QPointF dragStart_, dragNow_;
  bool dragging_ = false;
  QString lastReadout_;
  QString figureTitle_;
  std::vector<QPolygonF> overlay_;
};

}  // namespace modescope
