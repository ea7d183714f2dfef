// parallelFor (engine/parallel/parallel_for.h): every item runs once whatever the thread count,
// each participating thread makes its worker state once, progress comes from the calling thread
// only and ends at 1, the first error reaches the caller, a stop request becomes Cancelled, and a
// parallelFor inside another's item gets a team of its own.
#include "engine/parallel/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace modescope {
namespace {

TEST(ParallelFor, EveryItemRunsOnceAndEachThreadMakesItsWorkerOnce) {
  for (int threads : {0, 1, 2, 5}) {
    std::vector<std::atomic<int>> runs(97);
    std::atomic<int> workers{0};
    JobContext ctx;
    parallelFor(runs.size(), threads, ctx, "items", [&]() -> std::function<void(std::size_t)> {
      workers.fetch_add(1);
      auto calls = std::make_shared<int>(0);
      return [&, calls](std::size_t i) {
        ++*calls;
        runs[i].fetch_add(1);
      };
    });
    for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << threads;
    EXPECT_GE(workers.load(), 1);
    EXPECT_LE(workers.load(), std::max(threads, 1));
  }
}

TEST(ParallelFor, ProgressComesFromTheCallersThreadAndEndsAtOne) {
  const auto caller = std::this_thread::get_id();
  std::mutex m;
  std::vector<double> fractions;
  std::vector<std::string> stages;
  bool elsewhere = false;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view stage) {
    std::lock_guard lock(m);
    elsewhere = elsewhere || std::this_thread::get_id() != caller;
    fractions.push_back(f);
    stages.emplace_back(stage);
  });
  parallelFor(40, 3, ctx, "work", ProgressLabel::StageWithCount, [] {
    return std::function<void(std::size_t)>(
        [](std::size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(10)); });
  });
  EXPECT_FALSE(elsewhere);
  ASSERT_GE(fractions.size(), 3u);  // 0, at least one report on the way (~130 ms), 1
  EXPECT_EQ(fractions.front(), 0.0);
  EXPECT_EQ(fractions.back(), 1.0);
  EXPECT_EQ(stages.front(), "work 0/40");
  EXPECT_EQ(stages.back(), "work 40/40");
  for (std::size_t k = 1; k < fractions.size(); ++k) EXPECT_GE(fractions[k], fractions[k - 1]);
}

TEST(ParallelFor, TheFirstErrorReachesTheCaller) {
  JobContext ctx;
  std::atomic<int> ran{0};
  EXPECT_THROW(parallelFor(1000, 3, ctx, "items",
                           [&] {
                             return std::function<void(std::size_t)>([&](std::size_t i) {
                               ran.fetch_add(1);
                               if (i == 10) throw std::runtime_error("item 10");
                             });
                           }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  // A worker factory that throws is an error too.
  EXPECT_THROW(parallelFor(10, 2, ctx, "items",
                           []() -> std::function<void(std::size_t)> {
                             throw std::runtime_error("no workspace");
                           }),
               std::runtime_error);
}

TEST(ParallelFor, AStopRequestBecomesCancelled) {
  std::stop_source stop;
  JobContext ctx(stop.get_token(), nullptr);
  std::atomic<int> ran{0};
  EXPECT_THROW(parallelFor(10000, 2, ctx, "items",
                           [&] {
                             return std::function<void(std::size_t)>([&](std::size_t i) {
                               if (i == 5) stop.request_stop();
                               ran.fetch_add(1);
                             });
                           }),
               Cancelled);
  EXPECT_LT(ran.load(), 10000);
}

TEST(ParallelFor, NestedCallsGetTheirOwnTeams) {
  JobContext ctx;
  std::vector<std::atomic<int>> cells(8 * 16);
  parallelFor(8, 3, ctx, "outer", [&] {
    return std::function<void(std::size_t)>([&](std::size_t o) {
      parallelFor(16, 3, JobContext{}, "inner", [&] {
        return std::function<void(std::size_t)>(
            [&, o](std::size_t i) { cells[o * 16 + i].fetch_add(1); });
      });
    });
  });
  for (auto& c : cells) EXPECT_EQ(c.load(), 1);
}

}  // namespace
}  // namespace modescope
