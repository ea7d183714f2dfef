// Epoch averages on the device (cuda_epochs.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_epochs.h"
#include "cuda/cuda_preprocess.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/epoch_kernels.cuh"
#include "engine/core/error.h"

namespace modescope::cuda {

EpochAverages averageEpochsGpu(const EpochSet& set, JobContext& ctx) {
  EpochAverages avg;
  avg.conditions = set.conditions;
  avg.channels = set.channelCount();
  avg.samples = set.samples;
  const std::size_t K = set.conditions.size();
  const auto columns = static_cast<int64_t>(avg.channels) * set.samples;
  const auto E = static_cast<int64_t>(set.epochCount());
  const std::size_t accBytes = K * static_cast<std::size_t>(columns) * sizeof(double);
  const std::size_t epochBytes = static_cast<std::size_t>(columns) * sizeof(float);
  const std::size_t usable = usableDeviceBytes();
  // The sums, the means and the deviations (3 accumulators), then as many epochs as fit.
  if (usable < 3 * accBytes + epochBytes)
    throw OutOfDeviceMemoryError("averaging needs " + std::to_string(3 * accBytes + epochBytes) +
                                 " bytes of device memory (accumulators for " + std::to_string(K) +
                                 " conditions x " + std::to_string(columns) +
                                 " samples and one epoch) and " + std::to_string(usable) +
                                 " are free: select fewer channels or a shorter window");
  // Epochs per upload: what fits, and at most batchSampleBudget() samples (2^26, or the test
  // hook's value, so the parity test runs several chunks).
  const int64_t byMemory = static_cast<int64_t>((usable - 3 * accBytes) / epochBytes);
  const int64_t byBudget =
      std::max<int64_t>(1, batchSampleBudget() / std::max<int64_t>(columns, 1));
  const int64_t chunk =
      std::clamp<int64_t>(std::min(byMemory, byBudget), 1, std::max<int64_t>(E, 1));
  std::vector<int64_t> counts(K, 0);
  for (int k : set.condition) ++counts[static_cast<std::size_t>(k)];
  avg.counts = counts;

  Stream stream;
  const std::size_t accCount = K * static_cast<std::size_t>(columns);
  DeviceBuffer<double> sums(accCount), means(accCount), deviations(accCount);
  DeviceBuffer<float> data(static_cast<std::size_t>(chunk * columns));
  DeviceBuffer<int32_t> condition(static_cast<std::size_t>(std::max<int64_t>(E, 1)));
  const StreamDrain drain(stream);
  const std::vector<int32_t> cond(set.condition.begin(), set.condition.end());
  if (E > 0)
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(condition.get(), cond.data(), cond.size() * sizeof(int32_t),
                                       cudaMemcpyHostToDevice, stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemsetAsync(sums.get(), 0, sums.bytes(), stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemsetAsync(deviations.get(), 0, deviations.bytes(), stream.get()));

  // pass 0: sums; pass 1: squared deviations from the means the host computed between them.
  std::vector<double> host(accCount);
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t e0 = 0; e0 < E; e0 += chunk) {
      ctx.checkpoint();
      ctx.progress(0.5 * pass + 0.5 * static_cast<double>(e0) / static_cast<double>(E),
                   "averaging");
      const int64_t n = std::min(chunk, E - e0);
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(data.get(), set.epoch(static_cast<std::size_t>(e0)),
                                         static_cast<std::size_t>(n) * epochBytes,
                                         cudaMemcpyHostToDevice, stream.get()));
      launchEpochAccumulate(data.get(), condition.get() + e0, n, columns,
                            pass == 0 ? nullptr : means.get(),
                            pass == 0 ? sums.get() : deviations.get(), stream.get());
      // The next chunk overwrites `data`: the copy is ordered after the kernel on the stream,
      // but the host buffer it reads must stay (it does: it is the set's).
    }
    if (pass == 0) {
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(host.data(), sums.get(), sums.bytes(),
                                         cudaMemcpyDeviceToHost, stream.get()));
      stream.synchronize();
      avg.mean.assign(accCount, std::numeric_limits<double>::quiet_NaN());
      for (std::size_t k = 0; k < K; ++k)
        if (counts[k] > 0)
          for (int64_t i = 0; i < columns; ++i) {
            const std::size_t j =
                k * static_cast<std::size_t>(columns) + static_cast<std::size_t>(i);
            avg.mean[j] = host[j] / static_cast<double>(counts[k]);
          }
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(means.get(), avg.mean.data(), means.bytes(),
                                         cudaMemcpyHostToDevice, stream.get()));
    }
  }
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(host.data(), deviations.get(), deviations.bytes(),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  avg.standardError.assign(accCount, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < K; ++k)
    if (counts[k] > 1)
      for (int64_t i = 0; i < columns; ++i) {
        const std::size_t j = k * static_cast<std::size_t>(columns) + static_cast<std::size_t>(i);
        const auto n = static_cast<double>(counts[k]);
        avg.standardError[j] = std::sqrt(host[j] / (n - 1.0) / n);
      }
  ctx.progress(1.0, "averaging");
  return avg;
}

}  // namespace modescope::cuda
