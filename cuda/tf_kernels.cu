// Kernels of the CUDA time-frequency transform (tf_kernels.cuh).
#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "cuda/cuda_check.cuh"
#include "cuda/tf_kernels.cuh"
#include "engine/tf/tf_operators.h"

namespace modescope::cuda {
namespace {

constexpr int kFrameThreads = 256;
constexpr int kSqueezeThreads = 256;
constexpr float kTwoPi = 6.283185307179586f;

// One thread per (frame, tap): it reads its sample once and writes it, times each of the J
// windows, into the frame's J rows; only the L taps of a row are written, the other N - L
// positions stay zero from the buffer's set-up (launchTfFrames' contract), which for the seed's
// grid (L = 32..96 of N = 512..8192) saves almost all of the writes. Consecutive threads write
// consecutive taps of a row. (The first form ran one small block per row: at FFT 512 that was
// 164 k blocks of 64 threads for 42 MB of writes.)
__global__ void tfFramesKernel(TfGrid g, const float* __restrict__ x,
                               const float* __restrict__ windows, int64_t firstFrame, int frames,
                               float* __restrict__ out) {
  const int L = g.windowLength, half = L / 2;
  const int taps = frames * L;  // at most the tile's frame-samples (prepare() bounds them)
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < taps; i += gridDim.x * blockDim.x) {
    const int f = i / L, tap = i - f * L;
    const int64_t frame = firstFrame + f;
    const int64_t c = frame / g.columns, t = frame - c * g.columns;
    const int k = tap - half;  // the tap's offset from the column's sample
    const int64_t s = t * g.hop + k;
    const float v = s >= 0 && s < g.samples ? x[c * g.samples + s] : 0.0f;
    float* o =
        out + static_cast<int64_t>(f) * g.stfts * g.fftLength + (k >= 0 ? k : k + g.fftLength);
    for (int j = 0; j < g.stfts; ++j)
      o[static_cast<int64_t>(j) * g.fftLength] = v * windows[j * L + tap];
  }
}

// The threads that squeeze one frame: a whole block (kBlockGroup) when a frame has many bins, a
// warp (kWarpGroup, eight frames per block) when it has few. At FFT 512 a frame has 257 bins, and
// a block per frame spent more time in its four block barriers and its one listing warp (the
// other seven waiting) than in the arithmetic (docs/time-frequency.md, "Measured").
constexpr int kBlockGroup = kSqueezeThreads;
constexpr int kWarpGroup = 32;
// Frames of at most this many source bins are squeezed by a warp each: a warp's frame then keeps
// its lists in 4 KiB (FFT 512) or 8 KiB (FFT 1024) of shared memory, eight per block. Measured on
// the H200 (order 3, device G points/s, docs/time-frequency.md): warps up to 513 bins gave 15.5
// at FFT 512 and 18.4 at FFT 1024; blocks gave 11.9 and 16.0; warps also at FFT 2048 fell from
// 17.5 to 11.6 (64 KiB of lists per block leaves one block per SM).
constexpr int kWarpGroupMaxBins = 513;

// Waits for the threads of one frame's group.
template <int kGroup>
__device__ inline void groupSync() {
  if constexpr (kGroup == kWarpGroup)
    __syncwarp();
  else
    __syncthreads();
}

// In place: a[0..n) becomes its exclusive prefix sum, computed by the kGroup threads of one group
// (`t`: the thread's index in it). Each thread sums a contiguous piece; the piece totals are
// scanned with warp shuffles, then the warps' totals by the group's first warp (`partial`: one
// int per warp of the group); then each piece is rewritten. Every thread of the group must call
// it.
template <int kGroup>
__device__ void groupExclusiveScan(int* a, int n, int t, int* partial) {
  constexpr int kWarps = kGroup / 32;
  const int per = (n + kGroup - 1) / kGroup;
  const int lo = t * per, hi = min(n, lo + per);
  const int lane = t & 31, warp = t >> 5;
  int sum = 0;
  for (int i = lo; i < hi; ++i) sum += a[i];
  int inclusive = sum;
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += y;
  }
  int run = inclusive - sum;
  if constexpr (kWarps > 1) {
    if (lane == 31) partial[warp] = inclusive;
    groupSync<kGroup>();
    if (warp == 0) {
      int total = lane < kWarps ? partial[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, total, o);
        if (lane >= o) total += y;
      }
      if (lane < kWarps) partial[lane] = total;
    }
    groupSync<kGroup>();
    if (warp > 0) run += partial[warp - 1];
  }
  for (int i = lo; i < hi; ++i) {
    const int v = a[i];
    a[i] = run;
    run += v;
  }
  groupSync<kGroup>();
}

constexpr unsigned kMirroredSource = 0x80000000u;

__device__ inline tf::Cx<float> toCx(cufftComplex v) { return {v.x, v.y}; }

// One group of kGroup threads per frame, in four passes over its M source bins and K image rows:
// 1. every bin's target: its row, row + K when the estimate is mirrored (conj F lands there), or
//    -1 when discarded; and the count of sources of each row (integer atomics: the counts, not
//    their order, are what is kept, so the result is deterministic);
// 2. the counts' exclusive prefix sum: where each row's sources start in `order`;
// 3. one warp lists the sources in increasing m: lanes with the same row (__match_any_sync) take
//    consecutive slots after the row's cursor, so each row's list is in the CPU's order;
// 4. each row summed by one thread over its list, in that order, and written once.
// O(M + K) per frame; the earlier form let every thread walk all M targets (O(M x threads)), which
// dominated the time at FFT 8192. The order is a template argument so that the J spectra of a bin
// and the operators' matrices are registers: with J known only at run time they sat in a 304-byte
// stack frame in local memory.
template <int kCode, int kGroup>
__global__ void __launch_bounds__(kSqueezeThreads)
    tfSqueezeKernel(TfGrid g, const cufftComplex* __restrict__ spectra,
                    const float* __restrict__ thresholds, int64_t firstFrame, int64_t frames,
                    bool shared, int* __restrict__ scratch, float2* __restrict__ out) {
  constexpr int kJ = tf::stftCount(kCode);
  constexpr int kFramesPerBlock = kSqueezeThreads / kGroup;
  extern __shared__ unsigned char smem[];
  __shared__ int partials[kSqueezeThreads / 32];
  const int group = static_cast<int>(threadIdx.x) / kGroup;
  const int t = static_cast<int>(threadIdx.x) % kGroup;  // the thread's index in its group
  const int64_t f = static_cast<int64_t>(blockIdx.x) * kFramesPerBlock + group;  // in the tile
  // A warp group past the tile's end has no frame; it shares no barrier with the others.
  if (kGroup == kWarpGroup && f >= frames) return;
  const int64_t frame = firstFrame + f;
  const int M = g.bins, K = g.lastBin - g.firstBin + 1;
  const auto perFrame = static_cast<int64_t>(tfSqueezeScratchInts(g));
  int* target = shared ? reinterpret_cast<int*>(smem) + group * perFrame : scratch + f * perFrame;
  int* order = target + M;      // M: source bins (with kMirroredSource), grouped by row
  int* start = order + M;       // K + 1: where each row's sources start in `order`
  int* cursor = start + K + 1;  // K: the next free slot of each row
  int* partial = partials + group * (kGroup / 32);
  const float gamma = thresholds[frame / g.columns];
  const cufftComplex* spec = spectra + f * kJ * static_cast<int64_t>(M);
  for (int r = t; r <= K; r += kGroup) start[r] = 0;
  groupSync<kGroup>();
  for (int m = t; m < M; m += kGroup) {
    tf::Cx<float> F[kJ];
#pragma unroll
    for (int j = 0; j < kJ; ++j) F[j] = toCx(spec[j * static_cast<int64_t>(M) + m]);
    const float magnitude = sqrtf(tf::norm2(F[0]));
    int k = m >= g.firstBin && m <= g.lastBin ? m : -1;
    bool mirrored = false;
    if (kCode != tf::kSpectrogram && magnitude > gamma && tf::norm2(F[0]) > 1e-30f) {
      const float w = tf::instantaneousFrequency<float>(kCode, F, kTwoPi * m / g.fftLength, g.sigma,
                                                        g.detFloor);
      k = tf::targetBin<float>(w, g.fftLength, g.firstBin, g.lastBin, &mirrored);
    }
    target[m] = k < 0 ? -1 : k - g.firstBin + (mirrored ? K : 0);
    if (k >= 0) atomicAdd(&start[k - g.firstBin], 1);
  }
  groupSync<kGroup>();
  groupExclusiveScan<kGroup>(start, K + 1, t, partial);
  for (int r = t; r < K; r += kGroup) cursor[r] = start[r];
  groupSync<kGroup>();
  if (t < 32) {
    const unsigned lane = t;
    for (int base = 0; base < M; base += 32) {
      const int m = base + static_cast<int>(lane);
      const int tm = m < M ? target[m] : -1;
      const int row = tm < 0 ? -1 : (tm >= K ? tm - K : tm);
      const unsigned same = __match_any_sync(0xffffffffu, row);
      const int slot = row < 0 ? 0 : cursor[row] + __popc(same & ((1u << lane) - 1u));
      __syncwarp();
      if (row >= 0) {
        order[slot] = m | (tm >= K ? static_cast<int>(kMirroredSource) : 0);
        if (lane == static_cast<unsigned>(__ffs(same) - 1)) cursor[row] += __popc(same);
      }
      __syncwarp();
    }
  }
  groupSync<kGroup>();
  for (int r = t; r < K; r += kGroup) {
    float2 sum = make_float2(0.0f, 0.0f);
    for (int i = start[r]; i < start[r + 1]; ++i) {
      const unsigned entry = static_cast<unsigned>(order[i]);
      const int m = static_cast<int>(entry & ~kMirroredSource);
      const bool mirrored = (entry & kMirroredSource) != 0;
      const cufftComplex v = spec[m];
      const float weight = (m == 0 || 2 * m == g.fftLength) ? 0.5f : 1.0f;
      sum.x += weight * v.x;
      sum.y += weight * (mirrored ? -v.y : v.y);
    }
    out[f * K + r] = sum;
  }
}

// Threads per frame: a warp for frames of few bins, the block otherwise (see kWarpGroupMaxBins).
int squeezeGroupThreads(const TfGrid& g) {
  return g.bins <= kWarpGroupMaxBins ? kWarpGroup : kBlockGroup;
}

std::size_t sharedBytes(const TfGrid& g) {
  return tfSqueezeScratchInts(g) * sizeof(int) *
         static_cast<std::size_t>(kSqueezeThreads / squeezeGroupThreads(g));
}

template <int kCode, int kGroup>
void launchSqueeze(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                   int64_t firstFrame, int64_t frames, bool shared, int* scratch, float2* out,
                   cudaStream_t stream) {
  const std::size_t bytes = shared ? sharedBytes(g) : 0;
  if (bytes > 48 * 1024)
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(tfSqueezeKernel<kCode, kGroup>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
  constexpr int kFramesPerBlock = kSqueezeThreads / kGroup;
  const int64_t blocks = (frames + kFramesPerBlock - 1) / kFramesPerBlock;
  tfSqueezeKernel<kCode, kGroup><<<static_cast<unsigned>(blocks), kSqueezeThreads, bytes, stream>>>(
      g, spectra, thresholds, firstFrame, frames, shared, scratch, out);
  MODESCOPE_CUDA_CHECK_LAUNCH("tfSqueezeKernel", stream);
}

template <int kCode>
void launchSqueezeOfOrder(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                          int64_t firstFrame, int64_t frames, bool shared, int* scratch,
                          float2* out, cudaStream_t stream) {
  if (squeezeGroupThreads(g) == kWarpGroup)
    launchSqueeze<kCode, kWarpGroup>(g, spectra, thresholds, firstFrame, frames, shared, scratch,
                                     out, stream);
  else
    launchSqueeze<kCode, kBlockGroup>(g, spectra, thresholds, firstFrame, frames, shared, scratch,
                                      out, stream);
}

}  // namespace

bool tfSqueezeFitsShared(const TfGrid& g) {
  int device = 0, optin = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // The scan's warp totals are static shared memory beside the dynamic part.
  return sharedBytes(g) + kSqueezeThreads / 32 * sizeof(int) <= static_cast<std::size_t>(optin);
}

void launchTfFrames(const TfGrid& g, const float* x, const float* windows, int64_t firstFrame,
                    int64_t frames, float* out, cudaStream_t stream) {
  const int64_t taps = frames * g.windowLength;
  const int64_t blocks = std::min<int64_t>((taps + kFrameThreads - 1) / kFrameThreads, 65536);
  tfFramesKernel<<<static_cast<unsigned>(blocks), kFrameThreads, 0, stream>>>(
      g, x, windows, firstFrame, static_cast<int>(frames), out);
  MODESCOPE_CUDA_CHECK_LAUNCH("tfFramesKernel", stream);
}

void launchTfSqueeze(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                     int64_t firstFrame, int64_t frames, int* scratch, float2* out,
                     cudaStream_t stream) {
  const bool shared = tfSqueezeFitsShared(g);
  const auto launch = [&](auto code) {
    launchSqueezeOfOrder<decltype(code)::value>(g, spectra, thresholds, firstFrame, frames, shared,
                                                scratch, out, stream);
  };
  switch (g.orderCode) {
    case tf::kSpectrogram:
      return launch(std::integral_constant<int, tf::kSpectrogram>{});
    case tf::kFirst:
      return launch(std::integral_constant<int, tf::kFirst>{});
    case tf::kSecond:
      return launch(std::integral_constant<int, tf::kSecond>{});
    case tf::kThird:
      return launch(std::integral_constant<int, tf::kThird>{});
    case tf::kThirdCanonical:
      return launch(std::integral_constant<int, tf::kThirdCanonical>{});
    case tf::kFourth:
      return launch(std::integral_constant<int, tf::kFourth>{});
    default:
      throw std::logic_error("launchTfSqueeze: unknown order code");
  }
}

namespace {
__global__ void tfMagnitudeKernel(const float2* __restrict__ in, int64_t count,
                                  float* __restrict__ out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    const float2 v = in[i];
    out[i] = sqrtf(v.x * v.x + v.y * v.y);
  }
}
}  // namespace

void launchTfMagnitude(const float2* in, int64_t count, float* out, cudaStream_t stream) {
  if (count <= 0) return;
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((count + kThreads - 1) / kThreads, 65536);
  tfMagnitudeKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, count, out);
  MODESCOPE_CUDA_CHECK_LAUNCH("tfMagnitudeKernel", stream);
}

}  // namespace modescope::cuda
