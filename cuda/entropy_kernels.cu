// Match counting of the entropy matrices on the device (entropy_kernels.cuh describes the method
// and the layout; engine/entropy/entropy_cpu.h the procedure).
#include "cuda/entropy_kernels.cuh"

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <stdexcept>

#include "cuda/cuda_check.cuh"

namespace modescope::cuda {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kAll = 0xffffffffu;
// The candidate window is searched this much wider than r (z units: series values are O(1-10),
// float rounding of x - r is below 1e-6); each candidate is then tested with the exact rule.
constexpr float kWindowSlack = 1e-3f;

std::size_t alignUp(std::size_t v) { return (v + 255) / 256 * 256; }

__global__ void firstValuesKernel(const float* series, int segments, int n, int t, float* keys,
                                  int* index) {
  const long long total = static_cast<long long>(segments) * t;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long seg = k / t;
    const int j = static_cast<int>(k % t);
    keys[k] = series[seg * n + j];
    index[k] = j;
  }
}

__global__ void segmentOffsetsKernel(int segments, int t, int* offsets) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s <= segments) offsets[s] = s * t;
}

__global__ void packSortedKernel(const float* keys, const int* index, long long total,
                                 SortedTemplate* sorted) {
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    sorted[k] = SortedTemplate{keys[k], index[k]};
}

// First position in s[0..t) whose key is >= value.
__device__ int lowerBound(const SortedTemplate* s, int t, float value) {
  int lo = 0, hi = t;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (s[mid].key < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <class T>
__device__ T warpSum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kAll, v, o);
  return v;
}

// Sums one value over the block; the result is valid in thread 0. `scratch` holds a value per warp.
template <class T>
__device__ T blockSum(T v, T* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += scratch[w];
  __syncthreads();
  return total;
}

__global__ void __launch_bounds__(kThreads) countMatchesKernel(EntropyCountBatch b, bool shared) {
  extern __shared__ unsigned char smem[];
  __shared__ double dScratch[kThreads / 32];
  __shared__ long long lScratch[kThreads / 32];
  __shared__ int iScratch[kThreads / 32];

  const int e = blockIdx.x / b.countU;
  const int u = b.firstU + static_cast<int>(blockIdx.x % b.countU);
  const int n = b.n, m = b.m, t = n - m + 1;
  const float r = b.r;
  const std::size_t seriesStride = static_cast<std::size_t>(n);

  const float* xGlobal = b.series + (static_cast<std::size_t>(e) * b.channels + u) * seriesStride;
  const float* x = xGlobal;
  float* xShared = reinterpret_cast<float*>(smem);
  float* yShared = xShared + n;
  SortedTemplate* sShared = reinterpret_cast<SortedTemplate*>(
      smem + ((2 * static_cast<std::size_t>(n) * sizeof(float) + 7) / 8) * 8);
  if (shared) {
    for (int k = threadIdx.x; k < n; k += blockDim.x) xShared[k] = xGlobal[k];
    x = xShared;
  }

  for (int v = 0; v < b.channels; ++v) {
    const std::size_t seg = static_cast<std::size_t>(e) * b.channels + v;
    const float* y = b.series + seg * seriesStride;
    const SortedTemplate* s = b.sorted + seg * static_cast<std::size_t>(t);
    if (shared) {
      __syncthreads();  // the previous target's data are no longer read
      for (int k = threadIdx.x; k < n; k += blockDim.x) yShared[k] = y[k];
      for (int k = threadIdx.x; k < t; k += blockDim.x) sShared[k] = s[k];
      __syncthreads();
      y = yShared;
      s = sShared;
    }
    double sumLogM = 0.0, sumLogM1 = 0.0;
    int noM = 0, noBoth = 0, noM1Only = 0;
    long long matchesM = 0, matchesM1 = 0;
    for (int i = threadIdx.x; i < t; i += blockDim.x) {
      const float xi = x[i];
      const bool hasLonger = i < t - 1;  // template i has an (m+1)-th value
      const float xLast = hasLonger ? x[i + m] : 0.0f;
      int cm = 0, cmShort = 0, cm1 = 0;
      const float top = xi + r + kWindowSlack;
      for (int k = lowerBound(s, t, xi - r - kWindowSlack); k < t && s[k].key <= top; ++k) {
        const SortedTemplate c = s[k];
        if (!(fabsf(xi - c.key) <= r)) continue;
        const int j = c.index;
        bool match = true;
        for (int q = 1; q < m && match; ++q) match = fabsf(x[i + q] - y[j + q]) <= r;
        if (!match) continue;
        ++cm;
        if (j < t - 1) {
          ++cmShort;
          if (hasLonger && fabsf(xLast - y[j + m]) <= r) ++cm1;
        }
      }
      if (b.sampleEntropy) {
        if (hasLonger) {
          matchesM += cmShort;
          matchesM1 += cm1;
        }
      } else {
        matchesM += cm;
        if (cm > 0) sumLogM += log(static_cast<double>(cm));
        else ++noM;
        if (hasLonger) {
          matchesM1 += cm1;
          if (cm1 > 0) sumLogM1 += log(static_cast<double>(cm1));
          if (cm == 0) ++noBoth;
          else if (cm1 == 0) ++noM1Only;
        }
      }
    }
    const double totalLogM = blockSum(sumLogM, dScratch);
    const double totalLogM1 = blockSum(sumLogM1, dScratch);
    const int totalNoM = blockSum(noM, iScratch);
    const int totalNoBoth = blockSum(noBoth, iScratch);
    const int totalNoM1Only = blockSum(noM1Only, iScratch);
    const long long totalM = blockSum(matchesM, lScratch);
    const long long totalM1 = blockSum(matchesM1, lScratch);
    if (threadIdx.x == 0) {
      DevicePairCounts c;
      c.sumLogM = totalLogM;
      c.sumLogM1 = totalLogM1;
      c.noMatchM = totalNoM;
      c.noMatchBoth = totalNoBoth;
      c.noMatchM1Only = totalNoM1Only;
      c.pad = 0;
      c.matchesM = totalM;
      c.matchesM1 = totalM1;
      b.counts[(static_cast<std::size_t>(e) * b.channels + u) * b.channels + v] = c;
    }
  }
}

int maxOptinShared() {
  int device = 0, bytes = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

struct SortLayout {
  std::size_t keysIn, keysOut, indexIn, indexOut, offsets, temp, total;
};

SortLayout sortLayout(int epochs, int channels, int n, int m) {
  const int t = n - m + 1;
  const int segments = epochs * channels;
  const std::size_t items = static_cast<std::size_t>(segments) * t;
  std::size_t temp = 0;
  MODESCOPE_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
      nullptr, temp, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(items), segments,
      static_cast<const int*>(nullptr), static_cast<const int*>(nullptr) + 1));
  SortLayout l;
  l.keysIn = 0;
  l.keysOut = l.keysIn + alignUp(items * sizeof(float));
  l.indexIn = l.keysOut + alignUp(items * sizeof(float));
  l.indexOut = l.indexIn + alignUp(items * sizeof(int));
  l.offsets = l.indexOut + alignUp(items * sizeof(int));
  l.temp = l.offsets + alignUp((static_cast<std::size_t>(segments) + 1) * sizeof(int));
  l.total = l.temp + alignUp(temp);
  return l;
}

}  // namespace

std::size_t entropySharedBytes(int n) {
  return ((2 * static_cast<std::size_t>(n) * sizeof(float) + 7) / 8) * 8 +
         static_cast<std::size_t>(n) * sizeof(SortedTemplate);
}

std::size_t entropySortScratchBytes(int epochs, int channels, int n, int m) {
  return sortLayout(epochs, channels, n, m).total;
}

void launchSortTemplates(const float* series, int epochs, int channels, int n, int m,
                         SortedTemplate* sorted, void* scratch, std::size_t scratchBytes,
                         cudaStream_t stream) {
  const SortLayout l = sortLayout(epochs, channels, n, m);
  if (scratchBytes < l.total) throw std::logic_error("launchSortTemplates: scratch too small");
  auto* base = static_cast<unsigned char*>(scratch);
  auto* keysIn = reinterpret_cast<float*>(base + l.keysIn);
  auto* keysOut = reinterpret_cast<float*>(base + l.keysOut);
  auto* indexIn = reinterpret_cast<int*>(base + l.indexIn);
  auto* indexOut = reinterpret_cast<int*>(base + l.indexOut);
  auto* offsets = reinterpret_cast<int*>(base + l.offsets);
  const int t = n - m + 1;
  const int segments = epochs * channels;
  const long long items = static_cast<long long>(segments) * t;
  const int blocks = static_cast<int>(std::min<long long>((items + 255) / 256, 8192));
  firstValuesKernel<<<blocks, 256, 0, stream>>>(series, segments, n, t, keysIn, indexIn);
  MODESCOPE_CUDA_CHECK_LAUNCH("firstValuesKernel", stream);
  segmentOffsetsKernel<<<(segments + 256) / 256, 256, 0, stream>>>(segments, t, offsets);
  MODESCOPE_CUDA_CHECK_LAUNCH("segmentOffsetsKernel", stream);
  std::size_t temp = l.total - l.temp;
  MODESCOPE_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(
      base + l.temp, temp, keysIn, keysOut, indexIn, indexOut, static_cast<int>(items), segments,
      offsets, offsets + 1, stream));
  packSortedKernel<<<blocks, 256, 0, stream>>>(keysOut, indexOut, items, sorted);
  MODESCOPE_CUDA_CHECK_LAUNCH("packSortedKernel", stream);
}

void launchCountMatches(const EntropyCountBatch& b, cudaStream_t stream) {
  if (b.countU == 0 || b.epochs == 0) return;
  const std::size_t bytes = entropySharedBytes(b.n);
  const bool shared = bytes <= static_cast<std::size_t>(maxOptinShared()) - 1024;
  if (shared && bytes > 48 * 1024) {
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(countMatchesKernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
  }
  const unsigned blocks = static_cast<unsigned>(b.epochs) * static_cast<unsigned>(b.countU);
  countMatchesKernel<<<blocks, kThreads, shared ? bytes : 0, stream>>>(b, shared);
  MODESCOPE_CUDA_CHECK_LAUNCH("countMatchesKernel", stream);
}

}  // namespace modescope::cuda
