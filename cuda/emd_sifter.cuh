// Batched sifting on the device (internal to cuda/): B signals of n samples each extract their
// first IMF in lockstep, every step the one engine/emd/sift_primitives.h defines, so the result
// equals the CPU's extractImf() (engine/emd/sifting.h) signal by signal, to rounding.
//
// One sifting iteration is seven launches over the whole batch; the per-sample ones run one
// block per tile of kSiftTileSamples samples. A fixed sift count runs exactly that many
// iterations:
//   flagExtrema      first iteration of an unflagged input (after a memset of the tile counts):
//                    strided over the tile, run starts classify their run (plateau rule), the
//                    tile's maxima and minima counted (a plateau's extremum is added to the tile
//                    its middle lies in), zero crossings and max|m| reduced per signal
//   flagTileEdges    later iterations, and the first where the kernel that wrote the input flagged
//                    it (SiftInput): one warp per signal and 16 tiles, what the evaluation or
//                    the writer left to flag (each tile's first and last sample, the plateaus
//                    starting inside a tile it marked), the tiles' zero crossings (and the
//                    writer's max|m|) summed per signal
//   scanCounts       one warp per signal and envelope: extrema before each tile
//   scatterKnots     one warp per region, 64 consecutive samples per lane: each extremum's
//                    position and value at its rank (region prefix + a warp scan of the lanes'
//                    extremum masks + the rank within the lane), listed in shared memory and
//                    written out in coalesced rows; the last warp of a signal to finish writes
//                    its totals and mirrored end knots
//   solveSplines     two launches, one warp per system of up to 32 pieces and one block per
//                    larger system (signal and envelope): not-a-knot slopes by the Thomas
//                    algorithm (the system is strictly diagonally dominant, no pivoting); systems
//                    of 128 rows or more are cut into up to 128 pieces (64 where the batch has
//                    two waves of such narrower blocks) of at least 64 rows whose
//                    sweeps overlap by 64 rows (32 in float), which changes the result by less
//                    than the rounding of the precision (splineSlopeRows); the pieces keep their
//                    sweep rows interleaved (SweepRow); each marks its systems solved
//                    with the iteration's number
//   evaluateMean     8 consecutive samples per thread, staged through shared memory with the
//                    coefficients of the tile's pieces, computed from their knots as they are
//                    staged (in a dense tile, from its knots copied raw): the piece of each
//                    envelope from the ranks (no search), kept while the thread walks its samples,
//                    both envelopes, the stop ratio counts, and the next candidate m - mean written
//                    to the other ping-pong buffer; unless it is the last iteration, that
//                    candidate's flags too, from the staged tile, for every sample whose neighbours
//                    lie in the tile and differ from it, with their counts per tile (a second set,
//                    so this iteration's stay readable) and zero crossings (TileFlagRows); a block
//                    waits for its signal's two marks
//   decideStop       one thread per signal: emd.m's stop test; flips the buffer if it sifts on
// Every launch but the first iteration's flag pass may start while the one before it still runs
// (programmatic dependent launch, launchOverlapping in sift_view.cuh): most wait for it at their
// start; the small systems' solve, which reads nothing the large ones' writes, and the evaluation,
// which waits for its own signal's marks, do not.
// Signals that have stopped make every later launch return at once for their blocks. The host
// reads the number of signals still sifting every few iterations (one small copy), so there is no
// host round trip per iteration.
//
// Memory per signal: 2 n values (ping-pong), n flag bytes (rounded up to 16), 2 x (n/2 + 6)
// knots x (position, value, slope) and 2 x (n/2 + 518) sweep rows of two values: about 7 n
// values + n bytes in all, and 24 bytes per tile.
//
// Thread rules: one BatchSifter per stream; not thread-safe.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/device_memory.cuh"
#include "engine/core/job_context.h"
#include "engine/emd/emd_params.h"

namespace modescope::cuda {

// Piece k of an envelope: value = y + u (s + u (c2 + u c3)), u = sample - t[k]
// (sift::splineValueFrom). Kept together so the evaluation's walk reads them in one aligned load
// from shared memory.
template <class R>
struct alignas(4 * sizeof(R)) PieceCoefficients {
  R y, s, c2, c3;
};

// Samples per tile of the per-sample kernels (one thread block each; the tile counts of extrema
// are per tile too). 1,024 and not 2,048: the evaluation's blocks wait less at their barriers
// (docs/emd.md, twelfth session).
inline constexpr int kSiftTileSamples = 1024;
inline std::int64_t tilesFor(std::int64_t n) {
  return (n + kSiftTileSamples - 1) / kSiftTileSamples;
}
// Bytes per signal's row of extremum flags: a multiple of 16, so a thread loads its 8 flags at
// once.
inline std::int64_t flagPitchFor(std::int64_t n) { return (n + 15) / 16 * 16; }

// One row of the Thomas forward sweep of the spline solve: the modified super-diagonal and
// right-hand side, stored together so that the back substitution reads both in one load.
template <class R>
struct alignas(2 * sizeof(R)) SweepRow {
  R work, rhs;
};
// Knots per signal and envelope: at most n / 2 extrema of one kind, the mirrored end knots
// (2 x sift::kMirrored) and 2 spare.
inline std::int64_t knotCapFor(std::int64_t n) { return n / 2 + 6; }
// Threads (and at most pieces) of the spline solve per system.
inline constexpr int kSiftSplineThreads = 128;
// Sweep rows per signal and envelope: the knots plus four per piece (the solve stores the pieces'
// rows interleaved, each piece padded to the longest, rounded up to a multiple of 4 rows).
inline std::int64_t sweepCapFor(std::int64_t n) { return knotCapFor(n) + 4 * kSiftSplineThreads; }

enum SiftStatus : int { kSifting = 0, kSiftDone = 1, kSiftNoImf = 2, kSiftDisabled = 3 };

// Where the flags of one iteration's candidates go tile by tile, from a block that holds the
// tile's samples (sift_tile_flags.cuh): the evaluation for the next iteration, and a kernel that
// writes the sifter's input for the first (inputFlagRows). The flag rows; the extrema per tile of
// each envelope; per tile, whether a plateau starts inside it, its zero crossings, and (a writer of
// the input only) its largest |x| as absBits.
struct TileFlagRows {
  std::uint8_t* flags;  // one row of flagPitch bytes per signal
  std::int64_t flagPitch;
  int* counts;  // per signal and envelope: tiles + 1
  int* plateauTiles;
  int* tileZeros;
  unsigned long long* tileMaxAbs;
  int tiles;
  __device__ std::uint8_t* flagsOf(int s) const {
    return flags + static_cast<std::size_t>(s) * flagPitch;
  }
  __device__ int* countsOf(int s, int e) const {
    return counts + (static_cast<std::size_t>(s) * 2 + e) * (tiles + 1);
  }
  // Signal s's tile's entry in plateauTiles, tileZeros and tileMaxAbs.
  __device__ std::size_t tileEntry(int s, int tile) const {
    return static_cast<std::size_t>(s) * tiles + tile;
  }
};

// Who flagged the candidates an extract starts from. Unflagged: its first iteration runs the flag
// pass. FlaggedByWriter: every row of the batch was written since the last extract by a kernel
// that flagged its tiles into inputFlagRows() (flagWrittenTile, sift_tile_flags.cuh), so the first
// iteration flags only the tiles' edges and the plateaus starting inside them, as the later ones.
enum class SiftInput { Unflagged, FlaggedByWriter };

// Whether sifting with `rule` counts zero crossings (they feed only the Rilling and S-number
// tests): the sifter's flag steps and the writers of its input count them only then.
inline bool siftCountsZeros(const StopRule& rule) { return rule.kind != StopRuleKind::FixedSifts; }

template <class R>
class BatchSifter {
 public:
  // Room for `capacity` signals of `n` samples. Throws OutOfDeviceMemoryError.
  BatchSifter(std::int64_t n, int capacity, cudaStream_t stream);

  // Bytes the buffers of one signal take (for batch planning before construction).
  static std::size_t bytesPerSignal(std::int64_t n);

  std::int64_t samples() const { return n_; }
  int capacity() const { return capacity_; }

  // Where signal s must be written before extract(): capacity x n values, row-major.
  R* input() const { return cand_[0].get(); }

  // Extracts the first IMF of signals 0..count-1 with `rule`. enabled (device, count bytes, may
  // be null): 0 = leave that signal alone (status kSiftDisabled). refMaxAbs (device, count values,
  // may be null): emd.m's "too small amplitude" test, no IMF when max|m| < 1e-10 refMaxAbs[s].
  // probeOnly: stop after the first stop test (iceemdan.m's es_imf question): status kSiftNoImf
  // (fewer than 3 extrema), kSiftDone (already an IMF) or kSifting (sifting would change it).
  // Cancelled at checkpoints between iterations.
  void extract(int count, const StopRule& rule, const std::uint8_t* enabled, const R* refMaxAbs,
               bool probeOnly, SiftInput input, const JobContext& ctx);

  // Where a kernel writing input() flags the tiles it writes (SiftInput::FlaggedByWriter).
  TileFlagRows inputFlagRows() const;

  // After extract(), device arrays of `count` entries: the IMF of each signal (a pointer into
  // the ping-pong buffers; valid until the next extract), its status, and its sift count.
  R* const* imfs() const { return imfTable_.get(); }
  const int* status() const { return status_.get(); }
  const int* sifts() const { return nbit_.get(); }
  int lastIterations() const { return lastIterations_; }

 private:
  std::int64_t n_;
  int capacity_;
  int knotCap_;
  cudaStream_t stream_;
  DeviceBuffer<R> cand_[2];
  DeviceBuffer<std::uint8_t> flags_;
  DeviceBuffer<std::int32_t> knotPos_;
  DeviceBuffer<R> knotVal_, knotSlope_;
  DeviceBuffer<SweepRow<R>> sweep_;
  int sweepCap() const { return static_cast<int>(sweepCapFor(n_)); }
  DeviceBuffer<int> knotStart_, knotCount_;
  DeviceBuffer<int> counters_;
  DeviceBuffer<unsigned long long> maxAbsBits_;
  DeviceBuffer<int> status_, nbit_, sCount_, parity_;
  DeviceBuffer<R*> imfTable_;
  DeviceBuffer<int> tileCounts_, plateauTiles_, tileZeros_;
  DeviceBuffer<unsigned long long> tileMaxAbs_;
  std::int64_t tileCount() const { return tilesFor(n_); }
  // One iteration's tile counts: per signal and envelope, tiles + 1.
  std::size_t tileCountsSize() const {
    return static_cast<std::size_t>(capacity_) * 2 * (tileCount() + 1);
  }
  DeviceBuffer<int> active_;
  PinnedBuffer<int> activeHost_;
  int lastIterations_ = 0;
  // Per signal and envelope, the epoch of the last solve of its spline (SiftView::solved);
  // epochs_ counts the iterations of this sifter's life, so no mark is ever taken for a later one.
  DeviceBuffer<int> solved_;
  int epochs_ = 0;
};

}  // namespace modescope::cuda
