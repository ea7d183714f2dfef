
#include "cuda/cuda_check.cuh"
#include "cuda/ica_whitening_kernels.cuh"
#include "cuda/infomax_kernels.cuh"

namespace modescope::cuda {
namespace {

constexpr int kMeanThreads = 256;
constexpr int kElementThreads = 256;

// One block per channel: strided partial sums, then a tree in shared memory (a fixed order).
__global__ void channelMeansKernel(const float* __restrict__ raw, int64_t n,
                                   double* __restrict__ mean) {
  __shared__ double part[kMeanThreads];
  const float* x = raw + blockIdx.x * n;
  double s = 0.0;
  for (int64_t t = threadIdx.x; t < n; t += kMeanThreads) s += x[t];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int half = kMeanThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) mean[blockIdx.x] = part[0] / static_cast<double>(n);
}

__global__ void centreChunkKernel(const float* __restrict__ raw, int channels, int64_t n,
                                  int64_t t0, int64_t len, const double* __restrict__ mean,
                                  double* __restrict__ out) {
  const int64_t total = static_cast<int64_t>(channels) * len;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ch = i / len, t = i - ch * len;
    out[i] = static_cast<double>(raw[ch * n + t0 + t]) - mean[ch];
  }
}

// cvt.rna.tf32.f32: keep 10 mantissa bits, round half away from zero; infinities and NaN pass.
__device__ float roundToTf32(float x) {
  unsigned bits = __float_as_uint(x);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  return __uint_as_float(bits);
}

__global__ void packSpheredKernel(const double* __restrict__ sphered, int64_t len,
                                  SpheredRows layout, float* __restrict__ out) {
  const int64_t total = static_cast<int64_t>(layout.row) * len;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t t = e / layout.row;
    const int i = static_cast<int>(e - t * layout.row);
    float v = 0.f;
    if (i < layout.components) {
      v = static_cast<float>(sphered[e]);
      if (layout.tf32) v = roundToTf32(v);
    }
    out[t * layout.row + (layout.warpgroupSlots ? wgmmaChannelSlot(i) : i)] = v;
  }
}

unsigned gridFor(int64_t elements) {
  const int64_t blocks = (elements + kElementThreads - 1) / kElementThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

}  // namespace

void launchChannelMeans(const float* raw, int channels, int64_t n, double* mean,
                        cudaStream_t stream) {
  channelMeansKernel<<<static_cast<unsigned>(channels), kMeanThreads, 0, stream>>>(raw, n, mean);
  MODESCOPE_CUDA_CHECK_LAUNCH("channelMeansKernel", stream);
}

void launchCentreChunk(const float* raw, int channels, int64_t n, int64_t t0, int64_t len,
                       const double* mean, double* out, cudaStream_t stream) {
  centreChunkKernel<<<gridFor(channels * len), kElementThreads, 0, stream>>>(raw, channels, n, t0,
                                                                             len, mean, out);
  MODESCOPE_CUDA_CHECK_LAUNCH("centreChunkKernel", stream);
}

void launchPackSphered(const double* sphered, int64_t len, const SpheredRows& layout, float* out,
                       cudaStream_t stream) {
  packSpheredKernel<<<gridFor(layout.row * len), kElementThreads, 0, stream>>>(sphered, len, layout,
                                                                               out);
  MODESCOPE_CUDA_CHECK_LAUNCH("packSpheredKernel", stream);
}

}  // namespace modescope::cuda
