// `modescope --screenshot OUT.png`: once the main window has drawn its first page, waits until
// the browser stops repainting (pages may fill in from a background cache), grabs the window to
// OUT.png and quits the application. Used by tests and to make the docs' pictures. main.cpp
// connects the window's pageDrawn and openFailed signals to pageDrawn() and openFailed().
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QWidget>
#include <functional>

namespace modescope {

class ScreenshotTaker : public QObject {
  Q_OBJECT

 public:
  // Quiet time: no repaint of the browser for this long means the page is complete.
  static constexpr int kQuietMilliseconds = 300;
  // Upper bound between the first page and the grab, in case something keeps repainting.
  static constexpr int kMaxSettleMilliseconds = 5000;

  // Exits the application with 0 once the PNG is written; 1 if writing failed or nothing was
  // drawn within timeoutSeconds; 2 if the recording could not be opened.
  // `window`: what is grabbed; `browser`: the widget whose repaints mean the page still fills in
  // (the current tab's signal browser; may return null).
  ScreenshotTaker(QWidget* window, std::function<QWidget*()> browser, QString path,
                  int timeoutSeconds);

  void pageDrawn();  // the first page of a new tab has been painted
  void openFailed(const QString& file, const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void grabAndQuit();
  void fail(int code, const QString& message);

  QWidget* window_;
  std::function<QWidget*()> browser_;
  QString path_;
  QTimer quiet_, settle_, timeout_;
  bool armed_ = false;
  bool done_ = false;
};

}  // namespace modescope
