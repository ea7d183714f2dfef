// The engine's one kind of worker thread: a fixed team of threads that runs one batch of items at
// a time. Everything that spreads CPU work over threads runs on a WorkerTeam: parallelFor
// (parallel_for.h), the EMD family's pool, the Infomax block updates, the live AR stream, the
// ICA whitening passes, scalp interpolation and the CUDA backend's host copies. A team is built
// for work that comes in many small batches in a row (the outputs of each 50 ms block of a live
// AR stream, the row chunks of each Infomax block update: about a hundred microseconds of work at
// 256 components), where starting threads per batch would cost more than the batch.
//
// Teams are leased (TeamLease) from one process-wide set: threads start once per team, and a team
// goes back to the set when its lease ends, so a parallelFor call or a job wakes threads that
// already exist instead of starting new ones.
//
// The caller takes items too, so a team of 1 starts no thread. Between batches a worker spins for
// up to kSpinMicroseconds (the next batch of a block-update loop usually comes within that) and
// then sleeps on a condition variable, so an idle team costs nothing.
//
// Thread rules: run() is called from one thread at a time; task(worker, item) runs concurrently
// for different items, worker in [0, size()) naming the thread (for per-thread scratch). Leases
// may be taken and ended from any thread; concurrent or nested leases get different teams.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace modescope {

// The host's hardware threads, at least 1: what "all threads" means wherever a thread count of
// 0 or less asks for them.
inline int hardwareThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
// `threads`, or hardwareThreads() when it is 0 or less.
inline int threadsOrAll(int threads) { return threads > 0 ? threads : hardwareThreads(); }

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

  // As run(), and the caller also calls watch() at most about every `interval`: between its own
  // items and while it waits for the other workers' (progress reports, which must come from the
  // caller's thread). An error thrown by watch() is handled like one thrown by an item.
  void run(std::size_t items, const Task& task, std::chrono::milliseconds interval,
           const std::function<void()>& watch);

 private:
  struct Watch {
    std::chrono::milliseconds interval;
    const std::function<void()>* call;
    std::chrono::steady_clock::time_point next;
  };
  void runBatch(std::size_t items, const Task& task, Watch* watch);
  // Takes and runs items of the batch with the given generation until it has none left or a newer
  // batch has started. The caller (worker 0) passes its watch, if any.
  void takeItems(int worker, std::uint32_t generation, Watch* watch);
  // Calls watch->call when it is due; an error it throws becomes the batch's error.
  void maybeWatch(Watch& watch, std::uint32_t generation, std::size_t items, bool force);
  void recordError(std::exception_ptr error);
  // Marks the batch's unclaimed items as taken and returns how many there were.
  std::size_t claimRest(std::uint32_t generation, std::size_t items);
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
  // Every worker writes ticket_ and done_ once per item: each gets cache lines of its own (two:
  // x86 prefetches lines in pairs), so neither they nor whatever the allocator puts beside the
  // team (a job's per-item output flags, say) slow each other down by false sharing.
  static constexpr std::size_t kLineAlign = 128;

  // The current batch's generation (high 32 bits) and next unclaimed item (low 32 bits): one word,
  // so a claim succeeds only for the batch it was meant for. A worker that wakes late therefore
  // never holds the caller up: the caller waits for items, not for every worker to check in.
  alignas(kLineAlign) std::atomic<std::uint64_t> ticket_{0};
  // Items of the current batch finished or skipped.
  alignas(kLineAlign) std::atomic<std::size_t> done_{0};
  alignas(kLineAlign) std::uint32_t generation_ = 0;  // the caller's count of batches
  bool quit_ = false;                                 // under m_
  std::mutex errorMutex_;
  std::exception_ptr error_;
};

// A team of `threads` participants (the caller included; <= 1: the caller alone) taken from the
// process-wide set of idle teams, or a new one when none of that size is idle. The team goes back
// to the set when the lease ends (the set keeps a few per size and lets the rest go).
class TeamLease {
 public:
  explicit TeamLease(int threads);
  ~TeamLease();
  TeamLease(TeamLease&& other) noexcept = default;
  TeamLease& operator=(TeamLease&&) = delete;
  TeamLease(const TeamLease&) = delete;
  TeamLease& operator=(const TeamLease&) = delete;

  WorkerTeam& operator*() const { return *team_; }
  WorkerTeam* operator->() const { return team_.get(); }

 private:
  std::unique_ptr<WorkerTeam> team_;
};

}  // namespace modescope
