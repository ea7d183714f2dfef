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
constexpr int kScanThreads = 256;
constexpr int kScanItems = 16;  // flags per thread per tile: fewer serial tiles per signal

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
  R* knotWork;  // Thomas scratch, then each piece's quadratic coefficient
  R* knotC3;    // each piece's cubic coefficient
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

template <class R>
__global__ void compactKnotsKernel(SiftView<R> v) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage scanTmp;
  const int s = blockIdx.x;
  if (s >= v.count || v.status[s] != kSifting) return;
  const R* x = v.candidate(s);
  const std::uint8_t* flags = v.flags + static_cast<std::size_t>(s) * v.n;
  std::int32_t* posMax = v.knotPos + v.knotBase(s, 0) + kMirrored;
  std::int32_t* posMin = v.knotPos + v.knotBase(s, 1) + kMirrored;
  R* valMax = v.knotVal + v.knotBase(s, 0) + kMirrored;
  R* valMin = v.knotVal + v.knotBase(s, 1) + kMirrored;
  int runMax = 0, runMin = 0;
  constexpr int tile = kScanThreads * kScanItems;
  for (std::int64_t t0 = 0; t0 < v.n; t0 += tile) {
    const std::int64_t first = t0 + static_cast<std::int64_t>(threadIdx.x) * kScanItems;
    std::uint8_t f[kScanItems];
    int cmax = 0, cmin = 0;
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      f[k] = first + k < v.n ? flags[first + k] : 0;
      cmax += f[k] == kMaximum;
      cmin += f[k] == kMinimum;
    }
    // Both counts in one scan: a tile holds at most 4096 of each, so 16 bits each suffice.
    int packed = cmax | (cmin << 16), total = 0;
    Scan(scanTmp).ExclusiveSum(packed, packed, total);
    int oMax = runMax + (packed & 0xFFFF), oMin = runMin + (packed >> 16);
    // kScanItems * 16 = kSampleThreads: every 16th thread starts a sample block.
    static_assert(kScanItems * 16 == kSampleThreads, "sample blocks must start at thread starts");
    if (threadIdx.x % 16 == 0 && first < v.n) {
      const std::int64_t b = first / kSampleThreads;
      v.countsOf(s, 0)[b] = oMax;
      v.countsOf(s, 1)[b] = oMin;
    }
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      if (f[k] == kMaximum) {
        posMax[oMax] = static_cast<std::int32_t>(first + k);
        valMax[oMax++] = x[first + k];
      } else if (f[k] == kMinimum) {
        posMin[oMin] = static_cast<std::int32_t>(first + k);
        valMin[oMin++] = x[first + k];
      }
    }
    runMax += total & 0xFFFF;
    runMin += total >> 16;
    __syncthreads();  // scanTmp is reused by the next tile
  }
  if (threadIdx.x != 0) return;
  int* c = v.counters + s * kCounters;
  c[kMaxima] = runMax;
  c[kMinima] = runMin;
  v.countsOf(s, 0)[v.sampleBlocks] = runMax;
  v.countsOf(s, 1)[v.sampleBlocks] = runMin;
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

// One warp per signal and envelope.
template <class R>
__global__ void solveSplinesKernel(SiftView<R> v) {
  const int warp =
      static_cast<int>((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32);
  const int lane = threadIdx.x % 32;
  const int s = warp / 2, e = warp % 2;
  if (s >= v.count || v.status[s] != kSifting || v.counters[s * kCounters + kEnvFailed]) return;
  const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
  const int n = v.knotCount[s * 2 + e];
  const std::int32_t* t = v.knotPos + base;
  const R* y = v.knotVal + base;
  R* slope = v.knotSlope + base;
  R* work = v.knotWork + base;
  if (n - 2 < kSerialSplineRows) {
    if (lane == 0) sift::splineSlopes(t, y, n, slope, work);
  } else {
    const auto ends = sift::splineEnds(t, y, n);
    const int rows = n - 2, chunk = (rows + 31) / 32;
    const int first = 1 + lane * chunk;
    const int last = min(n - 1, first + chunk);
    if (first < last) {
      sift::splineSlopeRows(t, y, n, ends, first, last, sift::kSplineOverlap, slope, work);
    }
    __syncwarp();  // s[1] and s[n-2] come from the first and the last piece
    if (lane == 0) sift::splineEndSlopes(t, n, ends, slope);
  }
  __syncwarp();
  // Each piece's coefficients once, instead of three divisions per sample in the evaluation.
  R* c3 = v.knotC3 + base;
  for (int k = lane; k < n - 1; k += 32)
    sift::splinePieceCoefficients(t, y, slope, k, work[k], c3[k]);
}

template <class R>
__global__ void evaluateMeanKernel(SiftView<R> v, RuleView rule) {
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  // Knot positions covering this block's samples, per envelope: at most one knot per sample
  // plus the pieces reaching in from both sides.
  __shared__ std::int32_t pos[2][kSampleThreads + 2];
  __shared__ int lo[2], len[2];
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    if (v.status[s] != kSifting || v.counters[s * kCounters + kEnvFailed]) continue;
    int above1 = 0, above2 = 0;
    const R* x = v.candidate(s);
    R* next = v.other(s);
    for (int tile = 0; tile < kTilesPerBlock; ++tile) {
      const std::int64_t tileIndex = static_cast<std::int64_t>(blockIdx.x) * kTilesPerBlock + tile;
      const std::int64_t begin = tileIndex * kSampleThreads;
      if (begin >= v.n) break;  // uniform over the block
      if (threadIdx.x < 2) {
        // The window of knots from the last one before `begin` to the first one after the
        // tile's end (clamped to the knots): every piece covering a sample of this tile lies
        // inside it, so a search within the window finds the piece the whole-array search finds.
        const int e = threadIdx.x;
        const int left = kMirrored - v.knotStart[s * 2 + e];  // mirrored knots before the extrema
        const int count = v.knotCount[s * 2 + e];
        const int* counts = v.countsOf(s, e);
        const int a = min(count - 2, max(0, left + counts[tileIndex] - 1));
        const int b = max(a + 1, min(count - 1, left + counts[tileIndex + 1]));
        lo[e] = a;
        len[e] = b - a + 1;
      }
      __syncthreads();
      for (int e = 0; e < 2; ++e) {
        const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
        for (int k = threadIdx.x; k < len[e]; k += kSampleThreads)
          pos[e][k] = v.knotPos[base + lo[e] + k];
      }
      __syncthreads();
      const std::int64_t i = begin + threadIdx.x;
      if (i < v.n) {
        R env[2];
        for (int e = 0; e < 2; ++e) {
          const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
          const int k = lo[e] + sift::splinePiece(pos[e], len[e], i);
          env[e] = sift::splineValueFrom(v.knotVal[base + k], v.knotSlope[base + k],
                                         v.knotWork[base + k], v.knotC3[base + k],
                                         i - pos[e][k - lo[e]]);
        }
        if (rule.kind == static_cast<int>(sift::StopKind::Rilling)) {  // only Rilling uses them
          const R ratio = sift::stopRatio(env[0], env[1]);
          above1 += ratio > static_cast<R>(rule.threshold1);
          above2 += ratio > static_cast<R>(rule.threshold2);
        }
        next[i] = x[i] - (env[0] + env[1]) / 2;
      }
      __syncthreads();  // lo, len and pos are rewritten by the next tile
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
         knots * (sizeof(std::int32_t) + 4 * sizeof(R)) +
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
  knotC3_ = DeviceBuffer<R>(knots);
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
                knotC3_.get(),
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
    compactKnotsKernel<<<count, kScanThreads, 0, stream_>>>(v);
    MODESCOPE_CUDA_CHECK_LAUNCH("compactKnotsKernel", stream_);
    // One warp per envelope, 4 warps per block.
    solveSplinesKernel<<<(2 * count + 3) / 4, 128, 0, stream_>>>(v);
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
