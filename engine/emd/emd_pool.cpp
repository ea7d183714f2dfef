// The CPU EMD family's worker pool (emd_internal.h).
#include <algorithm>

#include "engine/emd/emd_internal.h"

namespace modescope::emd_detail {

WorkerPool::WorkerPool(int threads, const JobContext* context) {
  threads = std::max(1, threads);
  workspaces_.resize(static_cast<std::size_t>(threads));
  for (SiftWorkspace& ws : workspaces_) ws.context = context;
  for (int w = 1; w < threads; ++w) threads_.emplace_back([this, w] { workerLoop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

int64_t WorkerPool::capReached() const {
  int64_t s = 0;
  for (const SiftWorkspace& ws : workspaces_) s += ws.capReached;
  return s;
}

void WorkerPool::resetCapReached() {
  for (SiftWorkspace& ws : workspaces_) ws.capReached = 0;
}

// Takes items until none are left; after an error the remaining items are skipped.
void WorkerPool::drain(int worker) {
  for (;;) {
    int64_t item;
    {
      std::lock_guard lock(mutex_);
      if (next_ >= count_ || error_) return;
      item = next_++;
    }
    try {
      (*fn_)(item, worker);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkerPool::workerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      ++busy_;
    }
    drain(worker);
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    done_.notify_all();
  }
}

void WorkerPool::run(int64_t count, const std::function<void(int64_t, int)>& fn) {
  if (count <= 0) return;
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    count_ = count;
    next_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  if (!threads_.empty() && count > 1) wake_.notify_all();
  drain(0);
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    // Workers that woke for this generation finish their current item; a worker that has not
    // woken yet finds no items left (next_ >= count_) and returns at once.
    done_.wait(lock, [&] { return busy_ == 0; });
    error = error_;
    fn_ = nullptr;
    count_ = 0;
    next_ = 0;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace modescope::emd_detail
