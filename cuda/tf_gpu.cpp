// Time-frequency transforms on the device (cuda_tf.h). The checks, the grid, the windows and the
// thresholds are the CPU's host code (planTf), so both backends refuse the same input with the
// same words; the device frames, transforms and squeezes tiles of (channel, column) frames, and
// each tile's image rows come down into the result or to a sink (streamed), or stay on the device.
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
  DeviceBuffer<float> magnitude;  // a tile's |T| (timeFrequencyGpuTiles)
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
           scratch.bytes() + rows.bytes() + image.bytes() + magnitude.bytes() + work.bytes();
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
    magnitude.reset();
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
  const int64_t cap = std::min({std::max<int64_t>(byBudget, 1), byMemory, r.totalFrames});
  if (cap < 1)
    throw OutOfDeviceMemoryError(
        "the time-frequency transform needs " + std::to_string(perFrame) +
        " bytes of device memory per column (" + std::to_string(r.J) + " spectra of " +
        std::to_string(r.N) + " points)" +
        (reserve ? " besides the " + std::to_string(reserve) + " bytes of the image" : "") +
        " and " + std::to_string(available) +
        " bytes are free: lower the FFT length or the order, or select a shorter range");
  // Tiles of equal size: cuFFT transforms whole tiles, so a short last tile costs a full one (at
  // the seed's 16,384 columns, FFT 512, order 3, the cap of 13,107 frames made a second tile of
  // 3,277 cost as much as the first).
  const int64_t tiles = (r.totalFrames + cap - 1) / cap;
  r.tile = (r.totalFrames + tiles - 1) / tiles;
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

// Runs the planned transform tile by tile (setUp done) and hands every chunk of whole columns to
// `sink` (split at channel boundaries) while the device computes the next one: each chunk comes
// down through one of two pinned staging buffers, magnitudes taken on the device first.
void streamTiles(const TfRun& r, TfWorkspace& ws, TfTileValues values, const TfTileSink& sink,
                 JobContext& ctx) {
  const bool magnitude = values == TfTileValues::Magnitude;
  const std::size_t valueBytes = magnitude ? sizeof(float) : sizeof(float2);
  const auto tile = static_cast<std::size_t>(r.tile);
  ensure(ws.rows, tile * r.K);
  if (magnitude) ensure(ws.magnitude, tile * r.K);
  // A chunk is whole columns (frames) that fill at most one staging buffer.
  const std::size_t stagingBytes = kStagingValues * sizeof(float2);
  const int64_t chunkFrames =
      std::clamp<int64_t>(static_cast<int64_t>(stagingBytes / (r.K * valueBytes)), 1, r.tile);
  const std::size_t slotValues =
      (static_cast<std::size_t>(chunkFrames) * r.K * valueBytes + sizeof(float2) - 1) /
      sizeof(float2);
  for (PinnedBuffer<float2>& slot : ws.staging)
    if (slot.size() < slotValues) slot = PinnedBuffer<float2>(slotValues);
  const StreamDrain drain(ws.stream);
  cudaStream_t s = ws.stream.get();
  const int64_t columns = r.plan.columns;

  // The chunk whose copy to its staging slot is in flight: handed to the sink, split at channel
  // boundaries, while the device runs the next chunk (or the next tile).
  struct Pending {
    int slot = 0;
    int64_t firstFrame = 0, frames = 0;
  } pending;
  const auto finish = [&] {
    if (pending.frames == 0) return;
    ws.copied[pending.slot].synchronize();
    const auto* bytes = reinterpret_cast<const unsigned char*>(ws.staging[pending.slot].get());
    for (int64_t g = pending.firstFrame; g < pending.firstFrame + pending.frames;) {
      TfTile t;
      t.channel = static_cast<std::size_t>(g / columns);
      t.firstColumn = g % columns;
      t.columns = std::min(columns - t.firstColumn, pending.firstFrame + pending.frames - g);
      t.bins = static_cast<int>(r.K);
      const unsigned char* at =
          bytes + static_cast<std::size_t>(g - pending.firstFrame) * r.K * valueBytes;
      if (magnitude)
        t.magnitude = reinterpret_cast<const float*>(at);
      else
        t.values = reinterpret_cast<const std::complex<float>*>(at);
      sink(t);
      g += t.columns;
    }
    pending.frames = 0;
  };
  int nextSlot = 0;
  for (int64_t f0 = 0; f0 < r.totalFrames; f0 += r.tile) {
    ctx.checkpoint();
    ctx.progress(static_cast<double>(f0) / static_cast<double>(r.totalFrames), "time-frequency");
    const int64_t count = std::min(r.tile, r.totalFrames - f0);
    computeTile(r, ws, f0, count, ws.rows.get());
    if (magnitude)
      launchTfMagnitude(ws.rows.get(), count * static_cast<int64_t>(r.K), ws.magnitude.get(), s);
    const auto* source = magnitude ? reinterpret_cast<const unsigned char*>(ws.magnitude.get())
                                   : reinterpret_cast<const unsigned char*>(ws.rows.get());
    for (int64_t c0 = 0; c0 < count; c0 += chunkFrames) {
      const int64_t n = std::min(chunkFrames, count - c0);
      const int slot = nextSlot;
      nextSlot ^= 1;
      // The slot's previous chunk went to the sink in finish() one chunk ago.
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(
          ws.staging[slot].get(), source + static_cast<std::size_t>(c0) * r.K * valueBytes,
          static_cast<std::size_t>(n) * r.K * valueBytes, cudaMemcpyDeviceToHost, s));
      ws.copied[slot].record(s);
      finish();
      pending = {slot, f0 + c0, n};
    }
  }
  finish();
  ws.stream.synchronize();
}

}  // namespace

TfResult timeFrequencyGpu(const SignalBlock& block, const TfParams& params, JobContext& ctx,
                          TfWorkspace& ws, HostThreadPool& pool) {
  ws.image.reset();  // this call's image goes to the host
  const TfRun r = prepare(planTf(block, params), ws, 0);
  TfResult result = makeTfResult(r.plan, block);
  setUp(r, block, ws);
  // The image's layout is the frames' order: each tile lands where its first column is.
  streamTiles(
      r, ws, TfTileValues::Complex,
      [&](const TfTile& t) {
        pool.copy(result.column(t.channel, t.firstColumn), t.values,
                  static_cast<std::size_t>(t.columns) * r.K * sizeof(float2));
      },
      ctx);
  ws.releaseIfLarge(false);
  ctx.progress(1.0, "time-frequency");
  return result;
}

TfResult timeFrequencyGpuTiles(const SignalBlock& block, const TfParams& params,
                               TfTileValues values, const TfTileSink& sink, JobContext& ctx,
                               TfWorkspace& ws) {
  ws.image.reset();
  // The image is not held: only a tile and two staging buffers.
  const TfRun r = prepare(planTfStreamed(block, params), ws, 0);
  TfResult result = makeTfResult(r.plan, block, false);
  setUp(r, block, ws);
  streamTiles(r, ws, values, sink, ctx);
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
