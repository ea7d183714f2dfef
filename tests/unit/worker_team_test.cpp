// WorkerTeam (engine/parallel/worker_team.h): every item of every batch runs exactly once, on a
// worker id in range, batch after batch (the block-update loop runs thousands in a row, often
// within the workers' spinning window, sometimes after they went to sleep); an error reaches the
// caller and the team keeps working; a team of one runs on the caller's thread; the watch of a
// watched batch runs on the caller's thread only, and its error ends the batch; leases reuse idle
// teams and give concurrent holders different teams.
#include "engine/parallel/worker_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace modescope {
namespace {

TEST(WorkerTeam, EveryItemOfEveryBatchRunsExactlyOnce) {
  WorkerTeam team(4);
  ASSERT_EQ(team.size(), 4);
  for (int batch = 0; batch < 2000; ++batch) {
    const std::size_t items = 1 + static_cast<std::size_t>(batch % 17);
    std::vector<std::atomic<int>> runs(items);
    std::atomic<bool> badWorker{false};
    team.run(items, [&](int worker, std::size_t i) {
      if (worker < 0 || worker >= team.size()) badWorker = true;
      runs[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < items; ++i) ASSERT_EQ(runs[i].load(), 1) << batch << "/" << i;
    ASSERT_FALSE(badWorker);
    // Now and then a pause longer than the spin, so the workers sleep and must be woken.
    if (batch % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(WorkerTeam, AnErrorReachesTheCallerAndTheTeamGoesOn) {
  WorkerTeam team(3);
  EXPECT_THROW(team.run(50,
                        [](int, std::size_t i) {
                          if (i == 7) throw std::runtime_error("item 7");
                        }),
               std::runtime_error);
  std::atomic<int> count{0};
  team.run(50, [&](int, std::size_t) { count.fetch_add(1); });
  EXPECT_EQ(count.load(), 50);
}

TEST(WorkerTeam, ATeamOfOneRunsOnTheCallersThread) {
  WorkerTeam team(1);
  EXPECT_EQ(team.size(), 1);
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  team.run(5, [&](int worker, std::size_t) {
    elsewhere = elsewhere || worker != 0 || std::this_thread::get_id() != caller;
  });
  EXPECT_FALSE(elsewhere);
}

TEST(WorkerTeam, TheWatchRunsOnTheCallersThreadWhileItemsRun) {
  WorkerTeam team(3);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> ran{0};
  int watched = 0;
  bool elsewhere = false;
  team.run(
      12,
      [&](int, std::size_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ran.fetch_add(1);
      },
      std::chrono::milliseconds(1),
      [&] {
        ++watched;
        elsewhere = elsewhere || std::this_thread::get_id() != caller;
      });
  EXPECT_EQ(ran.load(), 12);
  EXPECT_GE(watched, 2);
  EXPECT_FALSE(elsewhere);
}

TEST(WorkerTeam, AnErrorOfTheWatchEndsTheBatchAndReachesTheCaller) {
  WorkerTeam team(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(team.run(
                   1000,
                   [&](int, std::size_t) {
                     std::this_thread::sleep_for(std::chrono::microseconds(200));
                     ran.fetch_add(1);
                   },
                   std::chrono::milliseconds(1), [] { throw std::runtime_error("watch"); }),
               std::runtime_error);
  EXPECT_LT(ran.load(), 1000);
  std::atomic<int> count{0};
  team.run(20, [&](int, std::size_t) { count.fetch_add(1); });
  EXPECT_EQ(count.load(), 20);
}

TEST(TeamLease, AnEndedLeaseIsReusedAndConcurrentLeasesDiffer) {
  const WorkerTeam* first = nullptr;
  {
    TeamLease lease(3);
    EXPECT_EQ(lease->size(), 3);
    first = &*lease;
  }
  TeamLease again(3);
  EXPECT_EQ(&*again, first);
  TeamLease other(3);
  EXPECT_NE(&*other, &*again);
  TeamLease alone(0);
  EXPECT_EQ(alone->size(), 1);
  // Leases used at once from different threads each run their own batches.
  std::atomic<int> total{0};
  std::thread t([&] {
    for (int i = 0; i < 200; ++i) other->run(7, [&](int, std::size_t) { total.fetch_add(1); });
  });
  for (int i = 0; i < 200; ++i) again->run(5, [&](int, std::size_t) { total.fetch_add(1); });
  t.join();
  EXPECT_EQ(total.load(), 200 * 12);
}

}  // namespace
}  // namespace modescope
