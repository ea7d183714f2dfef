// The GUI's bridge to the engine thread (DESIGN.md, "GUI"): owns the one JobQueue and the current
// ComputeBackend, and re-emits the queue's events on the GUI thread.
//
// Thread rules: construct, submit, cancel and connect on the GUI thread. The queue's events
// arrive on the engine thread and are forwarded with QMetaObject::invokeMethod(...,
// Qt::QueuedConnection), so every signal below and every FinishedHandler runs on the GUI thread.
// Progress is throttled to one event per job per progressInterval (50 ms, ~20 Hz), so a job that
// reports per sample cannot flood the event loop. cancel() is a direct call into the queue (a stop
// request the job sees at its next checkpoint). backend() may be called from any thread; a job
// takes its own reference, so switching the backend while a job runs is safe.
#pragma once

#include <QObject>
#include <QString>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "engine/compute/backend.h"
#include "engine/core/job_queue.h"

Q_DECLARE_METATYPE(modescope::JobOutcome)

namespace modescope {

class EngineBridge : public QObject {
  Q_OBJECT

 public:
  using FinishedHandler = std::function<void(const JobOutcome&)>;

  // Selects the initial backend (Auto: the GPU when this build has CUDA and a device, else CPU).
  explicit EngineBridge(BackendChoice initial = BackendChoice::Auto, QObject* parent = nullptr);
  ~EngineBridge() override;  // cancels all jobs and joins the engine thread

  // Queues fn on the engine thread. onFinished (optional) runs on the GUI thread with the outcome,
  // before jobFinished is emitted. Returns the job's id.
  JobId submit(const QString& title, JobFunction fn, FinishedHandler onFinished = {});
  void cancel(JobId id);
  void cancelAll();
  bool isActive(JobId id) const { return handlers_.count(id) != 0; }  // queued or running
  std::size_t activeCount() const { return handlers_.size(); }

  // Minimum time between two forwarded progress events of one job (default 50 ms).
  void setProgressInterval(std::chrono::milliseconds interval) { progressInterval_ = interval; }

  BackendChoice backendChoice() const { return choice_; }
  // Switches the backend. Where a GPU factory exists the choice is made on the engine thread (CUDA
  // initialisation takes time) after the jobs already queued; otherwise at once. A failure (CUDA
  // forced but unavailable) keeps the previous backend and emits backendChoiceFailed.
  void setBackendChoice(BackendChoice choice);
  // The current backend; null only until the first choice has been made. Any thread.
  std::shared_ptr<ComputeBackend> backend() const;
  // The window's jobs' backend by the one rule (backendForRun, app/core/gpu_backend.h): the job's
  // own choice (a dialog's backend field) makes a backend for that job, on the CPU with
  // `cpuThreads` threads (<= 0: all cores), `note` saying why auto fell back to the CPU; none
  // means the Compute menu's, already started. Call on the engine thread, inside the job. Throws
  // DeviceError while no backend exists yet, and what chooseBackend throws for a forced CUDA that
  // is missing.
  std::shared_ptr<ComputeBackend> backendFor(std::optional<BackendChoice> own, int cpuThreads = 0,
                                             std::string* note = nullptr) const;
  // BackendInfo::describe() of the current backend ("CPU, 2 threads"), "" before the first choice.
  QString backendDescription() const;
  QString backendNote() const { return note_; }  // why Auto fell back to the CPU, or ""

 signals:
  void jobSubmitted(modescope::JobId id, const QString& title);
  void jobStarted(modescope::JobId id, const QString& title);
  void jobProgressed(modescope::JobId id, double fraction, const QString& stage);
  void jobFinished(modescope::JobId id, const modescope::JobOutcome& outcome);
  void backendChanged(const QString& description, const QString& note);
  void backendChoiceFailed(const QString& message);

 private:
  // Engine-thread callbacks.
  void onStarted(JobId id, const std::string& title);
  void onProgressed(JobId id, double fraction, std::string_view stage);
  void onFinished(JobId id, const JobOutcome& outcome);
  // GUI thread.
  void deliverFinished(JobId id, const JobOutcome& outcome);
  void storeBackend(std::shared_ptr<ComputeBackend> backend);

  std::map<JobId, FinishedHandler> handlers_;  // GUI thread only
  BackendChoice choice_ = BackendChoice::Auto;
  QString note_;
  mutable std::mutex backendMutex_;
  std::shared_ptr<ComputeBackend> backend_;
  std::chrono::milliseconds progressInterval_{50};
  // Engine thread only (one job runs at a time there).
  JobId lastProgressJob_ = 0;
  std::chrono::steady_clock::time_point lastProgressTime_;
  std::unique_ptr<JobQueue> queue_;  // last: its thread starts after the members above exist
};

}  // namespace modescope
