// Runs a function once, just after a widget is first shown (from the event loop, once its layout
// has its real size): QMainWindow::resizeDocks made before the window is shown is lost when the
// layout first takes the window's size, so a default dock size is set here.
//
// Thread rules: GUI thread.
#pragma once

#include <QEvent>
#include <QObject>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <utility>

namespace modescope {

class FirstShowHook : public QObject {
 public:
  FirstShowHook(QWidget* widget, std::function<void()> run)
      : QObject(widget), run_(std::move(run)) {
    widget->installEventFilter(this);
  }

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Show && watched == parent()) {
      watched->removeEventFilter(this);
      QTimer::singleShot(0, this, [this] {
        run_();
        deleteLater();
      });
    }
    return QObject::eventFilter(watched, event);
  }

 private:
  std::function<void()> run_;
};

// `run` once after `widget`'s first show; nothing when the widget is destroyed first.
inline void onFirstShow(QWidget* widget, std::function<void()> run) {
  new FirstShowHook(widget, std::move(run));
}

}  // namespace modescope
