#include "engine/parallel/worker_team.h"

#include <algorithm>
#include <iterator>
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

void WorkerTeam::run(std::size_t items, const Task& task) { runBatch(items, task, nullptr); }

void WorkerTeam::run(std::size_t items, const Task& task, std::chrono::milliseconds interval,
                     const std::function<void()>& watch) {
  Watch w{interval, &watch, std::chrono::steady_clock::now() + interval};
  runBatch(items, task, &w);
}

void WorkerTeam::runBatch(std::size_t items, const Task& task, Watch* watch) {
  if (threads_.empty() || items < 2 || items > std::numeric_limits<std::uint32_t>::max() / 2) {
    for (std::size_t i = 0; i < items; ++i) {
      task(0, i);
      if (watch && std::chrono::steady_clock::now() >= watch->next) {
        watch->next = std::chrono::steady_clock::now() + watch->interval;
        (*watch->call)();
      }
    }
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
  takeItems(0, generation, watch);
  const auto allDone = [&] { return done_.load() == items; };
  if (!spinBriefly(allDone)) {
    std::unique_lock lock(m_);
    if (!watch) {
      finished_.wait(lock, allDone);
    } else {
      while (!finished_.wait_until(lock, watch->next, allDone)) {
        lock.unlock();
        maybeWatch(*watch, generation, items, true);
        lock.lock();
      }
    }
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerTeam::takeItems(int worker, std::uint32_t generation, Watch* watch) {
  const Batch& batch = batches_[generation & 1];
  const Task* task = batch.task.load();
  const std::size_t items = batch.items.load();
  std::uint64_t ticket = ticket_.load();
  for (;;) {
    if (generationOf(ticket) != generation || itemOf(ticket) >= items) return;
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1)) continue;  // ticket reloaded
    try {
      (*task)(worker, itemOf(ticket));
    } catch (...) {
      recordError(std::current_exception());
      // Skip the batch's unclaimed items; they count as finished so the caller stops waiting.
      finishItems(1 + claimRest(generation, items), items);
      return;
    }
    finishItems(1, items);
    if (watch) maybeWatch(*watch, generation, items, false);
    ticket = ticket_.load();
  }
}

void WorkerTeam::maybeWatch(Watch& watch, std::uint32_t generation, std::size_t items, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < watch.next) return;
  watch.next = now + watch.interval;
  try {
    (*watch.call)();
  } catch (...) {
    recordError(std::current_exception());
    const std::size_t skipped = claimRest(generation, items);
    if (skipped > 0) finishItems(skipped, items);
  }
}

void WorkerTeam::recordError(std::exception_ptr error) {
  std::lock_guard lock(errorMutex_);
  if (!error_) error_ = std::move(error);
}

std::size_t WorkerTeam::claimRest(std::uint32_t generation, std::size_t items) {
  std::uint64_t rest = ticket_.load();
  const std::uint64_t end = (static_cast<std::uint64_t>(generation) << 32) | items;
  while (generationOf(rest) == generation && itemOf(rest) < items &&
         !ticket_.compare_exchange_weak(rest, end)) {
  }
  return generationOf(rest) == generation && itemOf(rest) < items ? items - itemOf(rest) : 0;
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
    takeItems(worker, seen, nullptr);
  }
}

// ---- the process-wide set of idle teams ---------------------------------------------------------

namespace {

// Idle teams kept per size: a job and a concurrent reader (the signal browser's read-ahead) each
// find one; more than that at once is rare, and the surplus is let go (its threads end).
constexpr int kIdleTeamsPerSize = 2;

struct IdleTeams {
  std::mutex m;
  std::vector<std::unique_ptr<WorkerTeam>> teams;
};

// Never destroyed: a lease may end during static destruction (a job thread finishing at exit),
// and idle workers simply sleep until the process ends.
IdleTeams& idleTeams() {
  static auto* idle = new IdleTeams;
  return *idle;
}

}  // namespace

TeamLease::TeamLease(int threads) {
  const int size = std::max(1, threads);
  if (size > 1) {
    IdleTeams& idle = idleTeams();
    std::lock_guard lock(idle.m);
    // The most recently returned team of that size: its threads are the likeliest still spinning.
    const auto it = std::find_if(idle.teams.rbegin(), idle.teams.rend(),
                                 [&](const auto& t) { return t->size() == size; });
    if (it != idle.teams.rend()) {
      team_ = std::move(*it);
      idle.teams.erase(std::next(it).base());
    }
  }
  if (!team_) team_ = std::make_unique<WorkerTeam>(size);
}

TeamLease::~TeamLease() {
  if (!team_ || team_->size() == 1) return;  // moved from, or no threads to keep
  IdleTeams& idle = idleTeams();
  std::lock_guard lock(idle.m);
  const auto same = std::count_if(idle.teams.begin(), idle.teams.end(),
                                  [&](const auto& t) { return t->size() == team_->size(); });
  if (same < kIdleTeamsPerSize) idle.teams.push_back(std::move(team_));
  // Otherwise team_ ends with the lease, after the lock is released (its destructor joins).
}

}  // namespace modescope
