#include "engine/compute/worker_team.h"

#include <chrono>
#include <limits>
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

std::uint32_t generationOf(std::uint64_t ticket) {
  return static_cast<std::uint32_t>(ticket >> 32);
}
std::size_t itemOf(std::uint64_t ticket) { return static_cast<std::size_t>(ticket & 0xffffffffu); }

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
  if (threads_.empty() || items < 2 || items > std::numeric_limits<std::uint32_t>::max() / 2) {
    for (std::size_t i = 0; i < items; ++i) task(0, i);
    return;
  }
  const std::uint32_t generation = ++generation_;
  Batch& batch = batches_[generation & 1];
  batch.task.store(&task);
  batch.items.store(items);
  done_.store(0);
  error_ = nullptr;
  {
    // Under the mutex, so that a worker about to sleep either sees the new ticket or is already
    // waiting when notified.
    std::lock_guard lock(m_);
    ticket_.store(static_cast<std::uint64_t>(generation) << 32);
  }
  start_.notify_all();
  takeItems(0, generation);
  if (!spinBriefly([&] { return done_.load() == items; })) {
    std::unique_lock lock(m_);
    finished_.wait(lock, [&] { return done_.load() == items; });
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerTeam::takeItems(int worker, std::uint32_t generation) {
  const Batch& batch = batches_[generation & 1];
  const Task* task = batch.task.load();
  const std::size_t items = batch.items.load();
  std::uint64_t ticket = ticket_.load();
  for (;;) {
    if (generationOf(ticket) != generation || itemOf(ticket) >= items) return;
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1)) continue;  // ticket reloaded
    try {
      (*task)(worker, itemOf(ticket));
      finishItems(1, items);
    } catch (...) {
      {
        std::lock_guard lock(errorMutex_);
        if (!error_) error_ = std::current_exception();
      }
      // Skip the batch's unclaimed items; they count as finished so the caller stops waiting.
      std::uint64_t rest = ticket_.load();
      const std::uint64_t end = (static_cast<std::uint64_t>(generation) << 32) | items;
      while (generationOf(rest) == generation && itemOf(rest) < items &&
             !ticket_.compare_exchange_weak(rest, end)) {
      }
      const std::size_t skipped =
          generationOf(rest) == generation && itemOf(rest) < items ? items - itemOf(rest) : 0;
      finishItems(1 + skipped, items);
      return;
    }
    ticket = ticket_.load();
  }
}

void WorkerTeam::finishItems(std::size_t count, std::size_t items) {
  if (done_.fetch_add(count) + count == items) {
    // The caller tests done_ under the mutex before it sleeps: taking it here orders this
    // notification after that test.
    { std::lock_guard lock(m_); }
    finished_.notify_one();
  }
}

void WorkerTeam::workerLoop(int worker) {
  std::uint32_t seen = 0;
  for (;;) {
    const auto newBatch = [&] { return generationOf(ticket_.load()) != seen; };
    if (!spinBriefly(newBatch)) {
      std::unique_lock lock(m_);
      start_.wait(lock, [&] { return quit_ || newBatch(); });
      if (quit_) return;
    }
    seen = generationOf(ticket_.load());
    takeItems(worker, seen);
  }
}

}  // namespace modescope
