// WorkerTeam (engine/compute/worker_team.h): every item of every batch runs exactly once, on a
// worker id in range, batch after batch (the block-update loop runs thousands in a row, often
// within the workers' spinning window, sometimes after they went to sleep); an error reaches the
// caller and the team keeps working; a team of one runs on the caller's thread.
#include "engine/compute/worker_team.h"

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

}  // namespace
}  // namespace modescope
