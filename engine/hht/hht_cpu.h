// The CPU Hilbert-Huang transform (FFTW, double precision inside, threads over channels x IMFs).
#pragma once

#include "engine/core/job_context.h"
#include "engine/hht/hht.h"

namespace modescope {

// threads <= 0: all hardware threads. Throws what validateHhtParams throws; Cancelled between
// IMFs.
HhtResult hilbertHuangCpu(const EmdResult& modes, const HhtParams& params, int threads,
                          JobContext& ctx);

}  // namespace modescope
