// Computes the time-frequency view's pages off the GUI thread, newest request wins: while one
// page is computed, further requests (the user scrolling on) replace each other, and only the
// last one is computed next, so the view follows the browser at the rate the backend manages
// instead of queueing every page it passed. On destruction the pending request is dropped and the
// running one cancelled (its JobContext stop token). The backend is the worker's own (no other
// job shares it, as computeTfPage needs).
//
// Thread rules: construct, request and destroy on the GUI thread; pageReady and pageFailed are
// delivered on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "app/core/tf_page.h"

namespace modescope {

class TfPageWorker : public QObject {
  Q_OBJECT

 public:
  // `backend` computes every page (null: refused with a message at each request).
  TfPageWorker(std::shared_ptr<ComputeBackend> backend, QObject* parent = nullptr);
  ~TfPageWorker() override;

  void setBackend(std::shared_ptr<ComputeBackend> backend);
  // Queues the page (replacing any queued one).
  void request(std::shared_ptr<const Recording> recording, const TfPageRequest& page);
  bool busy() const;
  int pagesComputed() const { return computed_; }  // pageReady count, for tests

 signals:
  void pageReady(std::shared_ptr<const TfPage> page);
  void pageFailed(const QString& message);

 private:
  struct Job {
    std::shared_ptr<const Recording> recording;
    TfPageRequest page;
    std::shared_ptr<ComputeBackend> backend;
  };
  void run(std::stop_token stop);

  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::optional<Job> pending_;
  bool running_ = false;
  std::shared_ptr<ComputeBackend> backend_;
  int computed_ = 0;
  std::jthread thread_;  // last: started after, and joined before, the members above go
};

}  // namespace modescope
