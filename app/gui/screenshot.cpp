#include "app/gui/screenshot.h"

#include <QApplication>
#include <QEvent>
#include <QPixmap>
#include <cstdio>

namespace modescope {

ScreenshotTaker::ScreenshotTaker(QWidget* window, std::function<QWidget*()> browser, QString path,
                                 int timeoutSeconds)
    : QObject(window), window_(window), browser_(std::move(browser)), path_(std::move(path)) {
  quiet_.setSingleShot(true);
  quiet_.setInterval(kQuietMilliseconds);
  settle_.setSingleShot(true);
  settle_.setInterval(kMaxSettleMilliseconds);
  timeout_.setSingleShot(true);
  timeout_.setInterval(timeoutSeconds * 1000);
  connect(&quiet_, &QTimer::timeout, this, &ScreenshotTaker::grabAndQuit);
  connect(&settle_, &QTimer::timeout, this, &ScreenshotTaker::grabAndQuit);
  connect(&timeout_, &QTimer::timeout, this, [this] {
    fail(1, QStringLiteral("no page was drawn within %1 s").arg(timeout_.interval() / 1000));
  });
  timeout_.start();
}

void ScreenshotTaker::openFailed(const QString& file, const QString& message) {
  fail(2, QStringLiteral("cannot open %1: %2").arg(file, message));
}

void ScreenshotTaker::pageDrawn() {
  if (armed_ || done_) return;
  armed_ = true;
  if (QWidget* b = browser_ ? browser_() : nullptr) b->installEventFilter(this);
  quiet_.start();
  settle_.start();
}

bool ScreenshotTaker::eventFilter(QObject* watched, QEvent* event) {
  if (armed_ && event->type() == QEvent::Paint) quiet_.start();  // restart: still drawing
  return QObject::eventFilter(watched, event);
}

void ScreenshotTaker::grabAndQuit() {
  if (done_) return;
  done_ = true;
  const QPixmap image = window_->grab();
  if (image.isNull() || !image.save(path_, "PNG")) {
    done_ = false;
    fail(1, QStringLiteral("could not write the screenshot to %1").arg(path_));
    return;
  }
  std::fprintf(stdout, "modescope: screenshot written to %s (%dx%d)\n", qPrintable(path_),
               image.width(), image.height());
  std::fflush(stdout);
  QCoreApplication::exit(0);
}

void ScreenshotTaker::fail(int code, const QString& message) {
  if (done_) return;
  done_ = true;
  std::fprintf(stderr, "modescope: --screenshot: %s\n", qPrintable(message));
  QCoreApplication::exit(code);
}

}  // namespace modescope
