// Match counting of the entropy matrices on the device (entropy_kernels.cuh describes the method
// and the layout; engine/entropy/entropy_cpu.h the procedure).
#include <algorithm>
#include <cub/device/device_segmented_sort.cuh>
#include <stdexcept>

#include "cuda/cuda_check.cuh"
#include "cuda/entropy_kernels.cuh"

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
// The same window as distances from a: |b - a| <= sureR matches whatever the rounding, > edgeR
// cannot (the float subtraction's own rounding is far inside the band).
struct Window {
  float sureLo, sureHi, edgeLo, edgeHi;
  float center, sureR, edgeR;
  __device__ Window(float a, float r, bool empty) {
    const float band = 1e-6f * (1.0f + 2.0f * fabsf(a) + r);
    sureLo = a - r + band;
    sureHi = a + r - band;
    edgeLo = a - r - band;
    edgeHi = a + r + band;
    center = a;
    sureR = r - band;
    edgeR = r + band;
    if (empty) {
      sureLo = edgeLo = __int_as_float(0x7f800000);  // +inf: nothing is inside
      sureR = edgeR = -1.0f;
    }
  }
  __device__ bool sure(float b) const { return b >= sureLo && b <= sureHi; }
  __device__ bool edge(float b) const { return b >= edgeLo && b <= edgeHi; }
  __device__ float distance(float b) const { return fabsf(b - center); }
};

// First position in s[0..t) whose key is > value.
__device__ int upperBound(const SortedTemplate* s, int t, float value) {
  int lo = 0, hi = t;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (s[mid].key <= value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// First position in s[0..t) whose key is >= value.
__device__ int lowerBound(const SortedTemplate* s, int t, float value) {
  int lo = 0, hi = t;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (s[mid].key < value)
      lo = mid + 1;
    else
      hi = mid;
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

// Adds one template's counts to a partial by the measure's rules (addTemplateCounts on the host).
__device__ void addTemplate(Partial& p, const TemplateCounts& n3, bool sampleEntropy,
                            bool hasLonger) {
  if (sampleEntropy) {
    if (hasLonger) {
      p.matchesM += n3.cmShort;
      p.matchesM1 += n3.cm1;
    }
    return;
  }
  p.matchesM += n3.cm;
  if (n3.cm > 0)
    p.sumLogM += log(static_cast<double>(n3.cm));
  else
    ++p.noM;
  if (!hasLonger) return;
  p.matchesM1 += n3.cm1;
  if (n3.cm1 > 0) p.sumLogM1 += log(static_cast<double>(n3.cm1));
  if (n3.cm == 0)
    ++p.noBoth;
  else if (n3.cm1 == 0)
    ++p.noM1Only;
}

// The block's sum of every thread's partial, as the pair's counts (valid in thread 0). Starts and
// ends with a barrier, so warpPartial may be reused right after.
__device__ DevicePairCounts blockCounts(Partial p, Partial* warpPartial) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  p.sumLogM = warpSum(p.sumLogM);
  p.sumLogM1 = warpSum(p.sumLogM1);
  p.matchesM = warpSum(p.matchesM);
  p.matchesM1 = warpSum(p.matchesM1);
  p.noM = warpSum(p.noM);
  p.noBoth = warpSum(p.noBoth);
  p.noM1Only = warpSum(p.noM1Only);
  __syncthreads();
  if (lane == 0) warpPartial[warp] = p;
  __syncthreads();
  DevicePairCounts c{0.0, 0.0, 0, 0, 0, 0, 0, 0};
  if (threadIdx.x == 0) {
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
      c.sumLogM += warpPartial[w].sumLogM;
      c.sumLogM1 += warpPartial[w].sumLogM1;
      c.noMatchM += warpPartial[w].noM;
      c.noMatchBoth += warpPartial[w].noBoth;
      c.noMatchM1Only += warpPartial[w].noM1Only;
      c.matchesM += warpPartial[w].matchesM;
      c.matchesM1 += warpPartial[w].matchesM1;
    }
  }
  __syncthreads();
  return c;
}

// The runs of a sorted list s[0..t) inside a window: [sLo, sHi) surely inside, [eLo, sLo) and
// [sHi, eHi) in the rounding band (decided one by one in double).
struct Runs {
  int sLo, sHi, eLo, eHi;
  __device__ Runs(const SortedTemplate* s, int t, const Window& w, bool active) {
    sLo = sHi = eLo = eHi = t;
    if (!active) return;
    sLo = lowerBound(s, t, w.sureLo);
    sHi = max(sLo, upperBound(s, t, w.sureHi));
    // The rounding bands hold a candidate about once in ten million: walk to their ends.
    eLo = sLo;
    while (eLo > 0 && s[eLo - 1].key >= w.edgeLo) --eLo;
    eHi = sHi;
    while (eHi < t && s[eHi].key <= w.edgeHi) ++eHi;
  }
};

// m = 1: the first-value test alone decides an m-match, and the candidates that pass it are the
// contiguous run of the sorted list inside the lane's window. So N_i^m is the run's length
// (plus the rare candidates in the rounding band at its ends, decided in double one by one), and
// the warp scans the union of its lanes' runs only for the (m+1)-th value, which each candidate
// carries (SortedTemplate::last; NaN for template T - 1, which then never matches). When `cols`
// is not null, every (m+1)-match (i, j) also counts for target template j in cols->m1, indexed
// by j's position in the target's sorted list: the (m+1)-match matrix of (u||v) is the
// transpose of (v||u)'s.
struct ColumnCounts {
  int* m1;
};

// Adds the votes of a warp (`hits`, one bit per lane) to the shared counter at `address` (a
// shared-memory address), from the leader lane only: a predicated reduction, with neither a
// branch nor a generic-address atomic in the hot loop.
__device__ __forceinline__ void addVotes(unsigned address, unsigned hits, bool leader) {
  const unsigned count = leader ? static_cast<unsigned>(__popc(hits)) : 0u;
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p red.shared.add.u32 [%0], %1;\n\t}" ::"r"(
          address),
      "r"(count));
}

// The candidates of the run [lo, hi) whose (m+1)-th value lies in the rounding band of the
// window (neither surely within r nor surely beyond): the double values decide, as on the CPU.
// Returns the (m+1)-matches among them and adds each to its column. Rarely called; noinline so
// that it stays a branch rather than predicated code in the hot loop.
template <bool kColumns>
__device__ __noinline__ int bandMatches(const SortedTemplate* ys, int lo, int hi,
                                        const Window& longer, double xeLast, const double* yExact,
                                        double rd, const ColumnCounts* cols) {
  int matches = 0;
  for (int k = lo; k < hi; ++k) {
    const SortedTemplate c = ys[k];
    const float d = longer.distance(c.last);
    if (!(d > longer.sureR && d <= longer.edgeR)) continue;
    if (!(fabs(xeLast - yExact[c.index + 1]) <= rd)) continue;
    ++matches;
    if constexpr (kColumns) atomicAdd(cols->m1 + k, 1);
  }
  return matches;
}

template <bool kColumns>
__device__ TemplateCounts countSingle(const SortedTemplate* ys, int t, const Window& first,
                                      const Window& longer, bool active, double xe, double xeLast,
                                      float yLastKey, const double* yExact, double rd,
                                      const ColumnCounts* cols, const float* lastOf) {
  TemplateCounts out;
  const Runs runs(ys, t, first, active);
  auto longerMatch = [&](const SortedTemplate& c) {
    bool l = longer.sure(c.last);
    if (!l && longer.edge(c.last)) l = fabs(xeLast - yExact[c.index + 1]) <= rd;
    return l;
  };
  // One candidate of the rounding band: decided in double, all three counts at once.
  auto edgeCandidate = [&](int k) {
    const SortedTemplate c = ys[k];
    if (!(fabs(xe - yExact[c.index]) <= rd)) return;
    ++out.cm;
    if (c.index >= t - 1) return;
    ++out.cmShort;
    if (longerMatch(c)) {
      ++out.cm1;
      if constexpr (kColumns) atomicAdd(cols->m1 + k, 1);
    }
  };
  for (int k = runs.eLo; k < runs.sLo; ++k) edgeCandidate(k);
  for (int k = runs.sHi; k < runs.eHi; ++k) edgeCandidate(k);
  // The sure run: every candidate is an m-match; the warp scans the union of the runs for the
  // (m+1)-th value. The loop body is the kernel's hot spot, kept free of the double-precision
  // path: a range test, one distance, two compares (surely within r; within r or in the rounding
  // band). When a lane saw a candidate in the band (about once in ten million candidates, so
  // about once in ten thousand scans), bandMatches rescans its run and lets the double values
  // decide those. A test that the compiler would turn into predicated instructions costs every
  // candidate their issue slots, the rare path included: that path is a separate loop instead.
  // The column count of a candidate is the warp's vote on it, added by one lane: one shared
  // atomic per candidate and warp, not one per matching lane all on the same address.
  const int warpLo = __reduce_min_sync(kAll, runs.sLo), warpHi = __reduce_max_sync(kAll, runs.sHi);
  const float sureR = longer.sureR, edgeR = longer.edgeR;
  int cm1 = 0;
  bool bandSeen = false;
  const bool leader = (threadIdx.x & 31) == 0;
  const unsigned columnBase =
      kColumns ? static_cast<unsigned>(__cvta_generic_to_shared(cols->m1)) : 0u;
  auto candidate = [&](int k, float last) {
    const bool in = k >= runs.sLo && k < runs.sHi;
    const float d = longer.distance(last);  // NaN for template T - 1: never within
    const bool sure = in && d <= sureR;
    cm1 += sure;
    bandSeen |= in && d > sureR && d <= edgeR;
    if constexpr (kColumns)
      addVotes(columnBase + 4u * static_cast<unsigned>(k), __ballot_sync(kAll, sure), leader);
  };
  if (lastOf != nullptr) {
    // The (m+1)-th values alone, four per broadcast load (the array is padded with NaN to a
    // multiple of 4; positions outside every lane's run fail the range test).
    for (int k = warpLo & ~3; k < warpHi; k += 4) {
      const float4 q = *reinterpret_cast<const float4*>(lastOf + k);
      candidate(k, q.x);
      candidate(k + 1, q.y);
      candidate(k + 2, q.z);
      candidate(k + 3, q.w);
    }
  } else {
#pragma unroll 4
    for (int k = warpLo; k < warpHi; ++k) candidate(k, ys[k].last);  // a broadcast
  }
  if (bandSeen)
    cm1 += bandMatches<kColumns>(ys, runs.sLo, runs.sHi, longer, xeLast, yExact, rd, cols);
  // Template T - 1 (no (m+1)-th value) is in the run exactly when its first value is in the
  // sure window: the run holds the sorted keys in [sureLo, sureHi].
  const int lastIn = first.sure(yLastKey) ? 1 : 0;
  out.cm += runs.sHi - runs.sLo;
  out.cmShort += runs.sHi - runs.sLo - lastIn;
  out.cm1 += cm1;
  return out;
}

// Any m, one direction: the warp scans the union window of its group and tests every coordinate.
__device__ TemplateCounts countGeneral(const SortedTemplate* xs, const SortedTemplate* ys,
                                       const float* x, const float* y, const double* xExact,
                                       const double* yExact, int t, int m, float r, double rd,
                                       int g, int i, const Window& first, const Window& longer) {
  TemplateCounts out;
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
    ++out.cm;
    if (c.index < t - 1) {
      ++out.cmShort;
      bool l = longer.sure(c.last);
      if (!l && longer.edge(c.last)) l = fabs(xExact[i + m] - yExact[c.index + m]) <= rd;
      out.cm1 += l;
    }
  }
  return out;
}

// The series of one (epoch, channel) for the kernel: samples, double samples, sorted templates.
struct SeriesView {
  const float* x;
  const double* exact;
  const SortedTemplate* sorted;
  const float* last = nullptr;  // sorted templates' (m+1)-th values, padded (shared memory only)
};

__device__ SeriesView seriesView(const EntropyCountBatch& b, int e, int c) {
  const std::size_t seg = static_cast<std::size_t>(e) * b.channels + c;
  const int t = b.n - b.m + 1;
  return {b.series + seg * b.n, b.exact + seg * b.n, b.sorted + seg * static_cast<std::size_t>(t),
          nullptr};
}

// Copies a series' samples and sorted templates to shared memory (callers put barriers around).
__device__ SeriesView toShared(const SeriesView& g, int n, int t, float* xs, SortedTemplate* ss) {
  for (int k = threadIdx.x; k < n; k += blockDim.x) xs[k] = g.x[k];
  for (int k = threadIdx.x; k < t; k += blockDim.x) ss[k] = g.sorted[k];
  return {xs, g.exact, ss, nullptr};
}

// One direction of one pair, (v||u): templates of u (sorted, 32 per warp so the lanes' windows
// nearly coincide and the warp scans their union once with broadcast reads) against v.
template <bool kSingle>
__device__ Partial countDirection(const EntropyCountBatch& b, const SeriesView& u,
                                  const SeriesView& v, const ColumnCounts* cols) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int t = b.n - b.m + 1, m = b.m;
  Partial p{0.0, 0.0, 0, 0, 0, 0, 0};
  for (int g = warp; g < (t + 31) / 32; g += warps) {
    const int slot = g * 32 + lane;
    const bool active = slot < t;
    const SortedTemplate mine = u.sorted[active ? slot : t - 1];
    const int i = mine.index;
    const bool hasLonger = active && i < t - 1;
    const Window first(mine.key, b.r, !active),
        longer(hasLonger ? u.x[i + m] : 0.0f, b.r, !hasLonger);
    TemplateCounts n3;
    if constexpr (kSingle) {
      const double xe = u.exact[i], xeLast = hasLonger ? u.exact[i + 1] : 0.0;
      n3 = cols ? countSingle<true>(v.sorted, t, first, longer, active, xe, xeLast, v.x[t - 1],
                                    v.exact, b.rExact, cols, v.last)
                : countSingle<false>(v.sorted, t, first, longer, active, xe, xeLast, v.x[t - 1],
                                     v.exact, b.rExact, cols, v.last);
    } else {
      n3 = countGeneral(u.sorted, v.sorted, u.x, v.x, u.exact, v.exact, t, m, b.r, b.rExact, g, i,
                        first, longer);
    }
    if (active) addTemplate(p, n3, b.sampleEntropy, hasLonger);
  }
  return p;
}

// The transposed direction (u||v) of a pair whose (v||u) scan filled `cols` (m = 1, ApEn):
// template j of v (at position k of v's sorted list) m-matches the templates of u in the run of
// u's sorted list inside its window (two binary searches), and its (m+1)-matches are cols.m1[k].
// Resets the column for the next pair.
__device__ Partial countTransposed(const EntropyCountBatch& b, const SeriesView& u,
                                   const SeriesView& v, const ColumnCounts& cols) {
  const int t = b.n - b.m + 1;
  Partial p{0.0, 0.0, 0, 0, 0, 0, 0};
  for (int k0 = threadIdx.x; k0 < t; k0 += blockDim.x) {
    const SortedTemplate mine = v.sorted[k0];
    const int j = mine.index;
    const double ye = v.exact[j];
    const Runs runs(u.sorted, t, Window(mine.key, b.r, false), true);
    TemplateCounts n3;
    n3.cm = runs.sHi - runs.sLo;
    for (int k = runs.eLo; k < runs.sLo; ++k)
      n3.cm += fabs(ye - u.exact[u.sorted[k].index]) <= b.rExact;
    for (int k = runs.sHi; k < runs.eHi; ++k)
      n3.cm += fabs(ye - u.exact[u.sorted[k].index]) <= b.rExact;
    n3.cm1 = cols.m1[k0];
    cols.m1[k0] = 0;
    addTemplate(p, n3, false, j < t - 1);
  }
  return p;
}

// Symmetric mode (m = 1, epochs in shared memory): block (epoch e, row k) takes template channels
// k and C - 1 - k (the same work for every block), and for each u the targets v >= u; one scan
// of (v||u) also gives (u||v) (countTransposed), so every unordered pair is scanned once.
// General mode: block (e, u) scans (v||u) for every v. Both write every ordered entry.
template <bool kSingle>
__global__ void __launch_bounds__(kThreads)
    countMatchesKernel(EntropyCountBatch b, bool shared, bool symmetric) {
  extern __shared__ unsigned char smem[];
  __shared__ Partial warpPartial[kThreads / 32];
  const int e = blockIdx.x / b.countU;
  const int row = b.firstU + static_cast<int>(blockIdx.x % b.countU);
  const int n = b.n, t = n - b.m + 1, channels = b.channels;

  float* xShared = reinterpret_cast<float*>(smem);
  float* yShared = xShared + n;
  SortedTemplate* xsShared = reinterpret_cast<SortedTemplate*>(
      smem + ((2 * static_cast<std::size_t>(n) * sizeof(float) + 15) / 16) * 16);
  SortedTemplate* ysShared = xsShared + t;
  const ColumnCounts columns{reinterpret_cast<int*>(ysShared + t)};
  const int tPadded = (t + 3) & ~3;
  float* lastShared = reinterpret_cast<float*>(columns.m1 + tPadded);

  const int uCount = symmetric ? (row == channels - 1 - row ? 1 : 2) : 1;
  for (int a = 0; a < uCount; ++a) {
    const int u = symmetric ? (a == 0 ? row : channels - 1 - row) : row;
    SeriesView su = seriesView(b, e, u);
    if (shared) {
      __syncthreads();
      su = toShared(su, n, t, xShared, xsShared);
      if (symmetric)
        for (int k = threadIdx.x; k < t; k += blockDim.x) columns.m1[k] = 0;
    }
    for (int v = symmetric ? u : 0; v < channels; ++v) {
      SeriesView sv = seriesView(b, e, v);
      if (shared) {
        __syncthreads();  // the previous target's data are no longer read
        sv = toShared(sv, n, t, yShared, ysShared);
        if (kSingle) {
          for (int k = threadIdx.x; k < tPadded; k += blockDim.x)
            lastShared[k] = k < t ? sv.sorted[k].last : __int_as_float(0x7fc00000);
          sv.last = lastShared;
        }
        __syncthreads();
      }
      const ColumnCounts* cols = symmetric && v != u && !b.sampleEntropy ? &columns : nullptr;
      const DevicePairCounts forward =
          blockCounts(countDirection<kSingle>(b, su, sv, cols), warpPartial);
      const std::size_t at = (static_cast<std::size_t>(e) * channels + u) * channels + v;
      const std::size_t back = (static_cast<std::size_t>(e) * channels + v) * channels + u;
      if (threadIdx.x == 0) b.counts[at] = forward;
      if (!symmetric || v == u) continue;
      if (b.sampleEntropy) {  // A and B count unordered pairs: the same both ways
        if (threadIdx.x == 0) b.counts[back] = forward;
        continue;
      }
      const DevicePairCounts backward =
          blockCounts(countTransposed(b, su, sv, columns), warpPartial);
      if (threadIdx.x == 0) b.counts[back] = backward;
    }
  }
}

int maxOptinShared() {
  int device = 0, bytes = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
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
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), static_cast<int>(items),
      segments, static_cast<const int*>(nullptr), static_cast<const int*>(nullptr) + 1));
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
  return ((2 * static_cast<std::size_t>(n) * sizeof(float) + 15) / 16) * 16 +
         2 * static_cast<std::size_t>(n) * sizeof(SortedTemplate) +
         static_cast<std::size_t>((n + 3) & ~3) * (sizeof(int) + sizeof(float));
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
  MODESCOPE_CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(base + l.temp, temp, keysIn, keysOut,
                                                         indexIn, indexOut, static_cast<int>(items),
                                                         segments, offsets, offsets + 1, stream));
  packSortedKernel<<<blocks, 256, 0, stream>>>(keysOut, indexOut, series, n, t, m, items, sorted);
  MODESCOPE_CUDA_CHECK_LAUNCH("packSortedKernel", stream);
}

void launchToFloat(const double* in, std::size_t count, float* out, cudaStream_t stream) {
  if (count == 0) return;
  const int blocks = static_cast<int>(std::min<std::size_t>((count + 255) / 256, 8192));
  toFloatKernel<<<blocks, 256, 0, stream>>>(in, static_cast<long long>(count), out);
  MODESCOPE_CUDA_CHECK_LAUNCH("toFloatKernel", stream);
}

bool entropySymmetric(int n, int m) {
  return m == 1 && entropySharedBytes(n) <= static_cast<std::size_t>(maxOptinShared()) - 1024;
}

void launchCountMatches(const EntropyCountBatch& b, cudaStream_t stream) {
  if (b.countU == 0 || b.epochs == 0) return;
  const std::size_t bytes = entropySharedBytes(b.n);
  const bool shared = bytes <= static_cast<std::size_t>(maxOptinShared()) - 1024;
  const bool symmetric = entropySymmetric(b.n, b.m);
  auto kernel = b.m == 1 ? countMatchesKernel<true> : countMatchesKernel<false>;
  // Always opted in: the kernel's static shared memory counts against the default 48 kB too.
  if (shared) {
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
  }
  const unsigned blocks = static_cast<unsigned>(b.epochs) * static_cast<unsigned>(b.countU);
  kernel<<<blocks, kThreads, shared ? bytes : 0, stream>>>(b, shared, symmetric);
  MODESCOPE_CUDA_CHECK_LAUNCH("countMatchesKernel", stream);
}

}  // namespace modescope::cuda
