// CUDA averaging of epochs (engine/epochs/epoch_average.h gives the formulas; averageEpochsCpu is
// the reference the parity test compares with). Host-only header.
#pragma once

#include "engine/core/job_context.h"
#include "engine/epochs/epoch_average.h"

namespace modescope::cuda {

// Mean and standard error per condition, channel and sample on the current device: the epochs go
// up in chunks that fit device memory, twice (the sums, then the squared deviations from the
// mean, as the CPU's two passes), into double accumulators; one thread per (channel, sample)
// walks the chunk's epochs, so no atomics and the result does not depend on the chunking.
// Throws OutOfDeviceMemoryError when not even one epoch and the accumulators fit, DeviceError.
EpochAverages averageEpochsGpu(const EpochSet& set, JobContext& ctx);

}  // namespace modescope::cuda
