#include "engine/core/job_queue.h"

#include <chrono>
#include <new>

#include "engine/core/error.h"

namespace modescope {

const char* jobStateName(JobState s) {
  switch (s) {
    case JobState::Queued:
      return "queued";
    case JobState::Running:
      return "running";
    case JobState::Succeeded:
      return "done";
    case JobState::Failed:
      return "failed";
    case JobState::Cancelled:
      return "cancelled";
  }
  return "?";
}

JobOutcome runJobInline(const JobFunction& fn, JobContext& ctx) {
  JobOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    ctx.checkpoint();
    out.result = fn(ctx);
    out.state = JobState::Succeeded;
  } catch (const Cancelled& e) {
    out.state = JobState::Cancelled;
    out.message = e.what();
    out.exitCode = e.exitCode();
  } catch (const Error& e) {
    out.state = JobState::Failed;
    out.message = e.what();
    out.exitCode = e.exitCode();
  } catch (const std::bad_alloc&) {
    out.state = JobState::Failed;
    out.message = "out of host memory: select fewer channels or a shorter time range";
    out.exitCode = 3;
  } catch (const std::exception& e) {
    out.state = JobState::Failed;
    out.message = std::string("internal error: ") + e.what();
    out.exitCode = 1;
  }
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

JobQueue::JobQueue(JobEvents events)
    : events_(std::move(events)), thread_([this](std::stop_token st) { run(st); }) {}

JobQueue::~JobQueue() {
  cancelAll();
  thread_.request_stop();
  wake_.notify_all();
  // jthread joins here.
}

JobId JobQueue::submit(std::string title, JobFunction fn) {
  JobId id;
  {
    std::lock_guard lock(mutex_);
    id = nextId_++;
    queue_.push_back({id, std::move(title), std::move(fn)});
  }
  wake_.notify_all();
  return id;
}

void JobQueue::cancel(JobId id) {
  std::optional<Job> removed;
  {
    std::lock_guard lock(mutex_);
    if (running_ == id) {
      runningStop_.request_stop();
      return;
    }
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->id == id) {
        removed = std::move(*it);
        queue_.erase(it);
        break;
      }
    }
  }
  if (removed && events_.finished) {
    JobOutcome out;
    out.state = JobState::Cancelled;
    out.message = "cancelled before it started";
    out.exitCode = 130;
    events_.finished(id, out);
  }
  idle_.notify_all();
}

void JobQueue::cancelAll() {
  std::deque<Job> removed;
  {
    std::lock_guard lock(mutex_);
    removed.swap(queue_);
    if (running_) runningStop_.request_stop();
  }
  for (auto& job : removed) {
    if (events_.finished) {
      JobOutcome out;
      out.state = JobState::Cancelled;
      out.message = "cancelled before it started";
      out.exitCode = 130;
      events_.finished(job.id, out);
    }
  }
  idle_.notify_all();
}

void JobQueue::waitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !running_; });
}

std::size_t JobQueue::pending() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + (running_ ? 1 : 0);
}

void JobQueue::run(std::stop_token threadStop) {
  while (true) {
    Job job;
    std::stop_token jobStop;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, threadStop, [this] { return !queue_.empty(); });
      if (threadStop.stop_requested()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = job.id;
      runningStop_ = std::stop_source();
      jobStop = runningStop_.get_token();
    }
    JobOutcome out = execute(job, jobStop);
    job.fn = nullptr;  // release captured inputs before reporting, so memory is freed on finish
    {
      std::lock_guard lock(mutex_);
      running_.reset();
    }
    if (events_.finished) events_.finished(job.id, out);
    idle_.notify_all();
  }
}

JobOutcome JobQueue::execute(Job& job, std::stop_token stop) {
  if (events_.started) events_.started(job.id, job.title);
  const JobId id = job.id;
  JobContext ctx(stop, [this, id](double f, std::string_view stage) {
    if (events_.progressed) events_.progressed(id, f, stage);
  });
  return runJobInline(job.fn, ctx);
}

}  // namespace modescope
