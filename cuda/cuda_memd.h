// CUDA MEMD / NA-MEMD (engine/memd/memd.h gives the procedure; memd_kernels.cu is its envelope
// step on the device). Host-only header: callable from .cpp files compiled without nvcc.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/memd/memd.h"
#include "engine/memd/memd_sift.h"

namespace modescope::cuda {

// On the current device. Throws InvalidParameterError/InvalidInputError (the CPU's checks),
// OutOfDeviceMemoryError before any work when one direction does not fit (planMemdDevice),
// DeviceError, Cancelled.
MemdResult memdGpu(const SignalBlock& block, const MemdParams& params, JobContext& ctx);

// Test hooks (cuda_backend.h: CudaTestHooks::memdMaxChunk, memdBudgetBytes; 0 = unset).
int memdMaxChunk();
std::int64_t memdBudgetBytes();

// The device engine for dims x n signals and K directions, streaming `chunk` directions at a
// time (memd_kernels.cu). R = float or double.
std::unique_ptr<MemdSiftEngine> makeMemdDeviceEngine(int dims, int64_t n, int directions, int chunk,
                                                     bool doublePrecision);

}  // namespace modescope::cuda
