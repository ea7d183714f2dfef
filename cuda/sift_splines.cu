// The envelopes' splines of one sifting iteration (sift_view.cuh).

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
}

}  // namespace

template <class R>
void solveSplines(const SiftView<R>& v, cudaStream_t stream) {
  solveSplinesKernel<<<2 * v.count, kSplineThreads, 0, stream>>>(v);
  MODESCOPE_CUDA_CHECK_LAUNCH("solveSplinesKernel", stream);
}
template void solveSplines<float>(const SiftView<float>&, cudaStream_t);
template void solveSplines<double>(const SiftView<double>&, cudaStream_t);

}  // namespace modescope::cuda::sifting
