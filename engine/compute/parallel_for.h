// One worker pool for the CPU code's data-parallel loops (filters, Hilbert transforms, AR
// spectra): perItem(i) for i in [0, items) on up to `threads` std::threads, each with its own
// state from makeWorker() (FFT buffers, workspaces). Progress goes to ctx from the calling thread
// only (sinks need not be thread-safe): "stage" or "stage d/items". Workers stop taking items
// after a stop request or an error; the first error is rethrown, a stop request becomes
// Cancelled.
//
// Thread rules: call from one thread; perItem runs concurrently for different i.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "engine/core/job_context.h"

namespace modescope {

enum class ProgressLabel { Stage, StageWithCount };

void parallelFor(std::size_t items, int threads, const JobContext& ctx, const std::string& stage,
                 ProgressLabel label,
                 const std::function<std::function<void(std::size_t)>()>& makeWorker);
inline void parallelFor(std::size_t items, int threads, const JobContext& ctx,
                        const std::string& stage,
                        const std::function<std::function<void(std::size_t)>()>& makeWorker) {
  parallelFor(items, threads, ctx, stage, ProgressLabel::Stage, makeWorker);
}

}  // namespace modescope
