#include "app/core/job_runner.h"

#include <condition_variable>
#include <mutex>
#include <optional>

namespace modescope {

JobOutcome runJobAndWait(std::string title, JobFunction fn, const JobWaitHooks& hooks,
                         bool* cancelRequested) {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<JobOutcome> outcome;

  JobEvents events;
  if (hooks.progress) {
    events.progressed = [&hooks](JobId, double f, std::string_view stage) {
      hooks.progress(f, stage);
    };
  }
  events.finished = [&](JobId, const JobOutcome& out) {
    std::lock_guard lock(mutex);
    outcome = out;
    done.notify_all();
  };

  bool cancelled = false;
  {
    JobQueue queue(std::move(events));
    const JobId id = queue.submit(std::move(title), std::move(fn));
    std::unique_lock lock(mutex);
    while (!outcome) {
      done.wait_for(lock, hooks.pollInterval);
      if (outcome) break;
      lock.unlock();
      if (!cancelled && hooks.shouldCancel && hooks.shouldCancel()) {
        cancelled = true;
        queue.cancel(id);
      }
      if (hooks.tick) hooks.tick();
      lock.lock();
    }
    // The queue is destroyed (its thread joined) before `outcome` goes out of scope.
  }
  if (cancelRequested) *cancelRequested = cancelled;
  return std::move(*outcome);
}

}  // namespace modescope
