// A fixed team of threads that runs one batch of items at a time, for work that comes in many
// small batches in a row: the outputs of each 50 ms block of a live AR stream, the row chunks of
// each Infomax block update (about a hundred microseconds of work at 256 components). Starting
// threads per batch, as parallelFor does, would cost more than such a batch.
//
// The caller takes items too, so a team of 1 starts no thread. Between batches a worker spins for
// up to kSpinMicroseconds (the next batch of a block-update loop usually comes within that) and
// then sleeps on a condition variable, so an idle team costs nothing.
//
// Thread rules: run() is called from one thread at a time; task(worker, item) runs concurrently
// for different items, worker in [0, size()) naming the thread (for per-thread scratch).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace modescope {

class WorkerTeam {
 public:
  using Task = std::function<void(int worker, std::size_t item)>;
  static constexpr int kSpinMicroseconds = 50;

  explicit WorkerTeam(int threads);  // threads <= 1: the caller alone
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()) + 1; }

  // task(worker, i) for every i in [0, items); returns when all are done; rethrows the first
  // error (the batch's remaining items are then skipped).
  void run(std::size_t items, const Task& task);

 private:
  // Takes and runs items of the batch with the given generation until it has none left or a newer
  // batch has started.
  void takeItems(int worker, std::uint32_t generation);
  void workerLoop(int worker);
  void finishItems(std::size_t count, std::size_t items);

  // Batches alternate between two slots; a slot is rewritten two batches later, and whoever read
  // a stale slot fails the generation check of its claim (takeItems) before running anything.
  struct Batch {
    std::atomic<const Task*> task{nullptr};
    std::atomic<std::size_t> items{0};
  };

  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable start_, finished_;
  Batch batches_[2];
  // The current batch's generation (high 32 bits) and next unclaimed item (low 32 bits): one word,
  // so a claim succeeds only for the batch it was meant for. A worker that wakes late therefore
  // never holds the caller up: the caller waits for items, not for every worker to check in.
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<std::size_t> done_{0};  // items of the current batch finished or skipped
  std::uint32_t generation_ = 0;      // the caller's count of batches
  bool quit_ = false;                 // under m_
  std::mutex errorMutex_;
  std::exception_ptr error_;
};

}  // namespace modescope
