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

__global__ void toFloatKernel(const double* in, long long count, float* out) {
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    out[k] = static_cast<float>(in[k]);
}

__global__ void segmentOffsetsKernel(int segments, int t, int* offsets) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s <= segments) offsets[s] = s * t;
}

__global__ void packSortedKernel(const float* keys, const int* index, const float* series, int n,
                                 int t, int m, long long total, SortedTemplate* sorted) {
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long seg = k / t;
    const int j = index[k];
    const float last = j < t - 1 ? series[seg * n + j + m] : __int_as_float(0x7fc00000);
    sorted[k] = SortedTemplate{keys[k], last, j, 0};
  }
}

// |a - b| <= r as the CPU decides it in double (ea, eb: the double values a, b were rounded
// from): float first, double only within the float distance's rounding error of r.
__device__ bool withinR(float a, float b, float r, const double* ea, const double* eb, double rd) {
  const float d = fabsf(a - b);
  const float band = 1e-6f * (1.0f + fabsf(a) + fabsf(b));
  if (d < r - band) return true;
  if (d > r + band) return false;
  return fabs(*ea - *eb) <= rd;
}

// Float acceptance windows around a template value a for |a - b| <= r: b in [sureLo, sureHi]
// matches whatever the rounding, b outside [edgeLo, edgeHi] cannot; between, the double values
// decide (withinR). The band bounds the rounding of |a - b| for |b| <= |a| + r + slack.
struct Window {
  float sureLo, sureHi, edgeLo, edgeHi;
  __device__ Window(float a, float r, bool empty) {
    const float band = 1e-6f * (1.0f + 2.0f * fabsf(a) + r);
    sureLo = a - r + band;
    sureHi = a + r - band;
    edgeLo = a - r - band;
    edgeHi = a + r + band;
    if (empty) sureLo = edgeLo = __int_as_float(0x7f800000);  // +inf: nothing is inside
  }
  __device__ bool sure(float b) const { return b >= sureLo && b <= sureHi; }
  __device__ bool edge(float b) const { return b >= edgeLo && b <= edgeHi; }
};

// First position in s[0..t) whose key is > value.
__device__ int upperBound(const SortedTemplate* s, int t, float value) {
  int lo = 0, hi = t;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (s[mid].key <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

// What a block accumulates per target channel, summed warp by warp.
struct Partial {
  double sumLogM, sumLogM1;
  long long matchesM, matchesM1;
  int noM, noBoth, noM1Only;
};

// N_i^m over the measure's ranges: all j < T (cm), j < T - 1 (cmShort), and N_i^{m+1} (cm1).
struct TemplateCounts {
  int cm = 0, cmShort = 0, cm1 = 0;
};

// m = 1: the first-value test alone decides an m-match, and the candidates that pass it are the
// contiguous run of the sorted list inside the lane's window. So N_i^m is the run's length
// (plus the rare candidates in the rounding band at its ends, decided in double one by one), and
// the warp scans the union of its lanes' runs only for the (m+1)-th value, which each candidate
// carries (SortedTemplate::last; NaN for template T - 1, which then never matches).
__device__ TemplateCounts countSingle(const SortedTemplate* ys, int t, const Window& first,
                                      const Window& longer, bool active, double xe, double xeLast,
                                      const double* yExact, double rd) {
  TemplateCounts out;
  int sLo = t, sHi = t, eLo = t, eHi = t;
  if (active) {
    sLo = lowerBound(ys, t, first.sureLo);
    sHi = max(sLo, upperBound(ys, t, first.sureHi));
    eLo = lowerBound(ys, t, first.edgeLo);
    eHi = upperBound(ys, t, first.edgeHi);
  }
  // One candidate of the rounding band: decided in double, all three counts at once.
  auto edgeCandidate = [&](int k) {
    const SortedTemplate c = ys[k];
    if (!(fabs(xe - yExact[c.index]) <= rd)) return;
    ++out.cm;
    if (c.index >= t - 1) return;
    ++out.cmShort;
    bool l = longer.sure(c.last);
    if (!l && longer.edge(c.last)) l = fabs(xeLast - yExact[c.index + 1]) <= rd;
    out.cm1 += l;
  };
  for (int k = eLo; k < sLo; ++k) edgeCandidate(k);
  for (int k = sHi; k < eHi; ++k) edgeCandidate(k);
  // The sure run: every candidate is an m-match; the warp scans the union of the runs.
  const int warpLo = __reduce_min_sync(kAll, sLo), warpHi = __reduce_max_sync(kAll, sHi);
  int lastIn = 0, cm1 = 0;
#pragma unroll 4
  for (int k = warpLo; k < warpHi; ++k) {
    const SortedTemplate c = ys[k];  // the same k in every lane: a broadcast
    const bool in = k >= sLo && k < sHi;
    bool l = in && longer.sure(c.last);
    if (in && !l && longer.edge(c.last)) l = fabs(xeLast - yExact[c.index + 1]) <= rd;
    cm1 += l;
    lastIn += in && c.index == t - 1;
  }
  out.cm += sHi - sLo;
  out.cmShort += sHi - sLo - lastIn;
  out.cm1 += cm1;
  return out;
}

// One block per (epoch, template channel u). Templates are taken in the order of their first
// value (u's own sorted list), 32 per warp, so the 32 lanes' candidate windows nearly coincide:
// the warp scans the union window of its group once, every lane reading the same candidate
// (a shared-memory broadcast, no divergence) and testing it against its own template.
template <bool kSingle>
__global__ void __launch_bounds__(kThreads) countMatchesKernel(EntropyCountBatch b, bool shared) {
  extern __shared__ unsigned char smem[];
  __shared__ Partial warpPartial[kThreads / 32];

  const int e = blockIdx.x / b.countU;
  const int u = b.firstU + static_cast<int>(blockIdx.x % b.countU);
  const int n = b.n, m = b.m, t = n - m + 1;
  const float r = b.r;
  const double rd = b.rExact;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const std::size_t stride = static_cast<std::size_t>(n);
  const std::size_t segU = static_cast<std::size_t>(e) * b.channels + u;

  // Shared layout: x[n], y[n] (float), then xs[t], ys[t] (SortedTemplate).
  float* xShared = reinterpret_cast<float*>(smem);
  float* yShared = xShared + n;
  SortedTemplate* xsShared = reinterpret_cast<SortedTemplate*>(
      smem + ((2 * stride * sizeof(float) + 7) / 8) * 8);
  SortedTemplate* ysShared = xsShared + t;

  const float* x = b.series + segU * stride;
  const double* xExact = b.exact + segU * stride;
  const SortedTemplate* xs = b.sorted + segU * static_cast<std::size_t>(t);
  if (shared) {
    for (int k = threadIdx.x; k < n; k += blockDim.x) xShared[k] = x[k];
    for (int k = threadIdx.x; k < t; k += blockDim.x) xsShared[k] = xs[k];
    x = xShared;
    xs = xsShared;
  }
  const int groups = (t + 31) / 32;

  for (int v = 0; v < b.channels; ++v) {
    const std::size_t segV = static_cast<std::size_t>(e) * b.channels + v;
    const float* y = b.series + segV * stride;
    const double* yExact = b.exact + segV * stride;
    const SortedTemplate* ys = b.sorted + segV * static_cast<std::size_t>(t);
    if (shared) {
      __syncthreads();  // the previous target's data and partials are no longer read
      for (int k = threadIdx.x; k < n; k += blockDim.x) yShared[k] = y[k];
      for (int k = threadIdx.x; k < t; k += blockDim.x) ysShared[k] = ys[k];
      __syncthreads();
      y = yShared;
      ys = ysShared;
    }
    Partial p{0.0, 0.0, 0, 0, 0, 0, 0};
    for (int g = warp; g < groups; g += warps) {
      const int slot = g * 32 + lane;
      const bool active = slot < t;
      const SortedTemplate mine = xs[active ? slot : t - 1];
      const int i = mine.index;
      const float xi = mine.key;
      const bool hasLonger = active && i < t - 1;
      const float xLast = hasLonger ? x[i + m] : 0.0f;
      const Window first(xi, r, !active), longer(xLast, r, !hasLonger);
      // The group's union window: its smallest and largest first values -+ r (a little wider).
      TemplateCounts n3;
      if constexpr (kSingle) {
        n3 = countSingle(ys, t, first, longer, active, xExact[i], hasLonger ? xExact[i + 1] : 0.0, yExact, rd);
      } else {
        const float lowest = xs[g * 32].key;
        const float highest = xs[min(g * 32 + 31, t - 1)].key;
        const int kBegin = lowerBound(ys, t, lowest - r - kWindowSlack);
        const int kEnd = upperBound(ys, t, highest + r + kWindowSlack);
        for (int k = kBegin; k < kEnd; ++k) {
          const SortedTemplate c = ys[k];  // the same k in every lane: a broadcast
          bool match = first.sure(c.key);
          if (!match && first.edge(c.key)) match = fabs(xExact[i] - yExact[c.index]) <= rd;
          for (int q = 1; q < m && match; ++q)
            match = withinR(x[i + q], y[c.index + q], r, xExact + i + q, yExact + c.index + q, rd);
          if (!match) continue;
          ++n3.cm;
          if (c.index < t - 1) {
            ++n3.cmShort;
            bool longerMatch = longer.sure(c.last);
            if (!longerMatch && longer.edge(c.last))
              longerMatch = fabs(xExact[i + m] - yExact[c.index + m]) <= rd;
            n3.cm1 += longerMatch;
          }
        }
      }
      const int cm = n3.cm, cmShort = n3.cmShort, cm1 = n3.cm1;
      if (!active) continue;
      if (b.sampleEntropy) {
        if (hasLonger) {
          p.matchesM += cmShort;
          p.matchesM1 += cm1;
        }
      } else {
        p.matchesM += cm;
        if (cm > 0) p.sumLogM += log(static_cast<double>(cm));
        else ++p.noM;
        if (hasLonger) {
          p.matchesM1 += cm1;
          if (cm1 > 0) p.sumLogM1 += log(static_cast<double>(cm1));
          if (cm == 0) ++p.noBoth;
          else if (cm1 == 0) ++p.noM1Only;
        }
      }
    }
    p.sumLogM = warpSum(p.sumLogM);
    p.sumLogM1 = warpSum(p.sumLogM1);
    p.matchesM = warpSum(p.matchesM);
    p.matchesM1 = warpSum(p.matchesM1);
    p.noM = warpSum(p.noM);
    p.noBoth = warpSum(p.noBoth);
    p.noM1Only = warpSum(p.noM1Only);
    if (lane == 0) warpPartial[warp] = p;
    __syncthreads();
    if (threadIdx.x == 0) {
      DevicePairCounts c{0.0, 0.0, 0, 0, 0, 0, 0, 0};
      for (int w = 0; w < warps; ++w) {
        c.sumLogM += warpPartial[w].sumLogM;
        c.sumLogM1 += warpPartial[w].sumLogM1;
        c.noMatchM += warpPartial[w].noM;
        c.noMatchBoth += warpPartial[w].noBoth;
        c.noMatchM1Only += warpPartial[w].noM1Only;
        c.matchesM += warpPartial[w].matchesM;
        c.matchesM1 += warpPartial[w].matchesM1;
      }
      b.counts[segU * b.channels + v] = c;
    }
    if (!shared) __syncthreads();  // warpPartial is rewritten by the next target
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
         2 * static_cast<std::size_t>(n) * sizeof(SortedTemplate);
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
  packSortedKernel<<<blocks, 256, 0, stream>>>(keysOut, indexOut, series, n, t, m, items, sorted);
  MODESCOPE_CUDA_CHECK_LAUNCH("packSortedKernel", stream);
}

void launchToFloat(const double* in, std::size_t count, float* out, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = static_cast<int>(std::min<std::size_t>((count + 255) / 256, 8192));
  toFloatKernel<<<blocks, 256, 0, stream>>>(in, static_cast<long long>(count), out);
  MODESCOPE_CUDA_CHECK_LAUNCH("toFloatKernel", stream);
}

void launchCountMatches(const EntropyCountBatch& b, cudaStream_t stream) {
  if (b.countU == 0 || b.epochs == 0) return;
  const std::size_t bytes = entropySharedBytes(b.n);
  const bool shared = bytes <= static_cast<std::size_t>(maxOptinShared()) - 1024;
  auto kernel = b.m == 1 ? countMatchesKernel<true> : countMatchesKernel<false>;
  if (shared && bytes > 48 * 1024) {
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
  }
  const unsigned blocks = static_cast<unsigned>(b.epochs) * static_cast<unsigned>(b.countU);
  kernel<<<blocks, kThreads, shared ? bytes : 0, stream>>>(b, shared);
  MODESCOPE_CUDA_CHECK_LAUNCH("countMatchesKernel", stream);
}

}  // namespace modescope::cuda
