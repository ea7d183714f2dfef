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

// Threads of the per-sample kernels: one block per kSiftTileSamples tile (emd_sifter.cuh), so
// a batch of thousands of signals does not launch millions of tiny blocks (their reductions and
// scheduling, not the memory traffic, set the time then).
constexpr int kSampleThreads = 256;

template <class R>
struct SiftView {
  std::int64_t n;
  int count;
  int knotCap;
  R* cand0;
  R* cand1;
  std::uint8_t* flags;  // one row of flagPitch bytes per signal
  std::int64_t flagPitch;
  std::int32_t* knotPos;
  R* knotVal;
  R* knotSlope;
  SweepRow<R>* sweep;  // Thomas scratch, sweepCap rows per signal and envelope (solveSplines)
  int sweepCap;
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
  // Per signal and envelope: the number of extrema before sample 2048 b, for every tile b
  // (and the total at b = tiles), written by the scan, so the evaluation finds its knots
  // without searching.
  int* tileCounts;
  int tiles;
  __device__ int* countsOf(int s, int e) const {
    return tileCounts + (static_cast<std::size_t>(s) * 2 + e) * (tiles + 1);
  }
  __device__ std::uint8_t* flagsOf(int s) const {
    return flags + static_cast<std::size_t>(s) * flagPitch;
  }
  __device__ R* candidate(int s) const { return candidateOf(s, parity[s]); }
  // Whether a per-sample kernel skips a signal, from its status and parity loaded together. The
  // parity is tested too (it is never negative) so that its load is issued beside the status's:
  // tested one after the other, each per-signal load waited for the one before it (ncu on an
  // H200: 5 % of the evaluation's stall samples on its three), and nvcc otherwise moves the
  // parity's load after the branch.
  __device__ static bool mustSkip(int status, int parity) {
    return status != kSifting || parity < 0;
  }
  // With the signal's parity already loaded.
  __device__ R* candidateOf(int s, int p) const {
    return (p ? cand1 : cand0) + static_cast<std::size_t>(s) * n;
  }
  __device__ R* otherOf(int s, int p) const {
    return (p ? cand0 : cand1) + static_cast<std::size_t>(s) * n;
  }
  __device__ SweepRow<R>* sweepOf(int s, int e) const {
    return sweep + (static_cast<std::size_t>(s) * 2 + e) * sweepCap;
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

// One iteration's per-sample work runs in 2048-sample tiles (kSiftTileSamples): one block of 256
// threads per tile and signal. Extrema are flagged and counted per tile in one pass; the knots
// are scattered and the envelopes evaluated with each thread on 8 consecutive samples, so a
// thread finds its knots' ranks once (one block scan) and keeps the spline piece it is on in
// registers while it walks its samples. (With one thread per sample and a ballot rank per
// 256-sample tile these kernels were bound by instruction issue, not memory: ncu on an H200,
// 500 signals x 102,401 samples, 64-71 % of the SM's issue rate at 7-24 % of DRAM bandwidth.)
constexpr int kRunSamples = 8;  // consecutive samples per thread in scatter and evaluation
static_assert(kSampleThreads * kRunSamples == kSiftTileSamples, "a tile is one block's runs");

// Two counts of at most one tile's samples in one int (maxima and minima, or the two stop-ratio
// counts): one block scan or sum takes both.
__device__ inline int packPair(int high, int low) { return (high << 16) | low; }
__device__ inline int highHalf(int p) { return p >> 16; }
__device__ inline int lowHalf(int p) { return p & 0xffff; }

// A thread's 8 flags from sample i0 in one word, flag j in byte j (i0 a multiple of 8; the row
// pitch is a multiple of 16, so the load is aligned and inside the row when i0 < n); flags at or
// beyond n are not extrema. Unpacked into eight bytes, each with its bounds test, they cost some
// 40 instructions per thread and stayed live through the evaluation's walks (SASS and ptxas,
// H200); the flags' values make the tests single bits.
static_assert(sift::kNotExtremum == 0 && kMaximum == 1 && kMinimum == 2, "flag bits");
__device__ inline unsigned long long loadRunFlags(const std::uint8_t* row, std::int64_t i0,
                                                  std::int64_t n) {
  if (i0 >= n) return 0;  // past the end of the last tile (and maybe of the row)
  unsigned long long w = *reinterpret_cast<const unsigned long long*>(row + i0);
  if (n - i0 < kRunSamples) w &= (1ull << (8 * (n - i0))) - 1;
  return w;
}
__device__ inline bool isMaximumAt(unsigned long long flags, int j) {
  return (flags >> (8 * j)) & 1u;
}
__device__ inline bool isMinimumAt(unsigned long long flags, int j) {
  return (flags >> (8 * j + 1)) & 1u;
}
// The run's maxima and minima, packed (packPair).
__device__ inline int runExtrema(unsigned long long flags) {
  return packPair(__popcll(flags & 0x0101010101010101ull), __popcll(flags & 0x0202020202020202ull));
}

// Strided over the tile (coalesced), kFlagSamples samples per thread whose values and neighbours
// are all loaded before any is classified. (Classified as they were loaded, each sample waited
// for its own three loads: ncu, H200, 9 stall cycles per instruction at 1 TB/s.)
constexpr int kFlagSamples = kSiftTileSamples / kSampleThreads;
template <class R>
__global__ void __launch_bounds__(kSampleThreads, 4)
    flagExtremaKernel(SiftView<R> v, bool firstIteration, bool countZeros) {
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  using ReduceBits = cub::BlockReduce<unsigned long long, kSampleThreads>;
  __shared__ union {
    typename Reduce::TempStorage sum;
    typename ReduceBits::TempStorage max;
  } tmp;
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    const int status = v.status[s], parity = v.parity[s];
    if (v.mustSkip(status, parity)) continue;  // uniform over the block
    const R* x = v.candidateOf(s, parity);
    std::uint8_t* flags = v.flagsOf(s);
    // int sample indices (knot positions are int32 too): in 64 bits every bounds test and
    // address took two instructions (SASS, H200 profile).
    const int n = static_cast<int>(v.n);
    const int begin = static_cast<int>(blockIdx.x) * kSiftTileSamples;
    R prev[kFlagSamples], cur[kFlagSamples], next[kFlagSamples];
    MODESCOPE_UNROLL
    for (int j = 0; j < kFlagSamples; ++j) {
      const int i = begin + static_cast<int>(threadIdx.x) + j * kSampleThreads;
      if (i < n) {
        prev[j] = i > 0 ? x[i - 1] : R(0);
        cur[j] = x[i];
        next[j] = i + 1 < n ? x[i + 1] : R(0);
      }
    }
    int zeros = 0, counts = 0;
    unsigned long long bits = 0;
    MODESCOPE_UNROLL
    for (int j = 0; j < kFlagSamples; ++j) {
      const int i = begin + static_cast<int>(threadIdx.x) + j * kSampleThreads;
      if (i >= n) break;
      const bool interior = i > 0 && i + 1 < n;
      // Interior samples differing from both neighbours (almost all of them) are a run of one:
      // classifyRun's answer in two comparisons; plateaus take the general path from their start.
      if (interior && prev[j] != cur[j] && cur[j] != next[j]) {
        const R left = cur[j] - prev[j], right = next[j] - cur[j];
        const std::uint8_t f = (left > 0 && right < 0)   ? sift::kMaximum
                               : (left < 0 && right > 0) ? sift::kMinimum
                                                         : sift::kNotExtremum;
        flags[i] = f;
        counts += f == sift::kMaximum ? packPair(1, 0) : f == sift::kMinimum ? 1 : 0;
      } else if (i == 0 || prev[j] != cur[j]) {  // sift::startsRun
        // A plateau's extremum sits at its middle, which may lie in a later tile: counted there.
        const std::int64_t last = sift::classifyRun(x, v.n, i, flags);
        const std::int64_t middle = sift::runMiddle(i, last);
        const std::uint8_t f = flags[middle];  // just written by classifyRun
        if (f != sift::kNotExtremum) {
          const std::int64_t tile = middle / kSiftTileSamples;
          if (tile == blockIdx.x)
            counts += f == sift::kMaximum ? packPair(1, 0) : 1;
          else
            atomicAdd(&v.countsOf(s, f == sift::kMaximum ? 0 : 1)[tile], 1);
        }
      }
      if (countZeros) zeros += sift::zeroCrossingsAt(prev[j], cur[j], next[j], i > 0, i + 1 < n);
      bits = max(bits, absBits(cur[j]));
    }
    const int csum = Reduce(tmp.sum).Sum(counts);
    __syncthreads();
    const int zsum = Reduce(tmp.sum).Sum(zeros);
    if (threadIdx.x == 0) {
      if (highHalf(csum)) atomicAdd(&v.countsOf(s, 0)[blockIdx.x], highHalf(csum));
      if (lowHalf(csum)) atomicAdd(&v.countsOf(s, 1)[blockIdx.x], lowHalf(csum));
      if (zsum) atomicAdd(&v.counters[s * kCounters + kZeros], zsum);
    }
    if (firstIteration) {
      __syncthreads();
      const unsigned long long m = ReduceBits(tmp.max).Reduce(bits, MaxOp());
      if (threadIdx.x == 0) atomicMax(&v.maxAbsBits[s], m);
    }
    __syncthreads();
  }
}

// One warp per signal and envelope: per-tile counts -> exclusive prefix, the total at the end.
template <class R>
__global__ void scanCountsKernel(SiftView<R> v) {
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = threadIdx.x % 32;
  if (warp >= 2 * v.count) return;  // uniform over the warp
  const int s = warp / 2, e = warp % 2;
  if (v.status[s] != kSifting) return;
  int* c = v.countsOf(s, e);
  int run = 0;
  for (int b0 = 0; b0 < v.tiles; b0 += 32) {
    const int b = b0 + lane;
    const int mine = b < v.tiles ? c[b] : 0;
    int inclusive = mine;
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(~0u, inclusive, d);
      if (lane >= d) inclusive += o;
    }
    if (b < v.tiles) c[b] = run + inclusive - mine;
    run += __shfl_sync(~0u, inclusive, 31);
  }
  if (lane == 0) c[v.tiles] = run;
}

// Each extremum's position and value at its rank: extrema before the tile (the scan) plus those
// before the thread's run (a block scan) plus those before it in the run. The tile's knots are
// gathered in shared memory and written out in coalesced rows: written by each thread at its
// ranks, every store of a warp touched 12 sectors (ncu, H200, first IMF of 500 noise signals x
// 102,401 samples: 78 M sectors written to L2 for 334 MB of knots).
// Extrema of one kind in a tile: two maxima (minima) are at least two samples apart, so at most
// half the samples, and one plateau extremum counted from an earlier tile.
constexpr int kTileKnots = kSiftTileSamples / 2 + 2;
template <class R>
__global__ void scatterKnotsKernel(SiftView<R> v) {
  using Scan = cub::BlockScan<int, kSampleThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ std::int32_t stagedPos[2][kTileKnots];
  __shared__ R stagedVal[2][kTileKnots];
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    const int status = v.status[s], parity = v.parity[s];
    if (v.mustSkip(status, parity)) continue;  // uniform over the block
    const R* x = v.candidateOf(s, parity);
    const std::int64_t i0 =
        static_cast<std::int64_t>(blockIdx.x) * kSiftTileSamples + threadIdx.x * kRunSamples;
    const unsigned long long flags = loadRunFlags(v.flagsOf(s), i0, v.n);
    const int mine = runExtrema(flags);
    R value[kRunSamples];  // loaded before the scan, so the loads overlap it
    MODESCOPE_UNROLL
    for (int j = 0; j < kRunSamples; ++j)
      if ((flags >> (8 * j)) & 0xffu) value[j] = x[i0 + j];
    int before = 0, total = 0;
    Scan(tmp).ExclusiveSum(mine, before, total);
    int atMax = highHalf(before), atMin = lowHalf(before);
    // One predicated pair of stores per sample, its envelope and rank selected: two branches per
    // sample, one per kind, cost some 16 instructions each (SASS, H200 profile).
    MODESCOPE_UNROLL
    for (int j = 0; j < kRunSamples; ++j) {
      const bool isMax = isMaximumAt(flags, j), isMin = isMinimumAt(flags, j);
      const int e = isMin ? 1 : 0, at = isMin ? atMin : atMax;
      if (isMax || isMin) {
        stagedPos[e][at] = static_cast<std::int32_t>(i0 + j);
        stagedVal[e][at] = value[j];
      }
      atMax += isMax;
      atMin += isMin;
    }
    __syncthreads();
    const int count[2] = {highHalf(total), lowHalf(total)};
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e) {
      const std::size_t o = v.knotBase(s, e) + kMirrored + v.countsOf(s, e)[blockIdx.x];
      for (int q = threadIdx.x; q < count[e]; q += kSampleThreads) {
        v.knotPos[o + q] = stagedPos[e][q];
        v.knotVal[o + q] = stagedVal[e][q];
      }
    }
    __syncthreads();  // tmp and the staged knots are reused by the next signal
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
  const int runMax = v.countsOf(s, 0)[v.tiles];
  const int runMin = v.countsOf(s, 1)[v.tiles];
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
// above, the block's threads solve pieces with overlapping sweeps (splineSlopeRows): the serial
// chain of one division per row is the cost. (The threshold was 2,048 rows: the later IMFs of an
// ICEEMDAN, with 100-2,000 knots per envelope, then ran one lane's chain of up to 4,000 steps,
// which made this kernel 28 % of the run at 24 % occupancy: ncu on an H200, 500 signals x
// 102,401 samples.)
constexpr int kSerialSplineRows = 128;

// The sweep rows of piece `piece` of `pieces` equal pieces of a block (sift::splineSlopeRowsWith),
// interleaved: row first + r of the piece at sweep[r * pieces + piece]. At each step the pieces of
// a warp then store and load neighbouring rows of the scratch instead of rows a piece apart: with
// each piece's rows contiguous (sift::SweepArrays), every store of a step touched 27 sectors on
// average, and the scattered stores set the time of the solve (ncu, H200, first IMF of 500 noise
// signals x 102,401 samples: 2.98 ms, 194 M sectors written to L2, stalled on the load/store
// queue).
template <class R>
struct InterleavedSweep {
  SweepRow<R>* sweep;
  int first, piece, pieces;
  __device__ void put(int k, R work, R rhs) const {
    sweep[(k - first) * pieces + piece] = {work, rhs};
  }
  __device__ void get(int k, R& work, R& rhs) const {
    const SweepRow<R> row = sweep[(k - first) * pieces + piece];
    work = row.work;
    rhs = row.rhs;
  }
};

// One block of kSplineThreads per signal and envelope. Systems are cut into up to
// kSplineThreads pieces of at least kMinPieceRows rows: with one warp (32 pieces) per system the
// serial sweeps of ~1,000 rows each made this a third of an iteration at 12 % occupancy (ncu,
// H200, 500 signals x 102,401 samples). The pieces' sweeps start and end `overlap` rows outside
// them: 2^-overlap of the solution is below the rounding of R (64 rows for double, 32 for float,
// sift::splineSlopeRows).
constexpr int kSplineThreads = kSiftSplineThreads;
constexpr int kMinPieceRows = 64;
static_assert(2 * kMirrored + 2 == 6, "knotCapFor counts the mirrored knots");
template <class R>
constexpr int kPieceOverlap = sizeof(R) == sizeof(float) ? 32 : sift::kSplineOverlap;

template <class R>
__global__ void __launch_bounds__(kSplineThreads) solveSplinesKernel(SiftView<R> v) {
  const int s = blockIdx.x / 2, e = blockIdx.x % 2;
  if (s >= v.count || v.status[s] != kSifting || v.counters[s * kCounters + kEnvFailed]) return;
  const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
  const int n = v.knotCount[s * 2 + e];
  const std::int32_t* t = v.knotPos + base;
  const R* y = v.knotVal + base;
  R* slope = v.knotSlope + base;
  SweepRow<R>* sweep = v.sweepOf(s, e);
  if (n - 2 < kSerialSplineRows) {
    if (threadIdx.x == 0) sift::splineSlopes(t, y, n, slope, reinterpret_cast<R*>(sweep));
  } else {
    const auto ends = sift::splineEnds(t, y, n);
    const int rows = n - 2;
    const int pieces = min(kSplineThreads, max(2, rows / kMinPieceRows));
    // Pieces of a multiple of 4 rows: every piece of a warp then starts on the same alignment, so
    // that the aligned runs of the sweep (sift::detail::runOffset) cut every piece's first chunk
    // and group alike and the pieces step through the interleaved rows together. With pieces of
    // any length, a warp's loads of "the same row of every piece" were scattered over up to 4
    // rows (ncu, H200: 28 % of the solve's excess sectors; rounded, the solve took 187 instead of
    // 211 us per launch, docs/emd.md).
    const int chunk = ((rows + pieces - 1) / pieces + 3) / 4 * 4;
    const int piece = static_cast<int>(threadIdx.x);
    const int first = 1 + piece * chunk;
    const int last = min(n - 1, first + chunk);
    if (piece < pieces && first < last) {
      sift::splineSlopeRowsWith(t, y, n, ends, first, last, kPieceOverlap<R>,
                                InterleavedSweep<R>{sweep, first, piece, pieces}, slope);
    }
    __syncthreads();  // s[1] and s[n-2] come from the first and the last piece
    if (threadIdx.x == 0) sift::splineEndSlopes(t, n, ends, slope);
  }
  __syncthreads();
  // Each piece's coefficients once, instead of three divisions per sample in the evaluation.
  // kCoefficientBatch pieces per thread at a time, their knots loaded before any is computed, and
  // the next batch's loaded before this batch is computed. One at a time, each piece waited for
  // its own loads (a long system's pieces are ~270 per thread). One batch at a time, each batch
  // still did: ncu on an H200 put 21 % of a dense solve's stall samples on the batch's first step.
  constexpr int kCoefficientBatch = 4;
  struct Batch {
    std::int32_t t0[kCoefficientBatch], t1[kCoefficientBatch];
    R y0[kCoefficientBatch], y1[kCoefficientBatch], s0[kCoefficientBatch], s1[kCoefficientBatch];
  };
  const auto load = [&](int k0, Batch& b) {
    MODESCOPE_UNROLL
    for (int q = 0; q < kCoefficientBatch; ++q) {
      const int k = k0 + q * kSplineThreads;
      if (k < n - 1) {
        b.t0[q] = t[k];
        b.t1[q] = t[k + 1];
        b.y0[q] = y[k];
        b.y1[q] = y[k + 1];
        b.s0[q] = slope[k];
        b.s1[q] = slope[k + 1];
      }
    }
  };
  PieceCoefficients<R>* piece = v.knotPiece + base;
  constexpr int kStep = kCoefficientBatch * kSplineThreads;
  Batch current;
  load(threadIdx.x, current);
  for (int k0 = threadIdx.x; k0 < n - 1; k0 += kStep) {
    Batch ahead;
    load(k0 + kStep, ahead);
    MODESCOPE_UNROLL
    for (int q = 0; q < kCoefficientBatch; ++q) {
      const int k = k0 + q * kSplineThreads;
      if (k < n - 1) {
        PieceCoefficients<R> c{current.y0[q], current.s0[q], 0, 0};
        sift::splineCoefficientsOf(current.t0[q], current.t1[q], current.y0[q], current.y1[q],
                                   current.s0[q], current.s1[q], c.c2, c.c3);
        piece[k] = c;
      }
    }
    current = ahead;
  }
}

// One envelope's knots as the evaluation sees them (loaded once per block).
template <class R>
struct EnvelopeKnots {
  const std::int32_t* pos;  // from the first (mirrored) knot
  const PieceCoefficients<R>* piece;
  int leftCount;  // mirrored knots before the first extremum
  int count;      // all knots
  int interior;   // extrema

  // The piece covering sample i: the last knot at or before i, as the CPU's binary search
  // (sift::splinePiece) finds it. Interior knot m is the (m+1)-th extremum, so with c = the
  // extrema of this kind at or before i the piece is knot leftCount + c - 1. Mirrored knots
  // (emd.m's boundary_conditions) lie before the first extremum and after the last, but not all
  // of them beyond the ends of the signal: before the first extremum (c = 0) or after the last
  // (c = all) a few steps over them find the right one.
  __device__ int pieceAt(int i, int extremaAtOrBefore) const {
    int k = min(leftCount + extremaAtOrBefore - 1, count - 2);
    if (extremaAtOrBefore == 0 || extremaAtOrBefore == interior) {
      while (k > 0 && pos[k] > i) --k;
      while (k < count - 2 && pos[k + 1] <= i) ++k;
    }
    return max(k, 0);
  }
};

// Staged samples of a tile in shared memory: one padding word per 32, so that thread t reading
// its run at 8 t + j and a warp reading 32 consecutive samples are both free of bank conflicts.
__device__ inline int stagedIndex(int j) { return j + j / 32; }
constexpr int kStagedSamples = kSiftTileSamples + kSiftTileSamples / 32;

// Pieces of a tile staged by the evaluation: those its samples lie on (one per extremum counted
// before and in the tile, and the one before them) up to what the 48 KB of static shared memory
// hold beside the staged samples; the others (a tile with more extrema, a mirrored knot's piece)
// are read from global memory. The first IMF of white noise has ~680 extrema of a kind per tile.
template <class R>
constexpr int kStagedPieces = sizeof(R) == sizeof(float) ? 896 : 384;

// Each thread walks its 8 consecutive samples, moving to the next piece of an envelope when it
// passes an extremum of that kind (the piece's coefficients are read once per piece, not per
// sample). The tile's samples come in and the next candidate goes out through shared memory in
// coalesced rows, and so do the pieces its samples can lie on (those of the extrema counted
// before and in the tile; a sample before the first extremum or after the last may need a
// mirrored knot's piece outside them, read from global memory). Read from global memory where
// each thread needed them, those loads were the kernel's main stall (ncu, H200); staging them
// gained 1-3 % of a float32 ICEEMDAN run and 7 % in float64 (emd_bench, H200): the knot data's
// DRAM traffic, the same either way, is most of what is left (docs/emd.md). At most 48 registers,
// 5 blocks per SM: the two walks below together took 64-85 unbounded (ptxas for sm_90), and float
// needs no spills at 48 (double spills 44 bytes; it had 70 registers, 3 blocks per SM, before).
template <class R>
__global__ void __launch_bounds__(kSampleThreads, 5)
    evaluateMeanKernel(SiftView<R> v, RuleView rule) {
  using Scan = cub::BlockScan<int, kSampleThreads>;
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage sum;
  } tmp;
  __shared__ R staged[kStagedSamples];
  __shared__ PieceCoefficients<R> stagedPiece[2][kStagedPieces<R>];
  __shared__ std::int32_t stagedKnot[2][kStagedPieces<R>];
  const bool rilling = rule.kind == static_cast<int>(sift::StopKind::Rilling);
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    const int status = v.status[s], failed = v.counters[s * kCounters + kEnvFailed];
    const int parity = v.parity[s];
    if (v.mustSkip(status, parity) || failed) continue;
    const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * kSiftTileSamples;
    // The tile's samples in and the next candidate's out, by offsets from the tile's start.
    const R* tileIn = v.candidateOf(s, parity) + begin;
    R* tileOut = v.otherOf(s, parity) + begin;
    const int samples =
        static_cast<int>(min(v.n - begin, static_cast<std::int64_t>(kSiftTileSamples)));
    for (int j = threadIdx.x; j < samples; j += kSampleThreads) staged[stagedIndex(j)] = tileIn[j];
    const int first = threadIdx.x * kRunSamples;  // the thread's run within the tile
    const unsigned long long flags = loadRunFlags(v.flagsOf(s), begin + first, v.n);
    const int mine = runExtrema(flags);
    EnvelopeKnots<R> env[2];
    int lowest[2], highest[2];  // the staged pieces
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e) {
      const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
      env[e] = {v.knotPos + base, v.knotPiece + base, kMirrored - v.knotStart[s * 2 + e],
                v.knotCount[s * 2 + e], v.countsOf(s, e)[v.tiles]};
      lowest[e] = max(env[e].leftCount + v.countsOf(s, e)[blockIdx.x] - 1, 0);
      highest[e] = min(env[e].leftCount + v.countsOf(s, e)[blockIdx.x + 1] - 1, env[e].count - 2);
      highest[e] = min(highest[e], lowest[e] + kStagedPieces<R> - 1);
      for (int q = threadIdx.x; q <= highest[e] - lowest[e]; q += kSampleThreads) {
        stagedPiece[e][q] = env[e].piece[lowest[e] + q];
        stagedKnot[e][q] = env[e].pos[lowest[e] + q];
      }
    }
    int before = 0;
    Scan(tmp.scan).ExclusiveSum(mine, before);  // its barrier also publishes the staged data
    int seen[2];  // extrema of each kind at or before the current sample
    int piece[2] = {-1, -1};
    PieceCoefficients<R> c[2];
    std::int32_t t0[2];
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e)
      // Read again rather than kept across the scan: kept, they took the kernel from 48 to 60
      // registers and one resident block per SM fewer (ptxas for sm_90).
      seen[e] = v.countsOf(s, e)[blockIdx.x] + (e == 0 ? highHalf(before) : lowHalf(before));
    int above1 = 0, above2 = 0;
    // Sample j of the run with both envelopes' values: the stop statistics and the next
    // candidate (staged).
    auto finish = [&](int j, const R(&value)[2]) {
      if (rilling) {  // only Rilling uses them
        const R ratio = sift::stopRatio(value[0], value[1]);
        above1 += ratio > static_cast<R>(rule.threshold1);
        above2 += ratio > static_cast<R>(rule.threshold2);
      }
      R& xi = staged[stagedIndex(first + j)];
      xi = xi - (value[0] + value[1]) / 2;
    };
    // Most warps take the direct walk: every lane's run lies after the first and before the last
    // extremum of each kind, so the piece of a sample is knot leftCount + c - 1 (pieceAt without
    // its end searches: c, the extrema at or before the sample, is neither 0 nor all of them), it
    // moves only where the run has an extremum of that kind, and every piece is staged. The
    // general walk below issued some 45 instructions per sample and envelope, most of them for
    // the cases this one excludes (SASS of an H200 profile: pieceAt's tests, the address of a
    // piece in global memory beside the staged one, predicated off but issued); the same piece
    // gives the same bits.
    bool direct = first + kRunSamples <= samples;
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e) {
      const int inRun = e == 0 ? highHalf(mine) : lowHalf(mine);
      const int lo = env[e].leftCount + seen[e] - 1, hi = lo + inRun;
      direct = direct && seen[e] >= 1 && seen[e] + inRun < env[e].interior && lo >= lowest[e] &&
               hi <= highest[e];
    }
    if (__all_sync(0xffffffffu, direct)) {
      const int i0 = static_cast<int>(begin) + first;
      int q[2];  // the staged piece of each envelope
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e) q[e] = env[e].leftCount + seen[e] - 1 - lowest[e];
      // Unrolled by 4, not 8: fully unrolled, nvcc hoisted every sample's piece loads to the top
      // (85 registers instead of 48, ptxas for sm_90). Measured on an H200 (docs/emd.md), 4 ran
      // faster than 1; 2 and 8 were within the runs' spread of 4.
      unsigned long long rest = flags;  // sample j's flag in the lowest byte
#pragma unroll 4
      for (int j = 0; j < kRunSamples; ++j, rest >>= 8) {
        R value[2];
        MODESCOPE_UNROLL
        for (int e = 0; e < 2; ++e) {
          const bool moves = (rest >> e) & 1u;  // kMaximum is bit 0, kMinimum bit 1
          q[e] += moves;
          if (j == 0 || moves) {
            c[e] = stagedPiece[e][q[e]];
            t0[e] = stagedKnot[e][q[e]];
          }
          value[e] = sift::splineValueFrom(c[e].y, c[e].s, c[e].c2, c[e].c3, i0 + j - t0[e]);
        }
        finish(j, value);
      }
    } else {
      MODESCOPE_UNROLL
      for (int j = 0; j < kRunSamples; ++j) {
        if (first + j < samples) {
          // int: knot positions are int32, so are the samples (and int offsets convert faster).
          const int i = static_cast<int>(begin) + first + j;
          seen[0] += isMaximumAt(flags, j);
          seen[1] += isMinimumAt(flags, j);
          R value[2];
          MODESCOPE_UNROLL
          for (int e = 0; e < 2; ++e) {
            const int k = env[e].pieceAt(i, seen[e]);
            if (k != piece[e]) {
              piece[e] = k;
              const bool inTile = k >= lowest[e] && k <= highest[e];
              c[e] = inTile ? stagedPiece[e][k - lowest[e]] : env[e].piece[k];
              t0[e] = inTile ? stagedKnot[e][k - lowest[e]] : env[e].pos[k];
            }
            value[e] = sift::splineValueFrom(c[e].y, c[e].s, c[e].c2, c[e].c3, i - t0[e]);
          }
          finish(j, value);
        }
      }
    }
    __syncthreads();
    for (int j = threadIdx.x; j < samples; j += kSampleThreads) tileOut[j] = staged[stagedIndex(j)];
    if (rilling) {
      const int a = Reduce(tmp.sum).Sum(packPair(above1, above2));
      if (threadIdx.x == 0) {
        if (highHalf(a)) atomicAdd(&v.counters[s * kCounters + kAbove1], highHalf(a));
        if (lowHalf(a)) atomicAdd(&v.counters[s * kCounters + kAbove2], lowHalf(a));
      }
    }
    __syncthreads();  // staged and tmp are reused by the next signal
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
  const std::size_t knots = 2 * static_cast<std::size_t>(knotCapFor(n));
  return static_cast<std::size_t>(n) * 2 * sizeof(R) + static_cast<std::size_t>(flagPitchFor(n)) +
         knots * (sizeof(std::int32_t) + 2 * sizeof(R) + sizeof(PieceCoefficients<R>)) +
         2 * static_cast<std::size_t>(sweepCapFor(n)) * sizeof(SweepRow<R>) +
         2 * sizeof(int) * static_cast<std::size_t>(tilesFor(n) + 1) + 64;
}

template <class R>
BatchSifter<R>::BatchSifter(std::int64_t n, int capacity, cudaStream_t stream)
    : n_(n), capacity_(capacity), knotCap_(static_cast<int>(knotCapFor(n))), stream_(stream) {
  const std::size_t rows = static_cast<std::size_t>(capacity) * static_cast<std::size_t>(n);
  const std::size_t knots = static_cast<std::size_t>(capacity) * 2 * knotCap_;
  cand_[0] = DeviceBuffer<R>(rows);
  cand_[1] = DeviceBuffer<R>(rows);
  flags_ = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(capacity) * flagPitchFor(n));
  knotPos_ = DeviceBuffer<std::int32_t>(knots);
  knotVal_ = DeviceBuffer<R>(knots);
  knotSlope_ = DeviceBuffer<R>(knots);
  sweep_ = DeviceBuffer<SweepRow<R>>(static_cast<std::size_t>(capacity) * 2 * sweepCap());
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
  tileCounts_ = DeviceBuffer<int>(static_cast<std::size_t>(capacity) * 2 * (tileCount() + 1));
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
                flagPitchFor(n_),
                knotPos_.get(),
                knotVal_.get(),
                knotSlope_.get(),
                sweep_.get(),
                sweepCap(),
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
                tileCounts_.get(),
                static_cast<int>(tileCount())};
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
  const dim3 sampleGrid(static_cast<unsigned>(tileCount()), gridY(count));
  // How often the host looks at the number of signals still sifting: often enough that a
  // converged batch does not run many empty iterations, rarely enough that the copy and the
  // wait do not stall the queue (five launches per iteration take ~10 us to issue).
  const int checkEvery = 4;
  lastIterations_ = 0;
  for (int it = 0;; ++it) {
    if (it % checkEvery == 0) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(active_.get(), 0, sizeof(int), stream_));
    }
    // The tiles' extremum counts are summed by atomics (a plateau's extremum may be counted from
    // an earlier tile).
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(
        tileCounts_.get(), 0, static_cast<std::size_t>(count) * 2 * (tileCount() + 1) * sizeof(int),
        stream_));
    // Zero crossings feed only the Rilling and S-number tests.
    flagExtremaKernel<<<sampleGrid, kSampleThreads, 0, stream_>>>(
        v, it == 0, r.kind != static_cast<int>(sift::StopKind::Fixed));
    MODESCOPE_CUDA_CHECK_LAUNCH("flagExtremaKernel", stream_);
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
    // decideStop counts every iteration of a signal still sifting, so after `cap` iterations
    // every signal has stopped: a fixed number of sifts ends without asking the device (and
    // without the empty iterations that waiting for the next check launched).
    if (it + 1 >= std::max(r.cap, 1)) break;
    if (it % checkEvery == checkEvery - 1) {
      // active_ counts the signals that sifted on in any iteration since the last reset; zero
      // means every signal stopped before or at the last of them.
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(activeHost_.get(), active_.get(), sizeof(int),
                                         cudaMemcpyDeviceToHost, stream_));
      MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream_));
      ctx.checkpoint();
      if (*activeHost_.get() == 0) break;
    }
  }
  publishImfsKernel<<<perSignalBlocks, 128, 0, stream_>>>(v);
  MODESCOPE_CUDA_CHECK_LAUNCH("publishImfsKernel", stream_);
}

template class BatchSifter<float>;
template class BatchSifter<double>;

}  // namespace modescope::cuda
