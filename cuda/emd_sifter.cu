// The sifter's stop decisions and its driver (emd_sifter.cuh explains the design; the
// iteration's other steps are in the files sift_view.cuh names).
#include <algorithm>
#include <cstdlib>
#include <utility>

#include "cuda/emd_sifter.cuh"
#include "cuda/sift_view.cuh"

namespace modescope::cuda {
using namespace sifting;
namespace {

template <class R>
__global__ void decideStopKernel(SiftView<R> v, RuleView rule, const R* refMaxAbs, bool probeOnly) {
  startAfterKernelBefore();
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
         knots * (sizeof(std::int32_t) + 2 * sizeof(R)) +
         2 * static_cast<std::size_t>(sweepCapFor(n)) * sizeof(SweepRow<R>) +
         4 * sizeof(int) * static_cast<std::size_t>(tilesFor(n) + 1) +
         (2 * sizeof(int) + sizeof(unsigned long long)) * static_cast<std::size_t>(tilesFor(n)) +
         2 * sizeof(int) + 64;
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
  knotStart_ = DeviceBuffer<int>(2 * static_cast<std::size_t>(capacity));
  knotCount_ = DeviceBuffer<int>(2 * static_cast<std::size_t>(capacity));
  counters_ = DeviceBuffer<int>(kCounters * static_cast<std::size_t>(capacity));
  maxAbsBits_ = DeviceBuffer<unsigned long long>(capacity);
  status_ = DeviceBuffer<int>(capacity);
  nbit_ = DeviceBuffer<int>(capacity);
  sCount_ = DeviceBuffer<int>(capacity);
  parity_ = DeviceBuffer<int>(capacity);
  imfTable_ = DeviceBuffer<R*>(capacity);
  tileCounts_ = DeviceBuffer<int>(2 * tileCountsSize());  // this iteration's and the next's
  plateauTiles_ = DeviceBuffer<int>(static_cast<std::size_t>(capacity) * tileCount());
  tileZeros_ = DeviceBuffer<int>(static_cast<std::size_t>(capacity) * tileCount());
  tileMaxAbs_ = DeviceBuffer<unsigned long long>(static_cast<std::size_t>(capacity) * tileCount());
  active_ = DeviceBuffer<int>(1);
  activeHost_ = PinnedBuffer<int>(1);
  solved_ = DeviceBuffer<int>(2 * static_cast<std::size_t>(capacity));
  MODESCOPE_CUDA_TRY(cudaMemsetAsync(solved_.get(), 0, solved_.bytes(), stream_));
}

template <class R>
TileFlagRows BatchSifter<R>::inputFlagRows() const {
  // tileCounts_'s first set: the one an extract's first iteration reads.
  return {flags_.get(),
          flagPitchFor(n_),
          tileCounts_.get(),
          plateauTiles_.get(),
          tileZeros_.get(),
          tileMaxAbs_.get(),
          static_cast<int>(tileCount())};
}

template <class R>
void BatchSifter<R>::extract(int count, const StopRule& rule, const std::uint8_t* enabled,
                             const R* refMaxAbs, bool probeOnly, SiftInput input,
                             const JobContext& ctx) {
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
                tileCounts_.get() + tileCountsSize(),
                plateauTiles_.get(),
                tileZeros_.get(),
                tileMaxAbs_.get(),
                static_cast<int>(tileCount()),
                solved_.get(),
                0};
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
  // wait do not stall the queue (seven launches per iteration take ~10 us to issue).
  const int checkEvery = 4;
  const bool fixedCount = r.kind == static_cast<int>(sift::StopKind::Fixed);
  // A fixed sift count runs `cap` iterations whatever the device says (signals with too few
  // extrema stop at the first, the others at the cap), so the host only looks for a cancel: each
  // look at the device drained the queue (a copy and a wait, then the next launches: gaps of
  // 10-100 us, 48 per float32 ICEEMDAN run of 24 stages; cuda_timeline, H200).
  const bool askDevice = !fixedCount;
  lastIterations_ = 0;
  const bool countZeros = siftCountsZeros(rule);
  // Set, every iteration runs the flag pass, as before the evaluation and the input's writer
  // flagged the candidates (tests/gpu/emd_parity_test.cpp compares the two bit for bit).
  const bool flagPassOnly = std::getenv("MODESCOPE_SIFT_FLAG_PASS_EVERY_ITERATION") != nullptr;
  // Whether this iteration's candidates are flagged but for their tiles' edges: by the input's
  // writer in the first iteration, by the last evaluation in the others (every signal still
  // sifting was evaluated in the last one).
  bool tilesFlagged = input == SiftInput::FlaggedByWriter && !flagPassOnly;
  // Set, every launch of an iteration starts after the one before it has finished (ordinary
  // launches, not launchOverlapping; the same test compares the two).
  const bool overlap = std::getenv("MODESCOPE_SIFT_SERIAL_LAUNCHES") == nullptr;
  // Set, the large spline solve takes its narrow blocks in every launch (sift_splines.cu; the
  // same test compares the bits with those of the wide blocks its small batches take).
  const bool alwaysNarrow = std::getenv("MODESCOPE_SIFT_NARROW_LARGE_SOLVE") != nullptr;
  for (int it = 0;; ++it) {
    if (askDevice && it % checkEvery == 0) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(active_.get(), 0, sizeof(int), stream_));
    }
    // The tiles' extremum counts are summed by atomics (a plateau's extremum may be counted from
    // an earlier tile); the evaluation or the writer stores its tiles' counts before anything adds
    // to them.
    if (!tilesFlagged) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(
          v.tileCounts, 0, static_cast<std::size_t>(count) * 2 * (tileCount() + 1) * sizeof(int),
          stream_));
    }
    findKnots(v, sampleGrid, it == 0, countZeros, tilesFlagged, overlap, stream_);
    // No next candidate to flag after the last iteration (a probe, or the cap).
    const bool flagNext = !flagPassOnly && !probeOnly && it + 1 < std::max(r.cap, 1);
    // A probe under a rule other than Rilling's decides on the extrema, the zero crossings and a
    // failed envelope, all counted by findKnots (sift::stopSifting), so its splines and mean are
    // left out: with them, a probe of one channel's residue took some 80 us a stage
    // (cuda_timeline, H200), and one channel's run 0.1204 instead of 0.1200 s (docs/emd.md).
    if (!probeOnly || r.kind == static_cast<int>(sift::StopKind::Rilling)) {
      v.epoch = ++epochs_;
      solveSplines(v, overlap, alwaysNarrow, stream_);
      evaluateMean(v, r, sampleGrid, flagNext, countZeros, overlap, stream_);
    }
    launchOverlapping(decideStopKernel<R>, dim3(perSignalBlocks), dim3(128), stream_, overlap, v, r,
                      refMaxAbs, probeOnly);
    ++lastIterations_;
    std::swap(v.tileCounts, v.nextTileCounts);
    tilesFlagged = flagNext;
    if (probeOnly) break;
    // decideStop counts every iteration of a signal still sifting, so after `cap` iterations
    // every signal has stopped: a fixed number of sifts ends without asking the device (and
    // without the empty iterations that waiting for the next check launched).
    if (it + 1 >= std::max(r.cap, 1)) break;
    if (it % checkEvery == checkEvery - 1) {
      if (!askDevice) {
        ctx.checkpoint();
        continue;
      }
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
