// Entropy matrices on the device (cuda_entropy.h). Steps 1 and 3 of engine/entropy/entropy_cpu.h
// (the plan with its checks and z-scoring, the values from the counts, the epoch average) are the
// CPU's own host code; the device does step 2, the counting, which is where the time goes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/cuda_entropy.h"
#include "cuda/device_memory.cuh"
#include "cuda/entropy_kernels.cuh"
#include "engine/core/error.h"
#include "engine/entropy/entropy_cpu.h"

namespace modescope::cuda {
namespace {

// Target about this many (epoch, template channel) blocks per launch, so progress and cancel come
// every few hundred milliseconds at most on the largest inputs.
constexpr std::size_t kBlocksPerLaunch = 2048;

// The device writes its counts straight into the host's EntropyPairCounts (one download, no
// second array): the two structs must have the same layout.
static_assert(sizeof(DevicePairCounts) == sizeof(EntropyPairCounts));
static_assert(offsetof(DevicePairCounts, sumLogM) == offsetof(EntropyPairCounts, sumLogM));
static_assert(offsetof(DevicePairCounts, sumLogM1) == offsetof(EntropyPairCounts, sumLogM1));
static_assert(offsetof(DevicePairCounts, noMatchM) == offsetof(EntropyPairCounts, noMatchM));
static_assert(offsetof(DevicePairCounts, noMatchBoth) == offsetof(EntropyPairCounts, noMatchBoth));
static_assert(offsetof(DevicePairCounts, noMatchM1Only) ==
              offsetof(EntropyPairCounts, noMatchM1Only));
static_assert(offsetof(DevicePairCounts, matchesM) == offsetof(EntropyPairCounts, matchesM));
static_assert(offsetof(DevicePairCounts, matchesM1) == offsetof(EntropyPairCounts, matchesM1));

}  // namespace

EntropyMatrixResult entropyMatricesGpu(const SignalBlock& block, const EntropyParams& params,
                                       JobContext& ctx) {
  const EntropyPlan plan = planEntropy(block, params);
  ctx.checkpoint();
  const int epochs = static_cast<int>(plan.epochs);
  const int channels = static_cast<int>(plan.channels);
  const int n = static_cast<int>(plan.epochSamples);
  const int m = plan.params.m;
  const std::size_t entries = plan.epochs * plan.channels * plan.channels;

  Stream stream;
  DeviceBuffer<float> dSeries(plan.zscored.size());
  DeviceBuffer<double> dExact(plan.zscored.size());
  DeviceBuffer<SortedTemplate> dSorted(plan.epochs * plan.channels * static_cast<std::size_t>(n - m + 1));
  DeviceBuffer<DevicePairCounts> dCounts(entries);
  const std::size_t sortBytes = entropySortScratchBytes(epochs, channels, n, m);
  DeviceBuffer<unsigned char> sortScratch(sortBytes);
  StreamDrain drain(stream);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dExact.get(), plan.zscored.data(),
                                     plan.zscored.size() * sizeof(double), cudaMemcpyHostToDevice,
                                     stream.get()));
  launchToFloat(dExact.get(), plan.zscored.size(), dSeries.get(), stream.get());
  launchSortTemplates(dSeries.get(), epochs, channels, n, m, dSorted.get(), sortScratch.get(),
                      sortBytes, stream.get());

  EntropyCountBatch b;
  b.series = dSeries.get();
  b.exact = dExact.get();
  b.sorted = dSorted.get();
  b.epochs = epochs;
  b.channels = channels;
  b.n = n;
  b.m = m;
  b.r = static_cast<float>(plan.params.r);
  b.rExact = plan.params.r;
  b.sampleEntropy = plan.params.measure == EntropyMeasure::SampleEntropy;
  b.counts = dCounts.get();
  const int rows = entropySymmetric(n, m) ? (channels + 1) / 2 : channels;
  const int perLaunch = static_cast<int>(std::clamp<std::size_t>(kBlocksPerLaunch / plan.epochs, 1,
                                                                  static_cast<std::size_t>(rows)));
  for (int u0 = 0; u0 < rows; u0 += perLaunch) {
    b.firstU = u0;
    b.countU = std::min(perLaunch, rows - u0);
    launchCountMatches(b, stream.get());
    stream.synchronize();
    ctx.progress(static_cast<double>(u0 + b.countU) / rows,
                 "entropy matrices: " + std::to_string(u0 + b.countU) + "/" + std::to_string(rows) +
                     " parts");
    ctx.checkpoint();
  }
  std::vector<EntropyPairCounts> counts(entries);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(counts.data(), dCounts.get(), entries * sizeof(DevicePairCounts),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  EntropyMatrixResult r = assembleEntropyResult(plan, block, std::move(counts));
  ctx.progress(1.0, "entropy matrices done");
  return r;
}

}  // namespace modescope::cuda
