// CUDA time-frequency transforms (engine/tf/tf_cpu.h gives the procedure; the host's planTf checks
// the input and builds the windows, the device frames, transforms and squeezes). Host-only header.
#pragma once

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_result.h"

namespace modescope::cuda {

// Steps 1-3 of tf_cpu.h in float on the current device: the modified STFTs of tiles of
// (channel, column) frames by one batched cuFFT R2C, then one block per frame evaluates the
// operators (engine/tf/tf_operators.h) and relocates without global atomics (cuda/tf_kernels.cuh).
// Throws what computeTfCpu throws, plus OutOfDeviceMemoryError when not even one frame's J
// spectra fit, and DeviceError.
TfResult timeFrequencyGpu(const SignalBlock& block, const TfParams& params, JobContext& ctx);

}  // namespace modescope::cuda
