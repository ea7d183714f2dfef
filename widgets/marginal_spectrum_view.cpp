#include "widgets/marginal_spectrum_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "widgets/page_export.h"
#include "widgets/plot_axis.h"

namespace modescope {
namespace {

constexpr int kLeftMargin = 64;
constexpr int kRightMargin = 12;
constexpr int kTopMargin = 10;
constexpr int kBottomMargin = 36;
constexpr double kLogValueDecades = 4.0;  // the value axis reaches this far below the maximum

double centreOf(const std::vector<double>& edges, std::size_t i, bool geometric) {
  return geometric && edges[i] > 0 ? std::sqrt(edges[i] * edges[i + 1])
                                   : (edges[i] + edges[i + 1]) / 2;
}

}  // namespace

struct MarginalSpectrumView::Axes {
  QRectF plot;
  double f0 = 0, f1 = 1;  // frequency range
  double v0 = 0, v1 = 1;  // value range
  bool logF = false, logV = false;

  double x(double hz) const {
    const double t = logF ? std::log(hz / f0) / std::log(f1 / f0) : (hz - f0) / (f1 - f0);
    return plot.left() + t * plot.width();
  }
  double y(double v) const {
    double t = 0;
    if (logV) {
      t = v > v0 ? std::log(v / v0) / std::log(v1 / v0) : 0.0;
    } else {
      t = (v - v0) / (v1 - v0);
    }
    return plot.bottom() - std::clamp(t, 0.0, 1.0) * plot.height();
  }
};

MarginalSpectrumView::MarginalSpectrumView(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void MarginalSpectrumView::setSpectrum(MarginalSpectrum spectrum) {
  spectrum_ = spectrum.valid() ? std::move(spectrum) : MarginalSpectrum{};
  update();
}

void MarginalSpectrumView::setLogFrequency(bool on) {
  logFrequency_ = on;
  update();
}

void MarginalSpectrumView::setLogValues(bool on) {
  logValues_ = on;
  update();
}

MarginalSpectrumView::Axes MarginalSpectrumView::axesIn(const QRect& area) const {
  Axes a;
  a.plot = QRectF(area.left() + kLeftMargin, area.top() + kTopMargin,
                  std::max(10, area.width() - kLeftMargin - kRightMargin),
                  std::max(10, area.height() - kTopMargin - kBottomMargin));
  if (!spectrum_.valid()) return a;
  const auto& e = spectrum_.frequencyEdges;
  // A log axis cannot start at 0 Hz: start it at the first bin's centre then.
  a.logF = logFrequency_ && e.back() > 0;
  a.f0 = a.logF ? (e.front() > 0 ? e.front() : centreOf(e, 0, false)) : e.front();
  a.f1 = e.back();
  if (!(a.f1 > a.f0)) a.f1 = a.f0 + 1;
  double top = 0;
  for (double v : spectrum_.values)
    if (std::isfinite(v)) top = std::max(top, v);
  if (!(top > 0)) top = 1;
  a.logV = logValues_;
  a.v1 = a.logV ? top * 1.5 : top * 1.05;
  a.v0 = a.logV ? top / std::pow(10.0, kLogValueDecades) : 0.0;
  return a;
}

QRectF MarginalSpectrumView::plotRect() const { return axesIn(rect()).plot; }
double MarginalSpectrumView::xOf(double hz) const { return axesIn(rect()).x(hz); }
double MarginalSpectrumView::yOf(double value) const { return axesIn(rect()).y(value); }

void MarginalSpectrumView::renderTo(QPainter& painter, const QRect& area) const {
  painter.save();
  painter.fillRect(area, palette().color(QPalette::Base));
  const QColor text = palette().color(QPalette::Text);
  const QColor grid = palette().color(QPalette::Midlight);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  const Axes a = axesIn(area);
  if (!spectrum_.valid()) {
    painter.setPen(text);
    painter.drawText(a.plot, Qt::AlignCenter, tr("No marginal spectrum"));
    painter.restore();
    return;
  }
  const auto fTicks = a.logF ? logTicks(a.f0, a.f1)
                             : linearTicks(a.f0, a.f1, std::max(2, int(a.plot.width() / 80)));
  const auto vTicks = a.logV ? logTicks(a.v0, a.v1)
                             : linearTicks(a.v0, a.v1, std::max(2, int(a.plot.height() / 40)));
  for (double f : fTicks) {
    const double x = a.x(f);
    painter.setPen(grid);
    painter.drawLine(QPointF(x, a.plot.top()), QPointF(x, a.plot.bottom()));
    painter.setPen(text);
    const QString label = formatTick(f);
    painter.drawText(
        QPointF(x - fm.horizontalAdvance(label) / 2, a.plot.bottom() + 4 + fm.ascent()), label);
  }
  for (double v : vTicks) {
    const double y = a.y(v);
    painter.setPen(grid);
    painter.drawLine(QPointF(a.plot.left(), y), QPointF(a.plot.right(), y));
    painter.setPen(text);
    const QString label = formatTick(v);
    painter.drawText(
        QPointF(a.plot.left() - 5 - fm.horizontalAdvance(label), y + fm.ascent() / 2 - 1), label);
  }
  // Markers under the curve.
  painter.setPen(QPen(QColor(0xe0, 0x6c, 0x00), 1, Qt::DashLine));
  for (const auto& [hz, label] : spectrum_.markers) {
    if (!(hz >= a.f0 && hz <= a.f1)) continue;
    const double x = a.x(hz);
    painter.drawLine(QPointF(x, a.plot.top()), QPointF(x, a.plot.bottom()));
    painter.drawText(QPointF(x + 2, a.plot.top() + fm.ascent()), label);
  }
  // The curve through bin centres.
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setClipRect(a.plot);
  QPainterPath path;
  const auto& e = spectrum_.frequencyEdges;
  bool started = false;
  for (std::size_t i = 0; i < spectrum_.values.size(); ++i) {
    const double f = centreOf(e, i, a.logF);
    if (f < a.f0 || !std::isfinite(spectrum_.values[i])) continue;
    const QPointF p(a.x(f), a.y(spectrum_.values[i]));
    if (started) {
      path.lineTo(p);
    } else {
      path.moveTo(p);
      started = true;
    }
  }
  painter.setPen(QPen(QColor(0x1f, 0x4e, 0x9a), 1.4));
  painter.drawPath(path);
  painter.setClipping(false);
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.setPen(text);
  painter.drawRect(a.plot);
  const QString fTitle = tr("Frequency (Hz%1)").arg(a.logF ? tr(", log") : QString());
  painter.drawText(QPointF(a.plot.center().x() - fm.horizontalAdvance(fTitle) / 2,
                           a.plot.bottom() + 6 + fm.height() + fm.ascent()),
                   fTitle);
  painter.translate(area.left() + fm.ascent() + 1, a.plot.center().y());
  painter.rotate(-90);
  QString vTitle = tr("Marginal %1 (%2)").arg(spectrum_.quantity.toLower(), spectrum_.valueUnit);
  if (fm.horizontalAdvance(vTitle) > a.plot.height()) vTitle = spectrum_.valueUnit;
  painter.drawText(QPointF(-fm.horizontalAdvance(vTitle) / 2, 0), vTitle);
  painter.restore();
}

void MarginalSpectrumView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  renderTo(painter, rect());
}

bool MarginalSpectrumView::exportImage(const QString& path, QString* error) const {
  return exportView(
      path, size(), [this](QPainter& p, const QRect& area) { renderTo(p, area); },
      tr("Marginal spectrum"), error);
}

}  // namespace modescope
