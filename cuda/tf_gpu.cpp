// Time-frequency transforms on the device (cuda_tf.h). The checks, the grid, the windows and the
// thresholds are the CPU's host code (planTf), so both backends refuse the same input with the
// same words; the device frames, transforms and squeezes tiles of (channel, column) frames, and
// each tile's image rows come down into the result (or stay on the device).
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/cuda_tf.h"
#include "cuda/device_memory.cuh"
#include "cuda/host_thread_pool.h"
#include "cuda/tf_kernels.cuh"
#include "engine/core/error.h"
#include "engine/tf/tf_plan.h"

namespace modescope::cuda {
namespace {

// Smallest |det M| of the normalised system trusted in float (tf_operators.h); the CPU's is
// kTfDetFloorDouble.
constexpr float kDetFloorFloat = 1e-5f;
// Complex values per pinned staging buffer (32 MiB): large enough that a copy runs at the
// link's speed, small enough that two of them are a modest amount of page-locked host memory.
constexpr std::size_t kStagingValues = std::size_t{4} << 20;

template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t count) {
  if (b.size() >= count) return;
  b.reset();  // free first: the old and the new buffer need not fit together
  b = DeviceBuffer<T>(count);
}

}  // namespace

class TfWorkspace {
 public:
  Stream stream;
  DeviceBuffer<float> x, windows, thresholds, frames;
  DeviceBuffer<cufftComplex> spectra;
  DeviceBuffer<int> scratch;
  DeviceBuffer<float2> rows, image;
  DeviceBuffer<unsigned char> work;
  FftPlan fft;
  int fftLength = 0;
  // The (N, L) whose untouched row positions the frames buffer holds as zeros (launchTfFrames);
  // 0 when the buffer must be zeroed before use.
  int zeroedFftLength = 0, zeroedWindowLength = 0;
  PinnedBuffer<float2> staging[2];
  Event copied[2];

  std::size_t deviceBytes() const {
    return x.bytes() + windows.bytes() + thresholds.bytes() + frames.bytes() + spectra.bytes() +
           scratch.bytes() + rows.bytes() + image.bytes() + work.bytes();
  }
  // Frees the per-tile buffers (and the image unless `keepImage`) when the workspace holds more
  // than kTfKeptDeviceBytes.
  void releaseIfLarge(bool keepImage) {
    if (deviceBytes() <= kTfKeptDeviceBytes) return;
    fft.reset();
    fftLength = 0;
    zeroedFftLength = zeroedWindowLength = 0;
    for (DeviceBuffer<float>* b : {&x, &frames}) b->reset();
    spectra.reset();
    scratch.reset();
    rows.reset();
    work.reset();
    if (!keepImage) image.reset();
  }
};

void TfWorkspaceDeleter::operator()(TfWorkspace* w) const noexcept { delete w; }

TfWorkspacePtr makeTfWorkspace() { return TfWorkspacePtr(new TfWorkspace); }

namespace {

// One transform's plan and the device grid, its sizes, and the tile of frames per pass.
struct TfRun {
  TfPlan plan;
  TfGrid g{};
  std::size_t J = 0, N = 0, M = 0, K = 0;
  int64_t totalFrames = 0;
  int64_t tile = 0;
  bool shared = false;
};

// The plan, the grid, and the tile: frames x J x N within the batch budget and, with `reserve`
// bytes set aside (the device image), within the free device memory plus what the workspace
// already holds (it is reused).
TfRun prepare(TfPlan plan_, const TfWorkspace& ws, std::size_t reserve) {
  TfRun r{std::move(plan_)};
  const TfPlan& plan = r.plan;
  TfGrid& g = r.g;
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
  r.J = static_cast<std::size_t>(g.stfts);
  r.N = static_cast<std::size_t>(g.fftLength);
  r.M = static_cast<std::size_t>(g.bins);
  r.K = static_cast<std::size_t>(plan.bins);
  r.totalFrames = static_cast<int64_t>(plan.channels) * plan.columns;
  r.shared = tfSqueezeFitsShared(g);
  const std::size_t perFrame = r.J * r.N * sizeof(float) + r.J * r.M * sizeof(cufftComplex) +
                               (r.shared ? 0 : tfSqueezeScratchInts(r.g) * sizeof(int)) +
                               r.K * sizeof(float2);
  const std::size_t available = usableDeviceBytes() + ws.deviceBytes();
  const std::size_t usable = available > reserve ? available - reserve : 0;
  const int64_t byBudget = batchSampleBudget() / static_cast<int64_t>(r.J * r.N);
  const int64_t byMemory = static_cast<int64_t>(usable / (perFrame + perFrame / 4));
  r.tile = std::min({std::max<int64_t>(byBudget, 1), byMemory, r.totalFrames});
  if (r.tile < 1)
    throw OutOfDeviceMemoryError(
        "the time-frequency transform needs " + std::to_string(perFrame) +
        " bytes of device memory per column (" + std::to_string(r.J) + " spectra of " +
        std::to_string(r.N) + " points)" +
        (reserve ? " besides the " + std::to_string(reserve) + " bytes of the image" : "") +
        " and " + std::to_string(available) +
        " bytes are free: lower the FFT length or the order, or select a shorter range");
  return r;
}

// Uploads the signal, windows and thresholds, sizes the tile buffers and the plan (reused when
// the FFT length and batch are the last call's).
void setUp(const TfRun& r, const SignalBlock& block, TfWorkspace& ws) {
  const TfPlan& plan = r.plan;
  const std::size_t C = plan.channels, S = static_cast<std::size_t>(plan.samples);
  const auto tile = static_cast<std::size_t>(r.tile);
  ensure(ws.x, C * S);
  ensure(ws.windows, r.J * static_cast<std::size_t>(r.g.windowLength));
  ensure(ws.thresholds, C);
  const std::vector<float> w(plan.windows.begin(), plan.windows.end());
  const std::vector<float> th(plan.thresholds.begin(), plan.thresholds.end());
  cudaStream_t s = ws.stream.get();
  for (std::size_t c = 0; c < C; ++c)
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ws.x.get() + c * S, block.channel(plan.params.rows[c]),
                                       S * sizeof(float), cudaMemcpyHostToDevice, s));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ws.windows.get(), w.data(), w.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, s));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ws.thresholds.get(), th.data(), th.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, s));
  // The host vectors above go out of scope: wait until they are read.
  ws.stream.synchronize();
  if (ws.frames.size() < tile * r.J * r.N || ws.zeroedFftLength != r.g.fftLength ||
      ws.zeroedWindowLength != r.g.windowLength) {
    ensure(ws.frames, tile * r.J * r.N);
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(ws.frames.get(), 0, ws.frames.bytes(), s));
    ws.zeroedFftLength = r.g.fftLength;
    ws.zeroedWindowLength = r.g.windowLength;
  }
  ensure(ws.spectra, tile * r.J * r.M);
  if (!r.shared) ensure(ws.scratch, tile * tfSqueezeScratchInts(r.g));
  const long long batch = static_cast<long long>(tile * r.J);
  if (!ws.fft.valid() || ws.fftLength != r.g.fftLength || ws.fft.batch() != batch) {
    ws.fft.reset();
    ws.fftLength = 0;
    ws.fft = FftPlan(static_cast<long long>(r.N), batch, CUFFT_R2C, s);
    ws.fftLength = r.g.fftLength;
  }
  ensure(ws.work, ws.fft.workSize());
  ws.fft.setWorkArea(ws.work.get());
}

// Frames, transforms and squeezes frames f0 .. f0 + count - 1 into `out` (count x K).
void computeTile(const TfRun& r, TfWorkspace& ws, int64_t f0, int64_t count, float2* out) {
  cudaStream_t s = ws.stream.get();
  // The plan transforms whole tiles; the rows past `count` of a last, partial tile hold an
  // earlier tile's frames, whose spectra the squeeze does not read.
  launchTfFrames(r.g, ws.x.get(), ws.windows.get(), f0, count, ws.frames.get(), s);
  MODESCOPE_CUFFT_TRY(cufftExecR2C(ws.fft.get(), ws.frames.get(), ws.spectra.get()));
  launchTfSqueeze(r.g, ws.spectra.get(), ws.thresholds.get(), f0, count, ws.scratch.get(), out, s);
}

}  // namespace

TfResult timeFrequencyGpu(const SignalBlock& block, const TfParams& params, JobContext& ctx,
                          TfWorkspace& ws, HostThreadPool& pool) {
  ws.image.reset();  // this call's image goes to the host
  const TfRun r = prepare(planTf(block, params), ws, 0);
  TfResult result = makeTfResult(r.plan, block);
  setUp(r, block, ws);
  ensure(ws.rows, static_cast<std::size_t>(r.tile) * r.K);
  const std::size_t stagingValues =
      std::min(kStagingValues, static_cast<std::size_t>(r.tile) * r.K);
  for (PinnedBuffer<float2>& slot : ws.staging)
    if (slot.size() < stagingValues) slot = PinnedBuffer<float2>(stagingValues);
  const StreamDrain drain(ws.stream);
  cudaStream_t s = ws.stream.get();

  // The chunk whose copy to its staging slot is in flight: copied into the result by the host
  // while the next chunk (or the next tile) runs on the device.
  struct Pending {
    int slot = 0;
    std::complex<float>* destination = nullptr;
    std::size_t values = 0;
  } pending;
  const auto finish = [&] {
    if (!pending.destination) return;
    ws.copied[pending.slot].synchronize();
    pool.copy(pending.destination, ws.staging[pending.slot].get(), pending.values * sizeof(float2));
    pending.destination = nullptr;
  };
  int nextSlot = 0;
  for (int64_t f0 = 0; f0 < r.totalFrames; f0 += r.tile) {
    ctx.checkpoint();
    ctx.progress(static_cast<double>(f0) / static_cast<double>(r.totalFrames), "time-frequency");
    const int64_t count = std::min(r.tile, r.totalFrames - f0);
    computeTile(r, ws, f0, count, ws.rows.get());
    const std::size_t values = static_cast<std::size_t>(count) * r.K;
    for (std::size_t off = 0; off < values; off += stagingValues) {
      const std::size_t n = std::min(stagingValues, values - off);
      const int slot = nextSlot;
      nextSlot ^= 1;
      // The slot's previous chunk was copied out by finish() one chunk ago.
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ws.staging[slot].get(), ws.rows.get() + off,
                                         n * sizeof(float2), cudaMemcpyDeviceToHost, s));
      ws.copied[slot].record(s);
      finish();
      pending = {slot, result.values.data() + static_cast<std::size_t>(f0) * r.K + off, n};
    }
  }
  finish();
  ws.stream.synchronize();
  ws.releaseIfLarge(false);
  ctx.progress(1.0, "time-frequency");
  return result;
}

const std::complex<float>* timeFrequencyGpuOnDevice(const SignalBlock& block,
                                                    const TfParams& params, JobContext& ctx,
                                                    TfWorkspace& ws, TfResult& result) {
  TfPlan plan = planTf(block, params);
  const std::size_t imageValues =
      plan.channels * static_cast<std::size_t>(plan.columns) * static_cast<std::size_t>(plan.bins);
  const TfRun r = prepare(std::move(plan), ws, imageValues * sizeof(float2));
  result = makeTfResult(r.plan, block, false);
  ensure(ws.image, imageValues);
  setUp(r, block, ws);
  const StreamDrain drain(ws.stream);
  for (int64_t f0 = 0; f0 < r.totalFrames; f0 += r.tile) {
    ctx.checkpoint();
    ctx.progress(static_cast<double>(f0) / static_cast<double>(r.totalFrames), "time-frequency");
    const int64_t count = std::min(r.tile, r.totalFrames - f0);
    computeTile(r, ws, f0, count, ws.image.get() + static_cast<std::size_t>(f0) * r.K);
  }
  ws.stream.synchronize();
  ws.releaseIfLarge(true);
  ctx.progress(1.0, "time-frequency");
  return reinterpret_cast<const std::complex<float>*>(ws.image.get());
}

void copyTfImageToHost(const std::complex<float>* image, std::size_t values,
                       std::complex<float>* host) {
  MODESCOPE_CUDA_TRY(
      cudaMemcpy(host, image, values * sizeof(std::complex<float>), cudaMemcpyDeviceToHost));
}

}  // namespace modescope::cuda
