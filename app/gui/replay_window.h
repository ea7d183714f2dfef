// Analysis > "Live replay (AR features)..." (issue 5, item 4): the current recording streamed
// through the BCI feature pipeline (app/core/ar_replay.h: spatial filter, Burg AR spectra of the
// latest window) block by block, with
//  - controls: play/pause, speed (1x, 2x, 4x, max), block length, preset (BCI2000, Wilson 2009),
//    spatial filter (none, CAR, small/large Laplacian), band, the channel whose spectrum is shown,
//    a position slider (seek) and "follow in browser" (the signal browser's page follows the
//    replay position);
//  - a Qt Charts spectrum of the chosen channel and the band-power scalp map (widgets/
//    scalp_map_view; the spline interpolation matrix is built once per channel layout, so each
//    update is one matrix-vector product), both updated for every redraw;
//  - a status line: per-block push latency (last, mean, max, jitter sd), updates per second and
//    late blocks.
// The replay runs on its own thread (ArReplayRunner) with its own backend (the Compute menu's
// choice when opened), never on the GUI thread. Frames are coalesced: the runner stores the latest
// frame and posts at most one redraw at a time, so a slow GUI shows fewer frames instead of
// queueing them.
//
// Thread rules: GUI thread, except where noted (onFrame runs on the runner's thread).
#pragma once

#include <QPointer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "app/core/ar_replay.h"
#include "engine/compute/backend.h"
#include "engine/montage/scalp_interpolation.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace modescope {

class ScalpMapView;
class SignalBrowser;
class WorkflowHost;
class Workspace;

class ReplayWindow : public QWidget {
  Q_OBJECT

 public:
  // A window (a top-level tool window of `parent`) replaying `recording`, its channels of the
  // first EEG channel's sample rate. `browser` (may be null) is the page that follows the replay.
  ReplayWindow(std::shared_ptr<const Recording> recording, const QString& title,
               BackendChoice backend, SignalBrowser* browser, QWidget* parent = nullptr);
  ~ReplayWindow() override;

  // The main window's action: opens (or raises, when it shows the same recording) the replay of
  // the workspace's current document, a tool window of host.hostWindow() on the Compute menu's
  // backend choice, its page followed in that document's browser. Returns it, or nullptr when
  // nothing is open.
  static ReplayWindow* showFor(Workspace& workspace, WorkflowHost& host);

  void play();
  void pause();
  bool playing() const;
  // 1, 2, 4 or 0 (as fast as possible).
  void setSpeed(double speed);
  void seek(double seconds);
  // Index into the filter choices: 0 none, 1 CAR, 2 small Laplacian, 3 large Laplacian.
  void setFilterChoice(int index);
  // Spectrum axis in dB (10 log10 of power, 20 log10 of amplitude; the default) or linear.
  void setDecibels(bool on);

  // What the tests and the status line read.
  ArReplayStats stats() const;
  int64_t framesReceived() const { return framesReceived_.load(); }
  int64_t redraws() const { return redraws_; }
  int maxQueuedRedraws() const { return maxQueued_.load(); }  // never above 1 (coalescing)
  double lastReplayTime() const { return lastReplayTime_; }
  QString statusText() const;
  QString problem() const;  // the last error ("" when none)
  QChart* spectrumChart() const;
  QLineSeries* spectrumSeries() const { return series_; }
  ScalpMapView* scalpMap() const { return map_; }
  QLabel* latencyLabel() const { return status_; }

  // Writes "spectrum", "map" or "both" (side by side) as PNG/SVG/PDF by extension.
  bool exportFigure(const QString& which, const QString& path, QString* error = nullptr) const;

 signals:
  void frameShown();  // a redraw finished
  void replayFailed(const QString& message);

 private:
  void buildUi(const QString& title);
  void rebuildReplay();  // after a configuration change; keeps the position and play state
  ArReplayConfig currentConfig() const;
  void onFrame(const ArReplayFrame& frame, const ArReplayStats& stats);  // runner thread
  void applyLatest();                                                    // GUI thread
  void showError(const QString& message);
  void chooseAndExport();

  std::shared_ptr<const Recording> recording_;
  std::vector<std::size_t> channels_;  // replayed recording channels
  std::unique_ptr<ComputeBackend> backend_;
  std::unique_ptr<ArReplayRunner> runner_;  // destroyed before backend_ (declared after it)
  QPointer<SignalBrowser> browser_;

  // Scalp map layout of the current outputs, built once per configuration.
  ScalpLayout layout_;
  std::shared_ptr<const ScalpGridInterpolator> interpolator_;
  std::vector<ChannelInfo> outputs_;
  std::vector<double> binCenters_;
  double yMax_ = 0.0;
  double yMin_ = 0.0;  // dB axis only

  // The coalescing slot between the runner's thread and the GUI thread.
  std::mutex pendingMutex_;
  std::optional<ArReplayFrame> pendingFrame_;
  ArReplayStats pendingStats_;
  std::atomic<bool> redrawQueued_{false};
  std::atomic<int> queued_{0};
  std::atomic<int> maxQueued_{0};
  std::atomic<int64_t> framesReceived_{0};
  int64_t redraws_ = 0;
  double lastReplayTime_ = 0.0;
  ArReplayStats shownStats_;
  QString problem_;
  QString backendNote_;  // why the replay runs on the CPU when the GPU was asked for, or empty
  bool updatingControls_ = false;

  QPushButton* playButton_ = nullptr;
  QComboBox* speed_ = nullptr;
  QSpinBox* blockMs_ = nullptr;
  QComboBox* preset_ = nullptr;
  QComboBox* filter_ = nullptr;
  QDoubleSpinBox* bandLow_ = nullptr;
  QDoubleSpinBox* bandHigh_ = nullptr;
  QComboBox* channel_ = nullptr;
  QSlider* position_ = nullptr;
  QLabel* positionLabel_ = nullptr;
  QCheckBox* follow_ = nullptr;
  QCheckBox* decibels_ = nullptr;
  QChartView* chartView_ = nullptr;
  QLineSeries* series_ = nullptr;
  QValueAxis* xAxis_ = nullptr;
  QValueAxis* yAxis_ = nullptr;
  ScalpMapView* map_ = nullptr;
  QLabel* status_ = nullptr;
};

}  // namespace modescope
