// The grid of compact scalp maps (scalp_map_grid.h).
#include "widgets/scalp_map_grid.h"

#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/montage/scalp_interpolation.h"
#include "widgets/scalp_map_view.h"

namespace modescope {
namespace {

// A tile is a little taller than wide: the title sits above the head.
int tileHeight(int tile) { return tile + tile / 10; }

constexpr int kNoticeGap = 4;

}  // namespace

struct ScalpMapGrid::State {
  QWidget* container = nullptr;
  QLabel* notice = nullptr;
  std::vector<ScalpMapView*> views;
  QStringList unmapped;
  QString message;
  int current = -1;
  int tile = 120;
  int columns = 1;
};

ScalpMapGrid::ScalpMapGrid(QWidget* parent)
    : QScrollArea(parent), state_(std::make_unique<State>()) {
  State& s = *state_;
  s.container = new QWidget;
  s.container->setBackgroundRole(QPalette::Base);
  s.container->setAutoFillBackground(true);
  s.notice = new QLabel(s.container);
  s.notice->setWordWrap(true);
  s.notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
  s.notice->hide();
  setWidget(s.container);
  setWidgetResizable(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setBackgroundRole(QPalette::Base);
  clear();
}

ScalpMapGrid::~ScalpMapGrid() = default;

void ScalpMapGrid::clear() {
  State& s = *state_;
  for (ScalpMapView* v : s.views) delete v;
  s.views.clear();
  s.unmapped.clear();
  s.message = tr("No maps");
  s.current = -1;
  relayout();
}

void ScalpMapGrid::setMaps(const std::vector<ChannelInfo>& channels,
                           const std::vector<double>& matrix, int columns,
                           const QStringList& titles, const QString& unit) {
  clear();
  State& s = *state_;
  if (columns < 0 || matrix.size() != channels.size() * static_cast<std::size_t>(columns)) {
    s.message = tr("Cannot draw the maps: the matrix has %1 values, expected %2 channels x %3 "
                   "maps")
                    .arg(matrix.size())
                    .arg(channels.size())
                    .arg(columns);
    relayout();
    return;
  }
  // Rows with a non-finite entry are left out of every map.
  std::vector<bool> noValue(channels.size(), false);
  for (std::size_t r = 0; r < channels.size(); ++r) {
    for (int c = 0; c < columns; ++c) {
      if (!std::isfinite(matrix[r * static_cast<std::size_t>(columns) + c])) noValue[r] = true;
    }
  }
  const ScalpLayout layout = scalpLayout(channels, noValue);
  for (const auto& name : layout.unmapped) s.unmapped << QString::fromStdString(name);

  // The mapped rows, row-major mapped x columns, and one product for all maps.
  std::vector<double> rows;
  rows.reserve(layout.mapped.size() * static_cast<std::size_t>(columns));
  for (std::size_t i : layout.mapped) {
    rows.insert(rows.end(), matrix.begin() + static_cast<std::ptrdiff_t>(i * columns),
                matrix.begin() + static_cast<std::ptrdiff_t>((i + 1) * columns));
  }
  std::vector<ScalpGrid> grids;
  try {
    grids = sharedScalpInterpolator(layout.positions, layout.headPolarDegrees)
                ->gridsForColumns(rows, columns);
  } catch (const Error& e) {
    s.message = layout.positions.size() < 3
                    ? tr("Cannot draw the maps: %1 channel(s) with a known position, at least 3 "
                         "needed")
                          .arg(layout.positions.size())
                    : tr("Cannot draw the maps: %1").arg(QString::fromUtf8(e.what()));
    relayout();
    return;
  }
  s.message.clear();
  std::vector<double> column(layout.mapped.size());
  for (int k = 0; k < columns; ++k) {
    for (std::size_t r = 0; r < layout.mapped.size(); ++r) column[r] = rows[r * columns + k];
    auto* view = new ScalpMapView(s.container);
    view->setCompact(true);
    const QString title = k < titles.size() ? titles[k] : QStringLiteral("IC%1").arg(k + 1);
    view->setInterpolated(channels, layout, column, std::move(grids[static_cast<std::size_t>(k)]),
                          title, unit);
    view->installEventFilter(this);
    view->show();
    s.views.push_back(view);
  }
  relayout();
}

int ScalpMapGrid::count() const { return static_cast<int>(state_->views.size()); }

ScalpMapView* ScalpMapGrid::view(int index) const {
  if (index < 0 || index >= count()) return nullptr;
  return state_->views[static_cast<std::size_t>(index)];
}

QStringList ScalpMapGrid::unmappedChannels() const { return state_->unmapped; }

QString ScalpMapGrid::message() const { return state_->message; }

void ScalpMapGrid::setMarked(int index, bool marked) {
  if (ScalpMapView* v = view(index)) v->setMarked(marked);
}

bool ScalpMapGrid::isMarked(int index) const {
  const ScalpMapView* v = view(index);
  return v && v->isMarked();
}

std::vector<int> ScalpMapGrid::markedIndices() const {
  std::vector<int> marked;
  for (int i = 0; i < count(); ++i) {
    if (isMarked(i)) marked.push_back(i);
  }
  return marked;
}

void ScalpMapGrid::setCurrent(int index) {
  State& s = *state_;
  if (index < 0 || index >= count()) index = -1;
  if (ScalpMapView* old = view(s.current)) old->setHighlighted(false);
  s.current = index;
  if (ScalpMapView* now = view(index)) {
    now->setHighlighted(true);
    ensureWidgetVisible(now, 0, 0);
  }
}

int ScalpMapGrid::current() const { return state_->current; }

void ScalpMapGrid::setTileSize(int pixels) {
  state_->tile = std::clamp(pixels, 48, 600);
  relayout();
}

int ScalpMapGrid::tileSize() const { return state_->tile; }

int ScalpMapGrid::columnsShown() const { return state_->columns; }

void ScalpMapGrid::resizeEvent(QResizeEvent* event) {
  QScrollArea::resizeEvent(event);
  relayout();
}

void ScalpMapGrid::relayout() {
  State& s = *state_;
  const int width = std::max(s.tile, viewport()->width());
  s.columns = std::max(1, width / s.tile);
  QString text;
  if (!s.message.isEmpty()) {
    text = s.message;
  } else if (!s.unmapped.isEmpty()) {
    text = tr("Not shown (no position): %1").arg(s.unmapped.join(QStringLiteral(", ")));
  }
  int top = 0;
  s.notice->setText(text);
  s.notice->setVisible(!text.isEmpty());
  if (!text.isEmpty()) {
    const int h = s.notice->heightForWidth(width - 2 * kNoticeGap);
    s.notice->setGeometry(kNoticeGap, kNoticeGap, width - 2 * kNoticeGap, h);
    top = h + 2 * kNoticeGap;
  }
  const int th = tileHeight(s.tile);
  for (std::size_t i = 0; i < s.views.size(); ++i) {
    const int row = static_cast<int>(i) / s.columns, col = static_cast<int>(i) % s.columns;
    s.views[i]->setGeometry(col * s.tile, top + row * th, s.tile, th);
  }
  const int rows = (count() + s.columns - 1) / s.columns;
  s.container->resize(width, top + rows * th);
}

bool ScalpMapGrid::eventFilter(QObject* watched, QEvent* event) {
  const auto* mapView = qobject_cast<ScalpMapView*>(watched);
  if (mapView && event->type() == QEvent::MouseButtonRelease &&
      static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton) {
    return true;  // the press did the work
  }
  if (mapView &&
      (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::MouseButtonDblClick)) {
    const auto* mouse = static_cast<QMouseEvent*>(event);
    const auto it = std::find(state_->views.begin(), state_->views.end(), mapView);
    if (mouse->button() == Qt::LeftButton && it != state_->views.end()) {
      const int index = static_cast<int>(it - state_->views.begin());
      if (event->type() == QEvent::MouseButtonDblClick) {
        emit componentToggled(index);
      } else if (mouse->modifiers() & Qt::ControlModifier) {
        emit componentToggled(index);
      } else {
        setCurrent(index);
        emit componentClicked(index);
      }
      return true;
    }
  }
  return QScrollArea::eventFilter(watched, event);
}

QSize ScalpMapGrid::exportSize(int columns) const {
  const State& s = *state_;
  const int c = std::max(1, columns > 0 ? columns : s.columns);
  const int width = c * s.tile;
  int top = 0;
  if (!s.notice->text().isEmpty()) {
    const QFontMetrics fm(font());
    top = fm.boundingRect(QRect(0, 0, width - 2 * kNoticeGap, 100000), Qt::TextWordWrap,
                          s.notice->text())
              .height() +
          2 * kNoticeGap;
  }
  const int rows = std::max(1, (count() + c - 1) / c);
  return {width, top + rows * tileHeight(s.tile)};
}

void ScalpMapGrid::render(QPainter& painter, const QRect& area, int columns) const {
  const State& s = *state_;
  const int c = std::max(1, columns > 0 ? columns : s.columns);
  painter.save();
  painter.fillRect(area, palette().color(QPalette::Base));
  painter.setFont(font());
  painter.setPen(palette().color(QPalette::Text));
  int top = area.top();
  const QString text = s.notice->text();
  if (!text.isEmpty()) {
    const QRect box(area.left() + kNoticeGap, top + kNoticeGap, area.width() - 2 * kNoticeGap,
                    100000);
    const QRect need = painter.fontMetrics().boundingRect(box, Qt::TextWordWrap, text);
    painter.drawText(box, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    top += need.height() + 2 * kNoticeGap;
  }
  // Tiles keep their aspect: the width of a column is the area's width / c.
  const double tw = static_cast<double>(area.width()) / c;
  const double th = tw * tileHeight(s.tile) / s.tile;
  for (std::size_t i = 0; i < s.views.size(); ++i) {
    const int row = static_cast<int>(i) / c, col = static_cast<int>(i) % c;
    const QRect tile(static_cast<int>(std::lround(area.left() + col * tw)),
                     static_cast<int>(std::lround(top + row * th)),
                     static_cast<int>(std::lround(tw)), static_cast<int>(std::lround(th)));
    s.views[i]->render(painter, tile);
  }
  painter.restore();
}

}  // namespace modescope
