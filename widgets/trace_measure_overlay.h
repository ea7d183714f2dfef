// Measuring on the traces of a SignalBrowser: a cursor read-out (a vertical line at the mouse,
// the time, and every trace's value at that time beside it) and a two-point ruler (delta t,
// delta amplitude, frequency 1/delta t), as EDFbrowser's crosshairs and ruler offer.
//
// It is a transparent child widget over the browser (it takes no mouse events itself); it
// watches the browser's mouse through an event filter and draws on top, so the browser's own
// painting and caches are untouched. The values read out are those drawn: the page the browser
// computed (after montage and display filter), at the nearest point of each trace's polyline.
// The ruler's amplitude is read from the vertical pixel distance at the current scale (uV per
// division over the row spacing), which is what a ruler laid on paper measures.
//
// Ruler gestures: startRuler() (the R key or the context menu), then two left clicks on the
// traces; or one middle-button drag. Esc removes it. GUI thread only.
#pragma once

#include <QPointF>
#include <QPointer>
#include <QWidget>
#include <optional>
#include <vector>

namespace modescope {

class SignalBrowser;

class TraceMeasureOverlay : public QWidget {
  Q_OBJECT

 public:
  // Becomes a child of `browser` covering it.
  explicit TraceMeasureOverlay(SignalBrowser* browser);

  struct RowValue {
    int row = 0;
    QString label;
    double value = 0.0;  // uV (the channel's unit scaled to uV), as drawn
  };
  struct Measurement {
    double t0 = 0, t1 = 0;  // s from the recording start
    double a0 = 0, a1 = 0;  // uV relative to the zero line of the row of the first point
    double dt() const { return t1 - t0; }
    double dAmplitude() const { return a1 - a0; }
    // 1 / |dt| in Hz; 0 when dt is 0.
    double frequency() const { return dt() != 0 ? 1.0 / std::abs(dt()) : 0.0; }
    int row = -1;
    bool complete = false;  // false while the second point follows the mouse
  };

  void setReadoutEnabled(bool enabled);
  bool readoutEnabled() const { return readout_; }
  // The cursor's time (s) while the mouse is over the traces.
  std::optional<double> cursorTime() const;
  // Each drawn trace's value at `seconds` (page time), top to bottom; empty when nothing is drawn.
  std::vector<RowValue> valuesAt(double seconds) const;

  // Arms the ruler: the next left click on the traces sets its first point.
  void startRuler();
  void clearRuler();
  bool rulerArmed() const { return armed_; }
  std::optional<Measurement> ruler() const;
  // "dt 0.250 s  dA -35.2 uV  4.00 Hz" for the measurement.
  static QString measurementText(const Measurement& m);

  // Widget position <-> page time and amplitude (in the browser's own layout): for the gestures
  // and tests. Amplitude is relative to the zero line of `row`.
  std::optional<double> timeAt(QPointF pos) const;
  QPointF positionFor(double seconds, int row, double microvolts) const;

 signals:
  void rulerChanged();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  struct Point {
    double t = 0;
    int row = -1;
    double microvolts = 0;  // relative to that row's zero line
  };
  std::optional<Point> pointAt(QPointF pos) const;
  void setSecond(QPointF pos, bool complete);

  QPointer<SignalBrowser> browser_;
  bool readout_ = true;
  std::optional<QPointF> mouse_;
  bool armed_ = false;
  bool dragging_ = false;
  std::optional<Point> first_, second_;
  bool complete_ = false;
};

}  // namespace modescope
