#include "widgets/curve_plot.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plot_axis.h"

namespace modescope {
namespace {

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

}  // namespace

CurvePlot::CurvePlot(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void CurvePlot::setCurves(std::vector<PlotCurve> curves) {
  curves_ = std::move(curves);
  message_.clear();
  updateRanges();
  update();
}

void CurvePlot::setLabels(const QString& title, const QString& xLabel, const QString& yLabel) {
  title_ = title;
  xLabel_ = xLabel;
  yLabel_ = yLabel;
  update();
}

void CurvePlot::setLogY(bool on) {
  logY_ = on;
  updateRanges();
  update();
}

void CurvePlot::setInvertY(bool on) {
  invertY_ = on;
  update();
}

void CurvePlot::setMarkers(std::vector<double> xs) {
  markers_ = std::move(xs);
  update();
}

void CurvePlot::setMessage(const QString& text) {
  message_ = text;
  curves_.clear();
  update();
}

void CurvePlot::updateRanges() {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const PlotCurve& c : curves_) {
    for (std::size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
      if (!std::isfinite(c.x[i])) continue;
      x0 = std::min(x0, c.x[i]);
      x1 = std::max(x1, c.x[i]);
      for (double v : {c.y[i], i < c.bandLow.size() ? c.bandLow[i] : c.y[i],
                       i < c.bandHigh.size() ? c.bandHigh[i] : c.y[i]}) {
        if (!usable(v, logY_)) continue;
        y0 = std::min(y0, v);
        y1 = std::max(y1, v);
      }
    }
  }
  if (!(x1 >= x0)) x0 = 0, x1 = 1;
  if (!(y1 >= y0)) y0 = logY_ ? 1 : 0, y1 = logY_ ? 10 : 1;
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) {
    if (logY_) {
      y0 /= 2;
      y1 *= 2;
    } else {
      y0 -= 1;
      y1 += 1;
    }
  }
  if (!logY_) {
    const double pad = 0.05 * (y1 - y0);
    y0 -= pad;
    y1 += pad;
  }
  xMin_ = x0;
  xMax_ = x1;
  yMin_ = y0;
  yMax_ = y1;
}

QRectF CurvePlot::plotRectIn(const QRect& area) const {
  const QFontMetrics fm(font());
  const double left = fm.horizontalAdvance(QStringLiteral("-0000.0")) + fm.height() + 8;
  const double top = fm.height() * 1.6;
  const double bottom = fm.height() * 2.6;
  const double right = 12;
  return QRectF(area.left() + left, area.top() + top, std::max(10.0, area.width() - left - right),
                std::max(10.0, area.height() - top - bottom));
}

QRectF CurvePlot::plotRect() const { return plotRectIn(rect()); }

double CurvePlot::xOf(double x) const {
  const QRectF r = plotRect();
  return r.left() + (x - xMin_) / (xMax_ - xMin_) * r.width();
}

double CurvePlot::mapY(double y, const QRectF& r) const {
  double f = logY_ ? (std::log10(y) - std::log10(yMin_)) / (std::log10(yMax_) - std::log10(yMin_))
                   : (y - yMin_) / (yMax_ - yMin_);
  if (invertY_) f = 1 - f;
  return r.bottom() - f * r.height();
}

double CurvePlot::yOf(double y) const { return mapY(y, plotRect()); }

void CurvePlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

void CurvePlot::mousePressEvent(QMouseEvent* event) {
  const QRectF r = plotRect();
  if (curves_.empty() || !r.contains(event->position())) return;
  emit clicked(xMin_ + (event->position().x() - r.left()) / r.width() * (xMax_ - xMin_));
}

void CurvePlot::render(QPainter& p, const QRect& area) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.fillRect(area, palette().base());
  const QFontMetrics fm(font());
  const QColor text = palette().color(QPalette::Text);
  if (!title_.isEmpty()) {
    p.setPen(text);
    p.drawText(QRect(area.left(), area.top() + 2, area.width(), fm.height() + 2), Qt::AlignHCenter,
               title_);
  }
  const QRectF r = plotRectIn(area);
  if (curves_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap,
               message_.isEmpty() ? tr("Nothing to show") : message_);
    p.restore();
    return;
  }
  auto X = [&](double x) { return r.left() + (x - xMin_) / (xMax_ - xMin_) * r.width(); };
  auto Y = [&](double y) { return mapY(y, r); };
  // Grid and ticks.
  const QColor grid = palette().color(QPalette::Mid);
  p.setPen(QPen(grid, 0.5));
  for (double t : linearTicks(xMin_, xMax_, std::max(3, static_cast<int>(r.width() / 80)))) {
    p.drawLine(QPointF(X(t), r.top()), QPointF(X(t), r.bottom()));
    p.setPen(text);
    p.drawText(QRectF(X(t) - 40, r.bottom() + 2, 80, fm.height()), Qt::AlignHCenter, formatTick(t));
    p.setPen(QPen(grid, 0.5));
  }
  const auto yTicks =
      logY_ ? logTicks(yMin_, yMax_)
            : linearTicks(yMin_, yMax_, std::max(3, static_cast<int>(r.height() / 40)));
  for (double t : yTicks) {
    if (t < yMin_ || t > yMax_) continue;
    p.drawLine(QPointF(r.left(), Y(t)), QPointF(r.right(), Y(t)));
    p.setPen(text);
    p.drawText(
        QRectF(area.left(), Y(t) - fm.height() / 2.0, r.left() - area.left() - 4, fm.height()),
        Qt::AlignRight | Qt::AlignVCenter, formatTick(t));
    p.setPen(QPen(grid, 0.5));
  }
  if (!logY_ && yMin_ < 0 && yMax_ > 0) {
    p.setPen(QPen(grid.darker(130), 1));
    p.drawLine(QPointF(r.left(), Y(0)), QPointF(r.right(), Y(0)));
  }
  p.setPen(QPen(text.lighter(150), 1, Qt::DashLine));
  for (double m : markers_)
    if (m >= xMin_ && m <= xMax_) p.drawLine(QPointF(X(m), r.top()), QPointF(X(m), r.bottom()));
  p.setClipRect(r);
  // Bands first (under every line), then the lines.
  for (const PlotCurve& c : curves_) {
    if (c.bandLow.size() != c.x.size() || c.bandHigh.size() != c.x.size()) continue;
    QColor fill = c.colour;
    fill.setAlphaF(0.22);
    std::size_t i = 0;
    while (i < c.x.size()) {  // one polygon per run of finite band values
      QPolygonF upper, lower;
      for (; i < c.x.size() && usable(c.bandLow[i], logY_) && usable(c.bandHigh[i], logY_); ++i) {
        upper << QPointF(X(c.x[i]), Y(c.bandHigh[i]));
        lower.prepend(QPointF(X(c.x[i]), Y(c.bandLow[i])));
      }
      if (upper.size() > 1) {
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawPolygon(upper + lower);
      }
      ++i;
    }
  }
  p.setBrush(Qt::NoBrush);
  for (const PlotCurve& c : curves_) {
    QPainterPath path;
    bool pen = false;
    for (std::size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
      if (!usable(c.y[i], logY_)) {
        pen = false;
        continue;
      }
      const QPointF pt(X(c.x[i]), Y(c.y[i]));
      if (pen)
        path.lineTo(pt);
      else
        path.moveTo(pt);
      pen = true;
    }
    p.setPen(QPen(c.colour, c.width));
    p.drawPath(path);
  }
  p.setClipping(false);
  p.setPen(QPen(text, 1));
  p.drawRect(r);
  // Axis labels.
  p.drawText(QRectF(r.left(), r.bottom() + fm.height() + 2, r.width(), fm.height() + 2),
             Qt::AlignHCenter, xLabel_);
  p.save();
  p.translate(area.left() + fm.height() * 0.2, r.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-r.height() / 2, 0, r.height(), fm.height() + 2), Qt::AlignHCenter, yLabel_);
  p.restore();
  // Legend, top right inside the plot.
  double ly = r.top() + 4;
  for (const PlotCurve& c : curves_) {
    if (c.name.isEmpty()) continue;
    const double w = fm.horizontalAdvance(c.name);
    const QRectF box(r.right() - w - 30, ly, w + 26, fm.height());
    p.fillRect(box, QColor(255, 255, 255, 190));
    p.setPen(QPen(c.colour, 3));
    p.drawLine(QPointF(box.left() + 3, box.center().y()),
               QPointF(box.left() + 18, box.center().y()));
    p.setPen(text);
    p.drawText(box.adjusted(22, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, c.name);
    ly += fm.height() + 2;
  }
  p.restore();
}

}  // namespace modescope
