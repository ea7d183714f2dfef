// memdGpu (cuda_memd.h): the memory plan against free device memory, then the shared driver
// (engine/memd/memd_sift.h) with the device engine.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_memd.h"
#include "engine/memd/memd_memory.h"

namespace modescope::cuda {
namespace {

// Leave room for the CUDA context's own allocations and fragmentation (as emd_gpu.cpp).
constexpr double kUsableFraction = 0.85;

}  // namespace

MemdResult memdGpu(const SignalBlock& block, const MemdParams& params, JobContext& ctx) {
  const bool dbl = params.gpuPrecision == GpuPrecision::Float64;
  return runMemd(
      block, params,
      [dbl](int dims, int64_t n, int K) {
        const std::size_t freeBytes = cudaMemoryInfo().freeBytes;
        const double budget = memdBudgetBytes() > 0
                                  ? static_cast<double>(memdBudgetBytes())
                                  : kUsableFraction * static_cast<double>(freeBytes);
        const MemdDevicePlan plan = planMemdDevice(dims, n, K, dbl ? 8 : 4, budget);
        const int chunk = memdMaxChunk() > 0 ? std::min(plan.chunk, memdMaxChunk()) : plan.chunk;
        return makeMemdDeviceEngine(dims, n, K, chunk, dbl);
      },
      ctx);
}

}  // namespace modescope::cuda
