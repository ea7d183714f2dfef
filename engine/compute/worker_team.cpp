#include "engine/compute/worker_team.h"

#include <chrono>
#include <utility>

namespace modescope {
namespace {

// Spins until done() or kSpinMicroseconds have passed; true if done() came true.
template <typename Done>
bool spinBriefly(Done done) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(WorkerTeam::kSpinMicroseconds);
  for (int i = 0;; ++i) {
    if (done()) return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return false;
  }
}

}  // namespace

WorkerTeam::WorkerTeam(int threads) {
  for (int w = 1; w < threads; ++w) threads_.emplace_back([this, w] { workerLoop(w); });
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard lock(m_);
    quit_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerTeam::run(std::size_t items, const Task& task) {
  if (threads_.empty() || items < 2) {
    for (std::size_t i = 0; i < items; ++i) task(0, i);
    return;
  }
  task_ = &task;
  items_ = items;
  next_.store(0);
  error_ = nullptr;
  active_.store(static_cast<int>(threads_.size()));
  {
    // Under the mutex, so that a worker about to sleep either sees the new generation or is
    // already waiting when notified.
    std::lock_guard lock(m_);
    generation_.fetch_add(1);
  }
  start_.notify_all();
  drain(0);
  if (!spinBriefly([this] { return active_.load() == 0; })) {
    std::unique_lock lock(m_);
    finished_.wait(lock, [this] { return active_.load() == 0; });
  }
  task_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerTeam::drain(int worker) {
  for (;;) {
    const std::size_t i = next_.fetch_add(1);
    if (i >= items_) return;
    try {
      (*task_)(worker, i);
    } catch (...) {
      std::lock_guard lock(errorMutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(items_);
    }
  }
}

void WorkerTeam::workerLoop(int worker) {
  std::uint64_t seen = 0;
  for (;;) {
    if (!spinBriefly([&] { return generation_.load() != seen; })) {
      std::unique_lock lock(m_);
      start_.wait(lock, [&] { return quit_ || generation_.load() != seen; });
      if (quit_) return;
    }
    seen = generation_.load();
    drain(worker);
    if (active_.fetch_sub(1) == 1) {
      // The caller tests active_ under the mutex before it sleeps: taking it here orders this
      // notification after that test.
      { std::lock_guard lock(m_); }
      finished_.notify_one();
    }
  }
}

}  // namespace modescope
