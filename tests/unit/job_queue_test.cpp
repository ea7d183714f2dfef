// The engine thread contract: jobs run one after another on one thread, progress arrives in
// order, cancel stops a running job at its next checkpoint, errors become readable outcomes.
#include "engine/core/job_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/error.h"

using namespace modescope;
using namespace std::chrono_literals;

namespace {

struct Recorder {
  std::mutex m;
  std::map<JobId, JobOutcome> outcomes;
  std::vector<std::thread::id> threads;
  std::vector<double> progress;

  JobEvents events() {
    JobEvents e;
    e.started = [this](JobId, const std::string&) {
      std::lock_guard l(m);
      threads.push_back(std::this_thread::get_id());
    };
    e.progressed = [this](JobId, double f, std::string_view) {
      std::lock_guard l(m);
      progress.push_back(f);
    };
    e.finished = [this](JobId id, const JobOutcome& o) {
      std::lock_guard l(m);
      outcomes[id] = o;
    };
    return e;
  }
};

}  // namespace

TEST(JobQueue, RunsJobsInOrderOnOneEngineThread) {
  Recorder rec;
  std::vector<int> order;
  std::mutex orderMutex;
  {
    JobQueue q(rec.events());
    for (int i = 0; i < 5; ++i) {
      q.submit("job " + std::to_string(i), [i, &order, &orderMutex](JobContext& ctx) -> int {
        ctx.progress(0.5, "half");
        std::lock_guard l(orderMutex);
        order.push_back(i);
        return i * 10;
      });
    }
    q.waitIdle();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  ASSERT_EQ(rec.threads.size(), 5u);
  for (auto id : rec.threads) EXPECT_EQ(id, rec.threads.front());
  EXPECT_NE(rec.threads.front(), std::this_thread::get_id());
  ASSERT_EQ(rec.outcomes.size(), 5u);
  EXPECT_EQ(*rec.outcomes[3].result.get<int>(), 20);
  EXPECT_EQ(rec.outcomes[3].state, JobState::Succeeded);
}

TEST(JobQueue, CancelStopsARunningJobQuickly) {
  Recorder rec;
  JobQueue q(rec.events());
  std::atomic<bool> running{false};
  const JobId id = q.submit("long", [&running](JobContext& ctx) -> void {
    running = true;
    for (int i = 0; i < 100000; ++i) {  // 100 s if never cancelled
      ctx.checkpoint();
      std::this_thread::sleep_for(1ms);
    }
    return;
  });
  while (!running) std::this_thread::sleep_for(1ms);
  const auto t0 = std::chrono::steady_clock::now();
  q.cancel(id);
  q.waitIdle();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The job checks every millisecond; 0.25 s leaves room for a loaded 2-core CI machine.
  EXPECT_LT(waited, 0.25);
  EXPECT_EQ(rec.outcomes[id].state, JobState::Cancelled);
  EXPECT_EQ(rec.outcomes[id].exitCode, 130);
}

TEST(JobQueue, CancelRemovesAQueuedJobWithoutRunningIt) {
  Recorder rec;
  JobQueue q(rec.events());
  std::atomic<bool> release{false};
  std::atomic<bool> secondRan{false};
  q.submit("blocker", [&release](JobContext&) -> void {
    while (!release) std::this_thread::sleep_for(1ms);
    return;
  });
  const JobId second = q.submit("queued", [&secondRan](JobContext&) -> void {
    secondRan = true;
    return;
  });
  q.cancel(second);
  release = true;
  q.waitIdle();
  EXPECT_FALSE(secondRan);
  EXPECT_EQ(rec.outcomes[second].state, JobState::Cancelled);
}

TEST(JobQueue, ErrorsBecomeReadableOutcomes) {
  Recorder rec;
  JobQueue q(rec.events());
  const JobId bad = q.submit("bad parameter", [](JobContext&) -> void {
    throw InvalidParameterError("order", "0", "1 to 100", "Choose a positive order");
  });
  const JobId oom = q.submit("device", [](JobContext&) -> void {
    throw OutOfDeviceMemoryError("needs 12 GiB, 4 GiB free");
  });
  const JobId internal =
      q.submit("bug", [](JobContext&) -> void { throw std::logic_error("boom"); });
  q.waitIdle();
  EXPECT_EQ(rec.outcomes[bad].state, JobState::Failed);
  EXPECT_NE(rec.outcomes[bad].message.find("order"), std::string::npos);
  EXPECT_NE(rec.outcomes[bad].message.find("1 to 100"), std::string::npos);
  EXPECT_EQ(rec.outcomes[bad].exitCode, 1);
  EXPECT_EQ(rec.outcomes[oom].exitCode, 3);
  EXPECT_EQ(rec.outcomes[internal].state, JobState::Failed);
  EXPECT_NE(rec.outcomes[internal].message.find("boom"), std::string::npos);
}

TEST(JobQueue, SubContextsMapProgressIntoTheParentRange) {
  std::vector<double> seen;
  JobContext ctx(std::stop_token{}, [&seen](double f, std::string_view) { seen.push_back(f); });
  JobContext second = ctx.sub(0.5, 1.0);
  second.progress(0.0, "");
  second.progress(0.5, "");
  second.sub(0.5, 1.0).progress(1.0, "");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_DOUBLE_EQ(seen[0], 0.5);
  EXPECT_DOUBLE_EQ(seen[1], 0.75);
  EXPECT_DOUBLE_EQ(seen[2], 1.0);
}

TEST(JobQueue, DestructionCancelsRunningWork) {
  Recorder rec;
  const auto t0 = std::chrono::steady_clock::now();
  {
    JobQueue q(rec.events());
    q.submit("forever", [](JobContext& ctx) -> void {
      while (true) {
        ctx.checkpoint();
        std::this_thread::sleep_for(1ms);
      }
    });
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}
