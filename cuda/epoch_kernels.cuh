// Kernels of the CUDA epoch averages (cuda/epoch_average_gpu.cpp drives them).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace modescope::cuda {

// For each (channel, sample) column i < columns and each epoch e < epochs of the chunk:
// acc[condition[e] * columns + i] += x, or (x - mean[same index])^2 when `mean` is not null.
// epochs: chunk of `epochs` x `columns` floats.
void launchEpochAccumulate(const float* epochs, const int32_t* condition, int64_t epochCount,
                           int64_t columns, const double* mean, double* acc, cudaStream_t stream);

}  // namespace modescope::cuda
