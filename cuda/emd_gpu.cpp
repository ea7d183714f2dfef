// decomposeGpu (cuda_emd.h): checks, batch planning against free device memory, precision
// dispatch. The procedures themselves are in emd_methods.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_emd.h"
#include "cuda/device_memory.cuh"
#include "cuda/emd_methods.cuh"
#include "engine/core/error.h"
#include "engine/emd/emd.h"

namespace modescope::cuda {
namespace {

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return b;
}

// Leave room for the CUDA context's own allocations, cub temporaries and fragmentation.
constexpr double kUsableFraction = 0.85;

// ICEEMDAN sifts each stage's members and the noise's next mode in one batch
// (decomposeChannelBatch's noiseInStages) where one batch's members alone leave the device partly
// idle: up to this many member samples per SM, when the larger batch fits. Measured on an H200
// (emd_bench, docs/emd.md, eighteenth session). MODESCOPE_EMD_NOISE_FIRST=1 computes every noise
// mode first whatever the size (the same bits; tests/gpu/emd_parity_test.cpp compares).
constexpr double kNoiseInStagesSamplesPerSm = 1 << 19;
bool noiseInStages(const EmdParams& p, std::int64_t samples, int channels, std::size_t perChannel,
                   double budget) {
  const std::size_t extra = emdNoiseInStagesBytesPerChannel(p, samples);
  if (extra == 0 || std::getenv("MODESCOPE_EMD_NOISE_FIRST") != nullptr) return false;
  if (static_cast<double>(channels) * static_cast<double>(perChannel + extra) > budget) {
    return false;
  }
  const double memberSamples = static_cast<double>(channels) * p.ensembleSize * samples;
  return memberSamples <= kNoiseInStagesSamplesPerSm * cudaMultiprocessorCount();
}

}  // namespace

EmdResult decomposeGpu(const SignalBlock& block, const EmdParams& params, JobContext& ctx) {
  validateEmdParams(params);
  validateEmdInput(block, params);
  const std::size_t freeBytes = cudaMemoryInfo().freeBytes;
  const double budget = kUsableFraction * static_cast<double>(freeBytes);
  const std::size_t perChannel = emdBytesPerChannel(params, block.samples);
  const int channels = static_cast<int>(block.channels.size());
  if (static_cast<double>(perChannel) > budget) {
    // Say what would fit: the largest ensemble for this length.
    EmdParams probe = params;
    int fits = 0;
    for (int lo = 1, hi = params.ensembleSize; lo <= hi;) {
      const int mid = lo + (hi - lo) / 2;
      probe.ensembleSize = mid;
      if (static_cast<double>(emdBytesPerChannel(probe, block.samples)) <= budget) {
        fits = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    std::string what = "one channel of " + std::to_string(block.samples) + " samples with " +
                       std::to_string(params.ensembleSize) + " ensemble members needs " +
                       gib(static_cast<double>(perChannel)) + " of GPU memory; " +
                       gib(static_cast<double>(freeBytes)) + " is free. ";
    what += fits > 0 && params.method != EmdMethod::Emd
                ? "At most " + std::to_string(fits) +
                      " members fit at this length: use fewer members, a shorter time range, "
                      "float32 precision, or the CPU backend."
                : "Use a shorter time range, float32 precision, or the CPU backend.";
    throw OutOfDeviceMemoryError(what);
  }
  const int perBatch =
      std::max(1, std::min(channels, static_cast<int>(budget / static_cast<double>(perChannel))));

  EmdResult result;
  result.params = params;
  result.sampleRate = block.sampleRate;
  result.firstSample = block.firstSample;
  result.samples = block.samples;
  Stream stream;
  for (int first = 0; first < channels; first += perBatch) {
    const int count = std::min(perBatch, channels - first);
    JobContext sub = ctx.sub(static_cast<double>(first) / channels,
                             static_cast<double>(first + count) / channels);
    const bool together = noiseInStages(params, block.samples, count, perChannel, budget);
    try {
      if (params.gpuPrecision == GpuPrecision::Float64) {
        decomposeChannelBatch<double>(block, first, count, params, together, result.channels,
                                      result.diagnostics, stream.get(), sub);
      } else {
        decomposeChannelBatch<float>(block, first, count, params, together, result.channels,
                                     result.diagnostics, stream.get(), sub);
      }
    } catch (const OutOfDeviceMemoryError&) {
      // The plan assumed about log2(N) noise modes; white noise can yield more, and each one is
      // kept on the device. Say what to change instead of the allocator's words.
      const int members = params.method == EmdMethod::Emd ? 1 : params.ensembleSize;
      throw OutOfDeviceMemoryError(
          "the GPU ran out of memory decomposing " + std::to_string(count) + " channel(s) of " +
          std::to_string(block.samples) + " samples with " + std::to_string(members) +
          " ensemble members (" + gib(static_cast<double>(freeBytes)) +
          " was free; the noise modes needed more than planned). Use fewer members (about " +
          std::to_string(std::max(1, members / 2)) +
          "), a shorter time range, a fixed maximum number of IMFs, or the CPU backend.");
    }
    ctx.checkpoint();
  }
  ctx.progress(1.0, "decomposition done");
  return result;
}

}  // namespace modescope::cuda
