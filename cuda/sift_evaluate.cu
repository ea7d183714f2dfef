// The envelopes' mean of one sifting iteration (sift_view.cuh).
#include <cuda_pipeline_primitives.h>

#include <cub/block/block_scan.cuh>
#include <type_traits>

#include "cuda/cuda_check.cuh"
#include "cuda/sift_tile_flags.cuh"

namespace modescope::cuda::sifting {
namespace {

// One envelope's knots as the evaluation sees them (loaded once per block).
template <class R>
struct EnvelopeKnots {
  const std::int32_t* pos;  // from the first (mirrored) knot
  const R* value;
  const R* slope;
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

  // Piece k's coefficients from its two knots, by the CPU's sift::splinePieceCoefficients.
  // Computed here, where the pieces are staged, and not by the solve: written out by the solve and
  // read back here, they were 16 bytes per knot each way, and the first IMF of white noise has a
  // knot for every 1.5 samples.
  __device__ PieceCoefficients<R> coefficientsOf(int k) const {
    PieceCoefficients<R> c{value[k], slope[k], 0, 0};
    sift::splinePieceCoefficients(pos, value, slope, k, c.c2, c.c3);
    return c;
  }
};

// A tile's samples into shared memory and back, strided over the block (coalesced). They come in
// without passing through registers (cp.async, waited for before the block's first barrier), so
// that the pieces' loads after them are issued at once: loaded into registers and stored, the
// first store waited for its load before the pieces' loads were issued (PTX), one more trip to
// memory. The tile is written back from one base address plus constant offsets: with a signed
// index, the 64-bit address of every sample was formed anew, and staging took some 95 of the
// ~1,070 instructions a warp issued per tile, in a kernel bound by instruction issue (ncu source
// counters, H200, docs/emd.md).
constexpr int kStagingSteps = kSiftTileSamples / kSampleThreads;
// Sample j + q kSampleThreads is staged kStagedStride q after sample j (kSampleThreads is a
// multiple of 32, sift_view.cuh, so the padding words between them are the same for every j).
constexpr int kStagedStride = kSampleThreads + kSampleThreads / 32;
template <class R>
__device__ inline void copyTileAsync(const R* in, int samples, R* staged) {
  R* row = staged + stagedIndex(threadIdx.x);
  const R* from = in + threadIdx.x;
  MODESCOPE_UNROLL
  for (int q = 0; q < kStagingSteps; ++q)
    if (static_cast<int>(threadIdx.x) + q * kSampleThreads < samples)
      __pipeline_memcpy_async(row + q * kStagedStride, from + q * kSampleThreads, sizeof(R));
}
template <class R>
__device__ inline void unstageTile(const R* staged, int samples, R* out) {
  if (samples == kSiftTileSamples) {
    const R* row = staged + stagedIndex(threadIdx.x);
    R* to = out + threadIdx.x;
    MODESCOPE_UNROLL
    for (int q = 0; q < kStagingSteps; ++q) to[q * kSampleThreads] = row[q * kStagedStride];
  } else {
    for (int j = threadIdx.x; j < samples; j += kSampleThreads) out[j] = staged[stagedIndex(j)];
  }
}

// Blocks of the evaluation per SM (its launch bound): 48 registers per thread.
constexpr int kEvaluationBlocks = 10;
// Consecutive tiles of one signal that a block evaluates one after the other: the signal's words
// (its status, parity, where its knots start and how many) and their addresses are loaded and
// formed once for all of them. One tile per block, they took some 100 of a sparse launch's ~850
// instructions per warp and tile (ncu source counters, H200). With 4, a 64-channel float run
// took 1.458-1.460 s against 1.504-1.515 s, and 2 and 8 tiles 1.470 and 1.454-1.459 s (emd_bench,
// H200, docs/emd.md). Double keeps one: looping, it spilled 204 instead of 128 bytes at 48
// registers (ptxas for sm_90).
template <class R>
constexpr int kEvaluationTiles = sizeof(R) == sizeof(float) ? 4 : 1;
// Pieces of a tile staged by the evaluation: those its samples lie on (one per extremum counted
// before and in the tile, and the one before them) up to what kEvaluationBlocks blocks' share of
// the SM's 228 KB of shared memory holds beside the staged samples (21.9 KB each, with the
// 1 KB the SM keeps per block); the others (a tile with more extrema, a mirrored knot's piece)
// are read from global memory. The first IMF of white noise has ~340 extrema of a kind per tile.
template <class R>
constexpr int kStagedPieces = sizeof(R) == sizeof(float) ? 416 : 176;

// What a block's warps sum in shared memory before one thread stores it, after the block's last
// barrier: the next candidate's flags (flagTileRun), and Rilling's counts. (A block reduction of
// the counts cost a barrier of its own.)
struct TileSums {
  TileFlagSums flags;
  int above;  // packPair(stop ratios above threshold1, above threshold2)
};

// Each thread walks its 8 consecutive samples, moving to the next piece of an envelope when it
// passes an extremum of that kind (the piece's coefficients are read once per piece, not per
// sample). The tile's samples come in and the next candidate goes out through shared memory in
// coalesced rows, and so do the pieces its samples can lie on (those of the extrema counted
// before and in the tile; a sample before the first extremum or after the last may need a
// mirrored knot's piece outside them, computed from its knots in global memory). Read from global
// memory where each thread needed them, those loads were the kernel's main stall (ncu, H200);
// staging them gained 1-3 % of a float32 ICEEMDAN run and 7 % in float64 (emd_bench, H200): the
// knot data's DRAM traffic, the same either way, is most of what is left (docs/emd.md). At most 48
// registers (kEvaluationBlocks): the two walks below together took 64-85 unbounded (ptxas for
// sm_90); at 48, float spills 8 bytes (none before the knot ranges were kept from the status's
// trip) and double 120 (264 before its tile and dense pieces came by cp.async; 70 registers
// unbounded). At 64 registers, 8 blocks per SM, it ran 5-7 % slower (H200, docs/emd.md).
template <class R>
__global__ void __launch_bounds__(kSampleThreads, kEvaluationBlocks)
    evaluateMeanKernel(SiftView<R> v, RuleView rule, bool flagNext, bool countZeros) {
  // Warp scans and one barrier (cub's default, raking, takes two).
  using Scan = cub::BlockScan<int, kSampleThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage scanStorage;
  __shared__ R staged[kStagedSamples];
  // One more entry than pieces: a dense tile stages the knot after its last piece too.
  __shared__ PieceCoefficients<R> stagedPiece[2][kStagedPieces<R> + 1];
  __shared__ std::int32_t stagedKnot[2][kStagedPieces<R> + 1];
  __shared__ TileSums sums;
  // kEvaluationBlocks of these and the 1 KB the SM keeps per block fit in its 228 KB.
  static_assert(kEvaluationBlocks * (sizeof(scanStorage) + sizeof(staged) + sizeof(stagedPiece) +
                                     sizeof(stagedKnot) + sizeof(sums) + 1024) <=
                    228 * 1024,
                "kStagedPieces and kEvaluationBlocks exceed the SM's shared memory");
  const bool rilling = rule.kind == static_cast<int>(sift::StopKind::Rilling);
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    // Where each envelope's knots start and how many there are, and the extrema before the
    // block's first tile and in all: loaded with the signal's status, so that the first tile's
    // other loads (the tile, its flags, its pieces) all go in the next trip to memory, and kept
    // for the walk (read again after the scan, they cost a trip to L2 before it). All are
    // non-negative; they are tested with the status because nvcc otherwise moves their loads
    // after its branch (PTX), and the pieces' loads waited for them, one trip more.
    const int firstTile = static_cast<int>(blockIdx.x) * kEvaluationTiles<R>;
    int knotStart[2], knotCount[2], countAfter[2], countAll[2];
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e) {
      knotStart[e] = v.knotStart[s * 2 + e];
      knotCount[e] = v.knotCount[s * 2 + e];
      const int* counts = v.countsOf(s, e);
      countAfter[e] = counts[firstTile];  // the first tile's countBefore
      countAll[e] = counts[v.tiles];
    }
    const int status = v.status[s], failed = v.counters[s * kCounters + kEnvFailed];
    const int parity = v.parity[s];
    // The solves may still run (launchOverlapping, sift_view.cuh): the signal's two marks, read
    // after its words (an acquire orders the loads after it, not those before).
    const auto loadMarks = [&](int(&mark)[2]) {
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e) mark[e] = loadSolvedMark(&v.solved[s * 2 + e]);
    };
    int solved[2];
    loadMarks(solved);
    const int ranges = knotStart[0] | knotStart[1] | knotCount[0] | knotCount[1] | countAfter[0] |
                       countAfter[1] | countAll[0] | countAll[1];
    if (v.mustSkip(status, parity) || failed || ranges < 0) continue;
    // A signal still sifting has both splines solved in this iteration (systemOf, sift_splines.cu,
    // skips the same signals).
    while (solved[0] != v.epoch || solved[1] != v.epoch) {
      __nanosleep(256);
      loadMarks(solved);
    }
    // (firstTile < v.tiles: the grid has no block past the last tile.)
    const int lastTile =
        kEvaluationTiles<R> == 1 ? firstTile + 1 : min(firstTile + kEvaluationTiles<R>, v.tiles);
#pragma unroll 1
    for (int tile = firstTile; tile < lastTile; ++tile) {
      // The extrema before this tile (the last tile's countAfter) and before the next.
      int countBefore[2];
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e) {
        countBefore[e] = countAfter[e];
        countAfter[e] = v.countsOf(s, e)[tile + 1];
      }
      const std::int64_t begin = static_cast<std::int64_t>(tile) * kSiftTileSamples;
      // The tile's samples in and the next candidate's out, by offsets from the tile's start.
      const R* tileIn = v.candidateOf(s, parity) + begin;
      R* tileOut = v.otherOf(s, parity) + begin;
      const int samples =
          static_cast<int>(min(v.n - begin, static_cast<std::int64_t>(kSiftTileSamples)));
      if (threadIdx.x == 0) sums = {};  // the block scan's barrier publishes it
      // Every load before the block's first barrier is issued in one trip to memory, before any
      // waits: the thread's flags, the tile's samples and both envelopes' pieces (their ranges came
      // with the status, or in a block's later tiles with the counts at the loop's top). Written
      // one after the other, each envelope's ranges and pieces waited in turn (PTX: ptxas does not
      // move a load across the branches between them); and the flags, the first sample's store and
      // the ranges each waited before the next loads were issued until they were moved (four trips;
      // docs/emd.md, thirteenth session).
      const int first = threadIdx.x * kRunSamples;  // the thread's run within the tile
      const unsigned long long flags = loadRunFlags(v.flagsOf(s), begin + first, v.n);
      EnvelopeKnots<R> env[2];
      int lowest[2], pieces[2];  // the staged pieces: lowest .. lowest + pieces - 1
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e) {
        const std::size_t base = v.knotBase(s, e) + knotStart[e];
        env[e] = {v.knotPos + base,         v.knotVal + base, v.knotSlope + base,
                  kMirrored - knotStart[e], knotCount[e],     countAll[e]};
        lowest[e] = max(env[e].leftCount + countBefore[e] - 1, 0);
        const int highest = min(env[e].leftCount + countAfter[e] - 1, env[e].count - 2);
        pieces[e] = max(min(highest - lowest[e] + 1, kStagedPieces<R>), 0);
      }
      copyTileAsync(tileIn, samples, staged);
      // A dense tile (more pieces than threads: the first IMFs) stages its knots as they are, in
      // coalesced rows, and computes the pieces' coefficients from shared memory after the scan's
      // barrier (one barrier more); a sparse one computes them from global memory here. Computed
      // here in a dense tile, each thread's ~5 pieces waited for their knots one after the other:
      // the dense launches were bound by those waits and by instruction issue (ncu, H200: 72 % of
      // cycles issuing at 39 warps per SM), and this way the evaluation took 3,246 instead of
      // 3,385 us per launch on 64 channels (cuda_timeline, docs/emd.md).
      const bool dense = pieces[0] + pieces[1] > kSampleThreads;  // the same for the whole block
      if (dense) {
        // Knots lowest .. lowest + pieces of each envelope (the last one ends the last piece):
        // position, value and slope, the value and slope in the piece's y and s. Copied to shared
        // memory without passing through registers (cp.async), so that every thread's copies are
        // in flight at once: a loop of loads and stores waited for each round's loads, and
        // unrolled it spilled at 48 registers (ptxas for sm_90).
#pragma unroll 1
        for (int q = threadIdx.x; q < pieces[0] + pieces[1] + 2; q += kSampleThreads) {
          // Selects of each field, not env[e]: indexed at run time (or selected whole), env and
          // lowest went to local memory (ptxas's stack frame).
          const bool maxima = q <= pieces[0];
          const int e = maxima ? 0 : 1, r = maxima ? q : q - pieces[0] - 1;
          const int k = (maxima ? lowest[0] : lowest[1]) + r;
          __pipeline_memcpy_async(&stagedKnot[e][r], (maxima ? env[0].pos : env[1].pos) + k,
                                  sizeof(std::int32_t));
          __pipeline_memcpy_async(&stagedPiece[e][r].y, (maxima ? env[0].value : env[1].value) + k,
                                  sizeof(R));
          __pipeline_memcpy_async(&stagedPiece[e][r].s, (maxima ? env[0].slope : env[1].slope) + k,
                                  sizeof(R));
        }
      } else {
        for (int q = threadIdx.x; q < pieces[0] + pieces[1]; q += kSampleThreads) {
          if (q < pieces[0]) {
            stagedPiece[0][q] = env[0].coefficientsOf(lowest[0] + q);
            stagedKnot[0][q] = env[0].pos[lowest[0] + q];
          } else {
            stagedPiece[1][q - pieces[0]] = env[1].coefficientsOf(lowest[1] + q - pieces[0]);
            stagedKnot[1][q - pieces[0]] = env[1].pos[lowest[1] + q - pieces[0]];
          }
        }
      }
      __pipeline_commit();
      int highest[2];  // the last staged piece
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e) highest[e] = lowest[e] + pieces[e] - 1;
      // Counted here, not where the flags are loaded, so that the count does not wait for the
      // flags before the other loads are issued.
      const int mine = runExtrema(flags);
      __pipeline_wait_prior(0);  // this thread's copies, before the scan's barrier publishes them
      int before = 0;
      Scan(scanStorage).ExclusiveSum(mine, before);  // its barrier also publishes the staged data
      if (dense) {
        // Each piece's c2 and c3 from its knots' staged entries (the piece after it reads only
        // this piece's y and s, which stay), by sift::splineCoefficientsOf as coefficientsOf.
        for (int q = threadIdx.x; q < pieces[0] + pieces[1]; q += kSampleThreads) {
          const int e = q < pieces[0] ? 0 : 1;
          const int r = e == 0 ? q : q - pieces[0];
          PieceCoefficients<R>& piece = stagedPiece[e][r];
          const PieceCoefficients<R>& next = stagedPiece[e][r + 1];
          R c2, c3;
          sift::splineCoefficientsOf(stagedKnot[e][r], stagedKnot[e][r + 1], piece.y, next.y,
                                     piece.s, next.s, c2, c3);
          piece.c2 = c2;
          piece.c3 = c3;
        }
        __syncthreads();
      }
      int seen[2];  // extrema of each kind at or before the current sample
      int piece[2] = {-1, -1};
      PieceCoefficients<R> c[2];
      std::int32_t t0[2];
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e)
        seen[e] = countBefore[e] + (e == 0 ? highHalf(before) : lowHalf(before));
      int above1 = 0, above2 = 0;
      // Sample j of the run with both envelopes' values: the stop statistics and the next
      // candidate (staged).
      const int run = stagedIndex(first);  // the thread's run in `staged`
      auto finish = [&](int j, const R(&value)[2]) {
        if (rilling) {  // only Rilling uses them
          const R ratio = sift::stopRatio(value[0], value[1]);
          above1 += ratio > static_cast<R>(rule.threshold1);
          above2 += ratio > static_cast<R>(rule.threshold2);
        }
        R& xi = staged[run + j];
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
        // kMoving[e]: some lane of the warp passes an extremum of kind e in its run. Where none
        // does (most warps of the last IMFs, whose extrema are hundreds of samples apart), that
        // envelope's walk has no test and no branch per sample: they were about a third of the
        // walk's ~220 instructions per warp and tile (ncu source counters, H200, docs/emd.md).
        auto walk = [&](auto moving0, auto moving1) {
          constexpr bool kMoving[2] = {decltype(moving0)::value, decltype(moving1)::value};
          MODESCOPE_UNROLL
          for (int e = 0; e < 2; ++e) {
            if (!kMoving[e]) {
              c[e] = stagedPiece[e][q[e]];
              t0[e] = stagedKnot[e][q[e]];
            }
          }
          // Unrolled by 4, not 8: fully unrolled, nvcc hoisted every sample's piece loads to the
          // top (85 registers instead of 48, ptxas for sm_90). Measured on an H200 (docs/emd.md), 4
          // ran faster than 1; 2 and 8 were within the runs' spread of 4.
          unsigned long long rest = flags;  // sample j's flag in the lowest byte
#pragma unroll 4
          for (int j = 0; j < kRunSamples; ++j, rest >>= 8) {
            R value[2];
            MODESCOPE_UNROLL
            for (int e = 0; e < 2; ++e) {
              if (kMoving[e]) {
                // The low word only: a 64-bit test took two compares (SASS).
                const bool moves = (static_cast<unsigned>(rest) >> e) & 1u;
                q[e] += moves;
                if (j == 0 || moves) {
                  c[e] = stagedPiece[e][q[e]];
                  t0[e] = stagedKnot[e][q[e]];
                }
              }
              value[e] = sift::splineValueFrom(c[e].y, c[e].s, c[e].c2, c[e].c3, i0 + j - t0[e]);
            }
            finish(j, value);
          }
        };
        using Yes = std::true_type;
        using No = std::false_type;
        if constexpr (sizeof(R) != sizeof(float)) {
          // Float only: the four walks took double's spills at 48 registers from 128 to 252 bytes
          // loaded (ptxas for sm_90), and a float64 run from 0.222 to 0.225 s (H200,
          // docs/emd.md).
          walk(Yes{}, Yes{});
        } else {
          const bool moving0 = __any_sync(0xffffffffu, highHalf(mine) != 0);
          const bool moving1 = __any_sync(0xffffffffu, lowHalf(mine) != 0);
          if (moving0 && moving1)
            walk(Yes{}, Yes{});
          else if (moving0)
            walk(Yes{}, No{});
          else if (moving1)
            walk(No{}, Yes{});
          else
            walk(No{}, No{});
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
                c[e] = inTile ? stagedPiece[e][k - lowest[e]] : env[e].coefficientsOf(k);
                t0[e] = inTile ? stagedKnot[e][k - lowest[e]] : env[e].pos[k];
              }
              value[e] = sift::splineValueFrom(c[e].y, c[e].s, c[e].c2, c[e].c3, i - t0[e]);
            }
            finish(j, value);
          }
        }
      }
      __syncthreads();
      unstageTile(staged, samples, tileOut);
      if (flagNext)
        flagTileRun(v.nextFlagRows(), s, begin, samples, first, countZeros, staged, sums.flags);
      if (rilling) {
        const int above = __reduce_add_sync(~0u, packPair(above1, above2));
        if (threadIdx.x % 32 == 0 && above) atomicAdd(&sums.above, above);
      }
      __syncthreads();  // staged, scanStorage and sums are reused by the next signal
      if (threadIdx.x == 0) {
        if (flagNext) storeTileSums(v.nextFlagRows(), s, tile, sums.flags);
        if (highHalf(sums.above))
          atomicAdd(&v.counters[s * kCounters + kAbove1], highHalf(sums.above));
        if (lowHalf(sums.above))
          atomicAdd(&v.counters[s * kCounters + kAbove2], lowHalf(sums.above));
      }
    }
  }
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) waitForKernelBefore();
}

}  // namespace

template <class R>
void evaluateMean(const SiftView<R>& v, const RuleView& rule, dim3 sampleGrid, bool flagNext,
                  bool countZeros, bool overlap, cudaStream_t stream) {
  const dim3 grid((v.tiles + kEvaluationTiles<R> - 1) / kEvaluationTiles<R>, sampleGrid.y);
  launchOverlapping(evaluateMeanKernel<R>, grid, dim3(kSampleThreads), stream, overlap, v, rule,
                    flagNext, countZeros);
}
template void evaluateMean<float>(const SiftView<float>&, const RuleView&, dim3, bool, bool, bool,
                                  cudaStream_t);
template void evaluateMean<double>(const SiftView<double>&, const RuleView&, dim3, bool, bool, bool,
                                   cudaStream_t);

}  // namespace modescope::cuda::sifting
