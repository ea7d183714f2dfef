#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/hht_kernels.cuh"

namespace modescope::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxGridY = 65535;  // CUDA's limit on gridDim.y
constexpr double kPi = 3.14159265358979323846;
// Time columns per channel that run at once on the global-scratch path: enough blocks to fill a
// GPU with a few channels, few enough that the scratch (one histogram per block) stays small.
constexpr int kScratchColumns = 64;
// The default dynamic shared memory per block without opting in.
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

dim3 rowGrid(std::int64_t perRow, std::int64_t rows) {
  const std::int64_t x =
      std::max<std::int64_t>(1, std::min<std::int64_t>((perRow + kThreads - 1) / kThreads, 1024));
  const std::int64_t y = std::max<std::int64_t>(1, std::min(rows, kMaxGridY));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

__global__ void realToComplexKernel(const float* __restrict__ x, std::int64_t count,
                                    float2* __restrict__ z) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    z[i] = make_float2(x[i], 0.0f);
  }
}

__global__ void analyticWeightsKernel(float2* __restrict__ z, std::int64_t items, std::int64_t n) {
  const float inv = 1.0f / static_cast<float>(n);
  const std::int64_t positiveEnd = (n + 1) / 2;  // bins 1 .. positiveEnd - 1 are doubled
  for (std::int64_t b = blockIdx.y; b < items; b += gridDim.y) {
    float2* row = z + b * n;
    for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < n;
         k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      float h = 0.0f;
      if (k == 0 || (n % 2 == 0 && k == n / 2)) {
        h = inv;
      } else if (k < positiveEnd) {
        h = 2.0f * inv;
      }
      const float2 v = row[k];
      row[k] = make_float2(v.x * h, v.y * h);
    }
  }
}

// arg(z1 conj z0) in (-pi, pi].
__device__ inline float phaseStep(float2 z0, float2 z1) {
  const float re = z1.x * z0.x + z1.y * z0.y;
  const float im = z1.y * z0.x - z1.x * z0.y;
  return atan2f(im, re);
}

__global__ void instantaneousKernel(const float2* __restrict__ z, std::int64_t items,
                                    std::int64_t n, float fsOver2Pi, float* __restrict__ amplitude,
                                    float* __restrict__ frequency) {
  for (std::int64_t b = blockIdx.y; b < items; b += gridDim.y) {
    const float2* row = z + b * n;
    for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < n;
         t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      const float2 here = row[t];
      amplitude[b * n + t] = hypotf(here.x, here.y);
      float f;
      if (t == 0) {
        f = fsOver2Pi * phaseStep(here, row[1]);
      } else if (t == n - 1) {
        f = fsOver2Pi * phaseStep(row[t - 1], here);
      } else {
        f = 0.5f * fsOver2Pi * (phaseStep(row[t - 1], here) + phaseStep(here, row[t + 1]));
      }
      frequency[b * n + t] = f;
    }
  }
}

// Sum of `v` over the block in double (every thread receives it).
template <int kSums>
__device__ void blockSum(double (&v)[kSums], double (*shared)[kThreads]) {
  for (int s = 0; s < kSums; ++s) shared[s][threadIdx.x] = v[s];
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      for (int s = 0; s < kSums; ++s) shared[s][threadIdx.x] += shared[s][threadIdx.x + width];
    }
    __syncthreads();
  }
  for (int s = 0; s < kSums; ++s) v[s] = shared[s][0];
}

__global__ void __launch_bounds__(kThreads)
    imfSumsKernel(const float* __restrict__ x, const float* __restrict__ amplitude,
                  const float* __restrict__ frequency, std::int64_t items, std::int64_t n,
                  std::int64_t edge, double nyquist, double* __restrict__ partial) {
  __shared__ double shared[3][kThreads];
  for (std::int64_t b = blockIdx.y; b < items; b += gridDim.y) {
    double sums[3] = {0.0, 0.0, 0.0};  // a^2 f, a^2 (0 < f <= nyquist), x^2
    for (std::int64_t t = edge + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         t < n - edge; t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      const double a = amplitude[b * n + t];
      const double f = frequency[b * n + t];
      const double xv = x[b * n + t];
      if (f > 0.0 && f <= nyquist) {
        sums[0] += a * a * f;
        sums[1] += a * a;
      }
      sums[2] += xv * xv;
    }
    blockSum<3>(sums, shared);
    if (threadIdx.x == 0) {
      double* out = partial + (b * gridDim.x + blockIdx.x) * 3;
      out[0] = sums[0];
      out[1] = sums[1];
      out[2] = sums[2];
    }
    __syncthreads();  // `shared` is reused by the next item
  }
}

__device__ inline int binOf(float frequency, const HhtDeviceGrid& g) {
  const double f = frequency;
  if (!(f >= g.fMin && f <= g.fMax)) return -1;
  const double u = g.logScale ? log(f / g.fMin) * g.scale : (f - g.fMin) * g.scale;
  return min(max(static_cast<int>(floor(u)), 0), g.bins - 1);
}

__global__ void __launch_bounds__(kThreads)
    spectrumColumnsKernel(const float* __restrict__ amplitude, const float* __restrict__ frequency,
                          const int* __restrict__ itemBegin, std::int64_t channels, std::int64_t n,
                          std::int64_t edge, const std::int64_t* __restrict__ timeEdges,
                          int timeBins, HhtDeviceGrid grid, bool energy,
                          double* __restrict__ scratch, float* __restrict__ spectrum) {
  extern __shared__ double sharedHist[];
  double* hist =
      scratch
          ? scratch + (static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) * grid.bins
          : sharedHist;
  for (std::int64_t c = blockIdx.y; c < channels; c += gridDim.y) {
    const std::int64_t first = itemBegin[c], last = itemBegin[c + 1];
    for (int j = blockIdx.x; j < timeBins; j += gridDim.x) {
      for (int k = threadIdx.x; k < grid.bins; k += blockDim.x) hist[k] = 0.0;
      __syncthreads();
      const std::int64_t s0 = max(timeEdges[j], edge);
      const std::int64_t s1 = min(timeEdges[j + 1], n - edge);
      const std::int64_t len = s1 > s0 ? s1 - s0 : 0;
      const std::int64_t total = len * (last - first);
      for (std::int64_t i = threadIdx.x; i < total; i += blockDim.x) {
        const std::int64_t item = first + i / len;
        const std::int64_t at = item * n + s0 + i % len;
        const int k = binOf(frequency[at], grid);
        if (k >= 0) {
          const double a = amplitude[at];
          atomicAdd(&hist[k], energy ? a * a : a);
        }
      }
      // Global-memory atomics of this block are visible to its threads after the barrier too.
      __syncthreads();
      float* out = spectrum + c * grid.bins * static_cast<std::int64_t>(timeBins) + j;
      for (int k = threadIdx.x; k < grid.bins; k += blockDim.x) {
        out[static_cast<std::int64_t>(k) * timeBins] =
            len > 0 ? static_cast<float>(hist[k] / static_cast<double>(len)) : 0.0f;
      }
      __syncthreads();  // before the next column clears `hist`
    }
  }
}

__global__ void marginalKernel(const float* __restrict__ spectrum, std::int64_t rows, int timeBins,
                               const double* __restrict__ columnWeight,
                               double* __restrict__ marginal) {
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t row =
           blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32;
       row < rows; row += warps) {
    const float* s = spectrum + row * timeBins;
    double sum = 0.0;
    for (int j = lane; j < timeBins; j += 32) sum += static_cast<double>(s[j]) * columnWeight[j];
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) marginal[row] = sum;
  }
}

}  // namespace

void launchRealToComplex(const float* x, std::int64_t count, float2* z, cudaStream_t stream) {
  if (count == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((count + kThreads - 1) / kThreads, 1 << 20);
  realToComplexKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, count, z);
  MODESCOPE_CUDA_CHECK_LAUNCH("realToComplexKernel", stream);
}

void launchAnalyticWeights(float2* z, std::int64_t items, std::int64_t n, cudaStream_t stream) {
  if (items == 0 || n == 0) return;
  analyticWeightsKernel<<<rowGrid(n, items), kThreads, 0, stream>>>(z, items, n);
  MODESCOPE_CUDA_CHECK_LAUNCH("analyticWeightsKernel", stream);
}

void launchInstantaneous(const float2* z, std::int64_t items, std::int64_t n, double sampleRate,
                         float* amplitude, float* frequency, cudaStream_t stream) {
  if (items == 0 || n < 2) return;
  const auto fsOver2Pi = static_cast<float>(sampleRate / (2.0 * kPi));
  instantaneousKernel<<<rowGrid(n, items), kThreads, 0, stream>>>(z, items, n, fsOver2Pi, amplitude,
                                                                  frequency);
  MODESCOPE_CUDA_CHECK_LAUNCH("instantaneousKernel", stream);
}

void launchImfSums(const float* x, const float* amplitude, const float* frequency,
                   std::int64_t items, std::int64_t n, std::int64_t edge, double nyquist,
                   int blocks, double* partial, cudaStream_t stream) {
  if (items == 0) return;
  const dim3 grid(static_cast<unsigned>(std::max(blocks, 1)),
                  static_cast<unsigned>(std::min(items, kMaxGridY)));
  imfSumsKernel<<<grid, kThreads, 0, stream>>>(x, amplitude, frequency, items, n, edge, nyquist,
                                               partial);
  MODESCOPE_CUDA_CHECK_LAUNCH("imfSumsKernel", stream);
}

std::size_t spectrumSharedBytes(int bins) {
  return static_cast<std::size_t>(std::max(bins, 0)) * sizeof(double);
}

int spectrumScratchColumns(int timeBins) {
  return std::max(1, std::min(timeBins, kScratchColumns));
}

void launchSpectrumColumns(const float* amplitude, const float* frequency, const int* itemBegin,
                           std::int64_t channels, std::int64_t n, std::int64_t edge,
                           const std::int64_t* timeEdges, int timeBins, HhtDeviceGrid grid,
                           bool energy, double* scratch, float* spectrum, cudaStream_t stream) {
  if (channels == 0 || timeBins == 0 || grid.bins == 0) return;
  std::size_t shared = 0;
  unsigned columns = static_cast<unsigned>(timeBins);
  if (scratch) {
    columns = static_cast<unsigned>(spectrumScratchColumns(timeBins));
  } else {
    shared = spectrumSharedBytes(grid.bins);
    if (shared > kDefaultSharedBytes) {
      MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(spectrumColumnsKernel,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared)));
    }
  }
  const dim3 blocks(columns, static_cast<unsigned>(std::min(channels, kMaxGridY)));
  spectrumColumnsKernel<<<blocks, kThreads, shared, stream>>>(
      amplitude, frequency, itemBegin, channels, n, edge, timeEdges, timeBins, grid, energy,
      scratch, spectrum);
  MODESCOPE_CUDA_CHECK_LAUNCH("spectrumColumnsKernel", stream);
}

void launchMarginal(const float* spectrum, std::int64_t channels, int bins, int timeBins,
                    const double* columnWeight, double* marginal, cudaStream_t stream) {
  const std::int64_t rows = channels * bins;
  if (rows == 0) return;
  const std::int64_t warpsPerBlock = kThreads / 32;
  const std::int64_t blocks =
      std::min<std::int64_t>((rows + warpsPerBlock - 1) / warpsPerBlock, 1 << 20);
  marginalKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(spectrum, rows, timeBins,
                                                                         columnWeight, marginal);
  MODESCOPE_CUDA_CHECK_LAUNCH("marginalKernel", stream);
}

}  // namespace modescope::cuda
