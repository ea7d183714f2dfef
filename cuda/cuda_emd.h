// CUDA EMD family (engine/emd/emd.h gives the procedure; this is its GPU implementation).
// Host-only header: callable from .cpp files compiled without nvcc.
#pragma once

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope::cuda {

// On the current device. Throws InvalidParameterError/InvalidInputError (same checks as the CPU),
// OutOfDeviceMemoryError, DeviceError, Cancelled.
EmdResult decomposeGpu(const SignalBlock& block, const EmdParams& params, JobContext& ctx);

}  // namespace modescope::cuda
