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

__global__ void tfFramesKernel(TfGrid g, const float* __restrict__ x,
                               const float* __restrict__ windows, int64_t firstFrame,
                               int64_t frames, float* __restrict__ out) {
  const int64_t total = frames * g.stfts * static_cast<int64_t>(g.fftLength);
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int n = static_cast<int>(e % g.fftLength);
    const int64_t fj = e / g.fftLength;
    const int j = static_cast<int>(fj % g.stfts);
    const int64_t frame = firstFrame + fj / g.stfts;
    const int64_t c = frame / g.columns, t = frame % g.columns;
    const int k = n < (g.fftLength + 1) / 2 ? n : n - g.fftLength;  // the tap at FFT index n
    const int i = k + g.windowLength / 2;
    const int64_t s = t * g.hop + k;
    float v = 0.0f;
    if (i >= 0 && i < g.windowLength && s >= 0 && s < g.samples)
      v = x[c * g.samples + s] * windows[j * g.windowLength + i];
    out[e] = v;
  }
}

__global__ void tfSqueezeKernel(TfGrid g, const cufftComplex* __restrict__ spectra,
                                const float* __restrict__ thresholds, int64_t firstFrame,
                                bool shared, int* __restrict__ scratch, float2* __restrict__ out) {
  extern __shared__ unsigned char smem[];
  const int64_t f = blockIdx.x;  // frame within the tile
  const int64_t frame = firstFrame + f;
  const int M = g.bins, K = g.lastBin - g.firstBin + 1;
  int* target = shared ? reinterpret_cast<int*>(smem) : scratch + f * M;
  float2* rows =
      shared ? reinterpret_cast<float2*>(smem + ((M * sizeof(int) + 15) / 16) * 16) : out + f * K;
  const float gamma = thresholds[frame / g.columns];
  const cufftComplex* spec = spectra + f * g.stfts * static_cast<int64_t>(M);
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
    // Row, or row + K for a mirrored estimate (conj F lands there), or -1 for discarded.
    target[m] = k < 0 ? -1 : k - g.firstBin + (mirrored ? K : 0);
  }
  for (int r = threadIdx.x; r < K; r += blockDim.x) rows[r] = make_float2(0.0f, 0.0f);
  __syncthreads();
  // Row r belongs to thread r % blockDim.x: every thread walks the source bins in increasing m
  // (a broadcast read) and adds those landing in its rows, so each sum has the CPU's order and
  // no two threads write one row.
  for (int m = 0; m < M; ++m) {
    const int t = target[m];
    const bool mirrored = t >= K;
    const int r = mirrored ? t - K : t;
    if (r >= 0 && r % blockDim.x == threadIdx.x) {
      const cufftComplex v = spec[m];
      const float weight = (m == 0 || 2 * m == g.fftLength) ? 0.5f : 1.0f;
      rows[r].x += weight * v.x;
      rows[r].y += weight * (mirrored ? -v.y : v.y);
    }
  }
  if (shared) {
    __syncthreads();
    for (int r = threadIdx.x; r < K; r += blockDim.x) out[f * K + r] = rows[r];
  }
}

std::size_t sharedBytes(const TfGrid& g) {
  const std::size_t K = static_cast<std::size_t>(g.lastBin - g.firstBin + 1);
  return ((g.bins * sizeof(int) + 15) / 16) * 16 + K * sizeof(float2);
}

}  // namespace

bool tfSqueezeFitsShared(const TfGrid& g) {
  int device = 0, optin = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return sharedBytes(g) <= static_cast<std::size_t>(optin);
}

void launchTfFrames(const TfGrid& g, const float* x, const float* windows, int64_t firstFrame,
                    int64_t frames, float* out, cudaStream_t stream) {
  const int64_t total = frames * g.stfts * static_cast<int64_t>(g.fftLength);
  const int64_t blocks = std::min<int64_t>((total + kFrameThreads - 1) / kFrameThreads, 65535 * 8);
  tfFramesKernel<<<static_cast<unsigned>(blocks), kFrameThreads, 0, stream>>>(
      g, x, windows, firstFrame, frames, out);
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

}  // namespace modescope::cuda
