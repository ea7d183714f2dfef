#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/epoch_kernels.cuh"

namespace modescope::cuda {
namespace {

constexpr int kAccumulateThreads = 256;

// Consecutive threads take consecutive samples, so each epoch's row is read coalesced; the
// accumulators of one column belong to one thread (no atomics, the order of additions is the
// epochs' order, as on the CPU).
__global__ void epochAccumulateKernel(const float* __restrict__ epochs,
                                      const int32_t* __restrict__ condition, int64_t epochCount,
                                      int64_t columns, const double* __restrict__ mean,
                                      double* __restrict__ acc) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < columns;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int32_t current = -1;
    double sum = 0.0;
    for (int64_t e = 0; e < epochCount; ++e) {
      const int32_t k = condition[e];
      if (k != current) {
        if (current >= 0) acc[current * columns + i] += sum;
        current = k;
        sum = 0.0;
      }
      const double x = epochs[e * columns + i];
      if (mean) {
        const double d = x - mean[k * columns + i];
        sum += d * d;
      } else {
        sum += x;
      }
    }
    if (current >= 0) acc[current * columns + i] += sum;
  }
}

}  // namespace

void launchEpochAccumulate(const float* epochs, const int32_t* condition, int64_t epochCount,
                           int64_t columns, const double* mean, double* acc, cudaStream_t stream) {
  const int64_t blocks =
      std::min<int64_t>((columns + kAccumulateThreads - 1) / kAccumulateThreads, 65535);
  epochAccumulateKernel<<<static_cast<unsigned>(blocks), kAccumulateThreads, 0, stream>>>(
      epochs, condition, epochCount, columns, mean, acc);
  MODESCOPE_CUDA_CHECK_LAUNCH("epochAccumulateKernel", stream);
}

}  // namespace modescope::cuda
