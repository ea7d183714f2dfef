// Drag on a SignalBrowser's traces to mark a time span (the interaction of EDFbrowser's and
// MNE's annotation modes), kept out of SignalBrowser itself: an event filter installed on the
// browser. Shift + drag always marks; with annotate mode on, a plain drag does too. While
// dragging, a rubber band shows the span; on release spanMarked(onset, duration) is emitted
// (duration 0 for a click without movement, an instant event). Other mouse use passes through.
//
// Thread rules: GUI thread only.
#pragma once

#include <QObject>
#include <QPointer>
#include <optional>

class QRubberBand;

namespace modescope {

class SignalBrowser;

class AnnotationDragTool : public QObject {
  Q_OBJECT

 public:
  explicit AnnotationDragTool(QObject* parent = nullptr);
  // Watches `browser` (several may be attached; each drag belongs to one).
  void attach(SignalBrowser* browser);
  void setAnnotateMode(bool on) { annotateMode_ = on; }
  bool annotateMode() const { return annotateMode_; }
  // The recording time last under the mouse on any attached browser (for "add at cursor").
  std::optional<double> lastCursorTime() const { return lastCursor_; }

 signals:
  void spanMarked(double onset, double duration);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  bool annotateMode_ = false;
  QPointer<SignalBrowser> dragging_;
  double dragStartTime_ = 0.0;
  int dragStartX_ = 0;
  QRubberBand* band_ = nullptr;
  std::optional<double> lastCursor_;
};

}  // namespace modescope
