// The device MemdSiftEngine (cuda_memd.h): memd.m's envelope step over directions streamed in
// chunks, every numerical step the EMD family's shared primitive (engine/emd/sift_primitives.h),
// so the result equals the CPU engine's (engine/memd/memd_cpu.cpp) to rounding. First
// transposeKernel writes the candidate as samples x channels (the knots' values are gathered from
// it a line per sample); then per chunk of directions, six launches:
//   projectKernel     one thread per (sample, direction): y = m . d_k
//   flagKernel        one thread per (sample, direction): run starts classify their run
//                     (plateaus collapse to their middle); zero crossings counted per direction
//   compactKernel     one block per direction: a block scan of the flags writes the maxima and
//                     minima positions after two free slots for the mirrored left knots
//   boundaryKernel    one thread per direction: fewer than 3 extrema or no mirror leaves it out;
//                     else the mirrored knots (NBSYM 2, decided on the projection)
//   solveKernel       one block per (direction, envelope, 32 channels): the channels' values at
//                     the shared knots and the not-a-knot slopes, pieces of the system swept
//                     with overlaps, lanes as channels
//   evaluateKernel    one block per 64 samples, lanes as channels: for the chunk's directions in
//                     order, both envelopes of every channel, summed into mean (dims x n) and
//                     |U - L| / 2 into amp
// After the last chunk, finishKernel divides by the directions kept and sigmaKernel counts the
// samples above sd and sd2 (sigma as memd.m: divided by amp only when no amp is 0). The sums run
// over directions in order for each (sample, channel): no atomics on values, so a run repeats bit
// for bit. One small copy of the statistics per sift goes back to the host (the driver decides).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_memd.h"
#include "cuda/device_memory.cuh"
#include "cuda/device_ops.cuh"
#include "engine/emd/sift_primitives.h"
#include "engine/memd/memd_memory.h"
#include "engine/parallel/parallel_for.h"

namespace modescope::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kScanThreads = 512;
constexpr int kLeftSlots = sift::kMirrored;  // free slots before the first extremum

unsigned blocksFor(int64_t items, int threads = kThreads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

// The mirrored knots' sources of one envelope of one direction (the interior knots are their own
// sources): knots [start, start + count) of the direction's position array.
struct EnvelopeKnots {
  int start = 0, count = 0, leftCount = 0, interior = 0;
  int32_t leftSrc[sift::kMirrored], rightSrc[sift::kMirrored];
};

__device__ inline int32_t knotSource(const EnvelopeKnots& e, const int32_t* t, int j) {
  if (j < e.leftCount) return e.leftSrc[j];
  if (j >= e.leftCount + e.interior) return e.rightSrc[j - e.leftCount - e.interior];
  return t[j];
}

template <class R>
__global__ void projectKernel(const R* __restrict__ m, int dims, int64_t n,
                              const R* __restrict__ dirs, R* __restrict__ proj) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int k = blockIdx.y;
  if (p >= n) return;
  const R* d = dirs + static_cast<int64_t>(k) * dims;
  R s = 0;
  for (int c = 0; c < dims; ++c) s += d[c] * m[static_cast<int64_t>(c) * n + p];
  proj[static_cast<int64_t>(k) * n + p] = s;
}

template <class R>
__global__ void flagKernel(const R* __restrict__ proj, int64_t n, uint8_t* __restrict__ flags,
                           int* __restrict__ zeroCrossings) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int k = blockIdx.y;
  const R* y = proj + static_cast<int64_t>(k) * n;
  int z = 0;
  if (p < n) {
    if (sift::startsRun(y, p)) sift::classifyRun(y, n, p, flags + static_cast<int64_t>(k) * n);
    z = sift::zeroCrossingsAt(y, n, p);
  }
  // z is 0, 1 or 2: two block counts instead of an atomic per thread.
  const int ones = __syncthreads_count(z >= 1);
  const int twos = __syncthreads_count(z >= 2);
  if (threadIdx.x == 0 && ones + twos > 0) atomicAdd(zeroCrossings + k, ones + twos);
}

// Positions of the maxima (envelope 0) and minima (envelope 1) of direction blockIdx.x, from slot
// kLeftSlots of its row of `cap` positions; counts[2k + e] = how many.
__global__ void compactKernel(const uint8_t* __restrict__ flags, int64_t n, int64_t cap,
                              int32_t* __restrict__ tMax, int32_t* __restrict__ tMin,
                              int* __restrict__ counts) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ int carry[2];
  const int k = blockIdx.x;
  const uint8_t* f = flags + static_cast<int64_t>(k) * n;
  int32_t* outMax = tMax + static_cast<int64_t>(k) * cap + kLeftSlots;
  int32_t* outMin = tMin + static_cast<int64_t>(k) * cap + kLeftSlots;
  if (threadIdx.x == 0) carry[0] = carry[1] = 0;
  __syncthreads();
  for (int64_t base = 0; base < n; base += kScanThreads) {
    const int64_t p = base + threadIdx.x;
    const uint8_t flag = p < n ? f[p] : sift::kNotExtremum;
    // Maxima in the low 16 bits, minima in the high: one scan counts both (<= 512 each).
    const int packed = (flag == sift::kMaximum ? 1 : 0) | (flag == sift::kMinimum ? 1 << 16 : 0);
    int before = 0, total = 0;
    Scan(temp).ExclusiveSum(packed, before, total);
    if (flag == sift::kMaximum) outMax[carry[0] + (before & 0xFFFF)] = static_cast<int32_t>(p);
    if (flag == sift::kMinimum) outMin[carry[1] + (before >> 16)] = static_cast<int32_t>(p);
    __syncthreads();
    if (threadIdx.x == 0) {
      carry[0] += total & 0xFFFF;
      carry[1] += total >> 16;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    counts[2 * k] = carry[0];
    counts[2 * k + 1] = carry[1];
  }
}

// Direction k of the chunk (global index first + k): extrema count, whether it is kept, and the
// mirrored knots written around its extrema.
template <class R>
__global__ void boundaryKernel(const R* __restrict__ proj, int64_t n, int64_t cap, int count,
                               int first, int32_t* __restrict__ tMax, int32_t* __restrict__ tMin,
                               const int* __restrict__ counts, EnvelopeKnots* __restrict__ knots,
                               int* __restrict__ kept, int* __restrict__ extrema,
                               int* __restrict__ keptTotal) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int nmax = counts[2 * k], nmin = counts[2 * k + 1];
  extrema[first + k] = nmax + nmin;
  kept[k] = 0;
  if (sift::tooFewExtrema(nmax, nmin)) return;
  int32_t* t[2] = {tMax + static_cast<int64_t>(k) * cap, tMin + static_cast<int64_t>(k) * cap};
  sift::Boundaries b;
  if (!sift::mirrorBoundaries(proj + static_cast<int64_t>(k) * n, static_cast<int32_t>(n),
                              t[0] + kLeftSlots, nmax, t[1] + kLeftSlots, nmin, b))
    return;
  const sift::EndKnots* ends[2] = {&b.max, &b.min};
  const int interior[2] = {nmax, nmin};
  for (int e = 0; e < 2; ++e) {
    EnvelopeKnots kn;
    kn.leftCount = ends[e]->leftCount;
    kn.interior = interior[e];
    kn.start = kLeftSlots - kn.leftCount;
    kn.count = kn.leftCount + kn.interior + ends[e]->rightCount;
    for (int j = 0; j < kn.leftCount; ++j) {
      t[e][kn.start + j] = ends[e]->leftPos[j];
      kn.leftSrc[j] = ends[e]->leftSrc[j];
    }
    for (int j = 0; j < ends[e]->rightCount; ++j) {
      t[e][kLeftSlots + kn.interior + j] = ends[e]->rightPos[j];
      kn.rightSrc[j] = ends[e]->rightSrc[j];
    }
    knots[2 * k + e] = kn;
  }
  kept[k] = 1;
  atomicAdd(keptTotal, 1);
}

// The candidate transposed to samples x channels, so that a warp whose lanes are channels reads
// one sample's values as one line (the knot values are gathered from it).
constexpr int kTile = 32;
template <class R>
__global__ void transposeKernel(const R* __restrict__ m, int dims, int64_t n, R* __restrict__ mT) {
  __shared__ R tile[kTile][kTile + 1];
  const int64_t p0 = blockIdx.x * int64_t{kTile};
  const int c0 = static_cast<int>(blockIdx.y) * kTile;
  for (int i = threadIdx.y; i < kTile; i += blockDim.y) {  // rows: channels
    const int c = c0 + i;
    const int64_t p = p0 + threadIdx.x;
    if (c < dims && p < n) tile[i][threadIdx.x] = m[static_cast<int64_t>(c) * n + p];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTile; i += blockDim.y) {  // rows: samples
    const int64_t p = p0 + i;
    const int c = c0 + static_cast<int>(threadIdx.x);
    if (c < dims && p < n) mT[p * dims + c] = tile[threadIdx.x][i];
  }
}

// Knot values and slopes of a chunk: [(k * 2 + e) * cap + j] * dims + c, so the lanes of a warp
// (channels) touch consecutive values. The elimination factors depend only on the knots, so they
// are stored once per channel group: [((k * 2 + e) * groups + g) * cap + j].
struct KnotLayout {
  int dims, groups;
  int64_t cap;
  __device__ int64_t value(int kk, int j, int c) const {
    return (static_cast<int64_t>(kk) * cap + j) * dims + c;
  }
  __device__ int64_t factor(int kk, int g, int j) const {
    return (static_cast<int64_t>(kk) * groups + g) * cap + j;
  }
};

// Rows of the overlap: a change at one row of the (diagonally dominant) reduced system moves the
// solution d rows away by at most 2^-d of it (engine/emd/sift_primitives.h), so 32 rows are below
// float rounding and 64 below double's.
template <class R>
constexpr int memdOverlap() {
  return sizeof(R) == 4 ? 32 : 64;
}
constexpr int kMemdPieceRows = 128;  // rows of the reduced system per piece (plus the overlaps)

// Rows [first, last) of the not-a-knot slopes of one spline system for the 32 channels of one
// warp (lane = channel; lanes past the last channel compute the shared factors only). Thomas
// sweep from `overlap` rows before `first` to `overlap` rows after `last` (clipped), as
// sift::splineSlopeRows for one system, with the factors that depend on the knots alone
// computed by every lane alike and stored once per group.
template <class R, class Values>
__device__ void memdSlopeRows(const int32_t* t, int n, const sift::SplineEnds<R>& ends, int first,
                              int last, Values value, int c, bool active, KnotLayout L, int kk,
                              int g, R* y, R* s, R* work) {
  constexpr int kOverlap = memdOverlap<R>();
  const int start = max(1, first - kOverlap);
  const int stop = min(n - 2, last - 1 + kOverlap);  // inclusive
  R tailWork[kOverlap], tailS[kOverlap];
  R prevWork = 0, prevS = 0;
  R dxPrev = static_cast<R>(t[start] - t[start - 1]);
  R yCur = value(start);
  R ddPrev = (yCur - value(start - 1)) / dxPrev;
  int32_t tCur = t[start];
  for (int k = start; k <= stop; ++k) {
    const int32_t tNext = t[k + 1];
    const R yNext = value(k + 1);
    const R dxk = static_cast<R>(tNext - tCur);
    const R ddk = (yNext - yCur) / dxk;
    sift::splineSweepRow(k, start, n, ends, dxPrev, dxk, ddPrev, ddk, prevWork, prevS);
    if (k >= first && k < last) {
      if ((c & 31) == 0) work[L.factor(kk, g, k)] = prevWork;
      if (active) {
        s[L.value(kk, k, c)] = prevS;
        y[L.value(kk, k, c)] = yCur;
      }
    } else if (k >= last) {
      tailWork[k - last] = prevWork;
      tailS[k - last] = prevS;
    }
    dxPrev = dxk;
    ddPrev = ddk;
    tCur = tNext;
    yCur = yNext;
  }
  __syncwarp();  // the factors written by lane 0 are read by every lane below
  R next = prevS;
  for (int k = stop - 1; k >= last; --k) next = tailS[k - last] - tailWork[k - last] * next;
  int k1 = last - 1;
  if (stop == last - 1) {
    if (active) s[L.value(kk, k1, c)] = next;
    --k1;
  }
  for (; k1 >= first; --k1) {
    if (!active) continue;
    const int64_t at = L.value(kk, k1, c);
    next = s[at] - work[L.factor(kk, g, k1)] * next;
    s[at] = next;
  }
}

// One block per (direction, envelope, group of 32 channels): its warps take the pieces of the
// system in turn. One thread per (direction, envelope, channel) walking its own row was 42-58 %
// of a sift's device time (ncu, H200, 32 x 30,504 x 64 and 64 x 102,401 x 128).
constexpr int kSolveWarps = 8;
template <class R>
__global__ void __launch_bounds__(kSolveWarps * 32)
    solveKernel(const R* __restrict__ mT, KnotLayout L, const int32_t* __restrict__ tMax,
                const int32_t* __restrict__ tMin, const EnvelopeKnots* __restrict__ knots,
                const int* __restrict__ kept, R* __restrict__ y, R* __restrict__ s,
                R* __restrict__ work) {
  const int kk = blockIdx.x, k = kk / 2, e = kk % 2, g = blockIdx.y;
  if (!kept[k]) return;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int c = g * 32 + lane;
  const bool active = c < L.dims;
  const EnvelopeKnots kn = knots[kk];
  const int32_t* t = (e == 0 ? tMax : tMin) + static_cast<int64_t>(k) * L.cap + kn.start;
  const int n = kn.count;
  auto value = [&](int j) {
    return active ? mT[static_cast<int64_t>(knotSource(kn, t, j)) * L.dims + c] : R(0);
  };
  if (n <= 3) {  // the line or the parabola (spline.m), one warp
    if (warp == 0 && active) {
      R yv[3], sv[3], wv[3];
      for (int j = 0; j < n; ++j) yv[j] = value(j);
      sift::splineSlopes(t, yv, n, sv, wv);
      for (int j = 0; j < n; ++j) {
        y[L.value(kk, j, c)] = yv[j];
        s[L.value(kk, j, c)] = sv[j];
      }
    }
    return;
  }
  const sift::SplineEnds<R> endRows = sift::splineEndsOf<R>(t, value, n);
  const int rows = n - 2;
  const int pieces = max(1, rows / kMemdPieceRows);
  const int chunk = (rows + pieces - 1) / pieces;
  for (int piece = warp; piece < pieces; piece += kSolveWarps) {
    const int first = 1 + piece * chunk;
    const int last = min(n - 1, first + chunk);
    if (first >= last) continue;
    memdSlopeRows(t, n, endRows, first, last, value, c, active, L, kk, g, y, s, work);
  }
  __syncthreads();  // s[1] and s[n-2] come from the first and the last piece
  if (warp == 0 && active) {
    // The end knots' values and slopes (rows 0 and n-1 were eliminated from the system).
    const int64_t a0 = L.value(kk, 0, c), a1 = L.value(kk, 1, c);
    const int64_t b0 = L.value(kk, n - 1, c), b1 = L.value(kk, n - 2, c);
    y[a0] = value(0);
    y[b0] = value(n - 1);
    s[a0] = sift::splineLeftEndSlope(t, endRows, s[a1]);
    s[b0] = sift::splineRightEndSlope(t, n, endRows, s[b1]);
  }
}

// Both envelopes of every channel at kEvalSamples samples per block, for the chunk's directions
// in order, added into mean (dims x n) and |U - L| / 2 into amp. Directions go in batches of
// kEvalBatch: the warps first find each direction's spline pieces at the block's samples (lane =
// sample, into shared memory); then each warp walks kEvalRun consecutive samples with lane =
// channel, so a piece's knot values and slopes are read as lines once and kept in registers while
// the next samples stay on the same piece (the coefficients too: no loads and no divisions for
// them). The channel's mean stays in a register across the batch (the additions happen in
// direction order, as the CPU's, so chunking does not change a bit); the squared envelope
// difference is summed over the channels by warp shuffles (and over channel groups in shared
// memory) before the square root. Measured with ncu on the H200 at 32 x 30,504 x 64: one thread
// per sample walking every channel and direction took 3.8 ms per sift; lanes as channels with
// the pieces reloaded for every sample, 1.0-1.1 ms (each warp's lines did not stay in L1).
// Block shapes, whole run end to end (memd_bench, same call): 4 warps x 16 samples 0.150-0.164 s,
// 8 x 8 0.129-0.132 s, 16 x 4 0.152-0.157 s, 8 x 16 0.149-0.166 s: twice the warps hide more of
// the latency of a piece's loads, which at the first IMFs comes every few samples.
constexpr int kEvalWarps = 8;
constexpr int kEvalRun = 8;  // consecutive samples per warp
constexpr int kEvalSamples = kEvalWarps * kEvalRun;
constexpr int kEvalBatch = 16;
template <class R>
__global__ void __launch_bounds__(kEvalWarps * 32)
    evaluateKernel(KnotLayout L, int64_t n, int count, const int32_t* __restrict__ tMax,
                   const int32_t* __restrict__ tMin, const EnvelopeKnots* __restrict__ knots,
                   const int* __restrict__ kept, const R* __restrict__ y, const R* __restrict__ s,
                   R* __restrict__ mean, R* __restrict__ amp) {
  __shared__ int piece[kEvalBatch][2][kEvalSamples];
  __shared__ int keptShared[kEvalBatch];
  __shared__ const int32_t* knotsAt[kEvalBatch][2];  // the envelope's first knot position
  __shared__ R sq[kEvalBatch][kEvalSamples];         // sum over channels of (U - L)^2
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int64_t p0 = blockIdx.x * int64_t{kEvalSamples};
  const int i0 = warp * kEvalRun;  // this warp's samples: p0 + i0 .. p0 + i0 + kEvalRun - 1
  for (int k0 = 0; k0 < count; k0 += kEvalBatch) {
    const int batch = min(kEvalBatch, count - k0);
    for (int item = warp; item < 2 * batch; item += kEvalWarps) {
      const int b = item / 2, e = item % 2, k = k0 + b;
      if (e == 0) {
        if (lane == 0) keptShared[b] = kept[k];
        for (int i = lane; i < kEvalSamples; i += 32) sq[b][i] = 0;
      }
      if (!kept[k]) continue;
      const EnvelopeKnots kn = knots[2 * k + e];
      const int32_t* t = (e == 0 ? tMax : tMin) + static_cast<int64_t>(k) * L.cap + kn.start;
      for (int i = lane; i < kEvalSamples; i += 32)
        piece[b][e][i] = p0 + i < n ? sift::splinePiece(t, kn.count, p0 + i) : 0;
      if (lane == 0) knotsAt[b][e] = t;
    }
    __syncthreads();
    const int64_t left = n - p0 - i0;  // samples from this warp's first to the end
    const int run = left <= 0 ? 0 : (left < kEvalRun ? static_cast<int>(left) : kEvalRun);
    for (int g = 0; g < L.groups && run > 0; ++g) {
      const int c = g * 32 + lane;
      const bool active = c < L.dims;
      R acc[kEvalRun];
      MODESCOPE_UNROLL
      for (int i = 0; i < kEvalRun; ++i)
        acc[i] = active && i < run ? mean[static_cast<int64_t>(c) * n + p0 + i0 + i] : R(0);
      for (int b = 0; b < batch; ++b) {
        if (!keptShared[b]) continue;
        const int kk = 2 * (k0 + b);
        // The current piece of each envelope: first knot, value, slope, coefficients.
        int at[2] = {-1, -1};
        int32_t t0[2] = {0, 0};
        R y0[2] = {0, 0}, s0[2] = {0, 0}, c2[2] = {0, 0}, c3[2] = {0, 0};
        MODESCOPE_UNROLL
        for (int i = 0; i < kEvalRun; ++i) {
          if (i >= run) break;
          const int64_t p = p0 + i0 + i;
          R env[2];
          MODESCOPE_UNROLL
          for (int e = 0; e < 2; ++e) {
            const int j = piece[b][e][i0 + i];
            if (j != at[e]) {  // the same for every lane: the sample's piece
              at[e] = j;
              const int32_t* t = knotsAt[b][e];
              t0[e] = t[j];
              if (active) {
                const int64_t here = L.value(kk + e, j, c), next = L.value(kk + e, j + 1, c);
                y0[e] = y[here];
                s0[e] = s[here];
                sift::splineCoefficientsOf(t[j], t[j + 1], y0[e], y[next], s0[e], s[next], c2[e],
                                           c3[e]);
              }
            }
            env[e] = active ? sift::splineValueFrom(y0[e], s0[e], c2[e], c3[e], p - t0[e]) : R(0);
          }
          acc[i] += (env[0] + env[1]) / 2;
          R d2 = (env[0] - env[1]) * (env[0] - env[1]);
          MODESCOPE_UNROLL
          for (int off = 16; off > 0; off /= 2) d2 += __shfl_xor_sync(0xFFFFFFFFu, d2, off);
          if (lane == 0) sq[b][i0 + i] += d2;  // this warp's own samples: no other writer
        }
      }
      MODESCOPE_UNROLL
      for (int i = 0; i < kEvalRun; ++i)
        if (active && i < run) mean[static_cast<int64_t>(c) * n + p0 + i0 + i] = acc[i];
    }
    __syncwarp();
    if (lane < run) {
      const int64_t p = p0 + i0 + lane;
      R a = amp[p];
      for (int b = 0; b < batch; ++b) {
        // Added per direction, as the CPU adds its slots: the same order of additions.
        if (keptShared[b]) a += sqrt(sq[b][i0 + lane]) / 2;
      }
      amp[p] = a;
    }
    __syncthreads();
  }
}

// mean /= kept, amp /= kept; flags any amp that is 0.
template <class R>
__global__ void finishKernel(int dims, int64_t n, const int* __restrict__ keptTotal,
                             R* __restrict__ mean, R* __restrict__ amp, int* __restrict__ ampZero) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (p >= n || *keptTotal == 0) return;
  const R inv = R(1) / static_cast<R>(*keptTotal);
  for (int c = 0; c < dims; ++c) mean[static_cast<int64_t>(c) * n + p] *= inv;
  amp[p] *= inv;
  if (amp[p] == 0) atomicOr(ampZero, 1);
}

template <class R>
__global__ void sigmaKernel(int dims, int64_t n, const R* __restrict__ mean,
                            const R* __restrict__ amp, const int* __restrict__ ampZero, double sd,
                            double sd2, unsigned long long* __restrict__ above) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  bool a1 = false, a2 = false;
  if (p < n) {
    R sq = 0;
    for (int c = 0; c < dims; ++c) {
      const R v = mean[static_cast<int64_t>(c) * n + p];
      sq += v * v;
    }
    const R sigma = *ampZero ? sqrt(sq) : sqrt(sq) / amp[p];
    a1 = sigma > sd;
    a2 = sigma > sd2;
  }
  const int c1 = __syncthreads_count(a1);
  const int c2 = __syncthreads_count(a2);
  if (threadIdx.x == 0) {
    if (c1) atomicAdd(above, static_cast<unsigned long long>(c1));
    if (c2) atomicAdd(above + 1, static_cast<unsigned long long>(c2));
  }
}

// max |x| as the bits of a nonnegative float/double (ordered like the values). One atomic per
// block: one per thread serialised 260,000 atomics on one word (0.2 ms per sift, ncu on the H200).
template <class R>
__global__ void maxAbsKernel(const R* __restrict__ x, int64_t count,
                             unsigned long long* __restrict__ bits) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  unsigned long long best = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double v = fabs(static_cast<double>(x[i]));
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
    best = b > best ? b : best;
  }
  const unsigned long long blockBest = Reduce(temp).Reduce(best, MaxOp());
  if (threadIdx.x == 0) atomicMax(bits, blockBest);
}

template <class R>
__global__ void axpyKernel(R* __restrict__ a, const R* __restrict__ b, int64_t count) {
  // a -= b
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < count) a[i] -= b[i];
}

// Statistics copied back once per envelope step.
struct DeviceStats {
  unsigned long long above[2];
  unsigned long long maxAbsBits;
  int keptTotal;
  int ampZero;
};

template <class R>
class DeviceMemdEngine final : public MemdSiftEngine {
 public:
  DeviceMemdEngine(int dims, int64_t n, int directions, int chunk)
      : dims_(dims),
        n_(n),
        K_(directions),
        chunk_(chunk),
        cap_(memdKnotCapacity(n)),
        groups_((dims + 31) / 32),
        block_(static_cast<std::size_t>(dims) * static_cast<std::size_t>(n)),
        r_(block_),
        m_(block_),
        mT_(block_),
        mean_(block_),
        amp_(static_cast<std::size_t>(n)),
        dirs_(static_cast<std::size_t>(directions) * dims),
        proj_(static_cast<std::size_t>(chunk) * n),
        flags_(static_cast<std::size_t>(chunk) * n),
        tMax_(static_cast<std::size_t>(chunk) * cap_),
        tMin_(static_cast<std::size_t>(chunk) * cap_),
        counts_(static_cast<std::size_t>(chunk) * 2),
        knots_(static_cast<std::size_t>(chunk) * 2),
        kept_(static_cast<std::size_t>(chunk)),
        y_(static_cast<std::size_t>(chunk) * 2 * dims * cap_),
        s_(static_cast<std::size_t>(chunk) * 2 * dims * cap_),
        work_(static_cast<std::size_t>(chunk) * 2 * groups_ * cap_),
        extrema_(static_cast<std::size_t>(directions)),
        zero_(static_cast<std::size_t>(directions)),
        stats_(1),
        host_(block_),
        hostStats_(1),
        hostCounts_(2 * static_cast<std::size_t>(directions)) {}

  void load(const std::vector<double>& x, const std::vector<double>& directions) override {
    imfs_.clear();
    upload(x, r_);
    std::vector<R> d(directions.begin(), directions.end());
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dirs_.get(), d.data(), d.size() * sizeof(R),
                                       cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }

  void startImf() override {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(m_.get(), r_.get(), block_ * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_.get()));
  }

  MemdEnvelopeStats envelopeMean(const MemdParams& params) override {
    cudaStream_t st = stream_.get();
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(mean_.get(), 0, block_ * sizeof(R), st));
    MODESCOPE_CUDA_TRY(
        cudaMemsetAsync(amp_.get(), 0, static_cast<std::size_t>(n_) * sizeof(R), st));
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(zero_.get(), 0, zero_.bytes(), st));
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(stats_.get(), 0, sizeof(DeviceStats), st));
    DeviceStats* ds = stats_.get();
    maxAbsKernel<R>
        <<<std::min<unsigned>(blocksFor(static_cast<int64_t>(block_)), 1024), kThreads, 0, st>>>(
            m_.get(), static_cast<int64_t>(block_), &ds->maxAbsBits);
    MODESCOPE_CUDA_CHECK_LAUNCH("maxAbsKernel", st);
    transposeKernel<R>
        <<<dim3(blocksFor(n_, kTile), blocksFor(dims_, kTile)), dim3(kTile, 8), 0, st>>>(
            m_.get(), dims_, n_, mT_.get());
    MODESCOPE_CUDA_CHECK_LAUNCH("transposeKernel", st);
    const KnotLayout layout{dims_, groups_, cap_};
    for (int first = 0; first < K_; first += chunk_) {
      const int count = std::min(chunk_, K_ - first);
      const dim3 grid(blocksFor(n_), static_cast<unsigned>(count));
      projectKernel<R><<<grid, kThreads, 0, st>>>(
          m_.get(), dims_, n_, dirs_.get() + static_cast<int64_t>(first) * dims_, proj_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("projectKernel", st);
      flagKernel<R><<<grid, kThreads, 0, st>>>(proj_.get(), n_, flags_.get(), zero_.get() + first);
      MODESCOPE_CUDA_CHECK_LAUNCH("flagKernel", st);
      compactKernel<<<count, kScanThreads, 0, st>>>(flags_.get(), n_, cap_, tMax_.get(),
                                                    tMin_.get(), counts_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("compactKernel", st);
      boundaryKernel<R><<<blocksFor(count, 64), 64, 0, st>>>(
          proj_.get(), n_, cap_, count, first, tMax_.get(), tMin_.get(), counts_.get(),
          knots_.get(), kept_.get(), extrema_.get(), &ds->keptTotal);
      MODESCOPE_CUDA_CHECK_LAUNCH("boundaryKernel", st);
      solveKernel<R><<<dim3(static_cast<unsigned>(count) * 2, static_cast<unsigned>(groups_)),
                       kSolveWarps * 32, 0, st>>>(mT_.get(), layout, tMax_.get(), tMin_.get(),
                                                  knots_.get(), kept_.get(), y_.get(), s_.get(),
                                                  work_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("solveKernel", st);
      evaluateKernel<R><<<blocksFor(n_, kEvalSamples), kEvalWarps * 32, 0, st>>>(
          layout, n_, count, tMax_.get(), tMin_.get(), knots_.get(), kept_.get(), y_.get(),
          s_.get(), mean_.get(), amp_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("evaluateKernel", st);
    }
    finishKernel<R><<<blocksFor(n_), kThreads, 0, st>>>(dims_, n_, &ds->keptTotal, mean_.get(),
                                                        amp_.get(), &ds->ampZero);
    MODESCOPE_CUDA_CHECK_LAUNCH("finishKernel", st);
    sigmaKernel<R><<<blocksFor(n_), kThreads, 0, st>>>(
        dims_, n_, mean_.get(), amp_.get(), &ds->ampZero, params.sd, params.sd2, ds->above);
    MODESCOPE_CUDA_CHECK_LAUNCH("sigmaKernel", st);
    // Into pinned memory: a copy to pageable memory waits for a staging copy in the driver.
    int* ext = hostCounts_.get();
    int* zc = hostCounts_.get() + K_;
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(hostStats_.get(), ds, sizeof(DeviceStats), cudaMemcpyDeviceToHost, st));
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(ext, extrema_.get(), extrema_.bytes(), cudaMemcpyDeviceToHost, st));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(zc, zero_.get(), zero_.bytes(), cudaMemcpyDeviceToHost, st));
    stream_.synchronize();
    const DeviceStats hs = *hostStats_.get();
    MemdEnvelopeStats out;
    out.extrema.assign(ext, ext + K_);
    out.zeroCrossings.assign(zc, zc + K_);
    out.kept = hs.keptTotal;
    out.aboveSd = hs.keptTotal ? static_cast<int64_t>(hs.above[0]) : 0;
    out.aboveSd2 = hs.keptTotal ? static_cast<int64_t>(hs.above[1]) : 0;
    std::memcpy(&out.maxAbs, &hs.maxAbsBits, sizeof out.maxAbs);
    return out;
  }

  void subtractMean() override {
    axpyKernel<R><<<blocksFor(static_cast<int64_t>(block_)), kThreads, 0, stream_.get()>>>(
        m_.get(), mean_.get(), static_cast<int64_t>(block_));
    MODESCOPE_CUDA_CHECK_LAUNCH("axpyKernel", stream_.get());
  }

  // The IMF stays on the device (a copy of m) until takeRows; when no memory is left for the copy
  // it comes back now instead (the memory plan covers the sifting, not the kept IMFs).
  void finishImf() override {
    DeviceBuffer<R> kept;
    try {
      kept = DeviceBuffer<R>(block_);
    } catch (const OutOfDeviceMemoryError&) {
    }
    if (kept.get() != nullptr) {
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(kept.get(), m_.get(), block_ * sizeof(R),
                                         cudaMemcpyDeviceToDevice, stream_.get()));
      imfs_.push_back({std::move(kept), {}});
    } else {
      std::vector<double> here(block_);
      download(m_, here.data());
      imfs_.push_back({DeviceBuffer<R>(), std::move(here)});
    }
    axpyKernel<R><<<blocksFor(static_cast<int64_t>(block_)), kThreads, 0, stream_.get()>>>(
        r_.get(), m_.get(), static_cast<int64_t>(block_));
    MODESCOPE_CUDA_CHECK_LAUNCH("axpyKernel", stream_.get());
  }

  void takeRows(MemdRows& rows) override {
    const std::size_t first = rows.size();
    rows.resize(first + (imfs_.size() + 1) * block_);
    for (std::size_t k = 0; k <= imfs_.size(); ++k) {
      double* dst = rows.data() + first + k * block_;
      if (k == imfs_.size())
        download(r_, dst);
      else if (imfs_[k].onDevice.get() != nullptr)
        download(imfs_[k].onDevice, dst);
      else
        std::copy(imfs_[k].onHost.begin(), imfs_[k].onHost.end(), dst);
    }
    imfs_.clear();
  }

 private:
  struct KeptImf {
    DeviceBuffer<R> onDevice;    // normally here
    std::vector<double> onHost;  // when the device had no room for it
  };

  void upload(const std::vector<double>& x, DeviceBuffer<R>& dst) {
    for (std::size_t i = 0; i < block_; ++i) host_.get()[i] = static_cast<R>(x[i]);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dst.get(), host_.get(), block_ * sizeof(R),
                                       cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }
  // src (one dims x n block) into dst, widened to double on several threads (a 9-row result of
  // 32 x 30,504 took 28 ms to store on one thread: memd_bench --trace, docs/memd.md).
  void download(const DeviceBuffer<R>& src, double* dst) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(host_.get(), src.get(), block_ * sizeof(R),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    const R* from = host_.get();
    constexpr std::size_t kPiece = std::size_t{1} << 18;
    const std::size_t pieces = (block_ + kPiece - 1) / kPiece;
    const int threads = std::min(8, hardwareThreads());
    parallelFor(pieces, threads, JobContext{}, "copying the modes back", [&] {
      return [&](std::size_t piece) {
        const std::size_t a = piece * kPiece, b = std::min(block_, a + kPiece);
        for (std::size_t i = a; i < b; ++i) dst[i] = static_cast<double>(from[i]);
      };
    });
  }

  int dims_;
  int64_t n_;
  int K_, chunk_;
  int64_t cap_;
  int groups_;  // channel groups of 32 (the lanes of a warp)
  std::size_t block_;
  Stream stream_;
  DeviceBuffer<R> r_, m_, mT_, mean_, amp_, dirs_, proj_;
  DeviceBuffer<uint8_t> flags_;
  DeviceBuffer<int32_t> tMax_, tMin_;
  DeviceBuffer<int> counts_;
  DeviceBuffer<EnvelopeKnots> knots_;
  DeviceBuffer<int> kept_;
  DeviceBuffer<R> y_, s_, work_;
  DeviceBuffer<int> extrema_, zero_;
  DeviceBuffer<DeviceStats> stats_;
  PinnedBuffer<R> host_;  // one dims x n block, staged for the copies
  PinnedBuffer<DeviceStats> hostStats_;
  PinnedBuffer<int> hostCounts_;  // extrema, then zero crossings, per direction
  std::vector<KeptImf> imfs_;     // finished IMFs not yet taken
  StreamDrain drain_{stream_};
};

}  // namespace

std::unique_ptr<MemdSiftEngine> makeMemdDeviceEngine(int dims, int64_t n, int directions, int chunk,
                                                     bool doublePrecision) {
  chunk = std::min(chunk, 65535);  // the chunk's directions are a grid's y dimension
  if (doublePrecision)
    return std::make_unique<DeviceMemdEngine<double>>(dims, n, directions, chunk);
  return std::make_unique<DeviceMemdEngine<float>>(dims, n, directions, chunk);
}

}  // namespace modescope::cuda
