// The CPU code's data-parallel loops (filters, Hilbert transforms, AR spectra, entropy counts):
// perItem(i) for i in [0, items) on a WorkerTeam (worker_team.h), each participating thread with
// its own state from makeWorker() (FFT buffers, workspaces), made on the thread's first item.
// Progress goes to ctx from the calling thread only (sinks need not be thread-safe), about every
// 100 ms: "stage" or "stage d/items". Workers stop taking items after a stop request or an error;
// the first error is rethrown, a stop request becomes Cancelled.
//
// Items are handed out dynamically, so which thread runs an item varies from run to run: perItem
// must write only its item's results (then results do not depend on the thread count).
//
// Thread rules: call from one thread; perItem runs concurrently for different i.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "engine/core/job_context.h"
#include "engine/parallel/worker_team.h"

namespace modescope {

enum class ProgressLabel { Stage, StageWithCount };

using MakeWorker = std::function<std::function<void(std::size_t)>()>;

// On `team`; the caller is one of its threads.
void parallelFor(WorkerTeam& team, std::size_t items, const JobContext& ctx,
                 const std::string& stage, ProgressLabel label, const MakeWorker& makeWorker);

// On a team of `threads` threads (the caller included; <= 1: the caller alone) leased from the
// process-wide set for the call.
void parallelFor(std::size_t items, int threads, const JobContext& ctx, const std::string& stage,
                 ProgressLabel label, const MakeWorker& makeWorker);
inline void parallelFor(std::size_t items, int threads, const JobContext& ctx,
                        const std::string& stage, const MakeWorker& makeWorker) {
  parallelFor(items, threads, ctx, stage, ProgressLabel::Stage, makeWorker);
}

}  // namespace modescope
