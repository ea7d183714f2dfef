// The 2-D scalp topography (scalp_map_view.h).
#include "widgets/scalp_map_view.h"

#include <QMouseEvent>
#include <QPaintDevice>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "engine/core/error.h"
#include "widgets/colour_map.h"

namespace modescope {
namespace {

// Head drawing in disc units (head circle radius 1): the nose tip and the ears' outer edge.
constexpr double kNoseTip = 1.11;
constexpr double kNoseHalfAngle = 0.11;  // radians either side of the midline, on the circle
constexpr double kEarOuter = 1.09;
// Room around the drawing, in disc units.
constexpr double kSceneMargin = 0.04;
// Interpolators kept in the shared cache (a few electrode sets: the ICA grid, a selection, ...).
constexpr std::size_t kCachedInterpolators = 4;

struct CachedInterpolator {
  std::vector<Position3> positions;
  int size = 0;
  double headPolarDegrees = kHeadCirclePolarDegrees;
  std::shared_ptr<const ScalpGridInterpolator> interpolator;
};

bool samePositions(const std::vector<Position3>& a, const std::vector<Position3>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].z != b[i].z) return false;
  }
  return true;
}

QString numberText(double v) {
  if (v == 0.0) return QStringLiteral("0");
  return QString::number(v, 'g', 3);
}

// `base` scaled by `factor`, at least 6 pt (or 8 px for fonts sized in pixels).
QFont scaledFont(const QFont& base, double factor) {
  QFont f = base;
  if (base.pointSizeF() > 0) {
    f.setPointSizeF(std::max(6.0, base.pointSizeF() * factor));
  } else if (base.pixelSize() > 0) {
    f.setPixelSize(std::max(8, static_cast<int>(std::lround(base.pixelSize() * factor))));
  }
  return f;
}

QPainterPath earPath(double side) {
  // One ear as two cubic arcs from the head circle out to kEarOuter and back, mirrored by `side`.
  QPainterPath p;
  p.moveTo(side * 0.993, 0.12);
  p.cubicTo(side * 1.05, 0.17, side * kEarOuter, 0.12, side * kEarOuter, 0.02);
  p.cubicTo(side * kEarOuter, -0.09, side * 1.06, -0.17, side * 0.99, -0.15);
  return p;
}

// Marching squares over the grid's cell centres: the line pieces of `level`, in disc units.
void contourSegments(const ScalpGrid& g, double level, std::vector<QLineF>& out) {
  const int n = g.size;
  const double cell = 2.0 * g.extent / n;
  auto at = [&](int r, int c) { return g.values[static_cast<std::size_t>(r * n + c)]; };
  auto point = [&](double r, double c) {
    return QPointF(-g.extent + (c + 0.5) * cell, g.extent - (r + 0.5) * cell);
  };
  auto cross = [&](double va, double vb) { return (level - va) / (vb - va); };
  for (int r = 0; r + 1 < n; ++r) {
    for (int c = 0; c + 1 < n; ++c) {
      const double a = at(r, c), b = at(r, c + 1), cc = at(r + 1, c + 1), d = at(r + 1, c);
      if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(cc) || !std::isfinite(d)) {
        continue;
      }
      const bool ua = a > level, ub = b > level, uc = cc > level, ud = d > level;
      // Crossings on the edges top (a-b), right (b-c), bottom (d-c), left (a-d).
      QPointF edge[4];
      bool has[4] = {ua != ub, ub != uc, ud != uc, ua != ud};
      if (has[0]) edge[0] = point(r, c + cross(a, b));
      if (has[1]) edge[1] = point(r + cross(b, cc), c + 1);
      if (has[2]) edge[2] = point(r + 1, c + cross(d, cc));
      if (has[3]) edge[3] = point(r + cross(a, d), c);
      const int count = has[0] + has[1] + has[2] + has[3];
      if (count == 2) {
        QPointF p[2];
        int k = 0;
        for (int e = 0; e < 4; ++e) {
          if (has[e]) p[k++] = edge[e];
        }
        out.emplace_back(p[0], p[1]);
      } else if (count == 4) {
        // A saddle: the centre decides which opposite corners connect.
        const bool centreUp = (a + b + cc + d) / 4.0 > level;
        if (centreUp == ua) {  // a and c connect through the centre: cut off b and d
          out.emplace_back(edge[0], edge[1]);
          out.emplace_back(edge[2], edge[3]);
        } else {  // b and d connect: cut off a and c
          out.emplace_back(edge[3], edge[0]);
          out.emplace_back(edge[1], edge[2]);
        }
      }
    }
  }
}

}  // namespace

std::shared_ptr<const ScalpGridInterpolator> sharedScalpInterpolator(
    const std::vector<Position3>& positions, double headPolarDegrees, int size) {
  static std::deque<CachedInterpolator> cache;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->size == size && it->headPolarDegrees == headPolarDegrees &&
        samePositions(it->positions, positions)) {
      CachedInterpolator hit = *it;
      cache.erase(it);
      cache.push_front(hit);
      return hit.interpolator;
    }
  }
  const SphericalSpline spline(positions);
  auto interpolator =
      std::make_shared<const ScalpGridInterpolator>(spline, positions, size, headPolarDegrees);
  cache.push_front({positions, size, headPolarDegrees, interpolator});
  if (cache.size() > kCachedInterpolators) cache.pop_back();
  return interpolator;
}

struct ScalpMapView::State {
  QString title, unit, message;
  std::vector<QPointF> electrodes;  // disc units
  QStringList electrodeNames;
  QStringList unmapped;
  ScalpGrid grid;
  double valueLow = 0.0, valueHigh = 0.0;  // the electrodes' own values (sequential scale)
  bool hasMap = false;

  bool compact = false, marked = false, highlighted = false;
  bool labels = false, contours = true, symmetric = true;
  double fixedHalfRange = 0.0;  // setSymmetricRange; 0 = the map's own

  double low = 0.0, high = 0.0;
  std::vector<double> levels;
  std::vector<QLineF> segments;  // contour pieces, disc units
  QImage colours;                // grid.size square, transparent outside the field

  // The colour image scaled to the last drawn size (device pixels).
  mutable QImage scaled;
  mutable QSize scaledFor;
};

// Where the parts of the figure go inside an area.
struct ScalpMapView::Geometry {
  QPointF centre;
  double scale = 1.0;  // pixels per disc unit
  QRectF title, bar, notShown;
  QString notShownText;
  QFont titleFont, smallFont;
  QStringList ticks;
  std::vector<double> tickValues;

  QPointF toPixel(double x, double y) const {
    return QPointF(centre.x() + x * scale, centre.y() - y * scale);
  }
};

void drawHeadOutline(QPainter& painter, const QPointF& centre, double scale, const QPen& pen) {
  QPen line(pen);
  line.setJoinStyle(Qt::RoundJoin);
  painter.save();
  painter.setPen(line);
  painter.setBrush(Qt::NoBrush);
  painter.drawEllipse(centre, scale, scale);
  auto toPixel = [&](double x, double y) {
    return QPointF(centre.x() + x * scale, centre.y() - y * scale);
  };
  QPolygonF nose;
  nose << toPixel(-std::sin(kNoseHalfAngle), std::cos(kNoseHalfAngle)) << toPixel(0.0, kNoseTip)
       << toPixel(std::sin(kNoseHalfAngle), std::cos(kNoseHalfAngle));
  painter.drawPolyline(nose);
  for (double sideSign : {-1.0, 1.0}) {
    QTransform t;
    t.translate(centre.x(), centre.y());
    t.scale(scale, -scale);
    painter.drawPath(t.map(earPath(sideSign)));
  }
  painter.restore();
}

ScalpMapView::ScalpMapView(QWidget* parent) : QWidget(parent), state_(std::make_unique<State>()) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  state_->message = tr("No map");
}

ScalpMapView::~ScalpMapView() = default;

void ScalpMapView::setMap(const std::vector<ChannelInfo>& channels,
                          const std::vector<double>& values, const QString& title,
                          const QString& unit) {
  if (values.size() != channels.size()) {
    clear();
    state_->title = title;
    state_->message = tr("Cannot draw the map: %1 values for %2 channels")
                          .arg(values.size())
                          .arg(channels.size());
    update();
    return;
  }
  // Channels with a non-finite value cannot be drawn either: listed as "X (no value)".
  std::vector<bool> noValue(channels.size(), false);
  for (std::size_t i = 0; i < channels.size(); ++i) noValue[i] = !std::isfinite(values[i]);
  const ScalpLayout layout = scalpLayout(channels, noValue);
  std::vector<double> mapped;
  mapped.reserve(layout.mapped.size());
  for (std::size_t i : layout.mapped) mapped.push_back(values[i]);
  try {
    const auto interpolator = sharedScalpInterpolator(layout.positions, layout.headPolarDegrees);
    setInterpolated(channels, layout, mapped, interpolator->grid(mapped), title, unit);
  } catch (const Error& e) {
    clear();
    state_->title = title;
    for (const auto& name : layout.unmapped) state_->unmapped << QString::fromStdString(name);
    state_->message = layout.positions.size() < 3
                          ? tr("Cannot draw the map: %1 channel(s) with a known position, at "
                               "least 3 needed")
                                .arg(layout.positions.size())
                          : tr("Cannot draw the map: %1").arg(QString::fromUtf8(e.what()));
    rebuild();
  }
}

void ScalpMapView::setInterpolated(const std::vector<ChannelInfo>& channels,
                                   const ScalpLayout& layout,
                                   const std::vector<double>& mappedValues, ScalpGrid grid,
                                   const QString& title, const QString& unit) {
  State& s = *state_;
  s.title = title;
  s.unit = unit;
  s.unmapped.clear();
  for (const auto& name : layout.unmapped) s.unmapped << QString::fromStdString(name);
  s.electrodes.clear();
  s.electrodeNames.clear();
  for (std::size_t k = 0; k < layout.mapped.size(); ++k) {
    const DiscPoint d = projectToDisc(layout.positions[k], layout.headPolarDegrees);
    s.electrodes.emplace_back(d.x, d.y);
    const std::size_t i = layout.mapped[k];
    const ChannelInfo& ch = channels.at(i);
    s.electrodeNames << QString::fromStdString(ch.name.empty() ? ch.label : ch.name);
  }
  s.valueLow = s.valueHigh = 0.0;
  if (!mappedValues.empty()) {
    const auto [lo, hi] = std::minmax_element(mappedValues.begin(), mappedValues.end());
    s.valueLow = *lo;
    s.valueHigh = *hi;
  }
  s.grid = std::move(grid);
  s.hasMap = s.grid.size > 0 &&
             s.grid.values.size() == static_cast<std::size_t>(s.grid.size) * s.grid.size;
  s.message = s.hasMap ? QString() : tr("No map");
  rebuild();
}

void ScalpMapView::clear() {
  State& s = *state_;
  s.title.clear();
  s.unit.clear();
  s.unmapped.clear();
  s.electrodes.clear();
  s.electrodeNames.clear();
  s.grid = {};
  s.hasMap = false;
  s.message = tr("No map");
  rebuild();
}

void ScalpMapView::rebuild() {
  State& s = *state_;
  s.levels.clear();
  s.segments.clear();
  s.colours = QImage();
  s.scaled = QImage();
  s.scaledFor = QSize();
  s.low = s.high = 0.0;
  if (s.hasMap) {
    const double lo = s.grid.minValue, hi = s.grid.maxValue;
    if (s.symmetric) {
      double m = s.fixedHalfRange > 0 ? s.fixedHalfRange : std::max(std::abs(lo), std::abs(hi));
      if (!(m > 0.0) || !std::isfinite(m)) m = 1.0;
      s.low = -m;
      s.high = m;
    } else {
      // A sequential quantity (r^2, power) spans the electrodes' values: the spherical spline
      // overshoots between electrodes (below 0 for a non-negative quantity), and the colours
      // clamp to the bar's ends there instead of stretching the bar to the artefact.
      s.low = s.valueLow < s.valueHigh ? s.valueLow : lo;
      s.high = s.valueLow < s.valueHigh ? s.valueHigh : hi;
      if (!(s.high > s.low)) {
        const double pad = std::max(std::abs(lo) * 0.05, 0.5);
        s.low = lo - pad;
        s.high = hi + pad;
      }
    }
    // Contours: 7 levels. Symmetric: +-1/4, +-2/4, +-3/4 of max|v| and the zero line; sequential:
    // the 7 inner eighths of the range. Levels outside the data draw nothing.
    if (s.contours) {
      for (int k = 1; k <= 7; ++k) {
        const double level =
            s.symmetric ? s.high * (k - 4) / 4.0 : s.low + (s.high - s.low) * k / 8.0;
        if (level > s.grid.minValue && level < s.grid.maxValue) s.levels.push_back(level);
      }
      for (double level : s.levels) contourSegments(s.grid, level, s.segments);
    }
    const ColourMap map = s.symmetric ? ColourMap::blueWhiteRed() : ColourMap::viridis();
    const int n = s.grid.size;
    s.colours = QImage(n, n, QImage::Format_ARGB32);
    const double span = s.high - s.low;
    for (int r = 0; r < n; ++r) {
      auto* line = reinterpret_cast<QRgb*>(s.colours.scanLine(r));
      for (int c = 0; c < n; ++c) {
        const double v = s.grid.values[static_cast<std::size_t>(r * n + c)];
        line[c] = std::isfinite(v) ? map.colourAt((v - s.low) / span) : qRgba(0, 0, 0, 0);
      }
    }
  }
  QString tip = s.title;
  if (!s.unmapped.isEmpty()) {
    if (!tip.isEmpty()) tip += QLatin1Char('\n');
    tip += tr("Not shown (no position): %1").arg(s.unmapped.join(QStringLiteral(", ")));
  }
  if (!s.message.isEmpty() && !s.hasMap) tip = s.message;
  setToolTip(tip);
  update();
}

void ScalpMapView::setCompact(bool compact) {
  if (state_->compact == compact) return;
  state_->compact = compact;
  updateGeometry();
  update();
}

bool ScalpMapView::isCompact() const { return state_->compact; }

void ScalpMapView::setMarked(bool marked) {
  if (state_->marked == marked) return;
  state_->marked = marked;
  update();
}

bool ScalpMapView::isMarked() const { return state_->marked; }

void ScalpMapView::setHighlighted(bool highlighted) {
  if (state_->highlighted == highlighted) return;
  state_->highlighted = highlighted;
  update();
}

bool ScalpMapView::isHighlighted() const { return state_->highlighted; }

void ScalpMapView::setShowElectrodeLabels(bool show) {
  if (state_->labels == show) return;
  state_->labels = show;
  update();
}

void ScalpMapView::setShowContours(bool show) {
  if (state_->contours == show) return;
  state_->contours = show;
  rebuild();
}

void ScalpMapView::setSymmetricScale(bool symmetric) {
  if (state_->symmetric == symmetric) return;
  state_->symmetric = symmetric;
  rebuild();
}

void ScalpMapView::setSymmetricRange(double halfRange) {
  const double h = std::isfinite(halfRange) && halfRange > 0 ? halfRange : 0.0;
  if (state_->fixedHalfRange == h) return;
  state_->fixedHalfRange = h;
  rebuild();
}

QString ScalpMapView::title() const { return state_->title; }

QStringList ScalpMapView::unmappedChannels() const { return state_->unmapped; }

QString ScalpMapView::message() const { return state_->hasMap ? QString() : state_->message; }

double ScalpMapView::scaleLow() const { return state_->low; }

double ScalpMapView::scaleHigh() const { return state_->high; }

std::vector<double> ScalpMapView::contourLevels() const { return state_->levels; }

QSize ScalpMapView::sizeHint() const { return state_->compact ? QSize(120, 132) : QSize(420, 360); }

QSize ScalpMapView::minimumSizeHint() const {
  return state_->compact ? QSize(56, 66) : QSize(200, 170);
}

void ScalpMapView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  render(painter, rect());
}

void ScalpMapView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    emit clicked();
    event->accept();
    return;
  }
  QWidget::mousePressEvent(event);
}

void ScalpMapView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    emit doubleClicked();
    event->accept();
    return;
  }
  QWidget::mouseDoubleClickEvent(event);
}

ScalpMapView::Geometry ScalpMapView::geometry(const QRect& area, const QPaintDevice* device) const {
  const State& s = *state_;
  Geometry g;
  const double pad = s.compact ? 3.0 : 8.0;
  QRectF free = QRectF(area).adjusted(pad, pad, -pad, -pad);
  QFont& titleFont = g.titleFont;
  titleFont = scaledFont(font(), s.compact ? 0.85 : 1.1);
  titleFont.setBold(true);
  QFont& smallFont = g.smallFont;
  smallFont = scaledFont(font(), s.compact ? 0.75 : 0.85);
  const QFontMetricsF titleMetrics(titleFont, device);
  const QFontMetricsF smallMetrics(smallFont, device);
  if (!s.title.isEmpty()) {
    g.title = QRectF(free.left(), free.top(), free.width(), titleMetrics.height());
    free.setTop(g.title.bottom() + (s.compact ? 1.0 : 4.0));
  }
  if (!s.compact && !s.unmapped.isEmpty()) {
    // Up to two lines; past that the list ends in "+N more" (the tooltip has all of them).
    const QString prefix = tr("Not shown (no position): ");
    QString text;
    for (int shown = static_cast<int>(s.unmapped.size()); shown >= 1; --shown) {
      text = prefix + s.unmapped.mid(0, shown).join(QStringLiteral(", "));
      if (shown < s.unmapped.size()) text += tr(" +%1 more").arg(s.unmapped.size() - shown);
      const QRectF need =
          smallMetrics.boundingRect(QRectF(0, 0, free.width(), 1e6), Qt::TextWordWrap, text);
      if (need.height() <= 2.0 * smallMetrics.lineSpacing() + 0.5) break;
    }
    const QRectF need =
        smallMetrics.boundingRect(QRectF(0, 0, free.width(), 1e6), Qt::TextWordWrap, text);
    const double h = std::min(need.height(), 2.0 * smallMetrics.lineSpacing() + 0.5);
    g.notShown = QRectF(free.left(), free.bottom() - h, free.width(), h);
    g.notShownText = text;
    free.setBottom(g.notShown.top() - 4.0);
  }
  const bool bar = !s.compact && s.hasMap;
  QStringList& ticks = g.ticks;
  std::vector<double>& tickValues = g.tickValues;
  if (bar) {
    for (int k = 0; k <= 4; ++k) tickValues.push_back(s.low + (s.high - s.low) * k / 4.0);
    double labelWidth = smallMetrics.horizontalAdvance(s.unit);
    for (double v : tickValues) {
      ticks << numberText(std::abs(v) < 1e-12 * (s.high - s.low) ? 0.0 : v);
      labelWidth = std::max(labelWidth, smallMetrics.horizontalAdvance(ticks.back()));
    }
    const double barWidth = 12.0;
    const double block = 10.0 + barWidth + 4.0 + labelWidth;
    const double top = free.top() + smallMetrics.height() + 6.0;
    const double height =
        std::max(20.0, std::min(free.height() - (top - free.top()) - 4.0, free.width() * 0.8));
    g.bar = QRectF(free.right() - block + 10.0, top + (free.bottom() - top - height) / 2.0,
                   barWidth, height);
    free.setRight(free.right() - block);
  }
  const double half = std::max(s.hasMap ? s.grid.radius : 1.0, kNoseTip) + kSceneMargin;
  const double side = std::max(1.0, std::min(free.width(), free.height()));
  g.scale = side / (2.0 * half);
  g.centre = free.center();

  return g;
}

QPointF ScalpMapView::pixelForDisc(double x, double y, const QRect& area) const {
  return geometry(area.isNull() ? rect() : area, this).toPixel(x, y);
}

void ScalpMapView::render(QPainter& painter, const QRect& area) const {
  const State& s = *state_;
  painter.save();
  painter.setClipRect(area, Qt::IntersectClip);
  painter.fillRect(area, palette().color(QPalette::Base));
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
  const QColor ink = palette().color(QPalette::Text);

  const Geometry g = geometry(area, painter.device());
  const QFontMetricsF titleMetrics(g.titleFont, painter.device());
  const QFontMetricsF smallMetrics(g.smallFont, painter.device());
  const QFont& titleFont = g.titleFont;
  const QFont& smallFont = g.smallFont;
  const QStringList& ticks = g.ticks;
  const std::vector<double>& tickValues = g.tickValues;
  const bool bar = !g.bar.isNull();
  auto toPixel = [&](double x, double y) { return g.toPixel(x, y); };

  // --- Title.
  if (!g.title.isNull()) {
    painter.setFont(titleFont);
    painter.setPen(ink);
    painter.drawText(g.title, Qt::AlignHCenter | Qt::AlignVCenter,
                     titleMetrics.elidedText(s.title, Qt::ElideRight, g.title.width()));
  }

  // --- The map, clipped to its radius, with its contours.
  const double headPen = s.compact ? 1.0 : 1.6;
  if (s.hasMap && !s.colours.isNull()) {
    const double e = s.grid.extent;
    const QRectF imageRect(toPixel(-e, e), toPixel(e, -e));
    // Scale once per drawn size (device pixels; vector outputs get a 3x image so the PDF/SVG
    // map is not blocky).
    const QPaintDevice* device = painter.device();
    const bool raster =
        device && (device->devType() == QInternal::Widget ||
                   device->devType() == QInternal::Image || device->devType() == QInternal::Pixmap);
    const QTransform world = painter.worldTransform();
    double pixelScale =
        std::hypot(world.m11(), world.m12()) * (device ? device->devicePixelRatioF() : 1.0);
    if (!raster) pixelScale = std::max(pixelScale, 3.0);
    const QSize pixels(std::max(1, static_cast<int>(std::lround(imageRect.width() * pixelScale))),
                       std::max(1, static_cast<int>(std::lround(imageRect.height() * pixelScale))));
    if (s.scaledFor != pixels) {
      s.scaled = s.colours.scaled(pixels, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
      s.scaledFor = pixels;
    }
    painter.save();
    QPainterPath clip;
    const double r = s.grid.radius * g.scale;
    clip.addEllipse(g.centre, r, r);
    painter.setClipPath(clip, Qt::IntersectClip);
    painter.drawImage(imageRect, s.scaled);
    if (!s.segments.empty()) {
      QPen contourPen(QColor(20, 20, 20, 150));
      contourPen.setWidthF(s.compact ? 0.5 : 0.8);
      contourPen.setCosmetic(true);
      painter.setPen(contourPen);
      std::vector<QLineF> lines;
      lines.reserve(s.segments.size());
      for (const QLineF& l : s.segments) {
        lines.emplace_back(toPixel(l.x1(), l.y1()), toPixel(l.x2(), l.y2()));
      }
      painter.drawLines(lines.data(), static_cast<int>(lines.size()));
    }
    painter.restore();
    if (std::abs(s.grid.radius - 1.0) > 1e-9) {
      // The map ends inside or past the head circle (at its outermost electrode): a faint edge
      // where it ends (also hides the clip's unsmoothed rim).
      QPen edge(QColor(128, 128, 128));
      edge.setWidthF(0.8);
      painter.setPen(edge);
      painter.setBrush(Qt::NoBrush);
      painter.drawEllipse(g.centre, r, r);
    }
  }

  // --- Head: circle at the 10-20 ring, nose, ears.
  QPen headLine(ink);
  headLine.setWidthF(headPen);
  drawHeadOutline(painter, g.centre, g.scale, headLine);

  // --- Electrodes.
  if (s.hasMap) {
    const double dot = s.compact ? (g.scale > 40.0 ? 1.1 : 0.8) : 1.9;
    painter.setPen(Qt::NoPen);
    painter.setBrush(ink);
    for (const QPointF& p : s.electrodes) painter.drawEllipse(toPixel(p.x(), p.y()), dot, dot);
    if (s.labels && !s.compact) {
      painter.setFont(smallFont);
      painter.setPen(ink);
      for (std::size_t i = 0; i < s.electrodes.size(); ++i) {
        const QPointF p = toPixel(s.electrodes[i].x(), s.electrodes[i].y());
        painter.drawText(QPointF(p.x() + dot + 1.5, p.y() - dot - 1.0),
                         s.electrodeNames.value(static_cast<int>(i)));
      }
    }
  } else {
    painter.setFont(smallFont);
    painter.setPen(palette().color(QPalette::PlaceholderText));
    const double r = g.scale * 0.9;
    painter.drawText(QRectF(g.centre.x() - r, g.centre.y() - r, 2 * r, 2 * r),
                     Qt::AlignCenter | Qt::TextWordWrap, s.message);
  }

  // --- Colour bar with ticks and unit.
  if (bar) {
    const ColourMap map = s.symmetric ? ColourMap::blueWhiteRed() : ColourMap::viridis();
    const int steps = std::max(2, static_cast<int>(g.bar.height()));
    for (int i = 0; i < steps; ++i) {
      const double t = (i + 0.5) / steps;  // i = 0 at the top: the high end
      const double y0 = g.bar.top() + g.bar.height() * i / steps;
      painter.fillRect(QRectF(g.bar.left(), y0, g.bar.width(), g.bar.height() / steps + 0.6),
                       QColor(map.colourAt(1.0 - t)));
    }
    QPen frame(ink);
    frame.setWidthF(0.8);
    painter.setPen(frame);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.bar);
    painter.setFont(smallFont);
    for (std::size_t k = 0; k < tickValues.size(); ++k) {
      const double y = g.bar.bottom() - g.bar.height() * static_cast<double>(k) / 4.0;
      painter.drawLine(QPointF(g.bar.right(), y), QPointF(g.bar.right() + 3.0, y));
      painter.drawText(QRectF(g.bar.right() + 5.0, y - smallMetrics.height() / 2.0, 200.0,
                              smallMetrics.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, ticks.value(static_cast<int>(k)));
    }
    if (!s.unit.isEmpty()) {
      painter.drawText(QRectF(g.bar.left(), g.bar.top() - smallMetrics.height() - 4.0,
                              area.right() - g.bar.left(), smallMetrics.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, s.unit);
    }
  }

  // --- Channels not shown.
  if (!g.notShown.isNull()) {
    painter.setFont(smallFont);
    painter.setPen(ink);
    painter.drawText(g.notShown, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, g.notShownText);
  }

  // --- Frames: current (highlight) and marked (red, over it).
  painter.setBrush(Qt::NoBrush);
  if (s.highlighted) {
    QPen p(palette().color(QPalette::Highlight));
    p.setWidthF(2.0);
    painter.setPen(p);
    painter.drawRect(QRectF(area).adjusted(1.0, 1.0, -1.0, -1.0));
  }
  if (s.marked) {
    QPen p(QColor(220, 30, 30));
    p.setWidthF(3.0);
    painter.setPen(p);
    painter.drawRect(QRectF(area).adjusted(s.highlighted ? 3.5 : 1.5, s.highlighted ? 3.5 : 1.5,
                                           s.highlighted ? -3.5 : -1.5,
                                           s.highlighted ? -3.5 : -1.5));
  }
  painter.restore();
}

}  // namespace modescope
