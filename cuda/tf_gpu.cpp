// Time-frequency transforms on the device (cuda_tf.h). The checks, the grid, the windows and the
// thresholds are the CPU's host code (planTf), so both backends refuse the same input with the
// same words; the device frames, transforms and squeezes tiles of (channel, column) frames, and
// each tile's image rows come down into the result.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/cuda_tf.h"
#include "cuda/device_memory.cuh"
#include "cuda/tf_kernels.cuh"
#include "engine/core/error.h"
#include "engine/tf/tf_plan.h"

namespace modescope::cuda {
namespace {

// Smallest |det M| of the normalised system trusted in float (tf_operators.h); the CPU's is
// kTfDetFloorDouble.
constexpr float kDetFloorFloat = 1e-5f;

}  // namespace

TfResult timeFrequencyGpu(const SignalBlock& block, const TfParams& params, JobContext& ctx) {
  const TfPlan plan = planTf(block, params);
  TfResult result = makeTfResult(plan, block);
  TfGrid g{};
  g.fftLength = plan.params.fftLength;
  g.bins = g.fftLength / 2 + 1;
  g.windowLength = plan.params.windowLength;
  g.stfts = plan.stfts;
  g.orderCode = plan.orderCode;
  g.firstBin = plan.firstBin;
  g.lastBin = plan.lastBin;
  g.hop = plan.params.hop;
  g.samples = plan.samples;
  g.columns = plan.columns;
  g.sigma = static_cast<float>(plan.sigma);
  g.detFloor = kDetFloorFloat;
  const std::size_t C = plan.channels, S = static_cast<std::size_t>(plan.samples);
  const std::size_t J = static_cast<std::size_t>(g.stfts),
                    N = static_cast<std::size_t>(g.fftLength);
  const std::size_t M = static_cast<std::size_t>(g.bins), K = static_cast<std::size_t>(plan.bins);
  const int64_t totalFrames = static_cast<int64_t>(C) * plan.columns;

  Stream stream;
  DeviceBuffer<float> x(C * S), windows(J * static_cast<std::size_t>(g.windowLength)),
      thresholds(C);
  const std::vector<float> w(plan.windows.begin(), plan.windows.end());
  const std::vector<float> th(plan.thresholds.begin(), plan.thresholds.end());
  for (std::size_t c = 0; c < C; ++c)
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(x.get() + c * S, block.channel(plan.params.rows[c]),
                                       S * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(windows.get(), w.data(), w.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(thresholds.get(), th.data(), th.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream.get()));

  // Frames per tile: the framed input, the J spectra, the targets and the rows of each frame,
  // within the batch budget (frames x J x N samples) and the free device memory.
  const bool shared = tfSqueezeFitsShared(g);
  const std::size_t perFrame = J * N * sizeof(float) + J * M * sizeof(cufftComplex) +
                               (shared ? 0 : M * sizeof(int)) + K * sizeof(float2);
  const std::size_t usable = usableDeviceBytes();
  const int64_t byBudget = batchSampleBudget() / static_cast<int64_t>(J * N);
  const int64_t byMemory = static_cast<int64_t>(usable / (perFrame + perFrame / 4));
  const int64_t tile = std::min({std::max<int64_t>(byBudget, 1), byMemory, totalFrames});
  if (tile < 1)
    throw OutOfDeviceMemoryError("the time-frequency transform needs " + std::to_string(perFrame) +
                                 " bytes of device memory per column (" + std::to_string(J) +
                                 " spectra of " + std::to_string(N) + " points) and " +
                                 std::to_string(usable) +
                                 " bytes are free: lower the FFT length or the order");
  DeviceBuffer<float> frames(static_cast<std::size_t>(tile) * J * N);
  DeviceBuffer<cufftComplex> spectra(static_cast<std::size_t>(tile) * J * M);
  DeviceBuffer<int> scratch(shared ? 0 : static_cast<std::size_t>(tile) * M);
  DeviceBuffer<float2> rows(static_cast<std::size_t>(tile) * K);
  const FftPlan fft(static_cast<long long>(N), tile * static_cast<long long>(J), CUFFT_R2C,
                    stream.get());
  DeviceBuffer<unsigned char> work(fft.workSize());
  fft.setWorkArea(work.get());
  const StreamDrain drain(stream);

  for (int64_t f0 = 0; f0 < totalFrames; f0 += tile) {
    ctx.checkpoint();
    ctx.progress(static_cast<double>(f0) / static_cast<double>(totalFrames), "time-frequency");
    const int64_t count = std::min(tile, totalFrames - f0);
    launchTfFrames(g, x.get(), windows.get(), f0, count, frames.get(), stream.get());
    if (count < tile)  // the plan transforms whole tiles: zero the frames past the last
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(frames.get() + count * J * N, 0,
                                         (tile - count) * J * N * sizeof(float), stream.get()));
    MODESCOPE_CUFFT_TRY(cufftExecR2C(fft.get(), frames.get(), spectra.get()));
    launchTfSqueeze(g, spectra.get(), thresholds.get(), f0, count, scratch.get(), rows.get(),
                    stream.get());
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(result.values.data() + static_cast<std::size_t>(f0) * K,
                                       rows.get(),
                                       static_cast<std::size_t>(count) * K * sizeof(float2),
                                       cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
  }
  ctx.progress(1.0, "time-frequency");
  return result;
}

}  // namespace modescope::cuda
