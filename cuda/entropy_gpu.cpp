// Entropy matrices on the device (cuda_entropy.h). The checks of step 1 of
// engine/entropy/entropy_cpu.h (planEntropy) and the epoch average of step 3
// (finishEntropyResult) are the CPU's own host code, so both backends refuse the same input with
// the same words. The device z-scores the series (bit for bit as the host would), counts the
// matches (step 2, where the time goes) and turns the counts into values: only the selection's
// samples go up and the E x C x C values come down.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
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

// Uploads the selection's rows in matrix order, the first E * N samples of each, to `raw`
// (row c at [c * used]); runs of consecutive rows go up in one copy when whole rows are used.
void uploadRows(const SignalBlock& block, const std::vector<std::size_t>& rows, std::size_t used,
                float* raw, cudaStream_t stream) {
  const std::size_t samples = static_cast<std::size_t>(block.samples);
  for (std::size_t c = 0; c < rows.size();) {
    std::size_t run = 1;
    if (used == samples)
      while (c + run < rows.size() && rows[c + run] == rows[c] + run) ++run;
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(raw + c * used, block.channel(rows[c]),
                                       run * used * sizeof(float), cudaMemcpyHostToDevice, stream));
    c += run;
  }
}

// The plan's series on the device: E x C x N double z-scores (bit for bit the host's) and their
// float roundings, with the E x C constant flags.
struct DeviceSeries {
  DeviceBuffer<std::uint8_t> constant;
  DeviceBuffer<float> series;
  DeviceBuffer<double> exact;
};

DeviceSeries zscoreOnDevice(const EntropyPlan& plan, const SignalBlock& block,
                            cudaStream_t stream) {
  const std::size_t used = plan.epochs * static_cast<std::size_t>(plan.epochSamples);  // per row
  DeviceSeries d{DeviceBuffer<std::uint8_t>(plan.constant.size()),
                 DeviceBuffer<float>(plan.channels * used),
                 DeviceBuffer<double>(plan.channels * used)};
  DeviceBuffer<float> raw(plan.channels * used);
  uploadRows(block, plan.params.rows, used, raw.get(), stream);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(d.constant.get(), plan.constant.data(), plan.constant.size(),
                                     cudaMemcpyHostToDevice, stream));
  launchZScores(raw.get(), d.constant.get(), static_cast<int>(plan.epochs),
                static_cast<int>(plan.channels), static_cast<int>(plan.epochSamples),
                plan.params.sd, d.exact.get(), d.series.get(), stream);
  MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream));  // before `raw` goes
  return d;
}

}  // namespace

EntropyMatrixResult entropyMatricesGpu(const SignalBlock& block, const EntropyParams& params,
                                       JobContext& ctx) {
  const EntropyPlan plan = planEntropy(block, params, EntropyZScores::Deferred);
  ctx.checkpoint();
  const int epochs = static_cast<int>(plan.epochs);
  const int channels = static_cast<int>(plan.channels);
  const int n = static_cast<int>(plan.epochSamples);
  const int m = plan.params.m;
  const std::size_t entries = plan.epochs * plan.channels * plan.channels;

  Stream stream;
  const DeviceSeries d = zscoreOnDevice(plan, block, stream.get());  // returns with the stream idle
  DeviceBuffer<SortedTemplate> dSorted(plan.epochs * plan.channels *
                                       static_cast<std::size_t>(n - m + 1));
  DeviceBuffer<DevicePairCounts> dCounts(entries);
  DeviceBuffer<double> dValues(entries);
  const std::size_t sortBytes = entropySortScratchBytes(epochs, channels, n, m);
  DeviceBuffer<unsigned char> sortScratch(sortBytes);
  StreamDrain drain(stream);  // declared after the buffers: waits for the stream before they go
  launchSortTemplates(d.series.get(), epochs, channels, n, m, dSorted.get(), sortScratch.get(),
                      sortBytes, stream.get());

  EntropyCountBatch b;
  b.series = d.series.get();
  b.exact = d.exact.get();
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
  const int perLaunch = static_cast<int>(
      std::clamp<std::size_t>(kBlocksPerLaunch / plan.epochs, 1, static_cast<std::size_t>(rows)));
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
  launchEntropyValues(dCounts.get(), d.constant.get(), epochs, channels, n, m, plan.params.measure,
                      plan.params.bias, dValues.get(), stream.get());
  std::vector<double> values(entries);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(values.data(), dValues.get(), entries * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream.get()));
  std::vector<EntropyPairCounts> counts;  // only when the caller keeps them (tests, diagnostics)
  if (plan.params.keepCounts) {
    counts.resize(entries);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(counts.data(), dCounts.get(),
                                       entries * sizeof(DevicePairCounts), cudaMemcpyDeviceToHost,
                                       stream.get()));
  }
  stream.synchronize();
  EntropyMatrixResult r = finishEntropyResult(plan, block, std::move(values), std::move(counts));
  ctx.progress(1.0, "entropy matrices done");
  return r;
}

}  // namespace modescope::cuda

namespace modescope {

std::vector<double> cudaEntropyZScores(const SignalBlock& block, const EntropyParams& params) {
  const EntropyPlan plan = planEntropy(block, params, EntropyZScores::Deferred);
  cuda::Stream stream;
  cuda::StreamDrain drain(stream);
  const cuda::DeviceSeries d = cuda::zscoreOnDevice(plan, block, stream.get());
  std::vector<double> out(d.exact.size());
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(out.data(), d.exact.get(), d.exact.bytes(),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return out;
}

}  // namespace modescope
