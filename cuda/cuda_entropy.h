// CUDA entropy matrices (engine/entropy/entropy_cpu.h gives the procedure; the device z-scores,
// counts the template matches and computes the values, the CPU's host code checks the input and
// averages). Host-only header.
#pragma once

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/entropy/entropy_params.h"
#include "engine/entropy/entropy_result.h"

namespace modescope::cuda {

// Steps 1-3 of entropy_cpu.h with the z-scores, step 2 and the values on the current device:
// float comparisons, with the double z-scores deciding distances within float rounding of r, so
// the counts equal the CPU's (cuda/entropy_kernels.cuh). Throws what computeEntropyCpu throws,
// plus OutOfDeviceMemoryError when the epochs and the E x C x C counts do not fit.
EntropyMatrixResult entropyMatricesGpu(const SignalBlock& block, const EntropyParams& params,
                                       JobContext& ctx);

}  // namespace modescope::cuda
