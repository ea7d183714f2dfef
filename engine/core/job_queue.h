// The engine thread: one worker that runs jobs one after another (docs/gui.md, "Long work never
// freezes the window"). The GUI and the CLI both use it; the GUI forwards the events to its own
// thread through queued signals. Events are called on the engine thread and must not block.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/job_result.h"

namespace modescope {

using JobId = std::uint64_t;

enum class JobState { Queued, Running, Succeeded, Failed, Cancelled };
const char* jobStateName(JobState s);

struct JobOutcome {
  JobState state = JobState::Queued;
  JobResult result;     // what the job function returned, read with result.get<T>()
  std::string message;  // the readable report for Failed, "cancelled" for Cancelled
  int exitCode = 0;     // the CLI exit code of the error (see error.h), 0 on success
  double wallSeconds = 0.0;
};

struct JobEvents {
  std::function<void(JobId, const std::string& title)> started;
  std::function<void(JobId, double fraction, std::string_view stage)> progressed;
  std::function<void(JobId, const JobOutcome&)> finished;
};

class JobQueue {
 public:
  explicit JobQueue(JobEvents events);
  ~JobQueue();  // cancels what is queued or running and joins the engine thread
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  JobId submit(std::string title, JobFunction fn);
  // Removes a queued job (it finishes as Cancelled) or requests the running one to stop.
  void cancel(JobId id);
  void cancelAll();
  // Blocks until every submitted job has finished (used by the CLI and tests).
  void waitIdle();
  std::size_t pending() const;

 private:
  struct Job {
    JobId id;
    std::string title;
    JobFunction fn;
  };
  void run(std::stop_token threadStop);
  JobOutcome execute(Job& job, std::stop_token stop);

  JobEvents events_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::condition_variable idle_;
  std::deque<Job> queue_;
  std::optional<JobId> running_;
  std::stop_source runningStop_;
  JobId nextId_ = 1;
  // The job thread itself, not a worker pool: jobs run one after another on it, and each job's
  // data-parallel work goes to WorkerTeams (engine/parallel/worker_team.h).
  std::jthread thread_;  // last: starts after the members above exist
};

// Runs fn on the calling thread with the same error-to-outcome translation as the queue.
JobOutcome runJobInline(const JobFunction& fn, JobContext& ctx);

}  // namespace modescope
