#include "app/gui/annotation_drag_tool.h"

#include <QMouseEvent>
#include <QRubberBand>
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "app/gui/cursor_time.h"
#include "widgets/signal_browser.h"

namespace modescope {

AnnotationDragTool::AnnotationDragTool(QObject* parent) : QObject(parent) {}

void AnnotationDragTool::attach(SignalBrowser* browser) {
  browser->setMouseTracking(true);
  browser->installEventFilter(this);
}

bool AnnotationDragTool::eventFilter(QObject* watched, QEvent* event) {
  auto* browser = qobject_cast<SignalBrowser*>(watched);
  if (!browser) return false;
  const QEvent::Type type = event->type();
  if (type != QEvent::MouseButtonPress && type != QEvent::MouseMove &&
      type != QEvent::MouseButtonRelease)
    return false;
  auto* me = static_cast<QMouseEvent*>(event);
  const QPoint pos = me->position().toPoint();
  const std::optional<double> t = cursorTimeAt(*browser, pos);
  if (t) lastCursor_ = t;
  if (type == QEvent::MouseButtonPress) {
    // Only in annotate mode (key A): Shift+drag marks a bad segment (bad_marking_input.h).
    const bool wanted = me->button() == Qt::LeftButton && annotateMode_;
    if (!wanted || !t) return false;
    dragging_ = browser;
    dragStartTime_ = *t;
    dragStartX_ = pos.x();
    if (!band_ || band_->parentWidget() != browser) {
      delete band_;
      band_ = new QRubberBand(QRubberBand::Rectangle, browser);
    }
    band_->setGeometry(QRect(pos.x(), 0, 1, browser->height()));
    band_->show();
    return true;  // the browser does not also select or start its own drag
  }
  if (dragging_ != browser) return false;
  const int x = pos.x();
  band_->setGeometry(
      QRect(std::min(x, dragStartX_), 0, std::abs(x - dragStartX_) + 1, browser->height()));
  if (type == QEvent::MouseButtonRelease) {
    band_->hide();
    dragging_ = nullptr;
    // Past the traces' edges the span ends at the page's edge.
    double end =
        t ? *t
          : (x < dragStartX_ ? browser->pageStart() : browser->pageStart() + browser->pageLength());
    // A click (a few pixels at most) is an instant event.
    if (std::abs(x - dragStartX_) <= 3) end = dragStartTime_;
    const double onset = std::max(0.0, std::min(dragStartTime_, end));
    emit spanMarked(onset, std::abs(end - dragStartTime_));
  }
  return true;
}

}  // namespace modescope
