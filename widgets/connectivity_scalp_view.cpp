#include "widgets/connectivity_scalp_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/montage/scalp_interpolation.h"
#include "widgets/colour_map.h"
#include "widgets/scalp_map_view.h"

namespace modescope {
namespace {

constexpr double kMinLineWidth = 1.2;  // px: the weakest drawn line stays visible
constexpr double kMaxLineWidth = 5.0;  // px: the strongest, still thinner than a label
constexpr double kMargin = 0.06;       // disc units around the head
constexpr double kViridisTop = 0.85;   // the lightest viridis position used for lines
constexpr double kArcBulge = 0.08;     // a line's arc height over its length

QString numberText(double v) {
  if (v == 0.0) return QStringLiteral("0");
  return QString::number(v, 'g', 3);
}

}  // namespace

struct ConnectivityScalpView::Geometry {
  QPointF centre;
  double scale = 1.0;  // pixels per disc unit
  QRectF title, bar, legend, notShown;
  QPointF toPixel(double x, double y) const {
    return {centre.x() + x * scale, centre.y() - y * scale};
  }
};

ConnectivityScalpView::ConnectivityScalpView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("connectivityScalpView"));
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void ConnectivityScalpView::setMatrix(const std::vector<ChannelInfo>& channels,
                                      const std::vector<double>& values, const QString& title,
                                      const QString& valueName, bool signedScale) {
  title_ = title;
  valueName_ = valueName;
  signed_ = signedScale;
  if (values.size() != channels.size() * channels.size()) {
    channels_.clear();
    values_.clear();
    message_ = tr("%1 values for %2 channels: expected %3")
                   .arg(values.size())
                   .arg(channels.size())
                   .arg(channels.size() * channels.size());
    rebuild();
    return;
  }
  channels_ = channels;
  values_ = values;
  message_.clear();
  rebuild();
}

void ConnectivityScalpView::clear() {
  channels_.clear();
  values_.clear();
  message_.clear();
  title_.clear();
  rebuild();
}

void ConnectivityScalpView::setPick(Pick pick) {
  pick_ = pick;
  rebuild();
}

void ConnectivityScalpView::setLineCount(int k) {
  k_ = std::max(1, k);
  rebuild();
}

void ConnectivityScalpView::rebuild() {
  const std::size_t c = channels_.size();
  disc_.assign(c, QPointF(std::nan(""), std::nan("")));
  names_.clear();
  unmapped_.clear();
  lines_.clear();
  ranked_ = 0;
  for (const ChannelInfo& ch : channels_) names_ << QString::fromStdString(ch.name);
  if (c > 0) {
    // The layout's own head circle (positions in another frame are rescaled like the scalp map).
    const ScalpLayout layout = scalpLayout(channels_);
    for (std::size_t i = 0; i < layout.mapped.size(); ++i) {
      const DiscPoint d = projectToDisc(layout.positions[i], layout.headPolarDegrees);
      disc_[layout.mapped[i]] = QPointF(d.x, d.y);
    }
    for (const std::string& n : layout.unmapped) unmapped_ << QString::fromStdString(n);
  }
  std::vector<Line> pairs;
  for (std::size_t u = 0; u < c; ++u) {
    if (!std::isfinite(disc_[u].x())) continue;
    for (std::size_t v = u + 1; v < c; ++v) {
      if (!std::isfinite(disc_[v].x())) continue;
      const double a = values_[u * c + v], b = values_[v * c + u];
      const bool fa = std::isfinite(a), fb = std::isfinite(b);
      if (!fa && !fb) continue;
      pairs.push_back({u, v, fa && fb ? 0.5 * (a + b) : (fa ? a : b)});
    }
  }
  ranked_ = static_cast<int>(pairs.size());
  // stable_sort keeps the (u, v) order among equal values: deterministic picks.
  std::stable_sort(pairs.begin(), pairs.end(), [this](const Line& x, const Line& y) {
    return pick_ == Pick::Lowest ? x.value < y.value : x.value > y.value;
  });
  if (static_cast<int>(pairs.size()) > k_) pairs.resize(static_cast<std::size_t>(k_));
  lines_ = std::move(pairs);
  if (!lines_.empty()) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Line& l : lines_) {
      lo = std::min(lo, l.value);
      hi = std::max(hi, l.value);
    }
    if (signed_) {
      const double m = std::max({std::abs(lo), std::abs(hi), 1e-300});
      lo = -m;
      hi = m;
    } else if (!(hi > lo)) {
      // One value (or all equal): a small range around it so the bar has two ends.
      const double pad = std::max(std::abs(lo) * 1e-3, 1e-12);
      lo -= pad;
      hi += pad;
    }
    low_ = lo;
    high_ = hi;
  } else {
    low_ = 0.0;
    high_ = 1.0;
  }
  if (message_.isEmpty() && c > 0 && lines_.empty())
    message_ = tr("No pair to draw: fewer than two channels with a position and a value");
  update();
}

QString ConnectivityScalpView::legendText() const {
  const QString which = pick_ == Pick::Lowest ? tr("lowest") : tr("highest");
  return tr("%1 %2 of %3 pairs (mean of both directions)")
      .arg(lines_.size())
      .arg(which)
      .arg(ranked_);
}

QColor ConnectivityScalpView::colourFor(double v) const {
  static const ColourMap viridis = ColourMap::viridis();
  static const ColourMap diverging = ColourMap::blueWhiteRed();
  const double t = high_ > low_ ? (v - low_) / (high_ - low_) : 0.5;
  // Viridis stops short of its pale yellow end, which would vanish as a thin line on white.
  const double u = std::clamp(t, 0.0, 1.0);
  return QColor(signed_ ? diverging.colourAt(u) : viridis.colourAt(kViridisTop * u));
}

ConnectivityScalpView::Geometry ConnectivityScalpView::geometry(const QRect& area) const {
  Geometry g;
  QRectF free = QRectF(area).adjusted(8, 8, -8, -8);
  const QFontMetricsF fm(font());
  if (!title_.isEmpty()) {
    g.title = QRectF(free.left(), free.top(), free.width(), fm.height() * 1.2);
    free.setTop(g.title.bottom() + 4);
  }
  // Legend line and the not-shown list at the bottom.
  g.legend = QRectF(free.left(), free.bottom() - fm.height(), free.width(), fm.height());
  free.setBottom(g.legend.top() - 2);
  if (!unmapped_.isEmpty()) {
    g.notShown = QRectF(free.left(), free.bottom() - 2 * fm.lineSpacing(), free.width(),
                        2 * fm.lineSpacing());
    free.setBottom(g.notShown.top() - 2);
  }
  if (!lines_.empty()) {
    const double labelWidth =
        std::max({fm.horizontalAdvance(numberText(low_)), fm.horizontalAdvance(numberText(high_)),
                  fm.horizontalAdvance(valueName_) * 0.5});
    const double block = 10 + 12 + 5 + labelWidth;
    const double height = std::max(20.0, free.height() * 0.6);
    g.bar = QRectF(free.right() - block + 10, free.center().y() - height / 2, 12, height);
    free.setRight(free.right() - block);
  }
  // The electrodes may lie beyond the head circle (lower 10-05 rows).
  double reach = kHeadOutlineReach;
  for (const QPointF& p : disc_)
    if (std::isfinite(p.x())) reach = std::max(reach, std::hypot(p.x(), p.y()) + 0.04);
  const double side = std::max(1.0, std::min(free.width(), free.height()));
  g.scale = side / (2.0 * (reach + kMargin));
  g.centre = free.center();
  return g;
}

QPainterPath ConnectivityScalpView::linePath(const Line& line, const Geometry& g) const {
  // A shallow arc, not a straight segment: pairs along one row of electrodes (CP3-CP1, CP3-CPz,
  // CP3-CP2, ...) would otherwise lie on top of each other. The arc bulges away from the head's
  // centre by kArcBulge of its length, so longer pairs rise higher and each stays visible.
  const QPointF a = g.toPixel(disc_[line.u].x(), disc_[line.u].y());
  const QPointF b = g.toPixel(disc_[line.v].x(), disc_[line.v].y());
  const QPointF mid = (a + b) / 2.0;
  const QPointF d = b - a;
  const double length = std::hypot(d.x(), d.y());
  QPainterPath path(a);
  if (length <= 0) return path;
  QPointF normal(-d.y() / length, d.x() / length);
  QPointF out = mid - g.centre;
  if (std::hypot(out.x(), out.y()) < 1e-6 * g.scale) out = QPointF(0.0, -1.0);  // centre: up
  if (normal.x() * out.x() + normal.y() * out.y() < 0) normal = -normal;
  path.quadTo(mid + normal * (2.0 * kArcBulge * length), b);
  return path;
}

QPointF ConnectivityScalpView::lineMidpoint(std::size_t i, const QRect& area) const {
  if (i >= lines_.size()) return {std::nan(""), std::nan("")};
  return linePath(lines_[i], geometry(area.isNull() ? rect() : area)).pointAtPercent(0.5);
}

QPointF ConnectivityScalpView::electrodePixel(std::size_t i, const QRect& area) const {
  if (i >= disc_.size() || !std::isfinite(disc_[i].x())) return {std::nan(""), std::nan("")};
  return geometry(area.isNull() ? rect() : area).toPixel(disc_[i].x(), disc_[i].y());
}

void ConnectivityScalpView::render(QPainter& painter, const QRect& area) const {
  painter.save();
  painter.setClipRect(area, Qt::IntersectClip);
  painter.fillRect(area, palette().color(QPalette::Base));
  painter.setRenderHint(QPainter::Antialiasing, true);
  const QColor ink = palette().color(QPalette::Text);
  const Geometry g = geometry(area);
  const QFontMetricsF fm(font(), painter.device());

  if (!g.title.isNull()) {
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(ink);
    painter.drawText(g.title, Qt::AlignCenter,
                     QFontMetricsF(bold).elidedText(title_, Qt::ElideRight, g.title.width()));
    painter.setFont(font());
  }
  QPen head(ink);
  head.setWidthF(1.6);
  drawHeadOutline(painter, g.centre, g.scale, head);

  // Lines, weakest first so the strongest end on top.
  for (auto it = lines_.rbegin(); it != lines_.rend(); ++it) {
    const double span = high_ - low_;
    double t = span > 0 ? (it->value - low_) / span : 1.0;
    if (signed_)
      t = span > 0 ? std::abs(it->value) / (0.5 * span) : 1.0;
    else if (pick_ == Pick::Lowest)
      t = 1.0 - t;
    QPen pen(colourFor(it->value));
    pen.setWidthF(kMinLineWidth + (kMaxLineWidth - kMinLineWidth) * std::clamp(t, 0.0, 1.0));
    pen.setCapStyle(Qt::RoundCap);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(linePath(*it, g));
  }
  // Electrodes with their names; those on a drawn line bold.
  std::vector<bool> used(disc_.size(), false);
  for (const Line& l : lines_) used[l.u] = used[l.v] = true;
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
  for (std::size_t i = 0; i < disc_.size(); ++i) {
    if (!std::isfinite(disc_[i].x())) continue;
    const QPointF p = g.toPixel(disc_[i].x(), disc_[i].y());
    painter.setPen(Qt::NoPen);
    painter.setBrush(used[i] ? ink : palette().color(QPalette::PlaceholderText));
    const double dot = used[i] ? 2.6 : 1.7;
    painter.drawEllipse(p, dot, dot);
    // Every name only while they fit (few channels, a large head); the used ones always.
    if (used[i] || (disc_.size() <= 32 && g.scale > 110.0)) {
      QFont f = small;
      f.setBold(used[i]);
      painter.setFont(f);
      painter.setPen(used[i] ? ink : palette().color(QPalette::PlaceholderText));
      painter.drawText(QPointF(p.x() + dot + 1.5, p.y() - dot - 1.0), names_.value(int(i)));
    }
  }
  painter.setBrush(Qt::NoBrush);
  painter.setFont(font());
  // Colour bar of the drawn values.
  if (!g.bar.isNull()) {
    const int steps = std::max(2, static_cast<int>(g.bar.height()));
    for (int i = 0; i < steps; ++i) {
      const double t = (i + 0.5) / steps;
      const double y0 = g.bar.top() + g.bar.height() * i / steps;
      painter.fillRect(QRectF(g.bar.left(), y0, g.bar.width(), g.bar.height() / steps + 0.6),
                       colourFor(high_ - t * (high_ - low_)));
    }
    QPen frame(ink);
    frame.setWidthF(0.8);
    painter.setPen(frame);
    painter.drawRect(g.bar);
    painter.drawText(QRectF(g.bar.right() + 4, g.bar.top() - fm.height() / 2, 200, fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, numberText(high_));
    painter.drawText(QRectF(g.bar.right() + 4, g.bar.bottom() - fm.height() / 2, 200, fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, numberText(low_));
    painter.drawText(
        QRectF(g.bar.left() - 40, g.bar.top() - 2.2 * fm.height(), g.bar.width() + 80, fm.height()),
        Qt::AlignCenter, valueName_);
  }
  painter.setPen(ink);
  if (!message_.isEmpty()) {
    painter.drawText(QRectF(area).adjusted(10, 10, -10, -10), Qt::AlignCenter | Qt::TextWordWrap,
                     message_);
  } else if (!channels_.empty()) {
    painter.drawText(g.legend, Qt::AlignLeft | Qt::AlignVCenter, legendText());
  }
  if (!g.notShown.isNull()) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(g.notShown, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                     tr("Not shown (no position): %1").arg(unmapped_.join(QStringLiteral(", "))));
  }
  painter.restore();
}

void ConnectivityScalpView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

}  // namespace modescope
