// The CPU EMD family's worker pool (emd_internal.h): a WorkerTeam with one SiftWorkspace per
// worker.
#include <algorithm>

#include "engine/emd/emd_internal.h"

namespace modescope::emd_detail {

WorkerPool::WorkerPool(int threads, const JobContext* context)
    : workspaces_(static_cast<std::size_t>(std::max(1, threads))), team_(std::max(1, threads)) {
  for (SiftWorkspace& ws : workspaces_) ws.context = context;
}

int64_t WorkerPool::capReached() const {
  int64_t s = 0;
  for (const SiftWorkspace& ws : workspaces_) s += ws.capReached;
  return s;
}

void WorkerPool::resetCapReached() {
  for (SiftWorkspace& ws : workspaces_) ws.capReached = 0;
}

void WorkerPool::run(int64_t count, const std::function<void(int64_t, int)>& fn) {
  if (count <= 0) return;
  team_->run(static_cast<std::size_t>(count),
             [&](int worker, std::size_t item) { fn(static_cast<int64_t>(item), worker); });
}

}  // namespace modescope::emd_detail
