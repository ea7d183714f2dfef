#include "app/gui/engine_bridge.h"

#include <QMetaObject>
#include <QtDebug>

#include "app/core/gpu_backend.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

QString choiceName(BackendChoice c) {
  switch (c) {
    case BackendChoice::Auto:
      return QStringLiteral("auto");
    case BackendChoice::Cpu:
      return QStringLiteral("CPU");
    case BackendChoice::Cuda:
      return QStringLiteral("CUDA");
  }
  return {};
}

}  // namespace

EngineBridge::EngineBridge(BackendChoice initial, QObject* parent) : QObject(parent) {
  qRegisterMetaType<JobOutcome>("modescope::JobOutcome");
  JobEvents events;
  events.started = [this](JobId id, const std::string& title) { onStarted(id, title); };
  events.progressed = [this](JobId id, double f, std::string_view stage) {
    onProgressed(id, f, stage);
  };
  events.finished = [this](JobId id, const JobOutcome& out) { onFinished(id, out); };
  queue_ = std::make_unique<JobQueue>(std::move(events));
  setBackendChoice(initial);
}

EngineBridge::~EngineBridge() {
  // Join the engine thread while this QObject is still whole: the events it posts meanwhile are
  // discarded with the object's pending events afterwards.
  queue_.reset();
}

JobId EngineBridge::submit(const QString& title, JobFunction fn, FinishedHandler onFinished) {
  const JobId id = queue_->submit(title.toStdString(), std::move(fn));
  // Registered before control returns to the event loop, so the (posted) finish finds it.
  handlers_[id] = std::move(onFinished);
  emit jobSubmitted(id, title);
  return id;
}

void EngineBridge::cancel(JobId id) { queue_->cancel(id); }

void EngineBridge::cancelAll() { queue_->cancelAll(); }

void EngineBridge::onStarted(JobId id, const std::string& title) {
  const QString t = QString::fromStdString(title);
  QMetaObject::invokeMethod(
      this, [this, id, t] { emit jobStarted(id, t); }, Qt::QueuedConnection);
}

void EngineBridge::onProgressed(JobId id, double fraction, std::string_view stage) {
  const auto now = std::chrono::steady_clock::now();
  if (id == lastProgressJob_ && now - lastProgressTime_ < progressInterval_) return;
  lastProgressJob_ = id;
  lastProgressTime_ = now;
  const QString s = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
  QMetaObject::invokeMethod(
      this, [this, id, fraction, s] { emit jobProgressed(id, fraction, s); }, Qt::QueuedConnection);
}

void EngineBridge::onFinished(JobId id, const JobOutcome& outcome) {
  // May run on the engine thread or (a queued job cancelled) on the GUI thread: posting keeps the
  // order "submitted, started, progressed..., finished" either way.
  QMetaObject::invokeMethod(
      this, [this, id, outcome] { deliverFinished(id, outcome); }, Qt::QueuedConnection);
}

void EngineBridge::deliverFinished(JobId id, const JobOutcome& outcome) {
  FinishedHandler handler;
  if (auto it = handlers_.find(id); it != handlers_.end()) {
    handler = std::move(it->second);
    handlers_.erase(it);
  }
  if (handler) {
    // Exceptions must not unwind through Qt's event loop.
    try {
      handler(outcome);
    } catch (const std::exception& e) {
      qWarning("ModeScope: handling the result of job %llu failed: %s",
               static_cast<unsigned long long>(id), e.what());
    }
  }
  emit jobFinished(id, outcome);
  // The CUDA backend keeps a run's device memory for the next run; with nothing queued, the
  // window hands it back so that other programs on the GPU see it free.
  if (queue_ && queue_->pending() == 0) releaseIdleGpuMemory();
}

std::shared_ptr<ComputeBackend> EngineBridge::backendFor(std::optional<BackendChoice> own,
                                                         int cpuThreads, std::string* note) const {
  return backendForRun(own, own ? nullptr : backend(), note, cpuThreads);
}

std::shared_ptr<ComputeBackend> EngineBridge::backend() const {
  std::lock_guard lock(backendMutex_);
  return backend_;
}

QString EngineBridge::backendDescription() const {
  const auto b = backend();
  return b ? QString::fromStdString(b->info().describe()) : QString();
}

void EngineBridge::storeBackend(std::shared_ptr<ComputeBackend> backend) {
  std::lock_guard lock(backendMutex_);
  backend_ = std::move(backend);
}

void EngineBridge::setBackendChoice(BackendChoice choice) {
  const BackendChoice previous = choice_;
  choice_ = choice;
  if (choice == BackendChoice::Cpu || gpuFactory() == nullptr) {
    // No CUDA initialisation involved: cheap enough to do here.
    try {
      std::string note;
      std::shared_ptr<ComputeBackend> b = chooseBackend(choice, &note);
      storeBackend(std::move(b));
      note_ = QString::fromStdString(note);
      emit backendChanged(backendDescription(), note_);
    } catch (const std::exception& e) {
      choice_ = previous;
      emit backendChoiceFailed(QString::fromUtf8(e.what()));
    }
    return;
  }
  // The backend is stored on the engine thread inside the job, so jobs queued after this one see
  // it without waiting for the GUI thread.
  submit(
      tr("Select compute backend (%1)").arg(choiceName(choice)),
      [this, choice](JobContext&) -> std::string {
        std::string note;
        std::shared_ptr<ComputeBackend> b = chooseBackend(choice, &note);
        storeBackend(std::move(b));
        return note;
      },
      [this, previous](const JobOutcome& out) {
        if (out.state == JobState::Succeeded) {
          note_ = QString::fromStdString(*out.result.get<std::string>());
          emit backendChanged(backendDescription(), note_);
        } else {
          choice_ = previous;
          emit backendChoiceFailed(QString::fromStdString(out.message));
        }
      });
}

}  // namespace modescope
