// CUDA Hilbert-Huang transform (engine/hht/hht.h defines it; cuFFT analytic signal, kernels for
// the instantaneous quantities and the spectrum). Host-only header.
#pragma once

#include "engine/core/job_context.h"
#include "engine/hht/hht.h"

namespace modescope::cuda {

// On the current device. Throws what validateHhtParams throws, OutOfDeviceMemoryError,
// DeviceError, Cancelled.
HhtResult hilbertHuangGpu(const EmdResult& modes, const HhtParams& params, JobContext& ctx);

}  // namespace modescope::cuda
