#include "widgets/matrix_heat_map.h"

#include <QFontMetrics>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/colour_map.h"
#include "widgets/page_export.h"
#include "widgets/plot_axis.h"

namespace modescope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QRgb kNoValueGrey = qRgb(170, 170, 170);
constexpr int kPad = 6;
constexpr int kBarWidth = 14;
// Above this many cells the map is drawn as one scaled image instead of one rectangle per cell:
// a vector export with 10^5 rectangles is slow to open, and the cells are sub-pixel anyway.
constexpr long kMaxRectCells = 16384;

QString formatValue(double v) {
  if (!std::isfinite(v)) return QObject::tr("no value");
  return QString::number(v, 'g', 4);
}

}  // namespace

struct MatrixHeatMap::Layout {
  QRectF plot;      // the cells
  QRectF bar;       // the colour bar
  QPointF titleAt;  // baseline centre of the title
  QRectF readout;   // the read-out line
  double rowLabelRight = 0;
  double colLabelTop = 0;
  double rowTitleX = 0;  // centre x of the rotated row-axis title
  double colTitleY = 0;  // baseline of the column-axis title
  double barTitleX = 0;  // centre x of the rotated colour-bar title
  int rowStride = 1, colStride = 1;
};

MatrixHeatMap::MatrixHeatMap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent, false);
  message_ = tr("No matrix");
}

void MatrixHeatMap::setMatrix(int rows, int cols, std::vector<double> values,
                              const QStringList& rowLabels, const QStringList& colLabels) {
  if (rows <= 0 || cols <= 0 ||
      values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    clear();
    message_ =
        tr("Cannot draw a %1 x %2 matrix from %3 values").arg(rows).arg(cols).arg(values.size());
    update();
    return;
  }
  rows_ = rows;
  cols_ = cols;
  values_ = std::move(values);
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  message_.clear();
  if (selRow_ >= rows_ || selCol_ >= cols_) selRow_ = selCol_ = -1;
  hoverRow_ = hoverCol_ = -1;
  refit();
  update();
}

void MatrixHeatMap::clear() {
  rows_ = cols_ = 0;
  values_.clear();
  rowLabels_.clear();
  colLabels_.clear();
  selRow_ = selCol_ = hoverRow_ = hoverCol_ = -1;
  message_ = tr("No matrix");
  update();
}

void MatrixHeatMap::setTitle(const QString& title) {
  title_ = title;
  update();
}

void MatrixHeatMap::setAxisTitles(const QString& rowTitle, const QString& colTitle) {
  rowTitle_ = rowTitle;
  colTitle_ = colTitle;
  update();
}

void MatrixHeatMap::setValueName(const QString& name) {
  valueName_ = name;
  update();
}

void MatrixHeatMap::setUnit(const QString& unit) {
  unit_ = unit;
  update();
}

void MatrixHeatMap::setColumnUnit(const QString& unit) {
  colUnit_ = unit;
  update();
}

void MatrixHeatMap::setColourMode(ColourMode mode) {
  mode_ = mode;
  refit();
  update();
}

void MatrixHeatMap::setFixedRange(double low, double high) {
  if (!(std::isfinite(low) && std::isfinite(high) && low < high)) return;
  fixed_ = std::make_pair(low, high);
  refit();
  update();
}

void MatrixHeatMap::clearFixedRange() {
  fixed_.reset();
  refit();
  update();
}

void MatrixHeatMap::refit() {
  if (fixed_) {
    low_ = fixed_->first;
    high_ = fixed_->second;
    return;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, maxAbs = 0.0;
  for (double v : values_) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    maxAbs = std::max(maxAbs, std::abs(v));
  }
  if (mode_ == ColourMode::Diverging) {
    // Symmetric, so zero is the white middle and equal |values| look equally strong.
    const double m = maxAbs > 0 ? maxAbs : 1.0;
    low_ = -m;
    high_ = m;
    return;
  }
  if (!(lo <= hi)) {  // no finite value
    low_ = 0.0;
    high_ = 1.0;
  } else if (lo == hi) {  // a constant matrix still gets a readable bar around its value
    const double d = lo == 0.0 ? 1.0 : std::abs(lo) * 0.5;
    low_ = lo - d;
    high_ = hi + d;
  } else {
    low_ = lo;
    high_ = hi;
  }
}

double MatrixHeatMap::value(int row, int col) const {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return kNaN;
  return values_[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) +
                 static_cast<std::size_t>(col)];
}

double MatrixHeatMap::scaleLow() const { return low_; }
double MatrixHeatMap::scaleHigh() const { return high_; }

QRgb MatrixHeatMap::colourFor(double v) const {
  if (!std::isfinite(v)) return kNoValueGrey;
  static const ColourMap sequential = ColourMap::viridis();
  static const ColourMap diverging = ColourMap::blueWhiteRed();
  const double t = (v - low_) / (high_ - low_);
  return (mode_ == ColourMode::Diverging ? diverging : sequential)
      .colourAt(std::clamp(t, 0.0, 1.0));
}

QString MatrixHeatMap::labelOfRow(int r) const {
  return r < rowLabels_.size() && !rowLabels_[r].isEmpty() ? rowLabels_[r] : QString::number(r + 1);
}

QString MatrixHeatMap::labelOfColumn(int c) const {
  return c < colLabels_.size() && !colLabels_[c].isEmpty() ? colLabels_[c] : QString::number(c + 1);
}

MatrixHeatMap::Layout MatrixHeatMap::layoutFor(const QRect& area, const QFontMetrics& fm) const {
  Layout L;
  const int line = fm.height();
  int rowLabelWidth = 0;
  for (int r = 0; r < rows_; ++r)
    rowLabelWidth = std::max(rowLabelWidth, fm.horizontalAdvance(labelOfRow(r)));
  int colLabelWidth = 0;
  for (int c = 0; c < cols_; ++c)
    colLabelWidth = std::max(colLabelWidth, fm.horizontalAdvance(labelOfColumn(c)));
  // Colour-bar tick labels: the widest of the ends and a middle value.
  int tickWidth = 0;
  for (double v : linearTicks(low_, high_, 5))
    tickWidth = std::max(tickWidth, fm.horizontalAdvance(formatTick(v)));
  tickWidth = std::max(tickWidth, fm.horizontalAdvance(QStringLiteral("-0.00")));

  const double top = area.top() + kPad + (title_.isEmpty() ? 0 : line + 4);
  const double left = area.left() + kPad + (rowTitle_.isEmpty() ? 0 : line + 4) + rowLabelWidth + 4;
  const double right = area.right() - kPad - line - 4 - tickWidth - 4 - kBarWidth - 10;
  const double bottom = area.bottom() - kPad - line /*read-out*/ - 4 -
                        (colTitle_.isEmpty() ? 0 : line + 2) - line /*col labels*/ - 4;
  L.plot =
      QRectF(QPointF(left, top), QPointF(std::max(left + 10, right), std::max(top + 10, bottom)));
  L.bar = QRectF(L.plot.right() + 10, L.plot.top(), kBarWidth, L.plot.height());
  L.barTitleX = L.bar.right() + 4 + tickWidth + 4 + line / 2.0;
  L.titleAt = QPointF(L.plot.center().x(), area.top() + kPad + fm.ascent());
  L.rowLabelRight = L.plot.left() - 4;
  L.rowTitleX = area.left() + kPad + line / 2.0;
  L.colLabelTop = L.plot.bottom() + 3;
  L.colTitleY = L.colLabelTop + line + 2 + fm.ascent();
  L.readout =
      QRectF(area.left() + kPad, area.bottom() - kPad - line, area.width() - 2 * kPad, line);
  if (rows_ > 0) {
    const double cellH = L.plot.height() / rows_;
    L.rowStride = std::max(1, static_cast<int>(std::ceil(line / std::max(cellH, 1e-9))));
  }
  if (cols_ > 0) {
    const double cellW = L.plot.width() / cols_;
    L.colStride =
        std::max(1, static_cast<int>(std::ceil((colLabelWidth + 6) / std::max(cellW, 1e-9))));
  }
  return L;
}

QRectF MatrixHeatMap::cellRect(int row, int col, const QRect& area) const {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return {};
  const Layout L = layoutFor(area.isNull() ? rect() : area, fontMetrics());
  const double w = L.plot.width() / cols_, h = L.plot.height() / rows_;
  return QRectF(L.plot.left() + col * w, L.plot.top() + row * h, w, h);
}

bool MatrixHeatMap::cellAt(const QPointF& pos, int* row, int* col) const {
  if (rows_ == 0 || cols_ == 0) return false;
  const Layout L = layoutFor(rect(), fontMetrics());
  if (!L.plot.contains(pos)) return false;
  const int c = std::clamp(static_cast<int>((pos.x() - L.plot.left()) / (L.plot.width() / cols_)),
                           0, cols_ - 1);
  const int r = std::clamp(static_cast<int>((pos.y() - L.plot.top()) / (L.plot.height() / rows_)),
                           0, rows_ - 1);
  if (row) *row = r;
  if (col) *col = c;
  return true;
}

std::vector<int> MatrixHeatMap::shownRowLabels() const {
  const Layout L = layoutFor(rect(), fontMetrics());
  std::vector<int> out;
  for (int r = 0; r < rows_; r += L.rowStride) out.push_back(r);
  return out;
}

std::vector<int> MatrixHeatMap::shownColumnLabels() const {
  const Layout L = layoutFor(rect(), fontMetrics());
  std::vector<int> out;
  for (int c = 0; c < cols_; c += L.colStride) out.push_back(c);
  return out;
}

QString MatrixHeatMap::readoutText(int row, int col) const {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return {};
  const double v = value(row, col);
  QString column = labelOfColumn(col);
  if (!colUnit_.isEmpty()) column += QLatin1Char(' ') + colUnit_;
  QString text = QStringLiteral("%1, %2: %3").arg(labelOfRow(row), column, formatValue(v));
  if (std::isfinite(v) && !unit_.isEmpty()) text += QLatin1Char(' ') + unit_;
  return text;
}

QString MatrixHeatMap::readout() const {
  if (hoverRow_ >= 0) return readoutText(hoverRow_, hoverCol_);
  if (selRow_ >= 0) return readoutText(selRow_, selCol_);
  return {};
}

void MatrixHeatMap::setSelectedCell(int row, int col) {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return;
  if (row == selRow_ && col == selCol_) return;
  selRow_ = row;
  selCol_ = col;
  update();
  emit cellSelected(row, col);
}

void MatrixHeatMap::clearSelection() {
  selRow_ = selCol_ = -1;
  update();
}

void MatrixHeatMap::setHovered(int row, int col) {
  if (row == hoverRow_ && col == hoverCol_) return;
  hoverRow_ = row;
  hoverCol_ = col;
  update();
  emit cellHovered(row, col);
}

void MatrixHeatMap::render(QPainter& p, const QRect& area) const {
  p.save();
  // On screen the window colour; figures keep the export's white page.
  if (p.device() == this) p.fillRect(area, palette().window());
  p.setFont(font());
  const QFontMetrics fm(font(), p.device());
  const Layout L = layoutFor(area, fm);
  const QColor text = palette().windowText().color();
  p.setPen(text);
  if (!title_.isEmpty()) {
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const QFontMetrics bm(bold, p.device());
    p.drawText(QPointF(L.titleAt.x() - bm.horizontalAdvance(title_) / 2.0, L.titleAt.y()), title_);
    p.setFont(font());
  }
  if (rows_ == 0 || cols_ == 0) {
    p.drawRect(L.plot);
    p.drawText(L.plot, Qt::AlignCenter | Qt::TextWordWrap, message_);
    p.restore();
    return;
  }

  // Cells.
  const double w = L.plot.width() / cols_, h = L.plot.height() / rows_;
  if (static_cast<long>(rows_) * cols_ <= kMaxRectCells) {
    p.setPen(Qt::NoPen);
    for (int r = 0; r < rows_; ++r) {
      for (int c = 0; c < cols_; ++c) {
        // Snapped to whole pixels of the target and overlapping by the rounding, so no seams
        // show between neighbouring cells.
        const QRectF cell(L.plot.left() + c * w, L.plot.top() + r * h, w + 0.5, h + 0.5);
        p.fillRect(cell.intersected(L.plot), QColor(colourFor(value(r, c))));
      }
    }
  } else {
    QImage image(cols_, rows_, QImage::Format_RGB32);
    for (int r = 0; r < rows_; ++r) {
      auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
      for (int c = 0; c < cols_; ++c) line[c] = colourFor(value(r, c));
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(L.plot, image);
  }
  p.setPen(QPen(text, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(L.plot);

  // Selection: a frame in both black and white so it shows on any colour.
  if (selRow_ >= 0) {
    const QRectF cell(L.plot.left() + selCol_ * w, L.plot.top() + selRow_ * h, w, h);
    p.setPen(QPen(Qt::white, 3));
    p.drawRect(cell.adjusted(-1, -1, 1, 1));
    p.setPen(QPen(Qt::black, 1.5));
    p.drawRect(cell.adjusted(-1, -1, 1, 1));
  }

  // Row labels (every rowStride-th, and the selected row's in bold).
  p.setPen(text);
  auto drawRowLabel = [&](int r) {
    const QRectF box(area.left(), L.plot.top() + r * h + h / 2 - fm.height() / 2.0,
                     L.rowLabelRight - area.left(), fm.height());
    p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, labelOfRow(r));
  };
  for (int r = 0; r < rows_; r += L.rowStride) {
    if (selRow_ >= 0 && selRow_ != r && std::abs(selRow_ - r) < L.rowStride) continue;
    drawRowLabel(r);
  }
  auto drawColLabel = [&](int c) {
    const QString s = labelOfColumn(c);
    const double x = L.plot.left() + c * w + w / 2 - fm.horizontalAdvance(s) / 2.0;
    p.drawText(QPointF(x, L.colLabelTop + fm.ascent()), s);
  };
  for (int c = 0; c < cols_; c += L.colStride) {
    if (selCol_ >= 0 && selCol_ != c && std::abs(selCol_ - c) < L.colStride) continue;
    drawColLabel(c);
  }
  if (selRow_ >= 0) {
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    drawRowLabel(selRow_);
    drawColLabel(selCol_);
    p.setFont(font());
  }

  // Axis titles.
  if (!colTitle_.isEmpty())
    p.drawText(QPointF(L.plot.center().x() - fm.horizontalAdvance(colTitle_) / 2.0, L.colTitleY),
               colTitle_);
  if (!rowTitle_.isEmpty()) {
    p.save();
    p.translate(L.rowTitleX + fm.ascent() / 2.0 - 1,
                L.plot.center().y() + fm.horizontalAdvance(rowTitle_) / 2.0);
    p.rotate(-90);
    p.drawText(QPointF(0, 0), rowTitle_);
    p.restore();
  }

  // Colour bar: a vertical ramp from low (bottom) to high (top), ticks and the title with unit.
  const int steps = std::max(2, static_cast<int>(L.bar.height()));
  for (int i = 0; i < steps; ++i) {
    const double t = 1.0 - (i + 0.5) / steps;
    const double y = L.bar.top() + L.bar.height() * i / steps;
    p.fillRect(QRectF(L.bar.left(), y, L.bar.width(), L.bar.height() / steps + 0.5),
               QColor(colourFor(low_ + (high_ - low_) * t)));
  }
  p.setPen(QPen(text, 1));
  p.drawRect(L.bar);
  for (double v : linearTicks(
           low_, high_, std::max(2, static_cast<int>(L.bar.height() / (fm.height() * 2.5))))) {
    const double y = L.bar.bottom() - (v - low_) / (high_ - low_) * L.bar.height();
    p.drawLine(QPointF(L.bar.right(), y), QPointF(L.bar.right() + 3, y));
    p.drawText(QPointF(L.bar.right() + 5, y + fm.ascent() / 2.0 - 1), formatTick(v));
  }
  const QString barTitle =
      unit_.isEmpty() ? valueName_ : QStringLiteral("%1 (%2)").arg(valueName_, unit_);
  p.save();
  p.translate(L.barTitleX + fm.ascent() / 2.0 - 1,
              L.bar.center().y() + fm.horizontalAdvance(barTitle) / 2.0);
  p.rotate(-90);
  p.drawText(QPointF(0, 0), barTitle);
  p.restore();

  // Read-out line (screen only shows the hover; an export shows the selected cell if any).
  const QString line = readout();
  if (!line.isEmpty()) p.drawText(L.readout, Qt::AlignLeft | Qt::AlignVCenter, line);
  p.restore();
}

void MatrixHeatMap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, rect());
  if (hasFocus()) {
    p.setPen(QPen(palette().highlight().color(), 1, Qt::DotLine));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
  }
}

void MatrixHeatMap::mouseMoveEvent(QMouseEvent* event) {
  int r = -1, c = -1;
  if (cellAt(event->position(), &r, &c)) {
    setHovered(r, c);
    setToolTip(readoutText(r, c));
  } else {
    setHovered(-1, -1);
    setToolTip(QString());
  }
  QWidget::mouseMoveEvent(event);
}

void MatrixHeatMap::mousePressEvent(QMouseEvent* event) {
  int r = -1, c = -1;
  if (event->button() == Qt::LeftButton && cellAt(event->position(), &r, &c)) {
    setFocus(Qt::MouseFocusReason);
    setSelectedCell(r, c);
    event->accept();
    return;
  }
  QWidget::mousePressEvent(event);
}

void MatrixHeatMap::leaveEvent(QEvent* event) {
  setHovered(-1, -1);
  QWidget::leaveEvent(event);
}

void MatrixHeatMap::keyPressEvent(QKeyEvent* event) {
  if (rows_ == 0 || cols_ == 0) return QWidget::keyPressEvent(event);
  int r = std::max(selRow_, 0), c = std::max(selCol_, 0);
  const bool none = selRow_ < 0;
  switch (event->key()) {
    case Qt::Key_Left:
      c = none ? 0 : c - 1;
      break;
    case Qt::Key_Right:
      c = none ? 0 : c + 1;
      break;
    case Qt::Key_Up:
      r = none ? 0 : r - 1;
      break;
    case Qt::Key_Down:
      r = none ? 0 : r + 1;
      break;
    case Qt::Key_Home:
      c = 0;
      break;
    case Qt::Key_End:
      c = cols_ - 1;
      break;
    default:
      return QWidget::keyPressEvent(event);
  }
  setSelectedCell(std::clamp(r, 0, rows_ - 1), std::clamp(c, 0, cols_ - 1));
  event->accept();
}

bool MatrixHeatMap::exportFigure(const QString& path, QString* error) const {
  return exportView(
      path, size(), [this](QPainter& p, const QRect& a) { render(p, a); },
      title_.isEmpty() ? QStringLiteral("Matrix") : title_, error);
}

}  // namespace modescope
