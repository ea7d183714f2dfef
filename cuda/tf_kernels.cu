// Kernels of the CUDA time-frequency transform (tf_kernels.cuh).
#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/tf_kernels.cuh"
#include "engine/tf/tf_operators.h"

namespace modescope::cuda {
namespace {

constexpr int kFrameThreads = 256;
constexpr int kSqueezeThreads = 256;
constexpr float kTwoPi = 6.283185307179586f;

// One block per (frame, STFT) row; its threads write the window's L taps only: the other N - L
// positions of every row are zero from the buffer's set-up (launchTfFrames' contract), which for
// the seed's grid (L = 32..96 of N = 512..8192) saves almost all of the writes.
__global__ void tfFramesKernel(TfGrid g, const float* __restrict__ x,
                               const float* __restrict__ windows, int64_t firstFrame, int64_t rows,
                               float* __restrict__ out) {
  const int half = g.windowLength / 2;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int j = static_cast<int>(row % g.stfts);
    const int64_t frame = firstFrame + row / g.stfts;
    const int64_t c = frame / g.columns, t = frame % g.columns;
    const float* xc = x + c * g.samples;
    const float* wj = windows + static_cast<int64_t>(j) * g.windowLength;
    float* o = out + row * g.fftLength;
    const int64_t centre = t * g.hop;
    for (int i = threadIdx.x; i < g.windowLength; i += blockDim.x) {
      const int k = i - half;  // the tap's offset from the column's sample
      const int64_t s = centre + k;
      const float v = s >= 0 && s < g.samples ? xc[s] * wj[i] : 0.0f;
      o[k >= 0 ? k : k + g.fftLength] = v;
    }
  }
}

// In place: a[0..n) becomes its exclusive prefix sum. Each thread sums a contiguous piece; the
// piece totals are scanned with warp shuffles, then the warps' totals by the first warp
// (`partial`: one int per warp); then each piece is rewritten. Every thread of the block must
// call it.
__device__ void blockExclusiveScan(int* a, int n, int* partial) {
  const int per = (n + static_cast<int>(blockDim.x) - 1) / static_cast<int>(blockDim.x);
  const int lo = static_cast<int>(threadIdx.x) * per, hi = min(n, lo + per);
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int warps = (static_cast<int>(blockDim.x) + 31) / 32;
  int sum = 0;
  for (int i = lo; i < hi; ++i) sum += a[i];
  int inclusive = sum;
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += y;
  }
  if (lane == 31) partial[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int total = lane < warps ? partial[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, total, o);
      if (lane >= o) total += y;
    }
    if (lane < warps) partial[lane] = total;
  }
  __syncthreads();
  int run = inclusive - sum + (warp > 0 ? partial[warp - 1] : 0);
  for (int i = lo; i < hi; ++i) {
    const int v = a[i];
    a[i] = run;
    run += v;
  }
  __syncthreads();
}

constexpr unsigned kMirroredSource = 0x80000000u;

// One block per frame, in four passes over its M source bins and K image rows:
// 1. every bin's target: its row, row + K when the estimate is mirrored (conj F lands there), or
//    -1 when discarded; and the count of sources of each row (integer atomics: the counts, not
//    their order, are what is kept, so the result is deterministic);
// 2. the counts' exclusive prefix sum: where each row's sources start in `order`;
// 3. one warp lists the sources in increasing m: lanes with the same row (__match_any_sync) take
//    consecutive slots after the row's cursor, so each row's list is in the CPU's order;
// 4. each row summed by one thread over its list, in that order, and written once.
// O(M + K) per frame; the earlier form let every thread walk all M targets (O(M x threads)), which
// dominated the time at FFT 8192.
__global__ void tfSqueezeKernel(TfGrid g, const cufftComplex* __restrict__ spectra,
                                const float* __restrict__ thresholds, int64_t firstFrame,
                                bool shared, int* __restrict__ scratch, float2* __restrict__ out) {
  extern __shared__ unsigned char smem[];
  __shared__ int partial[kSqueezeThreads / 32];
  const int64_t f = blockIdx.x;  // frame within the tile
  const int64_t frame = firstFrame + f;
  const int M = g.bins, K = g.lastBin - g.firstBin + 1;
  int* target = shared ? reinterpret_cast<int*>(smem)
                       : scratch + f * static_cast<int64_t>(tfSqueezeScratchInts(g));
  int* order = target + M;      // M: source bins (with kMirroredSource), grouped by row
  int* start = order + M;       // K + 1: where each row's sources start in `order`
  int* cursor = start + K + 1;  // K: the next free slot of each row
  const float gamma = thresholds[frame / g.columns];
  const cufftComplex* spec = spectra + f * g.stfts * static_cast<int64_t>(M);
  for (int r = threadIdx.x; r <= K; r += blockDim.x) start[r] = 0;
  __syncthreads();
  for (int m = threadIdx.x; m < M; m += blockDim.x) {
    tf::Cx<float> F[17];
    for (int j = 0; j < g.stfts; ++j) {
      const cufftComplex v = spec[j * static_cast<int64_t>(M) + m];
      F[j] = {v.x, v.y};
    }
    const float magnitude = sqrtf(tf::norm2(F[0]));
    int k = m >= g.firstBin && m <= g.lastBin ? m : -1;
    bool mirrored = false;
    if (g.orderCode != tf::kSpectrogram && magnitude > gamma && tf::norm2(F[0]) > 1e-30f) {
      const float w = tf::instantaneousFrequency<float>(g.orderCode, F, kTwoPi * m / g.fftLength,
                                                        g.sigma, g.detFloor);
      k = tf::targetBin<float>(w, g.fftLength, g.firstBin, g.lastBin, &mirrored);
    }
    target[m] = k < 0 ? -1 : k - g.firstBin + (mirrored ? K : 0);
    if (k >= 0) atomicAdd(&start[k - g.firstBin], 1);
  }
  __syncthreads();
  blockExclusiveScan(start, K + 1, partial);
  for (int r = threadIdx.x; r < K; r += blockDim.x) cursor[r] = start[r];
  __syncthreads();
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    for (int base = 0; base < M; base += 32) {
      const int m = base + static_cast<int>(lane);
      const int t = m < M ? target[m] : -1;
      const int row = t < 0 ? -1 : (t >= K ? t - K : t);
      const unsigned same = __match_any_sync(0xffffffffu, row);
      const int slot = row < 0 ? 0 : cursor[row] + __popc(same & ((1u << lane) - 1u));
      __syncwarp();
      if (row >= 0) {
        order[slot] = m | (t >= K ? static_cast<int>(kMirroredSource) : 0);
        if (lane == static_cast<unsigned>(__ffs(same) - 1)) cursor[row] += __popc(same);
      }
      __syncwarp();
    }
  }
  __syncthreads();
  for (int r = threadIdx.x; r < K; r += blockDim.x) {
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

std::size_t sharedBytes(const TfGrid& g) { return tfSqueezeScratchInts(g) * sizeof(int); }

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
  const int64_t rows = frames * g.stfts;
  const int threads = std::min(kFrameThreads, (g.windowLength + 31) / 32 * 32);
  const int64_t blocks = std::min<int64_t>(rows, int64_t{1} << 20);
  tfFramesKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(g, x, windows, firstFrame,
                                                                        rows, out);
  MODESCOPE_CUDA_CHECK_LAUNCH("tfFramesKernel", stream);
}

void launchTfSqueeze(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                     int64_t firstFrame, int64_t frames, int* scratch, float2* out,
                     cudaStream_t stream) {
  const bool shared = tfSqueezeFitsShared(g);
  const std::size_t bytes = shared ? sharedBytes(g) : 0;
  if (bytes > 48 * 1024)
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(
        tfSqueezeKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  tfSqueezeKernel<<<static_cast<unsigned>(frames), kSqueezeThreads, bytes, stream>>>(
      g, spectra, thresholds, firstFrame, shared, scratch, out);
  MODESCOPE_CUDA_CHECK_LAUNCH("tfSqueezeKernel", stream);
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
