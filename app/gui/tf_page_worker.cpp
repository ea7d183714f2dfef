#include "app/gui/tf_page_worker.h"

#include <QMetaObject>
#include <exception>

namespace modescope {

TfPageWorker::TfPageWorker(std::shared_ptr<ComputeBackend> backend, QObject* parent)
    : QObject(parent), backend_(std::move(backend)) {
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

TfPageWorker::~TfPageWorker() {
  thread_.request_stop();  // cancels a running page at its next checkpoint
  wake_.notify_all();
  thread_.join();
}

void TfPageWorker::setBackend(std::shared_ptr<ComputeBackend> backend) {
  const std::lock_guard lock(mutex_);
  backend_ = std::move(backend);
}

void TfPageWorker::request(std::shared_ptr<const Recording> recording, const TfPageRequest& page) {
  {
    const std::lock_guard lock(mutex_);
    pending_ = Job{std::move(recording), page, backend_};
  }
  wake_.notify_all();
}

bool TfPageWorker::busy() const {
  const std::lock_guard lock(mutex_);
  return running_ || pending_.has_value();
}

void TfPageWorker::run(std::stop_token stop) {
  while (true) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, stop, [this] { return pending_.has_value(); });
      if (stop.stop_requested()) return;
      job = std::move(*pending_);
      pending_.reset();
      running_ = true;
    }
    std::shared_ptr<const TfPage> page;
    QString failure;
    try {
      if (!job.backend)
        throw InvalidParameterError("backend", "none", "a compute backend",
                                    "choose one in the Compute menu");
      JobContext ctx(stop, {});
      page = std::make_shared<const TfPage>(
          computeTfPage(*job.recording, job.page, *job.backend, ctx));
    } catch (const Cancelled&) {
      // Destruction: nothing to report.
    } catch (const std::exception& e) {
      failure = QString::fromUtf8(e.what());
    }
    {
      const std::lock_guard lock(mutex_);
      running_ = false;
    }
    if (stop.stop_requested()) return;
    // Queued to the GUI thread; `this` outlives the call because the destructor joins first,
    // and a call queued just before destruction is dropped with the object.
    QMetaObject::invokeMethod(
        this,
        [this, page, failure] {
          if (page) {
            ++computed_;
            emit pageReady(page);
          } else if (!failure.isEmpty()) {
            emit pageFailed(failure);
          }
        },
        Qt::QueuedConnection);
  }
}

}  // namespace modescope
