// Batched sifting kernels and their driver (emd_sifter.cuh explains the design).
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda/device_ops.cuh"
#include "cuda/emd_sifter.cuh"
#include "engine/emd/sift_primitives.h"

namespace modescope::cuda {
namespace {

using sift::kMaximum;
using sift::kMinimum;
using sift::kMirrored;

// Per-signal counters gathered during one iteration (reset by decideStop).
enum Counter : int { kMaxima, kMinima, kZeros, kAbove1, kAbove2, kEnvFailed, kCounters };

constexpr int kSampleThreads = 256;
// Samples per block of the per-sample kernels: several 256-sample tiles, so a batch of thousands
// of signals does not launch millions of tiny blocks (their reductions and scheduling, not the
// memory traffic, set the time then).
constexpr int kTilesPerBlock = 8;
constexpr int kBlockSamples = kSampleThreads * kTilesPerBlock;

template <class R>
struct SiftView {
  std::int64_t n;
  int count;
  int knotCap;
  R* cand0;
  R* cand1;
  std::uint8_t* flags;
  std::int32_t* knotPos;
  R* knotVal;
  R* knotSlope;
  R* knotWork;                      // Thomas scratch
  PieceCoefficients<R>* knotPiece;  // each piece's four coefficients, one load in the evaluation
  int* knotStart;
  int* knotCount;
  int* counters;
  unsigned long long* maxAbsBits;
  int* status;
  int* nbit;
  int* sCount;
  int* parity;
  R** imfTable;
  int* active;
  // Per signal and envelope: the number of extrema before sample 256 b, for every sample block b
  // (and the total at b = sampleBlocks), written by the scan, so the evaluation finds its knots
  // without searching.
  int* blockCounts;
  int sampleBlocks;
  __device__ int* countsOf(int s, int e) const {
    return blockCounts + (static_cast<std::size_t>(s) * 2 + e) * (sampleBlocks + 1);
  }
  __device__ R* candidate(int s) const {
    return (parity[s] ? cand1 : cand0) + static_cast<std::size_t>(s) * n;
  }
  __device__ R* other(int s) const {
    return (parity[s] ? cand0 : cand1) + static_cast<std::size_t>(s) * n;
  }
  __device__ std::size_t knotBase(int s, int e) const {
    return (static_cast<std::size_t>(s) * 2 + e) * knotCap;
  }
};

struct RuleView {
  int kind;  // sift::StopKind
  double threshold1, threshold2, tolerance;
  int sNumber;
  int cap;  // sifting iterations at most
};

__device__ inline unsigned long long absBits(float v) { return __float_as_uint(fabsf(v)); }
__device__ inline unsigned long long absBits(double v) {
  return static_cast<unsigned long long>(__double_as_longlong(fabs(v)));
}
__device__ inline double fromBits(unsigned long long b, float) {
  return __uint_as_float(static_cast<unsigned>(b));
}
__device__ inline double fromBits(unsigned long long b, double) {
  return __longlong_as_double(static_cast<long long>(b));
}

template <class R>
__global__ void flagExtremaKernel(SiftView<R> v, bool firstIteration, bool countZeros) {
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  using ReduceBits = cub::BlockReduce<unsigned long long, kSampleThreads>;
  __shared__ union {
    typename Reduce::TempStorage sum;
    typename ReduceBits::TempStorage max;
  } tmp;
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    if (v.status[s] != kSifting) continue;  // uniform over the block
    const R* x = v.candidate(s);
    int zeros = 0;
    unsigned long long bits = 0;
    const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * kBlockSamples;
    std::uint8_t* flags = v.flags + static_cast<std::size_t>(s) * v.n;
    for (std::int64_t i = begin + threadIdx.x; i < min(v.n, begin + kBlockSamples);
         i += kSampleThreads) {
      // Interior samples differing from both neighbours (almost all of them) are a run of one:
      // classifyRun's answer in two comparisons; plateaus take the general path from their start.
      if (i > 0 && i + 1 < v.n && x[i - 1] != x[i] && x[i] != x[i + 1]) {
        const R left = x[i] - x[i - 1], right = x[i + 1] - x[i];
        flags[i] = (left > 0 && right < 0)   ? sift::kMaximum
                   : (left < 0 && right > 0) ? sift::kMinimum
                                             : sift::kNotExtremum;
      } else if (sift::startsRun(x, i)) {
        sift::classifyRun(x, v.n, i, flags);
      }
      if (countZeros) zeros += sift::zeroCrossingsAt(x, v.n, i);
      bits = max(bits, absBits(x[i]));
    }
    const int zsum = Reduce(tmp.sum).Sum(zeros);
    __syncthreads();
    if (threadIdx.x == 0 && zsum) atomicAdd(&v.counters[s * kCounters + kZeros], zsum);
    if (firstIteration) {
      const unsigned long long m = ReduceBits(tmp.max).Reduce(bits, MaxOp());
      if (threadIdx.x == 0) atomicMax(&v.maxAbsBits[s], m);
    }
    __syncthreads();
  }
}

// Knot compaction runs over the whole batch in four launches. (One block per signal, scanning its
// flags tile after tile, took 27 % of an iteration at 13 % of the memory bandwidth on an H200:
// ncu, 500 signals x 102,401 samples.)
//   countKnots    per 256-sample block: how many maxima and minima its flags hold
//   scanCounts    one warp per signal and envelope: those counts -> extrema before each block
//   scatterKnots  per sample: its knot's index = extrema before its block + extrema before it
//                 in the block (warp ballots); position and value written there
//   finishKnots   one thread per signal: the totals and emd.m's mirrored end knots
// The flags must be complete before any count (a plateau's middle may lie in another block), so
// counting cannot fuse into flagExtrema.

// Extrema of each kind among this block's samples before and at the calling thread's, from the
// thread's flag. warpTotals: 2 x (kSampleThreads / 32) ints of shared memory; the call syncs the
// block (all threads must call it).
struct TileRanks {
  int maxBefore, minBefore;  // exclusive ranks within the 256-sample block
  int maxCount, minCount;    // the block's totals
};
__device__ inline TileRanks rankInTile(std::uint8_t f, int* warpTotals) {
  constexpr int kWarps = kSampleThreads / 32;
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const unsigned below = (1u << lane) - 1;
  const unsigned bmax = __ballot_sync(~0u, f == kMaximum);
  const unsigned bmin = __ballot_sync(~0u, f == kMinimum);
  if (lane == 0) {
    warpTotals[w] = __popc(bmax);
    warpTotals[kWarps + w] = __popc(bmin);
  }
  __syncthreads();
  TileRanks r{__popc(bmax & below), __popc(bmin & below), 0, 0};
  for (int k = 0; k < kWarps; ++k) {
    const int m = warpTotals[k], n = warpTotals[kWarps + k];
    if (k < w) {
      r.maxBefore += m;
      r.minBefore += n;
    }
    r.maxCount += m;
    r.minCount += n;
  }
  return r;
}

template <class R>
__global__ void countKnotsKernel(SiftView<R> v) {
  __shared__ int warpTotals[2 * kSampleThreads / 32];
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    if (v.status[s] != kSifting) continue;  // uniform over the block
    const std::uint8_t* flags = v.flags + static_cast<std::size_t>(s) * v.n;
    for (int tile = 0; tile < kTilesPerBlock; ++tile) {
      const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kTilesPerBlock + tile;
      if (b * kSampleThreads >= v.n) break;  // uniform over the block
      const std::int64_t i = b * kSampleThreads + threadIdx.x;
      const TileRanks r = rankInTile(i < v.n ? flags[i] : std::uint8_t{0}, warpTotals);
      if (threadIdx.x == 0) {
        v.countsOf(s, 0)[b] = r.maxCount;
        v.countsOf(s, 1)[b] = r.minCount;
      }
      __syncthreads();  // warpTotals is rewritten by the next tile
    }
  }
}

// One warp per signal and envelope: per-block counts -> exclusive prefix, the total at the end.
template <class R>
__global__ void scanCountsKernel(SiftView<R> v) {
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = threadIdx.x % 32;
  if (warp >= 2 * v.count) return;  // uniform over the warp
  const int s = warp / 2, e = warp % 2;
  if (v.status[s] != kSifting) return;
  int* c = v.countsOf(s, e);
  int run = 0;
  for (int b0 = 0; b0 < v.sampleBlocks; b0 += 32) {
    const int b = b0 + lane;
    const int mine = b < v.sampleBlocks ? c[b] : 0;
    int inclusive = mine;
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(~0u, inclusive, d);
      if (lane >= d) inclusive += o;
    }
    if (b < v.sampleBlocks) c[b] = run + inclusive - mine;
    run += __shfl_sync(~0u, inclusive, 31);
  }
  if (lane == 0) c[v.sampleBlocks] = run;
}

template <class R>
__global__ void scatterKnotsKernel(SiftView<R> v) {
  __shared__ int warpTotals[2 * kSampleThreads / 32];
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    if (v.status[s] != kSifting) continue;  // uniform over the block
    const R* x = v.candidate(s);
    const std::uint8_t* flags = v.flags + static_cast<std::size_t>(s) * v.n;
    std::int32_t* posMax = v.knotPos + v.knotBase(s, 0) + kMirrored;
    std::int32_t* posMin = v.knotPos + v.knotBase(s, 1) + kMirrored;
    R* valMax = v.knotVal + v.knotBase(s, 0) + kMirrored;
    R* valMin = v.knotVal + v.knotBase(s, 1) + kMirrored;
    for (int tile = 0; tile < kTilesPerBlock; ++tile) {
      const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kTilesPerBlock + tile;
      if (b * kSampleThreads >= v.n) break;  // uniform over the block
      const std::int64_t i = b * kSampleThreads + threadIdx.x;
      const std::uint8_t f = i < v.n ? flags[i] : std::uint8_t{0};
      const TileRanks r = rankInTile(f, warpTotals);
      if (f == kMaximum) {
        const int o = v.countsOf(s, 0)[b] + r.maxBefore;
        posMax[o] = static_cast<std::int32_t>(i);
        valMax[o] = x[i];
      } else if (f == kMinimum) {
        const int o = v.countsOf(s, 1)[b] + r.minBefore;
        posMin[o] = static_cast<std::int32_t>(i);
        valMin[o] = x[i];
      }
      __syncthreads();  // warpTotals is rewritten by the next tile
    }
  }
}

template <class R>
__global__ void finishKnotsKernel(SiftView<R> v) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= v.count || v.status[s] != kSifting) return;
  const R* x = v.candidate(s);
  std::int32_t* posMax = v.knotPos + v.knotBase(s, 0) + kMirrored;
  std::int32_t* posMin = v.knotPos + v.knotBase(s, 1) + kMirrored;
  R* valMax = v.knotVal + v.knotBase(s, 0) + kMirrored;
  R* valMin = v.knotVal + v.knotBase(s, 1) + kMirrored;
  const int runMax = v.countsOf(s, 0)[v.sampleBlocks];
  const int runMin = v.countsOf(s, 1)[v.sampleBlocks];
  int* c = v.counters + s * kCounters;
  c[kMaxima] = runMax;
  c[kMinima] = runMin;
  sift::Boundaries b;
  if (sift::tooFewExtrema(runMax, runMin) ||
      !sift::mirrorBoundaries(x, static_cast<std::int32_t>(v.n), posMax, runMax, posMin, runMin,
                              b)) {
    c[kEnvFailed] = 1;
    return;
  }
  const sift::EndKnots* ends[2] = {&b.max, &b.min};
  std::int32_t* pos[2] = {posMax, posMin};
  R* val[2] = {valMax, valMin};
  const int interior[2] = {runMax, runMin};
  for (int e = 0; e < 2; ++e) {
    const sift::EndKnots& k = *ends[e];
    for (int j = 0; j < k.leftCount; ++j) {
      pos[e][j - k.leftCount] = k.leftPos[j];
      val[e][j - k.leftCount] = x[k.leftSrc[j]];
    }
    for (int j = 0; j < k.rightCount; ++j) {
      pos[e][interior[e] + j] = k.rightPos[j];
      val[e][interior[e] + j] = x[k.rightSrc[j]];
    }
    v.knotStart[s * 2 + e] = kMirrored - k.leftCount;
    v.knotCount[s * 2 + e] = k.leftCount + interior[e] + k.rightCount;
  }
}

// Below this many rows one lane solves the whole system (the CPU's arithmetic, bit for bit);
// above, the 32 lanes of the warp solve 32 pieces with overlapping sweeps (splineSlopeRows):
// the serial chain of ~N/3 divisions per envelope was the largest cost of an iteration.
constexpr int kSerialSplineRows = 2048;

// One block of kSplineThreads per signal and envelope. Long systems are cut into up to
// kSplineThreads pieces of at least kMinPieceRows rows: with one warp (32 pieces) per system the
// serial sweeps of ~1,000 rows each made this a third of an iteration at 12 % occupancy (ncu,
// H200, 500 signals x 102,401 samples).
constexpr int kSplineThreads = 128;
constexpr int kMinPieceRows = 256;
template <class R>
__global__ void solveSplinesKernel(SiftView<R> v) {
  const int s = blockIdx.x / 2, e = blockIdx.x % 2;
  if (s >= v.count || v.status[s] != kSifting || v.counters[s * kCounters + kEnvFailed]) return;
  const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
  const int n = v.knotCount[s * 2 + e];
  const std::int32_t* t = v.knotPos + base;
  const R* y = v.knotVal + base;
  R* slope = v.knotSlope + base;
  R* work = v.knotWork + base;
  if (n - 2 < kSerialSplineRows) {
    if (threadIdx.x == 0) sift::splineSlopes(t, y, n, slope, work);
  } else {
    const auto ends = sift::splineEnds(t, y, n);
    const int rows = n - 2;
    const int pieces = min(kSplineThreads, max(32, rows / kMinPieceRows));
    const int chunk = (rows + pieces - 1) / pieces;
    const int first = 1 + static_cast<int>(threadIdx.x) * chunk;
    const int last = min(n - 1, first + chunk);
    if (first < last) {
      sift::splineSlopeRows(t, y, n, ends, first, last, sift::kSplineOverlap, slope, work);
    }
    __syncthreads();  // s[1] and s[n-2] come from the first and the last piece
    if (threadIdx.x == 0) sift::splineEndSlopes(t, n, ends, slope);
  }
  __syncthreads();
  // Each piece's coefficients once, instead of three divisions per sample in the evaluation.
  PieceCoefficients<R>* piece = v.knotPiece + base;
  for (int k = threadIdx.x; k < n - 1; k += kSplineThreads) {
    PieceCoefficients<R> c{y[k], slope[k], 0, 0};
    sift::splinePieceCoefficients(t, y, slope, k, c.c2, c.c3);
    piece[k] = c;
  }
}

// The piece of envelope e covering sample i: the last knot at or before i, as the CPU's binary
// search (sift::splinePiece) finds it. Interior knot m is the (m+1)-th extremum, so with c = the
// extrema of that kind at or before i the piece is knot leftCount + c - 1. Mirrored knots (emd.m's
// boundary_conditions) lie before the first extremum and after the last, but not all of them
// beyond the ends of the signal: before the first extremum (c = 0) or after the last (c = all) a
// few steps over them find the right one.
template <class R>
__device__ inline int envelopePiece(const SiftView<R>& v, int s, int e, std::int64_t i,
                                    int extremaAtOrBefore) {
  const int leftCount = kMirrored - v.knotStart[s * 2 + e];
  const int count = v.knotCount[s * 2 + e];
  const int interior = v.countsOf(s, e)[v.sampleBlocks];
  int k = min(leftCount + extremaAtOrBefore - 1, count - 2);
  if (extremaAtOrBefore == 0 || extremaAtOrBefore == interior) {
    const std::int32_t* pos = v.knotPos + v.knotBase(s, e) + v.knotStart[s * 2 + e];
    while (k > 0 && pos[k] > i) --k;
    while (k < count - 2 && pos[k + 1] <= i) ++k;
  }
  return max(k, 0);
}

// The piece search uses the flags and the scan's per-block counts (extrema before the sample's
// block plus its rank in the block), not a binary search over the knots: the search made this
// the largest kernel of an iteration, at 240 instructions per sample (ncu, H200).
template <class R>
__global__ void evaluateMeanKernel(SiftView<R> v, RuleView rule) {
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ int warpTotals[2 * kSampleThreads / 32];
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    if (v.status[s] != kSifting || v.counters[s * kCounters + kEnvFailed]) continue;
    int above1 = 0, above2 = 0;
    const R* x = v.candidate(s);
    R* next = v.other(s);
    const std::uint8_t* flags = v.flags + static_cast<std::size_t>(s) * v.n;
    for (int tile = 0; tile < kTilesPerBlock; ++tile) {
      const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * kTilesPerBlock + tile;
      if (b * kSampleThreads >= v.n) break;  // uniform over the block
      const std::int64_t i = b * kSampleThreads + threadIdx.x;
      const std::uint8_t f = i < v.n ? flags[i] : std::uint8_t{0};
      const TileRanks r = rankInTile(f, warpTotals);
      if (i < v.n) {
        const int atOrBefore[2] = {v.countsOf(s, 0)[b] + r.maxBefore + (f == kMaximum),
                                   v.countsOf(s, 1)[b] + r.minBefore + (f == kMinimum)};
        R env[2];
        for (int e = 0; e < 2; ++e) {
          const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
          const int k = envelopePiece(v, s, e, i, atOrBefore[e]);
          const PieceCoefficients<R> c = v.knotPiece[base + k];
          env[e] = sift::splineValueFrom(c.y, c.s, c.c2, c.c3, i - v.knotPos[base + k]);
        }
        if (rule.kind == static_cast<int>(sift::StopKind::Rilling)) {  // only Rilling uses them
          const R ratio = sift::stopRatio(env[0], env[1]);
          above1 += ratio > static_cast<R>(rule.threshold1);
          above2 += ratio > static_cast<R>(rule.threshold2);
        }
        next[i] = x[i] - (env[0] + env[1]) / 2;
      }
      __syncthreads();  // warpTotals is rewritten by the next tile
    }
    const int a1 = Reduce(tmp).Sum(above1);
    __syncthreads();
    const int a2 = Reduce(tmp).Sum(above2);
    if (threadIdx.x == 0) {
      if (a1) atomicAdd(&v.counters[s * kCounters + kAbove1], a1);
      if (a2) atomicAdd(&v.counters[s * kCounters + kAbove2], a2);
    }
    __syncthreads();
  }
}

template <class R>
__global__ void decideStopKernel(SiftView<R> v, RuleView rule, const R* refMaxAbs, bool probeOnly) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= v.count || v.status[s] != kSifting) return;
  int* c = v.counters + s * kCounters;
  sift::SiftStats st;
  st.maxima = c[kMaxima];
  st.minima = c[kMinima];
  st.zeroCrossings = c[kZeros];
  st.aboveThreshold1 = c[kAbove1];
  st.aboveThreshold2 = c[kAbove2];
  st.envelopeFailed = c[kEnvFailed] != 0;
  for (int k = 0; k < kCounters; ++k) c[k] = 0;
  if (v.nbit[s] == 0) {
    const double maxAbs = fromBits(v.maxAbsBits[s], R{});
    if (sift::tooFewExtrema(st.maxima, st.minima) ||
        (refMaxAbs && maxAbs < 1e-10 * static_cast<double>(refMaxAbs[s]))) {
      v.status[s] = kSiftNoImf;
      return;
    }
  }
  const bool stop = sift::stopSifting(st, v.n, static_cast<sift::StopKind>(rule.kind),
                                      rule.tolerance, rule.sNumber, v.sCount[s]);
  if (probeOnly) {
    // The es_imf question: kSiftDone = already an IMF, kSifting = sifting would change it.
    if (stop) v.status[s] = kSiftDone;
    return;
  }
  if (stop || v.nbit[s] >= rule.cap) {
    v.status[s] = kSiftDone;
    return;
  }
  v.parity[s] ^= 1;
  if (++v.nbit[s] >= rule.cap) {
    v.status[s] = kSiftDone;  // emd.m leaves the loop here; its last stop test is not needed
    return;
  }
  atomicAdd(v.active, 1);
}

template <class R>
__global__ void startKernel(SiftView<R> v, const std::uint8_t* enabled) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= v.count) return;
  v.status[s] = (enabled && !enabled[s]) ? kSiftDisabled : kSifting;
  v.nbit[s] = 0;
  v.sCount[s] = 0;
  v.parity[s] = 0;
  v.maxAbsBits[s] = 0;
  for (int k = 0; k < kCounters; ++k) v.counters[s * kCounters + k] = 0;
}

template <class R>
__global__ void publishImfsKernel(SiftView<R> v) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < v.count) v.imfTable[s] = v.candidate(s);
}

int gridY(int count) { return std::min(count, 65535); }

}  // namespace

template <class R>
std::size_t BatchSifter<R>::bytesPerSignal(std::int64_t n) {
  const std::size_t knots = 2 * static_cast<std::size_t>(n / 2 + 2 * kMirrored + 2);
  return static_cast<std::size_t>(n) * (2 * sizeof(R) + 1) +
         knots * (sizeof(std::int32_t) + 3 * sizeof(R) + sizeof(PieceCoefficients<R>)) +
         2 * sizeof(int) * static_cast<std::size_t>(n / kSampleThreads + 2) + 64;
}

template <class R>
BatchSifter<R>::BatchSifter(std::int64_t n, int capacity, cudaStream_t stream)
    : n_(n),
      capacity_(capacity),
      knotCap_(static_cast<int>(n / 2 + 2 * kMirrored + 2)),
      stream_(stream) {
  const std::size_t rows = static_cast<std::size_t>(capacity) * static_cast<std::size_t>(n);
  const std::size_t knots = static_cast<std::size_t>(capacity) * 2 * knotCap_;
  cand_[0] = DeviceBuffer<R>(rows);
  cand_[1] = DeviceBuffer<R>(rows);
  flags_ = DeviceBuffer<std::uint8_t>(rows);
  knotPos_ = DeviceBuffer<std::int32_t>(knots);
  knotVal_ = DeviceBuffer<R>(knots);
  knotSlope_ = DeviceBuffer<R>(knots);
  knotWork_ = DeviceBuffer<R>(knots);
  knotPiece_ = DeviceBuffer<PieceCoefficients<R>>(knots);
  knotStart_ = DeviceBuffer<int>(2 * static_cast<std::size_t>(capacity));
  knotCount_ = DeviceBuffer<int>(2 * static_cast<std::size_t>(capacity));
  counters_ = DeviceBuffer<int>(kCounters * static_cast<std::size_t>(capacity));
  maxAbsBits_ = DeviceBuffer<unsigned long long>(capacity);
  status_ = DeviceBuffer<int>(capacity);
  nbit_ = DeviceBuffer<int>(capacity);
  sCount_ = DeviceBuffer<int>(capacity);
  parity_ = DeviceBuffer<int>(capacity);
  imfTable_ = DeviceBuffer<R*>(capacity);
  blockCounts_ = DeviceBuffer<int>(static_cast<std::size_t>(capacity) * 2 * (sampleBlocks() + 1));
  active_ = DeviceBuffer<int>(1);
  activeHost_ = PinnedBuffer<int>(1);
}

template <class R>
void BatchSifter<R>::extract(int count, const StopRule& rule, const std::uint8_t* enabled,
                             const R* refMaxAbs, bool probeOnly, const JobContext& ctx) {
  SiftView<R> v{n_,
                count,
                knotCap_,
                cand_[0].get(),
                cand_[1].get(),
                flags_.get(),
                knotPos_.get(),
                knotVal_.get(),
                knotSlope_.get(),
                knotWork_.get(),
                knotPiece_.get(),
                knotStart_.get(),
                knotCount_.get(),
                counters_.get(),
                maxAbsBits_.get(),
                status_.get(),
                nbit_.get(),
                sCount_.get(),
                parity_.get(),
                imfTable_.get(),
                active_.get(),
                blockCounts_.get(),
                static_cast<int>(sampleBlocks())};
  RuleView r{};
  switch (rule.kind) {
    case StopRuleKind::Rilling:
      r.kind = static_cast<int>(sift::StopKind::Rilling);
      r.cap = rule.maxSifts;
      break;
    case StopRuleKind::FixedSifts:
      r.kind = static_cast<int>(sift::StopKind::Fixed);
      r.cap = rule.fixedSifts;
      break;
    case StopRuleKind::SNumber:
      r.kind = static_cast<int>(sift::StopKind::SNumber);
      r.cap = rule.maxSifts;
      break;
  }
  r.threshold1 = rule.threshold1;
  r.threshold2 = rule.threshold2;
  r.tolerance = rule.tolerance;
  r.sNumber = rule.sNumber;

  const int perSignalBlocks = (count + 127) / 128;
  startKernel<<<perSignalBlocks, 128, 0, stream_>>>(v, enabled);
  MODESCOPE_CUDA_CHECK_LAUNCH("startKernel", stream_);
  const dim3 sampleGrid(static_cast<unsigned>((n_ + kBlockSamples - 1) / kBlockSamples),
                        gridY(count));
  // How often the host looks at the number of signals still sifting: often enough that a
  // converged batch does not run many empty iterations, rarely enough that the copy and the
  // wait do not stall the queue (five launches per iteration take ~10 us to issue).
  const int checkEvery = 4;
  lastIterations_ = 0;
  for (int it = 0;; ++it) {
    if (it % checkEvery == 0) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(active_.get(), 0, sizeof(int), stream_));
    }
    // Zero crossings feed only the Rilling and S-number tests.
    flagExtremaKernel<<<sampleGrid, kSampleThreads, 0, stream_>>>(
        v, it == 0, r.kind != static_cast<int>(sift::StopKind::Fixed));
    MODESCOPE_CUDA_CHECK_LAUNCH("flagExtremaKernel", stream_);
    countKnotsKernel<<<sampleGrid, kSampleThreads, 0, stream_>>>(v);
    MODESCOPE_CUDA_CHECK_LAUNCH("countKnotsKernel", stream_);
    scanCountsKernel<<<(2 * count + 7) / 8, 256, 0, stream_>>>(v);  // 8 warps per block
    MODESCOPE_CUDA_CHECK_LAUNCH("scanCountsKernel", stream_);
    scatterKnotsKernel<<<sampleGrid, kSampleThreads, 0, stream_>>>(v);
    MODESCOPE_CUDA_CHECK_LAUNCH("scatterKnotsKernel", stream_);
    finishKnotsKernel<<<(count + 31) / 32, 32, 0, stream_>>>(v);
    MODESCOPE_CUDA_CHECK_LAUNCH("finishKnotsKernel", stream_);
    solveSplinesKernel<<<2 * count, kSplineThreads, 0, stream_>>>(v);
    MODESCOPE_CUDA_CHECK_LAUNCH("solveSplinesKernel", stream_);
    evaluateMeanKernel<<<sampleGrid, kSampleThreads, 0, stream_>>>(v, r);
    MODESCOPE_CUDA_CHECK_LAUNCH("evaluateMeanKernel", stream_);
    decideStopKernel<<<perSignalBlocks, 128, 0, stream_>>>(v, r, refMaxAbs, probeOnly);
    MODESCOPE_CUDA_CHECK_LAUNCH("decideStopKernel", stream_);
    ++lastIterations_;
    if (probeOnly) break;
    if (it % checkEvery == checkEvery - 1 || it >= r.cap) {
      // active_ counts the signals that sifted on in any iteration since the last reset; zero
      // means every signal stopped before or at the last of them.
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(activeHost_.get(), active_.get(), sizeof(int),
                                         cudaMemcpyDeviceToHost, stream_));
      MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream_));
      ctx.checkpoint();
      if (*activeHost_.get() == 0 || it >= r.cap) break;
    }
  }
  publishImfsKernel<<<perSignalBlocks, 128, 0, stream_>>>(v);
  MODESCOPE_CUDA_CHECK_LAUNCH("publishImfsKernel", stream_);
}

template class BatchSifter<float>;
template class BatchSifter<double>;

}  // namespace modescope::cuda
