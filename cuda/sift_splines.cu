// The envelopes' splines of one sifting iteration (sift_view.cuh).

#include <algorithm>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.cuh"
#include "cuda/sift_view.cuh"

namespace modescope::cuda::sifting {
namespace {

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

// Systems are cut into up to kSplineThreads pieces of at least kMinPieceRows rows: with one warp
// (32 pieces) per system the serial sweeps of ~1,000 rows each made this a third of an iteration
// at 12 % occupancy (ncu, H200, 500 signals x 102,401 samples). The pieces' sweeps start and end
// `overlap` rows outside them: 2^-overlap of the solution is below the rounding of R (64 rows for
// double, 32 for float, sift::splineSlopeRows).
constexpr int kSplineThreads = kSiftSplineThreads;
constexpr int kMinPieceRows = 64;
// Threads of a block of the small solve: one warp per system.
constexpr int kSmallSolveThreads = 128;
// The large solve's narrow blocks: half the pieces, so the overlaps' extra sweep steps are fewer
// (a system of 17,000 rows: 64 x 332 instead of 128 x 200 forward steps), each block running
// about twice as long. Taken where the device has such blocks for two waves at least
// (narrowLargeSolveFrom): on one H200, one channel of 102,401 samples with 500 members (2,000
// systems a launch) took 0.121 against 0.122 s with them in every launch, 64 channels 1.443-1.448
// against 1.459-1.461 s, but 358,401 samples with 100 members (400 systems) 0.092-0.093 against
// 0.088-0.089 s (emd_bench, docs/emd.md). The pieces' rows, and so the bits, are the same: a
// sweep started `overlap` rows early meets the whole system's sweep in fewer rows than that.
constexpr int kNarrowSplineThreads = 64;
static_assert(2 * kMirrored + 2 == 6, "knotCapFor counts the mirrored knots");
template <class R>
constexpr int kPieceOverlap = sizeof(R) == sizeof(float) ? 32 : sift::kSplineOverlap;
// Pieces of a system of `rows` rows (at least kSerialSplineRows), at most kMaxPieces.
template <int kMaxPieces = kSplineThreads>
__device__ inline int piecesFor(int rows) {
  return min(kMaxPieces, max(2, rows / kMinPieceRows));
}

// One envelope's system: its knots and where its slopes and sweep rows go.
template <class R>
struct SplineSystem {
  const std::int32_t* t;
  const R* y;
  R* slope;
  SweepRow<R>* sweep;
  int n;  // knots; the reduced system has n - 2 rows
  bool active;
};
template <class R>
__device__ SplineSystem<R> systemOf(const SiftView<R>& v, int system) {
  const int s = system / 2, e = system % 2;
  SplineSystem<R> sys{};
  sys.active = s < v.count && v.status[s] == kSifting && !v.counters[s * kCounters + kEnvFailed];
  if (!sys.active) return sys;
  const std::size_t base = v.knotBase(s, e) + v.knotStart[s * 2 + e];
  sys.n = v.knotCount[s * 2 + e];
  sys.t = v.knotPos + base;
  sys.y = v.knotVal + base;
  sys.slope = v.knotSlope + base;
  sys.sweep = v.sweepOf(s, e);
  return sys;
}

// Piece `piece` of a system of more than kSerialSplineRows rows cut into `pieces`
// (piece < pieces). Pieces of a multiple of 4 rows: every piece of a warp then starts on the same
// alignment, so that the aligned runs of the sweep (sift::detail::runOffset) cut every piece's
// first chunk and group alike and the pieces step through the interleaved rows together. With
// pieces of any length, a warp's loads of "the same row of every piece" were scattered over up to
// 4 rows (ncu, H200: 28 % of the solve's excess sectors; rounded, the solve took 187 instead of
// 211 us per launch, docs/emd.md).
// kChunk: knots per load chunk of the sweep (sift::splineSlopeRowsWith).
template <int kChunk, class R>
__device__ void solvePiece(const SplineSystem<R>& sys, const sift::SplineEnds<R>& ends, int piece,
                           int pieces) {
  const int rows = sys.n - 2;
  const int chunk = ((rows + pieces - 1) / pieces + 3) / 4 * 4;
  const int first = 1 + piece * chunk;
  const int last = min(sys.n - 1, first + chunk);
  if (first < last) {
    sift::splineSlopeRowsWith<kChunk>(sys.t, sys.y, sys.n, ends, first, last, kPieceOverlap<R>,
                                      InterleavedSweep<R>{sys.sweep, first, piece, pieces},
                                      sys.slope);
  }
}
// The large float systems' sweeps load 24 knots ahead, not 16: 145 registers and 3 blocks per SM
// instead of 104 and 4, and their solve took 1,179 instead of 1,244 us per launch on 64 channels
// (cuda_timeline, H200, docs/emd.md, fourteenth session). Deeper loads in fewer warps beat the
// other way round: with 8 knots ahead (6 blocks), the knots staged in shared memory by cp.async 16
// ahead (6 blocks) or 32 ahead (4 blocks), it took 1,374, 1,367 and 1,254 us. The small systems'
// warps lost with 24 (173 against 149 us), and double keeps 16.
template <class R>
constexpr int kLargeSweepChunk = sizeof(R) == sizeof(float) ? 24 : sift::kSweepChunk;

// Two kernels, each returning at once for the other's systems: a system of at most 32 pieces
// (piecesFor) or a serial one is solved by one warp, one lane per piece, kSystemsPerBlock of them
// per block; a larger one by a block of its own. With one block per system whatever its size, a
// system of 100-2,000 knots kept 3 of a block's 4 warps idle, and the block's 118 registers per
// thread allowed 4 blocks per SM: 500 signals took 2 waves of blocks, 6,400 signals 25. (In one
// kernel, the block's systems after the warps' ones, the two sweeps took 158 registers instead of
// 114 and 104 for float: ptxas for sm_90.) The pieces, and so the bits, are the same either way.
__device__ inline bool solvedByOneWarp(int rows) {
  return rows < kSerialSplineRows || piecesFor(rows) <= 32;
}
constexpr int kSystemsPerBlock = kSmallSolveThreads / 32;
// A warp's system (launched by launchOverlapping after solveLargeSplinesKernel).
template <class R>
__device__ void solveSmallSystem(const SiftView<R>& v, int system) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const SplineSystem<R> sys = systemOf(v, system);
  const int rows = sys.n - 2;
  if (!sys.active || !solvedByOneWarp(rows)) return;  // uniform over the warp
  if (rows < kSerialSplineRows) {
    if (lane == 0) {
      sift::splineSlopes(sys.t, sys.y, sys.n, sys.slope, reinterpret_cast<R*>(sys.sweep));
      markSolved(&v.solved[system], v.epoch);
    }
    return;
  }
  const int pieces = piecesFor(rows);
  const auto ends = sift::splineEnds(sys.t, sys.y, sys.n);
  if (lane < pieces) solvePiece<sift::kSweepChunk>(sys, ends, lane, pieces);
  __syncwarp();  // s[1] and s[n-2] come from the first and the last piece
  if (lane == 0) {
    sift::splineEndSlopes(sys.t, sys.n, ends, sys.slope);
    markSolved(&v.solved[system], v.epoch);
  }
}
template <class R>
__global__ void __launch_bounds__(kSmallSolveThreads) solveSmallSplinesKernel(SiftView<R> v) {
  letDependentsLaunch();
  solveSmallSystem(
      v, static_cast<int>(blockIdx.x) * kSystemsPerBlock + static_cast<int>(threadIdx.x) / 32);
  if (blockIdx.x == 0 && threadIdx.x == 0) waitForKernelBefore();
}
// kThreads: kSplineThreads or kNarrowSplineThreads, and so the most pieces.
template <int kThreads, class R>
__global__ void __launch_bounds__(kThreads) solveLargeSplinesKernel(SiftView<R> v) {
  // The knots come from the scatter; the small solve, which does not wait, starts after this wait.
  startAfterKernelBefore();
  const int system = static_cast<int>(blockIdx.x);
  const SplineSystem<R> sys = systemOf(v, system);
  const int rows = sys.n - 2;
  if (!sys.active || solvedByOneWarp(rows)) return;  // uniform over the block
  const int pieces = piecesFor<kThreads>(rows);
  const auto ends = sift::splineEnds(sys.t, sys.y, sys.n);
  if (static_cast<int>(threadIdx.x) < pieces)
    solvePiece<kLargeSweepChunk<R>>(sys, ends, static_cast<int>(threadIdx.x), pieces);
  __syncthreads();  // s[1] and s[n-2] come from the first and the last piece
  if (threadIdx.x == 0) {
    sift::splineEndSlopes(sys.t, sys.n, ends, sys.slope);
    markSolved(&v.solved[system], v.epoch);
  }
}

static_assert(kNarrowSplineThreads > 32, "solvedByOneWarp's systems are the same for both");

// Systems from which the large solve takes narrow blocks: two waves of them on this device.
template <class R>
int narrowLargeSolveFrom() {
  thread_local int device = -1, systems = 0;
  int now = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&now));
  if (now != device) {
    int perSm = 0;
    MODESCOPE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, solveLargeSplinesKernel<kNarrowSplineThreads, R>, kNarrowSplineThreads, 0));
    device = now;
    systems = 2 * std::max(perSm, 1) * cudaMultiprocessorCount();
  }
  return systems;
}

}  // namespace

template <class R>
void solveSplines(const SiftView<R>& v, bool overlap, bool alwaysNarrow, cudaStream_t stream) {
  if (alwaysNarrow || 2 * v.count >= narrowLargeSolveFrom<R>()) {
    launchOverlapping(solveLargeSplinesKernel<kNarrowSplineThreads, R>, dim3(2 * v.count),
                      dim3(kNarrowSplineThreads), stream, overlap, v);
  } else {
    launchOverlapping(solveLargeSplinesKernel<kSplineThreads, R>, dim3(2 * v.count),
                      dim3(kSplineThreads), stream, overlap, v);
  }
  launchOverlapping(solveSmallSplinesKernel<R>,
                    dim3((2 * v.count + kSystemsPerBlock - 1) / kSystemsPerBlock),
                    dim3(kSmallSolveThreads), stream, overlap, v);
}

template void solveSplines<float>(const SiftView<float>&, bool, bool, cudaStream_t);
template void solveSplines<double>(const SiftView<double>&, bool, bool, cudaStream_t);

}  // namespace modescope::cuda::sifting
