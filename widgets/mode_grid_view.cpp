#include "widgets/mode_grid_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace modescope {
namespace {

constexpr int kEnvelopePoints = 320;  // (low, high) pairs per thumbnail: wide cells stay sharp
constexpr int kLabelWidth = 72;
constexpr int kHeaderHeight = 34;
constexpr int kCellWidth = 116;
constexpr int kCellHeight = 38;
constexpr int kGap = 3;

}  // namespace

ModeGridView::ModeGridView(QWidget* parent)
    : QWidget(parent), cellWidth_(kCellWidth), cellHeight_(kCellHeight) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  setToolTip(
      tr("Click: show that IMF on every channel. Ctrl+click or double-click a cell: drop "
         "that IMF on that channel; a header: drop the IMF on every channel."));
}

void ModeGridView::clear() {
  rows_ = columns_ = 0;
  names_.clear();
  notes_.clear();
  cells_.clear();
  dropped_.clear();
  current_ = -1;
  updateGeometry();
  update();
}

void ModeGridView::setModes(const EmdResult& modes, const QStringList& channelNames,
                            const QStringList& notes) {
  clear();
  if (modes.channels.empty() || modes.samples <= 0) return;
  rows_ = static_cast<int>(modes.channels.size());
  columns_ = modes.channels.front().rows;
  names_ = channelNames;
  notes_ = notes;
  cells_.assign(static_cast<std::size_t>(rows_ * columns_), Cell{});
  dropped_.assign(cells_.size(), 0);
  const int64_t n = modes.samples;
  std::vector<float> scale(static_cast<std::size_t>(columns_), 0.0f);
  for (const EmdChannelModes& m : modes.channels) {
    if (m.rows != columns_ || m.data.size() < static_cast<std::size_t>(m.rows * n)) continue;
    for (int k = 0; k < columns_; ++k) {
      const float* x = m.row(k, n);
      for (int64_t i = 0; i < n; ++i) scale[k] = std::max(scale[k], std::fabs(x[i]));
    }
  }
  for (int r = 0; r < rows_; ++r) {
    const EmdChannelModes& m = modes.channels[static_cast<std::size_t>(r)];
    if (m.rows != columns_ || m.data.size() < static_cast<std::size_t>(m.rows * n)) continue;
    for (int k = 0; k < columns_; ++k) {
      Cell& c = cells_[static_cast<std::size_t>(r * columns_ + k)];
      const float* x = m.row(k, n);
      const float s = scale[k] > 0 ? 1.0f / scale[k] : 0.0f;
      const int points = static_cast<int>(std::min<int64_t>(kEnvelopePoints, n));
      c.low.resize(points);
      c.high.resize(points);
      for (int p = 0; p < points; ++p) {
        const int64_t a = p * n / points, b = std::max(a + 1, (p + 1) * n / points);
        const auto [lo, hi] = std::minmax_element(x + a, x + b);
        c.low[p] = *lo * s;
        c.high[p] = *hi * s;
      }
    }
  }
  setMinimumSize(sizeHint());
  updateGeometry();
  update();
}

void ModeGridView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (columns_ == 0) return;
  cellWidth_ = std::max(kCellWidth, (width() - kLabelWidth) / columns_ - kGap);
  cellHeight_ = std::clamp((height() - kHeaderHeight - kGap) / std::max(1, rows_) - kGap,
                           kCellHeight, 2 * kCellHeight);
}

QString ModeGridView::columnTitle(int column) const {
  return column == columns_ - 1 ? tr("Residue") : tr("IMF %1").arg(column + 1);
}

const ModeGridView::Cell* ModeGridView::cell(int row, int column) const {
  if (row < 0 || row >= rows_ || column < 0 || column >= columns_) return nullptr;
  return &cells_[static_cast<std::size_t>(row * columns_ + column)];
}

void ModeGridView::setDropped(int row, int column, bool dropped) {
  if (!cell(row, column)) return;
  dropped_[static_cast<std::size_t>(row * columns_ + column)] = dropped ? 1 : 0;
  update();
}

bool ModeGridView::isDropped(int row, int column) const {
  return cell(row, column) && dropped_[static_cast<std::size_t>(row * columns_ + column)] != 0;
}

void ModeGridView::setCurrentColumn(int column) {
  current_ = column >= 0 && column < columns_ ? column : -1;
  update();
}

QRect ModeGridView::cellRect(int row, int column) const {
  const int x = kLabelWidth + column * (cellWidth_ + kGap);
  if (row < 0) return {x, 0, cellWidth_, kHeaderHeight};
  return {x, kHeaderHeight + kGap + row * (cellHeight_ + kGap), cellWidth_, cellHeight_};
}

std::pair<int, int> ModeGridView::cellAt(const QPoint& pos) const {
  for (int k = 0; k < columns_; ++k) {
    for (int r = -1; r < rows_; ++r)
      if (cellRect(r, k).contains(pos)) return {r, k};
  }
  return {-2, -1};
}

QSize ModeGridView::sizeHint() const {
  if (columns_ == 0) return {kLabelWidth + 4 * kCellWidth, kHeaderHeight + 2 * kCellHeight};
  return {kLabelWidth + columns_ * (kCellWidth + kGap),
          kHeaderHeight + kGap + rows_ * (kCellHeight + kGap)};
}

void ModeGridView::render(QPainter& painter, const QRect& area) const {
  painter.save();
  painter.setClipRect(area);
  painter.translate(area.topLeft());
  painter.fillRect(QRect(QPoint(0, 0), area.size()), palette().base());
  painter.setRenderHint(QPainter::Antialiasing, true);
  const QColor text = palette().color(QPalette::Text);
  const QColor mid = palette().color(QPalette::Mid);
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  if (columns_ == 0) {
    painter.setPen(text);
    painter.drawText(QRect(QPoint(0, 0), area.size()), Qt::AlignCenter, tr("No modes"));
    painter.restore();
    return;
  }
  for (int k = 0; k < columns_; ++k) {
    const QRect h = cellRect(-1, k);
    if (k == current_) painter.fillRect(h, palette().color(QPalette::Highlight).lighter(170));
    painter.setPen(text);
    painter.drawText(h.adjusted(0, 2, 0, -h.height() / 2), Qt::AlignCenter, columnTitle(k));
    if (k < notes_.size()) {
      painter.setFont(small);
      painter.setPen(mid.darker(150));
      painter.drawText(h.adjusted(0, h.height() / 2, 0, -2), Qt::AlignCenter, notes_[k]);
      painter.setFont(font());
    }
  }
  for (int r = 0; r < rows_; ++r) {
    const QRect label(0, cellRect(r, 0).top(), kLabelWidth - kGap, cellHeight_);
    painter.setPen(text);
    painter.drawText(label.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     r < names_.size() ? names_[r] : QString::number(r + 1));
    for (int k = 0; k < columns_; ++k) {
      const QRect box = cellRect(r, k);
      const bool dropped = isDropped(r, k);
      QColor ground = dropped ? QColor(255, 225, 225) : palette().color(QPalette::AlternateBase);
      if (k == current_ && !dropped) ground = palette().color(QPalette::Highlight).lighter(185);
      painter.fillRect(box, ground);
      painter.setPen(QPen(mid, 1));
      painter.drawRect(box.adjusted(0, 0, -1, -1));
      const Cell* c = cell(r, k);
      if (c && !c->low.empty()) {
        // The envelope as a filled band: a polygon along the highs and back along the lows.
        const double mid_y = box.center().y(), half = (box.height() - 6) / 2.0;
        const double dx = static_cast<double>(box.width() - 4) / static_cast<double>(c->low.size());
        QPainterPath band;
        for (std::size_t p = 0; p < c->high.size(); ++p) {
          const QPointF q(box.left() + 2 + dx * (p + 0.5), mid_y - half * c->high[p]);
          p == 0 ? band.moveTo(q) : band.lineTo(q);
        }
        for (std::size_t p = c->low.size(); p-- > 0;)
          band.lineTo(box.left() + 2 + dx * (p + 0.5), mid_y - half * c->low[p]);
        band.closeSubpath();
        const QColor ink = dropped ? QColor(190, 60, 60) : QColor(30, 80, 160);
        painter.setPen(QPen(ink, 0.8));
        painter.setBrush(ink);
        painter.drawPath(band);
        painter.setBrush(Qt::NoBrush);
      }
      if (dropped) {
        painter.setPen(QPen(QColor(200, 0, 0), 1.5));
        painter.drawLine(box.topLeft() + QPoint(2, 2), box.bottomRight() - QPoint(2, 2));
        painter.drawLine(box.bottomLeft() + QPoint(2, -2), box.topRight() + QPoint(-2, 2));
      }
    }
  }
  painter.restore();
}

void ModeGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
}

void ModeGridView::mousePressEvent(QMouseEvent* event) {
  const auto [row, column] = cellAt(event->position().toPoint());
  if (column < 0) return QWidget::mousePressEvent(event);
  if (event->modifiers() & Qt::ControlModifier) {
    if (row < 0) {
      emit columnToggled(column);
    } else {
      emit cellToggled(row, column);
    }
    return;
  }
  setCurrentColumn(column);
  emit columnClicked(column, row);
}

void ModeGridView::mouseDoubleClickEvent(QMouseEvent* event) {
  const auto [row, column] = cellAt(event->position().toPoint());
  if (column < 0) return QWidget::mouseDoubleClickEvent(event);
  if (row < 0) {
    emit columnToggled(column);
  } else {
    emit cellToggled(row, column);
  }
}

}  // namespace modescope
