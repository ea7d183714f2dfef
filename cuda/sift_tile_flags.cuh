// A tile's extremum flags from its samples staged in shared memory (internal to cuda/): what the
// evaluation flags of the next candidate it writes (sift_evaluate.cu), and what a kernel that
// writes the sifter's input flags for the first iteration (flagWrittenTile; SiftInput in
// emd_sifter.cuh). Either leaves the tiles' edge samples and the plateaus starting inside them to
// flagTileEdges (sift_knots.cu).
#pragma once

#include "cuda/sift_view.cuh"

namespace modescope::cuda::sifting {

// Staged samples of a tile in shared memory: one padding word per 32, so that thread t reading
// its run at 8 t + j and a warp reading 32 consecutive samples are both free of bank conflicts.
// j >= 0, so a shift: as a signed division by 32 it took four instructions per index (PTX).
__host__ __device__ constexpr int stagedIndex(int j) { return j + (j >> 5); }
// A thread's run of kRunSamples samples from `first` (a multiple of 8) lies in one group of 32:
// sample first + j is at stagedIndex(first) + j.
static_assert(32 % kRunSamples == 0, "a run never crosses a padding word");
// One entry more, past the tile's last sample: flagTileRun reads it (and drops the flag).
constexpr int kStagedSamples = stagedIndex(kSiftTileSamples) + 1;

// What a block's warps sum in shared memory for its tile's flags before one thread stores them.
struct TileFlagSums {
  int counts;   // packPair(maxima, minima)
  int zeros;    // zero crossings
  int plateau;  // a plateau starts inside the tile
};

// The flags of a thread's run of kRunSamples samples from `first` of the tile at `begin` that the
// tile alone decides, from its staged samples: every sample whose neighbours both lie in the tile
// and differ from it, in one 8-byte store, with kRunStartMark at each plateau's first sample (the
// other bytes are left for flagTileEdges to write), and their counts and zero crossings summed per
// warp into `sums`. Called by whole warps, threads 0 .. kSampleThreads - 1 of the block. In the
// evaluation, the flag pass this replaces read every candidate again from memory (130 us of the
// 700 us an iteration of 500 float32 signals of 102,401 samples took; ncu, H200); this adds about
// 60 us to it. Strided over the tile like the write-back (one flag byte stored per sample) it took
// 368 us per launch against 345 us this way (the same call).
template <class R>
__device__ void flagTileRun(const TileFlagRows& rows, int s, std::int64_t begin, int samples,
                            int first, bool countZeros, const R* staged, TileFlagSums& sums) {
  // Samples first - 1 .. first + 8 of the tile, read with no test against the tile's end: a
  // flag that reads an entry past it (stale, or never written) is cleared by `keep` below, and
  // `staged` has an entry past the last thread's run. With a test per sample, they took some 20
  // instructions per warp and tile (ncu source counters, H200).
  R w[kRunSamples + 2];
  const int run = stagedIndex(first);
  w[0] = staged[stagedIndex(max(first - 1, 0))];  // first == 0: that flag is cleared
  MODESCOPE_UNROLL
  for (int j = 0; j < kRunSamples; ++j) w[j + 1] = staged[run + j];
  w[kRunSamples + 1] = staged[stagedIndex(first + kRunSamples)];
  // Every sample's flag, then those with a neighbour in another tile cleared (bytes j with
  // first + j < 1 or first + j + 1 >= samples). With a test and a branch per sample, the flags
  // took some 200 instructions per warp and tile (ncu source counters, H200).
  unsigned long long word = 0;
  MODESCOPE_UNROLL
  for (int j = 0; j < kRunSamples; ++j) {
    const R prev = w[j], cur = w[j + 1], next = w[j + 2];
    // classifyAlone gives kNotExtremum where prev == cur or cur == next; a run starts at cur where
    // prev != cur == next (sift::startsRun).
    const std::uint8_t f =
        prev != cur && cur == next ? kRunStartMark : classifyAlone(prev, cur, next);
    word |= static_cast<unsigned long long>(f) << (8 * j);
  }
  const int inside = min(max(samples - 1 - first, 0), kRunSamples);  // bytes below the tile's end
  unsigned long long keep = inside == kRunSamples ? ~0ull : (1ull << (8 * inside)) - 1;
  if (first == 0) keep &= ~0xffull;  // the tile's first sample
  word &= keep;
  int zeros = 0;
  if (countZeros) {
    MODESCOPE_UNROLL
    for (int j = 0; j < kRunSamples; ++j)
      if ((keep >> (8 * j)) & 1)
        zeros += sift::zeroCrossingsAt(w[j], w[j + 1], w[j + 2], true, true);
  }
  if (first < samples)
    *reinterpret_cast<unsigned long long*>(rows.flagsOf(s) + begin + first) = word;
  const int counts = __reduce_add_sync(~0u, runExtrema(word));
  const bool plateau = __any_sync(~0u, runStartMarks(word) != 0);
  if (countZeros) zeros = __reduce_add_sync(~0u, zeros);
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums.counts, counts);
    if (countZeros) atomicAdd(&sums.zeros, zeros);
    if (plateau) sums.plateau = 1;
  }
}

// The sums of flagTileRun, stored by one thread after the block's last barrier over the tile.
// Stored, not added: only this block counts its tile before flagTileEdges adds to it.
__device__ inline void storeTileSums(const TileFlagRows& rows, int s, int tile,
                                     const TileFlagSums& sums) {
  rows.countsOf(s, 0)[tile] = highHalf(sums.counts);
  rows.countsOf(s, 1)[tile] = lowHalf(sums.counts);
  rows.plateauTiles[rows.tileEntry(s, tile)] = sums.plateau;
  rows.tileZeros[rows.tileEntry(s, tile)] = sums.zeros;
}

// The shared memory of a block that writes tiles of the sifter's input (flagWrittenTile).
template <class R>
struct WrittenTile {
  R staged[kStagedSamples];  // at stagedIndex(j), sample begin + j
  TileFlagSums sums;
  unsigned long long maxAbs;  // absBits
  // At the writer's start, before its first tile is staged (flagWrittenTile's first barrier
  // publishes it; each call leaves them zero for the next).
  __device__ void start() {
    if (threadIdx.x == 0) reset();
  }
  __device__ void reset() {
    sums = {};
    maxAbs = 0;
  }
};

// Called by every thread of a block that has just written the tile at `tile` of input row s of n
// samples, each thread having put its samples into `shared.staged` (and their largest absBits in
// maxAbsBits): the tile's flags, counts, zero crossings (countZeros: siftCountsZeros of the rule
// the input is sifted with) and largest |x| into `rows`
// (BatchSifter::inputFlagRows), as the evaluation leaves them for the next iteration. The block
// has at least kSampleThreads threads, a multiple of 32. It costs the writer two barriers, the
// flags' bytes and a few instructions per sample, and saves the sifter's first iteration the flag
// pass: that read every candidate again, 275 us of a stage's 1,000 signals of 102,401 samples
// (float32, cuda_timeline, H200, docs/emd.md).
template <class R>
__device__ void flagWrittenTile(const TileFlagRows& rows, int s, int tile, std::int64_t n,
                                bool countZeros, WrittenTile<R>& shared,
                                unsigned long long maxAbsBits) {
  __syncthreads();  // the staged samples
  const std::int64_t begin = static_cast<std::int64_t>(tile) * kSiftTileSamples;
  const int samples = static_cast<int>(min(static_cast<std::int64_t>(kSiftTileSamples), n - begin));
  if (threadIdx.x < kSampleThreads) {
    flagTileRun(rows, s, begin, samples, kRunSamples * static_cast<int>(threadIdx.x), countZeros,
                shared.staged, shared.sums);
  }
  maxAbsBits = warpMaxBits(maxAbsBits);
  if (threadIdx.x % 32 == 0) atomicMax(&shared.maxAbs, maxAbsBits);
  __syncthreads();  // the sums; the staged samples are read
  if (threadIdx.x == 0) {
    storeTileSums(rows, s, tile, shared.sums);
    rows.tileMaxAbs[rows.tileEntry(s, tile)] = shared.maxAbs;
    shared.reset();
  }
}

}  // namespace modescope::cuda::sifting
