// `modescope --screenshot OUT.png`: once the main window has drawn its first page, waits until
// the browser stops repainting (pages may fill in from a background cache), grabs the window to
// OUT.png and quits the application. Used by tests and to make the docs' pictures.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace modescope {

class MainWindow;

class ScreenshotTaker : public QObject {
  Q_OBJECT

 public:
  // Quiet time: no repaint of the browser for this long means the page is complete.
  static constexpr int kQuietMilliseconds = 300;
  // Upper bound between the first page and the grab, in case something keeps repainting.
  static constexpr int kMaxSettleMilliseconds = 5000;

  // Exits the application with 0 once the PNG is written; 1 if writing failed or nothing was
  // drawn within timeoutSeconds; 2 if the recording could not be opened.
  ScreenshotTaker(MainWindow* window, QString path, int timeoutSeconds);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onPageDrawn();
  void grabAndQuit();
  void fail(int code, const QString& message);

  MainWindow* window_;
  QString path_;
  QTimer quiet_, settle_, timeout_;
  bool armed_ = false;
  bool done_ = false;
};

}  // namespace modescope
