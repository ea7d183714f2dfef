// The sifter's device view of a batch and what its kernels share (internal to cuda/;
// emd_sifter.cuh explains the design). One sifting iteration is four steps, each in its own file:
// sift_knots.cu finds the extrema and writes the knots, sift_splines.cu solves the envelopes'
// splines, sift_evaluate.cu evaluates their mean into the next candidate, and emd_sifter.cu
// decides which signals stop and drives the iterations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "cuda/cuda_check.cuh"
#include "cuda/emd_sifter.cuh"
#include "engine/emd/sift_primitives.h"

namespace modescope::cuda::sifting {

using sift::kMaximum;
using sift::kMinimum;
using sift::kMirrored;

// Per-signal counters gathered during one iteration (reset by decideStop). kScatteredRegions: the
// regions whose knots the scatter has written.
enum Counter : int {
  kMaxima,
  kMinima,
  kZeros,
  kAbove1,
  kAbove2,
  kEnvFailed,
  kScatteredRegions,
  kCounters
};

// One iteration's per-sample work runs in tiles of kSiftTileSamples (emd_sifter.cuh): one block
// per tile and signal, each thread on kRunSamples consecutive samples. Extrema are flagged and
// counted per tile in one pass; the envelopes are evaluated with each thread on its run, so a
// thread finds its knots' ranks once (one block scan) and keeps the spline piece it is on in
// registers while it walks its samples. (With one thread per sample and a ballot rank per
// 256-sample tile these kernels were bound by instruction issue, not memory: ncu on an H200,
// 500 signals x 102,401 samples, 64-71 % of the SM's issue rate at 7-24 % of DRAM bandwidth.)
// Tiles of a few thousand samples, so a batch of thousands of signals does not launch millions
// of tiny blocks (their reductions and scheduling, not the memory traffic, set the time then).
constexpr int kRunSamples = 8;  // consecutive samples per thread; one 8-byte word of flags
constexpr int kSampleThreads = kSiftTileSamples / kRunSamples;
static_assert(kSampleThreads % 32 == 0, "a tile is whole warps' runs");
// The scatter takes one warp per region of kRegionSamples samples, 64 per lane, a few tiles
// each: with a warp per 1,024-sample tile, it took 8 % longer per launch on 64 channels
// (cuda_timeline on an H200, docs/emd.md).
constexpr int kRegionSamples = 2048;
constexpr int kRegionTiles = kRegionSamples / kSiftTileSamples;
constexpr int kLaneSamples = kRegionSamples / 32;  // consecutive samples per lane of a region
static_assert(kRegionTiles * kSiftTileSamples == kRegionSamples, "a region is whole tiles");

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
  // Per signal and envelope: the number of extrema before tile b's first sample, for every b
  // (and the total at b = tiles), written by the scan, so the evaluation finds its knots
  // without searching.
  int* tileCounts;
  // The next candidate's extrema per tile, counted and stored by the evaluation that writes it
  // (tileCounts of the next iteration).
  int* nextTileCounts;
  // Per signal and tile: whether the evaluation (or the input's writer) left a plateau's start
  // inside the tile to flagTileEdges (sift_knots.cu), the zero crossings it counted there, and
  // the writer's largest |x| (TileFlagRows).
  int* plateauTiles;
  int* tileZeros;
  unsigned long long* tileMaxAbs;
  int tiles;
  // Per signal and envelope: the iteration whose spline a solve finished last (markSolved). The
  // evaluation starts while the solves still run and waits for its own signal's two only.
  int* solved;
  int epoch;  // this iteration's number, from 1 (solved starts at 0)
  // The scatter's regions (kRegionTiles tiles each).
  __host__ __device__ int regions() const { return (tiles + kRegionTiles - 1) / kRegionTiles; }
  // This iteration's flags, and where the evaluation flags the next candidates.
  __device__ TileFlagRows flagRows() const {
    return {flags, flagPitch, tileCounts, plateauTiles, tileZeros, tileMaxAbs, tiles};
  }
  __device__ TileFlagRows nextFlagRows() const {
    return {flags, flagPitch, nextTileCounts, plateauTiles, tileZeros, tileMaxAbs, tiles};
  }
  __device__ int* countsOf(int s, int e) const { return flagRows().countsOf(s, e); }
  __device__ std::uint8_t* flagsOf(int s) const { return flagRows().flagsOf(s); }
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
// The largest of a warp's absBits, in every lane.
__device__ inline unsigned long long warpMaxBits(unsigned long long bits) {
  for (int d = 16; d > 0; d >>= 1) bits = max(bits, __shfl_xor_sync(~0u, bits, d));
  return bits;
}
__device__ inline double fromBits(unsigned long long b, float) {
  return __uint_as_float(static_cast<unsigned>(b));
}
__device__ inline double fromBits(unsigned long long b, double) {
  return __longlong_as_double(static_cast<long long>(b));
}

// Two counts of at most one tile's samples in one int (maxima and minima, or the two stop-ratio
// counts): one block scan or sum takes both.
__device__ inline int packPair(int high, int low) { return (high << 16) | low; }
__device__ inline int highHalf(int p) { return p >> 16; }
__device__ inline int lowHalf(int p) { return p & 0xffff; }

// A thread's 8 flags from sample i0 in one word, flag j in byte j (i0 a multiple of 8; the row
// pitch is a multiple of 16, so the load is aligned and inside the row when i0 < n); flags at or
// beyond n are not extrema. Unpacked into eight bytes, each with its bounds test, they cost some
// 40 instructions per thread and stayed live through the evaluation's walks (SASS and ptxas,
// H200); the flags' values make the tests single bits. Past the end the word is loaded from the
// row's last one and dropped, with no branch, and the load is an asm statement: written as a
// load in a branch on i0 < n, or as a plain load that nvcc moved into such a branch, its first
// use inside the branch made the warp wait for it before any load after the branch was issued
// (PTX: ptxas does not move an instruction out of its block). The asm has no memory clobber: the
// evaluation writes a thread's next flags to the word it loaded only after its block's barriers.
static_assert(sift::kNotExtremum == 0 && kMaximum == 1 && kMinimum == 2, "flag bits");
__device__ inline unsigned long long loadRunFlags(const std::uint8_t* row, std::int64_t i0,
                                                  std::int64_t n) {
  const std::int64_t lastWord = (n - 1) / kRunSamples * kRunSamples;  // i0 itself when i0 < n
  unsigned long long w;
  asm volatile("ld.global.u64 %0, [%1];"
               : "=l"(w)
               : "l"(__cvta_generic_to_global(row + min(i0, lastWord))));
  const std::int64_t inside = n - i0;  // flags of the word before n
  return inside <= 0 ? 0 : inside >= kRunSamples ? w : w & ((1ull << (8 * inside)) - 1);
}
// Whether sample j of a run's word is an extremum of kind e (0: maximum, 1: minimum; the flag
// bits kMaximum and kMinimum).
__device__ inline bool isExtremumOfKind(unsigned long long flags, int j, int e) {
  return (flags >> (8 * j + e)) & 1u;
}
__device__ inline bool isMaximumAt(unsigned long long flags, int j) {
  return isExtremumOfKind(flags, j, 0);
}
__device__ inline bool isMinimumAt(unsigned long long flags, int j) {
  return isExtremumOfKind(flags, j, 1);
}
// The flag byte flagTileRun (the evaluation, or the writer of the input) leaves at a plateau's
// first sample for flagTileEdges, which overwrites it (with the run's flags) before anything else
// reads the flags.
constexpr std::uint8_t kRunStartMark = 0x80;
// A sample that differs from both its neighbours is a run of one: classifyRun's flag for it in
// two comparisons (the flag pass and flagTileRun, sift_tile_flags.cuh).
template <class R>
__device__ inline std::uint8_t classifyAlone(R prev, R cur, R next) {
  const R left = cur - prev, right = next - cur;
  return (left > 0 && right < 0)   ? sift::kMaximum
         : (left < 0 && right > 0) ? sift::kMinimum
                                   : sift::kNotExtremum;
}
// A flag value in every byte of a run's word.
constexpr unsigned long long inEveryByte(std::uint8_t flag) { return flag * 0x0101010101010101ull; }
// The run's maxima and minima, packed (packPair).
__device__ inline int runExtrema(unsigned long long flags) {
  return packPair(__popcll(flags & inEveryByte(kMaximum)), __popcll(flags & inEveryByte(kMinimum)));
}
// The plateau starts flagTileRun marked in a run's word (kRunStartMark bits).
__device__ inline unsigned long long runStartMarks(unsigned long long flags) {
  return flags & inEveryByte(kRunStartMark);
}

// An iteration's kernels overlap (programmatic dependent launch, sm_90): each is launched so that
// it may start while the one before it ends. Most wait for that one at their start, which saves
// the launch between them: one channel's float32 run went from 0.129-0.130 to 0.127-0.129 s,
// the device's idle gaps under 2 us from 2,240 to 656 per two runs (cuda_timeline, H200). The
// small systems' solve waits for nothing (it reads only what the large ones' solve read), and the
// evaluation waits for its own signal: each solve marks every spline it finishes with the
// iteration's epoch, and an evaluation block waits for its signal's two marks, not for the whole
// grid. Waiting for the grid, the first IMF's iterations on one channel left most SMs idle in the
// large solve's third wave (1,000 systems, 3 blocks per SM): a float32 run took 0.131-0.132 s,
// with the marks 0.128 s (float64 0.221 and 0.218 s). On 64 channels, where the large solve runs
// 32 waves and the overlap only slows its last one, 1.438-1.439 s became 1.444-1.445 s
// (emd_bench, H200, docs/emd.md).
//
// Called at a kernel's start: the next kernel, if launched by launchOverlapping, may start.
__device__ inline void letDependentsLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}
// In a kernel launched by launchOverlapping: returns once the kernel launched before it has
// finished and its writes are visible. Called by every thread at the start of a kernel that reads
// what the one before it wrote (startAfterKernelBefore: before letDependentsLaunch, so that a
// kernel launched after it that does not wait finds that one finished too); or by one thread
// before it exits, so that the kernel ends only after the one before it, and the launches after
// it find both finished.
__device__ inline void waitForKernelBefore() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
// At the start of a kernel launched by launchOverlapping that reads what the one before it wrote:
// waits for that one, then lets the next launch start.
__device__ inline void startAfterKernelBefore() {
  waitForKernelBefore();
  letDependentsLaunch();
}
// A spline's slopes are all written (the writers ordered before the calling thread by a barrier):
// they are visible on the device before its mark.
__device__ inline void markSolved(int* mark, int epoch) {
  __threadfence();
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(__cvta_generic_to_global(mark)),
               "r"(epoch)
               : "memory");
}
// The mark, read so that the calling thread's later loads see what was written before it.
__device__ inline int loadSolvedMark(const int* mark) {
  int epoch;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];"
               : "=r"(epoch)
               : "l"(__cvta_generic_to_global(mark))
               : "memory");
  return epoch;
}
// Launches `kernel` so that its blocks may start before the kernel launched before it on `stream`
// has finished, once that kernel's blocks have all started and called letDependentsLaunch
// (programmatic stream serialization; on a device before sm_90, an ordinary launch). For kernels
// that wait for what they read (markSolved) and call waitForKernelBefore.
// overlap false: an ordinary launch (tests/gpu/emd_parity_test.cpp compares the two bit for bit).
template <class... Params, class... Args>
void launchOverlapping(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                       bool overlap, Args&&... args) {
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = overlap ? 1 : 0;
  MODESCOPE_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// The iteration's steps (each launches on `stream`; v.count signals).
// Flags the extrema of every candidate, counts them per tile, scans the counts and writes each
// signal's knots with the mirrored end knots (sift_knots.cu). tileCounts must be zero, or, with
// tilesFlagged, hold what the last evaluation (or, in the first iteration, the input's writer)
// counted: it flagged every sample whose neighbours lie in its tile and differ from it, and only
// the rest is left to flag. firstIteration: also each signal's max |x| (maxAbsBits).
template <class R>
void findKnots(const SiftView<R>& v, dim3 sampleGrid, bool firstIteration, bool countZeros,
               bool tilesFlagged, bool overlap, cudaStream_t stream);
// The not-a-knot spline of each signal's maxima and minima, as the slope at each knot
// (sift_splines.cu; the evaluation computes the pieces' coefficients from them). overlap: the
// small systems' launch may start while the large ones' runs (launchOverlapping). alwaysNarrow:
// the large systems in narrow blocks whatever the batch (a test's switch; the bits are the same).
template <class R>
void solveSplines(const SiftView<R>& v, bool overlap, bool alwaysNarrow, cudaStream_t stream);
// The mean of the two envelopes subtracted from each candidate into the other buffer, with
// Rilling's counts (sift_evaluate.cu). flagNext: also flags the next candidate's extrema that
// its tiles alone decide (nextFlagRows; their zero crossings where countZeros). overlap: it may
// start while the solve runs (launchOverlapping).
template <class R>
void evaluateMean(const SiftView<R>& v, const RuleView& rule, dim3 sampleGrid, bool flagNext,
                  bool countZeros, bool overlap, cudaStream_t stream);

}  // namespace modescope::cuda::sifting
