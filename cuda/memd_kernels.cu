// The device MemdSiftEngine (cuda_memd.h): memd.m's envelope step over directions streamed in
// chunks, every numerical step the EMD family's shared primitive (engine/emd/sift_primitives.h),
// so the result equals the CPU engine's (engine/memd/memd_cpu.cpp) to rounding. Per chunk of
// directions, six launches:
//   projectKernel     one thread per (sample, direction): y = m . d_k
//   flagKernel        one thread per (sample, direction): run starts classify their run
//                     (plateaus collapse to their middle); zero crossings counted per direction
//   compactKernel     one block per direction: a block scan of the flags writes the maxima and
//                     minima positions after two free slots for the mirrored left knots
//   boundaryKernel    one thread per direction: fewer than 3 extrema or no mirror leaves it out;
//                     else the mirrored knots (NBSYM 2, decided on the projection)
//   solveKernel       one thread per (direction, envelope, channel): the channel's values at the
//                     shared knots and the not-a-knot slopes (Thomas: strictly diagonally
//                     dominant after the end rows are eliminated)
//   evaluateKernel    one thread per sample: for the chunk's directions in order, both envelopes
//                     of every channel, summed into mean (dims x n) and |U - L| / 2 into amp
// After the last chunk, finishKernel divides by the directions kept and sigmaKernel counts the
// samples above sd and sd2 (sigma as memd.m: divided by amp only when no amp is 0). The sums run
// over directions in order in one thread per sample: no atomics on values, so a run repeats bit
// for bit. One small copy of the statistics per sift goes back to the host (the driver decides).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <cub/block/block_scan.cuh>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_memd.h"
#include "cuda/device_memory.cuh"
#include "engine/emd/sift_primitives.h"
#include "engine/memd/memd_memory.h"

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

// System (k, e, c): channel c's values at direction k's knots of envelope e, and the slopes.
template <class R>
__global__ void solveKernel(const R* __restrict__ m, int dims, int64_t n, int64_t cap, int count,
                            const int32_t* __restrict__ tMax, const int32_t* __restrict__ tMin,
                            const EnvelopeKnots* __restrict__ knots, const int* __restrict__ kept,
                            R* __restrict__ y, R* __restrict__ s, R* __restrict__ work) {
  const int64_t id = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (id >= static_cast<int64_t>(count) * 2 * dims) return;
  const int c = static_cast<int>(id % dims);
  const int e = static_cast<int>((id / dims) % 2);
  const int k = static_cast<int>(id / (2 * dims));
  if (!kept[k]) return;
  const EnvelopeKnots kn = knots[2 * k + e];
  const int32_t* t = (e == 0 ? tMax : tMin) + static_cast<int64_t>(k) * cap + kn.start;
  const int64_t row = id * cap;  // ((k * 2 + e) * dims + c) * cap
  const R* x = m + static_cast<int64_t>(c) * n;
  for (int j = 0; j < kn.count; ++j) y[row + j] = x[knotSource(kn, t, j)];
  sift::splineSlopes(t, y + row, kn.count, s + row, work + row);
}

// One thread per sample: the chunk's kept directions in order, every channel's two envelopes.
template <class R>
__global__ void evaluateKernel(int dims, int64_t n, int64_t cap, int count,
                               const int32_t* __restrict__ tMax, const int32_t* __restrict__ tMin,
                               const EnvelopeKnots* __restrict__ knots,
                               const int* __restrict__ kept, const R* __restrict__ y,
                               const R* __restrict__ s, R* __restrict__ mean, R* __restrict__ amp) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  for (int k = 0; k < count; ++k) {
    if (!kept[k]) continue;
    const EnvelopeKnots ku = knots[2 * k], kl = knots[2 * k + 1];
    const int32_t* tu = tMax + static_cast<int64_t>(k) * cap + ku.start;
    const int32_t* tl = tMin + static_cast<int64_t>(k) * cap + kl.start;
    const int pu = sift::splinePiece(tu, ku.count, p);
    const int pl = sift::splinePiece(tl, kl.count, p);
    R sq = 0;
    for (int c = 0; c < dims; ++c) {
      const int64_t rowU = ((static_cast<int64_t>(k) * 2 + 0) * dims + c) * cap;
      const int64_t rowL = ((static_cast<int64_t>(k) * 2 + 1) * dims + c) * cap;
      const R upper = sift::splineValue(tu, y + rowU, s + rowU, pu, p);
      const R lower = sift::splineValue(tl, y + rowL, s + rowL, pl, p);
      mean[static_cast<int64_t>(c) * n + p] += (upper + lower) / 2;
      sq += (upper - lower) * (upper - lower);
    }
    // Added per direction, as the CPU adds its slots: the same order of additions.
    amp[p] += sqrt(sq) / 2;
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

// max |x| as the bits of a nonnegative float/double (ordered like the values).
template <class R>
__global__ void maxAbsKernel(const R* __restrict__ x, int64_t count,
                             unsigned long long* __restrict__ bits) {
  unsigned long long best = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double v = fabs(static_cast<double>(x[i]));
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
    best = b > best ? b : best;
  }
  atomicMax(bits, best);
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
        block_(static_cast<std::size_t>(dims) * static_cast<std::size_t>(n)),
        r_(block_),
        m_(block_),
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
        work_(static_cast<std::size_t>(chunk) * 2 * dims * cap_),
        extrema_(static_cast<std::size_t>(directions)),
        zero_(static_cast<std::size_t>(directions)),
        stats_(1),
        host_(block_) {}

  void load(const std::vector<double>& x, const std::vector<double>& directions) override {
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
      const int64_t systems = static_cast<int64_t>(count) * 2 * dims_;
      solveKernel<R><<<blocksFor(systems, 128), 128, 0, st>>>(
          m_.get(), dims_, n_, cap_, count, tMax_.get(), tMin_.get(), knots_.get(), kept_.get(),
          y_.get(), s_.get(), work_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("solveKernel", st);
      evaluateKernel<R><<<blocksFor(n_), kThreads, 0, st>>>(
          dims_, n_, cap_, count, tMax_.get(), tMin_.get(), knots_.get(), kept_.get(), y_.get(),
          s_.get(), mean_.get(), amp_.get());
      MODESCOPE_CUDA_CHECK_LAUNCH("evaluateKernel", st);
    }
    finishKernel<R><<<blocksFor(n_), kThreads, 0, st>>>(dims_, n_, &ds->keptTotal, mean_.get(),
                                                        amp_.get(), &ds->ampZero);
    MODESCOPE_CUDA_CHECK_LAUNCH("finishKernel", st);
    sigmaKernel<R><<<blocksFor(n_), kThreads, 0, st>>>(
        dims_, n_, mean_.get(), amp_.get(), &ds->ampZero, params.sd, params.sd2, ds->above);
    MODESCOPE_CUDA_CHECK_LAUNCH("sigmaKernel", st);
    DeviceStats hs{};
    std::vector<int> ext(static_cast<std::size_t>(K_)), zc(static_cast<std::size_t>(K_));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(&hs, ds, sizeof hs, cudaMemcpyDeviceToHost, st));
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(ext.data(), extrema_.get(), extrema_.bytes(), cudaMemcpyDeviceToHost, st));
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(zc.data(), zero_.get(), zero_.bytes(), cudaMemcpyDeviceToHost, st));
    stream_.synchronize();
    MemdEnvelopeStats out;
    out.extrema.assign(ext.begin(), ext.end());
    out.zeroCrossings.assign(zc.begin(), zc.end());
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

  void finishImf(std::vector<double>& imf) override {
    download(m_, imf);
    axpyKernel<R><<<blocksFor(static_cast<int64_t>(block_)), kThreads, 0, stream_.get()>>>(
        r_.get(), m_.get(), static_cast<int64_t>(block_));
    MODESCOPE_CUDA_CHECK_LAUNCH("axpyKernel", stream_.get());
  }

  void residue(std::vector<double>& out) override { download(r_, out); }

 private:
  void upload(const std::vector<double>& x, DeviceBuffer<R>& dst) {
    for (std::size_t i = 0; i < block_; ++i) host_[i] = static_cast<R>(x[i]);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dst.get(), host_.data(), block_ * sizeof(R),
                                       cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }
  void download(const DeviceBuffer<R>& src, std::vector<double>& out) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(host_.data(), src.get(), block_ * sizeof(R),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    out.assign(host_.begin(), host_.end());
  }

  int dims_;
  int64_t n_;
  int K_, chunk_;
  int64_t cap_;
  std::size_t block_;
  Stream stream_;
  DeviceBuffer<R> r_, m_, mean_, amp_, dirs_, proj_;
  DeviceBuffer<uint8_t> flags_;
  DeviceBuffer<int32_t> tMax_, tMin_;
  DeviceBuffer<int> counts_;
  DeviceBuffer<EnvelopeKnots> knots_;
  DeviceBuffer<int> kept_;
  DeviceBuffer<R> y_, s_, work_;
  DeviceBuffer<int> extrema_, zero_;
  DeviceBuffer<DeviceStats> stats_;
  std::vector<R> host_;
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
