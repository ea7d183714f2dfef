// Marking bad channels and bad segments with the mouse on a SignalBrowser, kept out of the
// browser itself (an event filter and a transparent overlay child):
//
//  - Shift + click on a channel label toggles the channel bad (MNE's raw.plot() toggles on a
//    plain click; here a plain click selects, as before);
//  - Shift + drag over the traces marks the dragged time range as a bad segment (an annotation
//    "BAD_segment", MNE's convention); the range is shown while dragging;
//  - bad segments on the page are drawn hatched over the traces, grey as bad channels are.
//
// Thread rules: GUI thread; lives as long as its browser (a child of it).
#pragma once

#include <QObject>
#include <QPointer>
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

class SignalBrowser;

class BadSegmentOverlay : public QWidget {
  Q_OBJECT

 public:
  explicit BadSegmentOverlay(SignalBrowser* browser);
  void setSegments(std::vector<Annotation> segments);  // bad segments, any order
  // The range being dragged (seconds), drawn as a band; nullopt when no drag is under way.
  void setDragRange(std::optional<std::pair<double, double>> range);
  // The x span of [start, end) on the traces (clipped), or nullopt when it is off the page.
  std::optional<std::pair<double, double>> spanOnPage(double start, double end) const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  SignalBrowser* browser_;
  std::vector<Annotation> segments_;
  std::optional<std::pair<double, double>> drag_;
};

class BadMarkingInput : public QObject {
  Q_OBJECT

 public:
  // Installs itself as an event filter on `browser` and adds the overlay; both are children of
  // the browser.
  explicit BadMarkingInput(SignalBrowser* browser);
  BadSegmentOverlay* overlay() const { return overlay_; }

  // The name (else label) of the channel whose label is at `pos`, or "" (names, not indices: a
  // browser may show a subset of the recording's channels).
  QString labelChannelAt(const QPointF& pos) const;
  // Recording seconds at `x` on the traces, clamped to the page; nullopt outside the traces.
  std::optional<double> timeAt(const QPointF& pos) const;
  // timeAt of `x` clamped to the traces (a drag may leave them).
  std::optional<double> dragTimeAt(double x) const;

 signals:
  void channelToggled(const QString& name);           // Shift + click on its label
  void segmentMarked(double onset, double duration);  // Shift + drag, at least 2 px

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  SignalBrowser* browser_;
  BadSegmentOverlay* overlay_;
  std::optional<double> dragStart_;  // s
  double dragStartX_ = 0.0;
};

}  // namespace modescope
