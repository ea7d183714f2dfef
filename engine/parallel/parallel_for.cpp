#include "engine/parallel/parallel_for.h"

#include <atomic>
#include <chrono>
#include <vector>

namespace modescope {

void parallelFor(WorkerTeam& team, std::size_t items, const JobContext& ctx,
                 const std::string& stage, ProgressLabel label, const MakeWorker& makeWorker) {
  ctx.checkpoint();
  if (items == 0) return;
  std::atomic<std::size_t> done{0};
  auto report = [&](std::size_t d) {
    ctx.progress(static_cast<double>(d) / static_cast<double>(items),
                 label == ProgressLabel::Stage
                     ? stage
                     : stage + " " + std::to_string(d) + "/" + std::to_string(items));
  };
  report(0);
  {
    // Per participating thread, indexed by worker; destroyed on the calling thread.
    std::vector<std::function<void(std::size_t)>> perWorker(static_cast<std::size_t>(team.size()));
    team.run(
        items,
        [&](int worker, std::size_t i) {
          if (ctx.stopRequested()) return;  // skipped; Cancelled below
          auto& perItem = perWorker[static_cast<std::size_t>(worker)];
          if (!perItem) perItem = makeWorker();
          perItem(i);
          done.fetch_add(1);
        },
        std::chrono::milliseconds(100), [&] { report(done.load()); });
  }
  ctx.checkpoint();
  report(items);
}

void parallelFor(std::size_t items, int threads, const JobContext& ctx, const std::string& stage,
                 ProgressLabel label, const MakeWorker& makeWorker) {
  if (items <= 1) {  // no thread to wake: skip the lease
    WorkerTeam alone(1);
    parallelFor(alone, items, ctx, stage, label, makeWorker);
    return;
  }
  TeamLease team(threads);
  parallelFor(*team, items, ctx, stage, label, makeWorker);
}

}  // namespace modescope
