#include "widgets/hilbert_spectrum_view.h"

#include <QGuiApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "widgets/page_export.h"
#include "widgets/plot_axis.h"
#include "widgets/spectrum_gl_canvas.h"
#include "widgets/spectrum_pixel_writer.h"

namespace modescope {
namespace {

constexpr int kLeftMargin = 58;
constexpr int kBottomMargin = 36;
constexpr int kTopMargin = 10;
constexpr int kBarGap = 12;
constexpr int kBarWidth = 14;
constexpr int kBarLabels = 64;
constexpr double kMinDragPixels = 6.0;
constexpr double kWheelZoomPerNotch = 1.25;

// Continuous index of `value` in ascending `edges` (0 at edges[0], n at edges[n]); linear within
// a bin, or geometric when `geometric` (log-spaced bins).
double indexOf(const std::vector<double>& edges, double value, bool geometric) {
  if (edges.size() < 2) return 0.0;
  if (value <= edges.front()) return 0.0;
  if (value >= edges.back()) return static_cast<double>(edges.size() - 1);
  const auto it = std::upper_bound(edges.begin(), edges.end(), value);
  const auto i = static_cast<std::size_t>(it - edges.begin()) - 1;
  const double a = edges[i], b = edges[i + 1];
  const double f =
      geometric && a > 0 ? std::log(value / a) / std::log(b / a) : (value - a) / (b - a);
  return static_cast<double>(i) + f;
}

double valueOf(const std::vector<double>& edges, double index, bool geometric) {
  if (edges.size() < 2) return 0.0;
  const double n = static_cast<double>(edges.size() - 1);
  index = std::clamp(index, 0.0, n);
  const auto i = std::min(static_cast<std::size_t>(index), edges.size() - 2);
  const double f = index - static_cast<double>(i);
  const double a = edges[i], b = edges[i + 1];
  return geometric && a > 0 ? a * std::pow(b / a, f) : a + (b - a) * f;
}

void drawOverlayCurves(QPainter& painter, const std::vector<QPolygonF>& curves) {
  // A dark casing under a light line: visible on every colour of the map.
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setBrush(Qt::NoBrush);
  for (const QColor& colour : {QColor(0, 0, 0, 160), QColor(255, 80, 80)}) {
    painter.setPen(QPen(colour, colour.alpha() == 255 ? 1.5 : 3.5, Qt::SolidLine, Qt::RoundCap,
                        Qt::RoundJoin));
    for (const QPolygonF& curve : curves) painter.drawPolyline(curve);
  }
}

}  // namespace

// The overlay over the OpenGL canvas: a raster child stacked above it (Qt composes it over the
// canvas's texture). A QPainter inside the canvas's paintGL, after the texture blit, drew nothing
// under Mesa (tests/gui/tf_view_test.cpp counts the ridge's pixels on screen).
class SpectrumOverlayWidget : public QWidget {
 public:
  explicit SpectrumOverlayWidget(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
  }
  void setCurves(std::vector<QPolygonF> curves) {
    if (curves == curves_) return;
    curves_ = std::move(curves);
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    drawOverlayCurves(painter, curves_);
  }

 private:
  std::vector<QPolygonF> curves_;
};

bool SpectrumGrid::valid() const {
  return rows >= 1 && cols >= 1 &&
         values.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) &&
         frequencyEdges.size() == static_cast<std::size_t>(rows) + 1 &&
         timeEdges.size() == static_cast<std::size_t>(cols) + 1;
}

SpectrumGrid spectrumGridFromHht(const HhtResult& hht, std::size_t resultChannel,
                                 const QString& inputUnit) {
  SpectrumGrid g;
  if (resultChannel >= hht.channels.size() || hht.sampleRate <= 0) return g;
  const HhtChannel& ch = hht.channels[resultChannel];
  g.rows = static_cast<int>(hht.frequencyEdges.size()) - 1;
  g.cols = static_cast<int>(hht.timeEdges.size()) - 1;
  g.values = ch.spectrum;
  g.frequencyEdges = hht.frequencyEdges;
  for (int64_t e : hht.timeEdges)
    g.timeEdges.push_back(static_cast<double>(hht.firstSample + e) / hht.sampleRate);
  g.logFrequency = hht.params.logFrequency;
  const bool energy = hht.params.quantity == HhtQuantity::Energy;
  g.valueUnit = energy ? inputUnit + QStringLiteral("\u00b2") : inputUnit;
  g.quantity = energy ? QObject::tr("Energy") : QObject::tr("Amplitude");
  return g;
}

HilbertSpectrumView::HilbertSpectrumView(QWidget* parent)
    : QWidget(parent), figureTitle_(tr("Hilbert spectrum")) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  QString why;
  if (!openGlDrawingPossible(&why)) {
    setDrawingPath(tr("drawn from host memory by QPainter: %1").arg(why));
    return;
  }
  canvas_ = new SpectrumGlCanvas(this);
  canvas_->setObjectName(QStringLiteral("spectrumGlCanvas"));
  // The view keeps the mouse (zoom, drag, read-out) over the canvas.
  canvas_->setAttribute(Qt::WA_TransparentForMouseEvents);
  canvas_->hide();
  canvas_->setColouring(map_, scale_);
  connect(canvas_, &SpectrumGlCanvas::pathChanged, this, [this](const QString& text) {
    if (canvasDraws()) setDrawingPath(text);
  });
  // Queued: failed() comes from inside the canvas's paintGL, where it must not be hidden.
  connect(
      canvas_, &SpectrumGlCanvas::failed, this,
      [this](const QString& reason) {
        if (canvas_->path() != SpectrumGlCanvas::Path::Failed) return;  // a new grid since
        canvasFailed_ = true;
        syncCanvas();
        setDrawingPath(tr("drawn from host memory by QPainter: %1").arg(reason));
        update();
      },
      Qt::QueuedConnection);
  setDrawingPath(canvas_->pathText());
}

HilbertSpectrumView::~HilbertSpectrumView() {
  // The canvas releases its GL resources (and the writer's registrations) while the view is whole.
  delete canvas_;
  canvas_ = nullptr;
}

bool HilbertSpectrumView::openGlDrawingPossible(QString* why) {
  QString reason;
  const QString platform = QGuiApplication::platformName();
  if (qEnvironmentVariable("MODESCOPE_SPECTRUM_GL") == QLatin1String("0")) {
    reason = tr("OpenGL drawing is switched off (MODESCOPE_SPECTRUM_GL=0)");
  } else if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) {
    reason = tr("the Qt platform \"%1\" has no OpenGL widgets").arg(platform);
  } else {
    // Once per process: the platform's OpenGL does not come and go.
    static const bool contextWorks = [] {
      QOpenGLContext probe;
      return probe.create();
    }();
    if (!contextWorks) reason = tr("no OpenGL context can be created on this display");
  }
  if (why) *why = reason;
  return reason.isEmpty();
}

void HilbertSpectrumView::setPixelWriter(std::unique_ptr<SpectrumPixelWriter> writer) {
  if (canvas_) canvas_->setPixelWriter(std::move(writer));
}

void HilbertSpectrumView::setDrawingPath(const QString& text) {
  if (text == drawingPath_) return;
  drawingPath_ = text;
  emit drawingPathChanged(text);
}

bool HilbertSpectrumView::canvasDraws() const { return canvas_ && !canvasFailed_ && grid_.valid(); }

void HilbertSpectrumView::syncCanvas() {
  if (!canvas_) return;
  const bool on = canvasDraws();
  if (on) {
    // Inside the plot's frame line, which the view draws around it.
    const QRect p = plotRect().toRect();
    canvas_->setGeometry(p.adjusted(1, 1, 0, 0));
    canvas_->setVisibleBins(c0_, c1_, r0_, r1_);
  }
  if (canvas_->isVisible() != on) canvas_->setVisible(on);
  const bool overlay = on && !overlay_.empty();
  if (overlay) {
    if (!canvasOverlay_) canvasOverlay_ = new SpectrumOverlayWidget(this);
    canvasOverlay_->setGeometry(canvas_->geometry());
    canvasOverlay_->setCurves(overlayIn(QRectF(QPointF(0, 0), QSizeF(canvas_->geometry().size()))));
    canvasOverlay_->raise();
  }
  if (canvasOverlay_ && canvasOverlay_->isVisible() != overlay) canvasOverlay_->setVisible(overlay);
}

void HilbertSpectrumView::viewChanged() {
  syncCanvas();
  update();
}

void HilbertSpectrumView::setGrid(SpectrumGrid grid) {
  grid_ = grid.valid() ? std::move(grid) : SpectrumGrid{};
  scale_ = ColourScale::fit(grid_.values.data(), grid_.values.size(), scale_.kind, logDecades_);
  if (canvas_) {
    canvas_->setGrid(grid_.values.data(), grid_.rows, grid_.cols);
    canvasFailed_ = canvas_->path() == SpectrumGlCanvas::Path::Failed;
    if (!canvasFailed_) setDrawingPath(canvas_->pathText());
  }
  colouringChanged();
  resetZoom();
}

void HilbertSpectrumView::setFigureTitle(const QString& title) {
  figureTitle_ = title;
  update();
}

void HilbertSpectrumView::setOverlayCurves(std::vector<QPolygonF> curves) {
  overlay_ = std::move(curves);
  viewChanged();
}

std::vector<QPolygonF> HilbertSpectrumView::overlayIn(const QRectF& plot) const {
  std::vector<QPolygonF> out;
  if (!grid_.valid() || c1_ <= c0_ || r1_ <= r0_) return out;
  for (const QPolygonF& curve : overlay_) {
    QPolygonF mapped;
    mapped.reserve(curve.size());
    for (const QPointF& p : curve) {
      const double x = plot.left() + (colOfTime(p.x()) - c0_) / (c1_ - c0_) * plot.width();
      const double y = plot.bottom() - (rowOfFrequency(p.y()) - r0_) / (r1_ - r0_) * plot.height();
      mapped << QPointF(x, y);
    }
    out.push_back(std::move(mapped));
  }
  return out;
}

void HilbertSpectrumView::setColourScaleKind(ColourScaleKind kind) {
  scale_ = ColourScale::fit(grid_.values.data(), grid_.values.size(), kind, logDecades_);
  colouringChanged();
}

void HilbertSpectrumView::setLogDecades(double decades) {
  logDecades_ = std::max(decades, 0.1);
  setColourScaleKind(scale_.kind);
}

void HilbertSpectrumView::setColourMap(const ColourMap& map) {
  map_ = map;
  colouringChanged();
}

void HilbertSpectrumView::colouringChanged() {
  imageStale_ = true;  // rebuilt when something draws with QPainter
  if (canvas_) canvas_->setColouring(map_, scale_);
  update();
}

const QImage& HilbertSpectrumView::image() const {
  if (imageStale_) {
    image_ = grid_.valid()
                 ? mapGridToImage(grid_.values.data(), grid_.rows, grid_.cols, map_, scale_)
                 : QImage();
    imageStale_ = false;
  }
  return image_;
}

double HilbertSpectrumView::colOfTime(double s) const { return indexOf(grid_.timeEdges, s, false); }
double HilbertSpectrumView::timeOfCol(double c) const { return valueOf(grid_.timeEdges, c, false); }
double HilbertSpectrumView::rowOfFrequency(double hz) const {
  return indexOf(grid_.frequencyEdges, hz, grid_.logFrequency);
}
double HilbertSpectrumView::frequencyOfRow(double r) const {
  return valueOf(grid_.frequencyEdges, r, grid_.logFrequency);
}

double HilbertSpectrumView::visibleTimeStart() const { return timeOfCol(c0_); }
double HilbertSpectrumView::visibleTimeEnd() const { return timeOfCol(c1_); }
double HilbertSpectrumView::visibleFrequencyLow() const { return frequencyOfRow(r0_); }
double HilbertSpectrumView::visibleFrequencyHigh() const { return frequencyOfRow(r1_); }

bool HilbertSpectrumView::isZoomed() const {
  return grid_.valid() && (c0_ > 0 || r0_ > 0 || c1_ < grid_.cols || r1_ < grid_.rows);
}

void HilbertSpectrumView::resetZoom() {
  c0_ = 0;
  r0_ = 0;
  c1_ = std::max(grid_.cols, 1);
  r1_ = std::max(grid_.rows, 1);
  viewChanged();
}

void HilbertSpectrumView::zoomTo(double t0, double t1, double f0, double f1) {
  if (!grid_.valid()) return;
  const double a = colOfTime(std::min(t0, t1)), b = colOfTime(std::max(t0, t1));
  const double lo = rowOfFrequency(std::min(f0, f1)), hi = rowOfFrequency(std::max(f0, f1));
  // Never less than a fraction of one bin: a zero-width range has no scale.
  if (b - a > 0.05) c0_ = a, c1_ = b;
  if (hi - lo > 0.05) r0_ = lo, r1_ = hi;
  viewChanged();
}

void HilbertSpectrumView::setTimeWindow(double startSeconds, double seconds) {
  if (!grid_.valid() || !(seconds > 0)) return;
  const double a = colOfTime(startSeconds), b = colOfTime(startSeconds + seconds);
  if (b - a > 0.05) {
    c0_ = a;
    c1_ = b;
    viewChanged();
  }
}

void HilbertSpectrumView::emitTimeWindow() {
  emit timeWindowChanged(visibleTimeStart(), visibleTimeEnd() - visibleTimeStart());
}

QRectF HilbertSpectrumView::plotRectIn(const QRect& area) const {
  const double right = kBarGap + kBarWidth + kBarLabels;
  return QRectF(area.left() + kLeftMargin, area.top() + kTopMargin,
                std::max(10.0, area.width() - kLeftMargin - right),
                std::max(10.0, static_cast<double>(area.height() - kTopMargin - kBottomMargin)));
}

QRectF HilbertSpectrumView::plotRect() const { return plotRectIn(rect()); }

std::optional<SpectrumReadout> HilbertSpectrumView::readoutAt(const QPointF& pos) const {
  const QRectF p = plotRect();
  if (!grid_.valid() || !p.contains(pos)) return std::nullopt;
  const double col = c0_ + (pos.x() - p.left()) / p.width() * (c1_ - c0_);
  const double row = r0_ + (p.bottom() - pos.y()) / p.height() * (r1_ - r0_);
  SpectrumReadout r;
  r.col = std::clamp(static_cast<int>(col), 0, grid_.cols - 1);
  r.row = std::clamp(static_cast<int>(row), 0, grid_.rows - 1);
  r.seconds = timeOfCol(col);
  r.hz = frequencyOfRow(row);
  r.value = grid_.values[static_cast<std::size_t>(r.row) * static_cast<std::size_t>(grid_.cols) +
                         static_cast<std::size_t>(r.col)];
  return r;
}

QString HilbertSpectrumView::readoutText(const SpectrumReadout& r) const {
  return tr("t %1 s   f %2 Hz   %3 %4 %5")
      .arg(r.seconds, 0, 'f', 3)
      .arg(r.hz, 0, 'f', r.hz < 10 ? 2 : 1)
      .arg(grid_.quantity.toLower())
      .arg(static_cast<double>(r.value), 0, 'g', 4)
      .arg(grid_.valueUnit);
}

void HilbertSpectrumView::renderTo(QPainter& painter, const QRect& area) const {
  renderFrame(painter, area, true);
}

void HilbertSpectrumView::renderFrame(QPainter& painter, const QRect& area, bool drawImage) const {
  painter.save();
  painter.fillRect(area, palette().color(QPalette::Base));
  const QRectF plot = plotRectIn(area);
  const QColor text = palette().color(QPalette::Text);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  if (!grid_.valid() || (drawImage && image().isNull())) {
    painter.setPen(text);
    painter.drawText(plot, Qt::AlignCenter, tr("No %1").arg(figureTitle_.toLower()));
    painter.restore();
    return;
  }
  // The image: the visible bins, one image pixel per bin (flipped: image row 0 is the top). On
  // screen the GL canvas may draw it instead.
  if (drawImage) {
    const QRectF source(c0_, grid_.rows - r1_, c1_ - c0_, r1_ - r0_);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(plot, image(), source);
    // The overlay over the image; on screen the canvas draws it over its own.
    if (!overlay_.empty()) {
      painter.save();
      painter.setClipRect(plot);
      painter.setRenderHint(QPainter::Antialiasing, true);
      drawOverlayCurves(painter, overlayIn(plot));
      painter.restore();
    }
  }
  painter.setPen(text);
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(plot);

  // Time axis.
  const double t0 = visibleTimeStart(), t1 = visibleTimeEnd();
  const int timeTicks = std::max(2, static_cast<int>(plot.width() / 90));
  for (double t : linearTicks(t0, t1, timeTicks)) {
    const double x = plot.left() + (colOfTime(t) - c0_) / (c1_ - c0_) * plot.width();
    painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    const QString label = formatTick(t);
    painter.drawText(QPointF(x - fm.horizontalAdvance(label) / 2, plot.bottom() + 6 + fm.ascent()),
                     label);
  }
  const QString timeTitle = tr("Time (s)");
  painter.drawText(QPointF(plot.center().x() - fm.horizontalAdvance(timeTitle) / 2,
                           plot.bottom() + 8 + fm.height() + fm.ascent()),
                   timeTitle);

  // Frequency axis.
  const double f0 = visibleFrequencyLow(), f1 = visibleFrequencyHigh();
  const auto fTicks = grid_.logFrequency
                          ? logTicks(f0, f1)
                          : linearTicks(f0, f1, std::max(2, static_cast<int>(plot.height() / 40)));
  for (double f : fTicks) {
    const double y = plot.bottom() - (rowOfFrequency(f) - r0_) / (r1_ - r0_) * plot.height();
    painter.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
    const QString label = formatTick(f);
    painter.drawText(
        QPointF(plot.left() - 6 - fm.horizontalAdvance(label), y + fm.ascent() / 2 - 1), label);
  }
  painter.save();
  painter.translate(area.left() + fm.height() * 0.5 + 2, plot.center().y());
  painter.rotate(-90);
  const QString fTitle = tr("Frequency (Hz)");
  painter.drawText(QPointF(-fm.horizontalAdvance(fTitle) / 2, fm.ascent() / 2), fTitle);
  painter.restore();

  // Colour bar, drawn from the same table and scale as the image.
  const QRectF bar(plot.right() + kBarGap, plot.top(), kBarWidth, plot.height());
  const int steps = std::max(2, static_cast<int>(bar.height()));
  for (int i = 0; i < steps; ++i) {
    const double t = (i + 0.5) / steps;
    const double y0 = bar.bottom() - (i + 1) * bar.height() / steps;
    painter.fillRect(QRectF(bar.left(), y0, bar.width(), bar.height() / steps + 0.5),
                     QColor(map_.colourAt(t)));
  }
  painter.drawRect(bar);
  const auto vTicks = scale_.kind == ColourScaleKind::Log ? logTicks(scale_.low, scale_.high)
                                                          : linearTicks(scale_.low, scale_.high, 5);
  for (double v : vTicks) {
    const double y = bar.bottom() - scale_.position(v) * bar.height();
    painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
    painter.drawText(QPointF(bar.right() + 5, y + fm.ascent() / 2 - 1), formatTick(v));
  }
  painter.save();
  painter.translate(area.right() - 4, plot.center().y());
  painter.rotate(-90);
  const QString vTitle = QStringLiteral("%1 (%2%3)")
                             .arg(grid_.quantity, grid_.valueUnit,
                                  scale_.kind == ColourScaleKind::Log ? tr(", log") : QString());
  painter.drawText(QPointF(-fm.horizontalAdvance(vTitle) / 2, 0), vTitle);
  painter.restore();
  painter.restore();
}

void HilbertSpectrumView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const bool canvas = canvasDraws();
  renderFrame(painter, rect(), !canvas);
  if (dragging_ && !canvas) {  // else the canvas draws the rubber band over its image
    painter.setPen(QPen(Qt::white, 1, Qt::DashLine));
    painter.setBrush(QColor(255, 255, 255, 40));
    painter.drawRect(QRectF(dragStart_, dragNow_).normalized());
  }
}

void HilbertSpectrumView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  syncCanvas();
}

bool HilbertSpectrumView::event(QEvent* event) {
  // The drawing path as a tool tip over the axes and colour bar, not over the image, where the
  // read-out is what the user looks at.
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    if (plotRect().contains(help->pos())) {
      QToolTip::hideText();
      event->ignore();
    } else {
      QToolTip::showText(help->globalPos(), drawingPath_, this);
    }
    return true;
  }
  return QWidget::event(event);
}

bool HilbertSpectrumView::exportImage(const QString& path, QString* error) const {
  return exportView(
      path, size(), [this](QPainter& p, const QRect& area) { renderTo(p, area); }, figureTitle_,
      error);
}

void HilbertSpectrumView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::RightButton) {
    resetZoom();
    emitTimeWindow();
    return;
  }
  if (event->button() == Qt::LeftButton && plotRect().contains(event->position())) {
    dragging_ = true;
    dragStart_ = dragNow_ = event->position();
  }
}

void HilbertSpectrumView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    const QRectF p = plotRect();
    dragNow_ = QPointF(std::clamp(event->position().x(), p.left(), p.right()),
                       std::clamp(event->position().y(), p.top(), p.bottom()));
    if (canvasDraws())
      canvas_->setSelection(QRectF(dragStart_, dragNow_).normalized().translated(-canvas_->pos()));
    update();
  }
  const auto r = readoutAt(event->position());
  const QString text = r ? readoutText(*r) : QString();
  if (text != lastReadout_) {
    lastReadout_ = text;
    emit cursorMoved(text);
  }
}

void HilbertSpectrumView::mouseReleaseEvent(QMouseEvent* event) {
  if (!dragging_ || event->button() != Qt::LeftButton) return;
  dragging_ = false;
  const QRectF sel = QRectF(dragStart_, dragNow_).normalized();
  if (canvas_) canvas_->setSelection({});
  update();
  if (sel.width() < kMinDragPixels || sel.height() < kMinDragPixels) return;
  const QRectF p = plotRect();
  const double a = c0_ + (sel.left() - p.left()) / p.width() * (c1_ - c0_);
  const double b = c0_ + (sel.right() - p.left()) / p.width() * (c1_ - c0_);
  const double lo = r0_ + (p.bottom() - sel.bottom()) / p.height() * (r1_ - r0_);
  const double hi = r0_ + (p.bottom() - sel.top()) / p.height() * (r1_ - r0_);
  zoomTo(timeOfCol(a), timeOfCol(b), frequencyOfRow(lo), frequencyOfRow(hi));
  emitTimeWindow();
}

void HilbertSpectrumView::mouseDoubleClickEvent(QMouseEvent*) {
  dragging_ = false;
  if (canvas_) canvas_->setSelection({});
  resetZoom();
  emitTimeWindow();
}

void HilbertSpectrumView::wheelEvent(QWheelEvent* event) {
  const QRectF p = plotRect();
  if (!grid_.valid() || !p.contains(event->position())) return;
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0) return;
  const double factor = std::pow(kWheelZoomPerNotch, -notches);  // wheel up zooms in
  const bool timeAxis = !(event->modifiers() & Qt::ControlModifier);
  const bool freqAxis = !(event->modifiers() & Qt::ShiftModifier);
  // Zoom about the bin under the cursor, keeping it where it is on screen.
  if (timeAxis) {
    const double fx = (event->position().x() - p.left()) / p.width();
    const double anchor = c0_ + fx * (c1_ - c0_);
    const double width = std::clamp((c1_ - c0_) * factor, 1.0, static_cast<double>(grid_.cols));
    c0_ = std::clamp(anchor - fx * width, 0.0, grid_.cols - width);
    c1_ = c0_ + width;
  }
  if (freqAxis) {
    const double fy = (p.bottom() - event->position().y()) / p.height();
    const double anchor = r0_ + fy * (r1_ - r0_);
    const double height = std::clamp((r1_ - r0_) * factor, 1.0, static_cast<double>(grid_.rows));
    r0_ = std::clamp(anchor - fy * height, 0.0, grid_.rows - height);
    r1_ = r0_ + height;
  }
  viewChanged();
  if (timeAxis) emitTimeWindow();
  event->accept();
}

void HilbertSpectrumView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_R || event->key() == Qt::Key_Escape) {
    resetZoom();
    emitTimeWindow();
    return;
  }
  QWidget::keyPressEvent(event);
}

void HilbertSpectrumView::leaveEvent(QEvent*) {
  if (!lastReadout_.isEmpty()) {
    lastReadout_.clear();
    emit cursorMoved(QString());
  }
}

}  // namespace modescope
