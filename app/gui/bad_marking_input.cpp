#include "app/gui/bad_marking_input.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "widgets/signal_browser.h"
#include "widgets/trace_renderer.h"

namespace modescope {
namespace {

// The browser's own layout (as cursor_time.cpp), so the overlay and the drawn traces agree.
browser::BrowserLayout layoutOf(const SignalBrowser& b) {
  const int channels = b.recording() ? static_cast<int>(b.recording()->channelCount()) : 0;
  const int rows = std::min(b.visibleChannelCount(), channels - b.firstVisibleChannel());
  return browser::BrowserLayout::compute(QRectF(b.rect()), std::max(0, rows),
                                         QFontMetricsF(b.font()));
}

const QColor kBadFill(120, 120, 120, 60);   // the grey of bad channels, translucent
const QColor kBadHatch(90, 90, 90, 150);    // hatching over it
const QColor kDragBand(200, 60, 60, 70);    // the range being dragged
constexpr double kMinimumDragPixels = 2.0;  // less is a click, not a range

}  // namespace

BadSegmentOverlay::BadSegmentOverlay(SignalBrowser* browser) : QWidget(browser), browser_(browser) {
  setObjectName(QStringLiteral("badSegmentOverlay"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  setGeometry(browser->rect());
  connect(browser, &SignalBrowser::viewChanged, this, qOverload<>(&QWidget::update));
}

void BadSegmentOverlay::setSegments(std::vector<Annotation> segments) {
  segments_ = std::move(segments);
  update();
}

void BadSegmentOverlay::setDragRange(std::optional<std::pair<double, double>> range) {
  drag_ = range;
  update();
}

std::optional<std::pair<double, double>> BadSegmentOverlay::spanOnPage(double start,
                                                                       double end) const {
  const QRectF t = layoutOf(*browser_).traces;
  const double page0 = browser_->pageStart(), length = browser_->pageLength();
  if (t.width() <= 0 || length <= 0) return std::nullopt;
  const double a = std::max(start, page0), b = std::min(end, page0 + length);
  if (b <= a) return std::nullopt;
  return std::make_pair(t.left() + (a - page0) / length * t.width(),
                        t.left() + (b - page0) / length * t.width());
}

void BadSegmentOverlay::paintEvent(QPaintEvent*) {
  if (!browser_->recording()) return;
  const QRectF t = layoutOf(*browser_).traces;
  QPainter p(this);
  auto band = [&](double start, double end, const QBrush& brush) {
    if (auto span = spanOnPage(start, end)) {
      // An instant still shows: at least one pixel wide.
      const double width = std::max(1.0, span->second - span->first);
      p.fillRect(QRectF(span->first, t.top(), width, t.height()), brush);
    }
  };
  for (const Annotation& a : segments_) {
    band(a.onset, a.onset + a.duration, kBadFill);
    band(a.onset, a.onset + a.duration, QBrush(kBadHatch, Qt::BDiagPattern));
  }
  if (drag_)
    band(std::min(drag_->first, drag_->second), std::max(drag_->first, drag_->second), kDragBand);
}

BadMarkingInput::BadMarkingInput(SignalBrowser* browser)
    : QObject(browser), browser_(browser), overlay_(new BadSegmentOverlay(browser)) {
  setObjectName(QStringLiteral("badMarkingInput"));
  browser->installEventFilter(this);
  overlay_->show();
}

QString BadMarkingInput::labelChannelAt(const QPointF& pos) const {
  const auto rec = browser_->recording();
  if (!rec) return {};
  const auto layout = layoutOf(*browser_);
  if (pos.x() < layout.labels.left() || pos.x() >= layout.labels.right()) return {};
  const int row = layout.rowAt(pos.y());
  const int channel = row < 0 ? -1 : browser_->firstVisibleChannel() + row;
  if (channel < 0 || channel >= static_cast<int>(rec->channelCount())) return {};
  const ChannelInfo& c = rec->channels[static_cast<std::size_t>(channel)];
  return QString::fromStdString(c.name.empty() ? c.label : c.name);
}

std::optional<double> BadMarkingInput::timeAt(const QPointF& pos) const {
  const QRectF t = layoutOf(*browser_).traces;
  if (t.width() <= 0 || pos.x() < t.left() || pos.x() > t.right() || pos.y() < t.top() ||
      pos.y() > t.bottom()) {
    return std::nullopt;
  }
  return browser_->pageStart() + (pos.x() - t.left()) / t.width() * browser_->pageLength();
}

std::optional<double> BadMarkingInput::dragTimeAt(double x) const {
  // A drag may leave the traces: it then ends at their edge, at any height.
  const QRectF t = layoutOf(*browser_).traces;
  return timeAt(QPointF(std::clamp(x, t.left(), t.right()), t.center().y()));
}

bool BadMarkingInput::eventFilter(QObject* watched, QEvent* event) {
  if (watched != browser_) return false;
  switch (event->type()) {
    case QEvent::Resize:
      overlay_->setGeometry(browser_->rect());
      return false;
    case QEvent::MouseButtonPress: {
      auto* e = static_cast<QMouseEvent*>(event);
      if (e->button() != Qt::LeftButton || !(e->modifiers() & Qt::ShiftModifier)) return false;
      const QString name = labelChannelAt(e->position());
      if (!name.isEmpty()) {
        emit channelToggled(name);
        return true;
      }
      if (auto t = timeAt(e->position())) {
        dragStart_ = *t;
        dragStartX_ = e->position().x();
        overlay_->setDragRange(std::make_pair(*t, *t));
        return true;
      }
      return false;
    }
    case QEvent::MouseMove: {
      if (!dragStart_) return false;
      const auto* e = static_cast<QMouseEvent*>(event);
      if (auto now = dragTimeAt(e->position().x()))
        overlay_->setDragRange(std::make_pair(*dragStart_, *now));
      return true;
    }
    case QEvent::MouseButtonRelease: {
      if (!dragStart_) return false;
      const auto* e = static_cast<QMouseEvent*>(event);
      const double start = *dragStart_;
      dragStart_.reset();
      overlay_->setDragRange(std::nullopt);
      const auto end = dragTimeAt(e->position().x());
      if (end && std::abs(e->position().x() - dragStartX_) >= kMinimumDragPixels)
        emit segmentMarked(std::min(start, *end), std::abs(*end - start));
      return true;
    }
    default:
      return false;
  }
}

}  // namespace modescope
