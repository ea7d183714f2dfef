#include "app/gui/ica_overlay_view.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "widgets/column_reducer.h"
#include "widgets/page_export.h"
#include "widgets/plot_axis.h"

namespace modescope {
namespace {

constexpr int kLabelWidth = 56;
constexpr int kAxisHeight = 18;

QPolygonF tracePolygon(const std::vector<float>& x, double rate, double start, double length,
                       const QRectF& row, double halfRange, double offset) {
  const int columns = std::max(1, static_cast<int>(row.width()));
  const browser::DecimatedTrace t =
      browser::decimateTrace(x.data(), static_cast<int64_t>(std::llround(start * rate)),
                             static_cast<int64_t>(x.size()), rate, start, length, columns, 1.0);
  QPolygonF poly;
  poly.reserve(static_cast<int>(t.x.size()));
  const double cy = row.center().y();
  const double k = halfRange > 0 ? 0.5 * row.height() / halfRange : 0.0;
  for (std::size_t i = 0; i < t.x.size(); ++i)
    poly << QPointF(row.left() + t.x[i], cy - (t.y[i] - offset) * k);
  return poly;
}

}  // namespace

IcaOverlayView::IcaOverlayView(QWidget* parent) : QWidget(parent) {
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void IcaOverlayView::setRows(std::vector<IcaOverlayRow> rows, double sampleRate,
                             double startSeconds, const QString& note) {
  rows_ = std::move(rows);
  rate_ = sampleRate > 0 ? sampleRate : 1.0;
  start_ = startSeconds;
  note_ = note;
  update();
}

void IcaOverlayView::renderTo(QPainter& painter, const QRect& area) const {
  painter.save();
  painter.fillRect(area, palette().base());
  const QFontMetrics fm(painter.font());
  const QRect noteRect(area.left() + 4, area.top(), area.width() - 8, fm.height() + 4);
  painter.setPen(palette().text().color());
  painter.drawText(noteRect, Qt::AlignLeft | Qt::AlignVCenter, note_);
  const QRectF plot(area.left() + kLabelWidth, noteRect.bottom() + 2,
                    area.width() - kLabelWidth - 6,
                    area.bottom() - noteRect.bottom() - 4 - kAxisHeight);
  if (rows_.empty() || plot.height() <= 4 || plot.width() <= 4) {
    painter.restore();
    return;
  }
  const std::size_t n = rows_.front().original.size();
  const double length = static_cast<double>(n) / rate_;
  const double rowHeight = plot.height() / static_cast<double>(rows_.size());
  painter.setRenderHint(QPainter::Antialiasing, true);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const IcaOverlayRow& row = rows_[r];
    const QRectF band(plot.left(), plot.top() + r * rowHeight, plot.width(), rowHeight);
    // One scale per row: the original's range about its mean, so a blink fills its row and the
    // cleaned trace shows how much of it is gone.
    double mean = 0.0;
    for (float v : row.original) mean += v;
    mean /= std::max<std::size_t>(1, row.original.size());
    double half = 0.0;
    for (float v : row.original) half = std::max(half, std::fabs(v - mean));
    painter.setPen(palette().text().color());
    painter.drawText(QRectF(area.left() + 2, band.top(), kLabelWidth - 6, band.height()),
                     Qt::AlignRight | Qt::AlignVCenter, row.label);
    painter.setPen(QPen(palette().mid().color(), 0, Qt::DotLine));
    painter.drawLine(QPointF(band.left(), band.center().y()),
                     QPointF(band.right(), band.center().y()));
    if (row.original.size() != n || row.cleaned.size() != n || n < 2) continue;
    painter.setPen(QPen(kOriginalColour, 1.2));
    painter.drawPolyline(tracePolygon(row.original, rate_, start_, length, band, 1.1 * half, mean));
    painter.setPen(QPen(kCleanedColour, 1.0));
    painter.drawPolyline(tracePolygon(row.cleaned, rate_, start_, length, band, 1.1 * half, mean));
  }
  // Time axis (seconds from the recording start).
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.setPen(palette().text().color());
  const double axisY = plot.bottom() + 2;
  painter.drawLine(QPointF(plot.left(), axisY), QPointF(plot.right(), axisY));
  for (double t : linearTicks(start_, start_ + length, 6)) {
    const double x = plot.left() + (t - start_) / length * plot.width();
    painter.drawLine(QPointF(x, axisY), QPointF(x, axisY + 3));
    painter.drawText(QRectF(x - 30, axisY + 2, 60, kAxisHeight - 2), Qt::AlignCenter,
                     formatTick(t) + QStringLiteral(" s"));
  }
  painter.restore();
}

bool IcaOverlayView::exportImage(const QString& path, QString* error) const {
  return exportView(
      path, size(), [this](QPainter& p, const QRect& a) { renderTo(p, a); },
      QStringLiteral("ICA cleaning preview"), error);
}

void IcaOverlayView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  renderTo(p, rect());
}

}  // namespace modescope
