// Extrema and knots of one sifting iteration (sift_view.cuh).
#include <cub/block/block_reduce.cuh>

#include "cuda/cuda_check.cuh"
#include "cuda/device_ops.cuh"
#include "cuda/sift_view.cuh"

namespace modescope::cuda::sifting {
namespace {

// Flags the run of equal samples that starts at sample i (sift::startsRun) with classifyRun.
// Returns the extrema (packPair) that count in tile `tile`: a plateau's extremum counts in the
// tile its middle lies in, added there atomically when that is another tile.
template <class R>
__device__ inline int flagRunFrom(const SiftView<R>& v, int s, const R* x, std::uint8_t* flags,
                                  int i, int tile) {
  const std::int64_t last = sift::classifyRun(x, v.n, i, flags);
  const std::int64_t middle = sift::runMiddle(i, last);
  const std::uint8_t f = flags[middle];  // just written by classifyRun
  if (f == sift::kNotExtremum) return 0;
  if (middle / kSiftTileSamples == tile) return f == sift::kMaximum ? packPair(1, 0) : 1;
  atomicAdd(&v.countsOf(s, f == sift::kMaximum ? 0 : 1)[middle / kSiftTileSamples], 1);
  return 0;
}

// Flags sample i of candidate x (prev, cur, next: its value and its neighbours', zero beyond the
// ends) by the flag pass's rule: a sample differing from both neighbours is classified by the two
// comparisons (classifyRun's answer for a run of one), a run's first sample flags its whole run,
// any other sample is flagged by its run's first. Returns the extrema that count in `tile`
// (flagRunFrom).
template <class R>
__device__ inline int flagSample(const SiftView<R>& v, int s, const R* x, std::uint8_t* flags,
                                 int i, R prev, R cur, R next, int tile) {
  const bool interior = i > 0 && i + 1 < static_cast<int>(v.n);
  if (interior && prev != cur && cur != next) {
    const std::uint8_t f = classifyAlone(prev, cur, next);
    flags[i] = f;
    return f == sift::kMaximum ? packPair(1, 0) : f == sift::kMinimum ? 1 : 0;
  }
  if (i != 0 && prev == cur) return 0;  // not sift::startsRun
  return flagRunFrom(v, s, x, flags, i, tile);
}

// Strided over the tile (coalesced), kFlagSamples samples per thread whose values and neighbours
// are all loaded before any is classified. (Classified as they were loaded, each sample waited
// for its own three loads: ncu, H200, 9 stall cycles per instruction at 1 TB/s.)
constexpr int kFlagSamples = kSiftTileSamples / kSampleThreads;
// At most 64 registers (as with 4 blocks of 256 threads before the tiles were 1,024 samples).
template <class R>
__global__ void __launch_bounds__(kSampleThreads, 65536 / 64 / kSampleThreads)
    flagExtremaKernel(SiftView<R> v, bool firstIteration, bool countZeros) {
  using Reduce = cub::BlockReduce<int, kSampleThreads>;
  using ReduceBits = cub::BlockReduce<unsigned long long, kSampleThreads>;
  __shared__ union {
    typename Reduce::TempStorage sum;
    typename ReduceBits::TempStorage max;
  } tmp;
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    const int status = v.status[s], parity = v.parity[s];
    if (v.mustSkip(status, parity)) continue;  // uniform over the block
    const R* x = v.candidateOf(s, parity);
    std::uint8_t* flags = v.flagsOf(s);
    // int sample indices (knot positions are int32 too): in 64 bits every bounds test and
    // address took two instructions (SASS, H200 profile).
    const int n = static_cast<int>(v.n);
    const int begin = static_cast<int>(blockIdx.x) * kSiftTileSamples;
    R prev[kFlagSamples], cur[kFlagSamples], next[kFlagSamples];
    MODESCOPE_UNROLL
    for (int j = 0; j < kFlagSamples; ++j) {
      const int i = begin + static_cast<int>(threadIdx.x) + j * kSampleThreads;
      if (i < n) {
        prev[j] = i > 0 ? x[i - 1] : R(0);
        cur[j] = x[i];
        next[j] = i + 1 < n ? x[i + 1] : R(0);
      }
    }
    int zeros = 0, counts = 0;
    unsigned long long bits = 0;
    MODESCOPE_UNROLL
    for (int j = 0; j < kFlagSamples; ++j) {
      const int i = begin + static_cast<int>(threadIdx.x) + j * kSampleThreads;
      if (i >= n) break;
      counts += flagSample(v, s, x, flags, i, prev[j], cur[j], next[j], blockIdx.x);
      if (countZeros) zeros += sift::zeroCrossingsAt(prev[j], cur[j], next[j], i > 0, i + 1 < n);
      bits = max(bits, absBits(cur[j]));
    }
    const int csum = Reduce(tmp.sum).Sum(counts);
    __syncthreads();
    const int zsum = Reduce(tmp.sum).Sum(zeros);
    if (threadIdx.x == 0) {
      if (highHalf(csum)) atomicAdd(&v.countsOf(s, 0)[blockIdx.x], highHalf(csum));
      if (lowHalf(csum)) atomicAdd(&v.countsOf(s, 1)[blockIdx.x], lowHalf(csum));
      if (zsum) atomicAdd(&v.counters[s * kCounters + kZeros], zsum);
    }
    if (firstIteration) {
      __syncthreads();
      const unsigned long long m = ReduceBits(tmp.max).Reduce(bits, MaxOp());
      if (threadIdx.x == 0) atomicMax(&v.maxAbsBits[s], m);
    }
    __syncthreads();
  }
}

// One warp per signal and envelope: per-tile counts -> exclusive prefix, the total at the end.
template <class R>
__global__ void scanCountsKernel(SiftView<R> v) {
  startAfterKernelBefore();
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = threadIdx.x % 32;
  if (warp >= 2 * v.count) return;  // uniform over the warp
  const int s = warp / 2, e = warp % 2;
  if (v.status[s] != kSifting) return;
  int* c = v.countsOf(s, e);
  int run = 0;
  for (int b0 = 0; b0 < v.tiles; b0 += 32) {
    const int b = b0 + lane;
    const int mine = b < v.tiles ? c[b] : 0;
    int inclusive = mine;
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(~0u, inclusive, d);
      if (lane >= d) inclusive += o;
    }
    if (b < v.tiles) c[b] = run + inclusive - mine;
    run += __shfl_sync(~0u, inclusive, 31);
  }
  if (lane == 0) c[v.tiles] = run;
}

// Signal s's totals and mirrored end knots, once every region's knots are written: by the
// scatter's last warp to finish a region of the signal (scatterKnotsKernel).
template <class R>
__device__ void finishKnots(const SiftView<R>& v, int s) {
  const R* x = v.candidate(s);
  std::int32_t* posMax = v.knotPos + v.knotBase(s, 0) + kMirrored;
  std::int32_t* posMin = v.knotPos + v.knotBase(s, 1) + kMirrored;
  R* valMax = v.knotVal + v.knotBase(s, 0) + kMirrored;
  R* valMin = v.knotVal + v.knotBase(s, 1) + kMirrored;
  const int runMax = v.countsOf(s, 0)[v.tiles];
  const int runMin = v.countsOf(s, 1)[v.tiles];
  int* c = v.counters + s * kCounters;
  c[kMaxima] = runMax;
  c[kMinima] = runMin;
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

// A run of 8 flags' extrema of kind e (0: maximum, 1: minimum) as 8 bits, sample j's in bit j:
// each byte's bit e moved to bit j by one multiplication (every partial product lands in its own
// bit of the top byte).
__device__ inline unsigned extremaBits(unsigned long long flags, int e) {
  return static_cast<unsigned>((((flags >> e) & inEveryByte(1)) * 0x0102040810204080ull) >> 56);
}

// Each extremum's position and value at its rank: extrema before the region's first tile (the
// scan) plus those before it in the region. One warp per region (kRegionSamples), each lane on 64
// consecutive samples: the lanes' extrema as one bit mask per kind and their ranks by a warp scan
// of the masks' counts. Each lane puts its extrema's positions at their ranks in the warp's list
// in shared memory (a lane's ranks are consecutive), and the warp writes the list out in
// coalesced rows with the values read at those positions, one kind after the other.
//
// Why a warp and not a block: with a block of 256 threads per 2,048 samples (8 samples each, a
// block scan and two barriers), the scatter took 84-107 us per launch on the later IMFs of an
// ICEEMDAN run, whose tiles hold a few extrema, for 52 MB read (ncu, H200, 500 signals x 102,401
// samples, docs/emd.md): its time was the block's steps, not the traffic. This way it takes
// 26-42 us there. On the dense tiles of the first IMF it is slower (259 against 171 us); the two
// kinds written together from 16-bit offsets, which halved the DRAM reads there, took longer on
// every IMF but the first ones (docs/emd.md, ninth session).
// Extrema of one kind in a region: two maxima (minima) are at least two samples apart, so at most
// half the samples, and one plateau's extremum (flagged at its middle).
constexpr int kRegionKnots = kRegionSamples / 2 + 2;
constexpr int kScatterWarps = 8;
template <class R>
constexpr int kScatterBatch = sizeof(R) == sizeof(float) ? 4 : 2;
// At most 48 registers, 5 blocks per SM: with finishKnots folded in, the float kernel took 62
// registers unbounded, 4 blocks per SM (ptxas for sm_90), with no spills at 48.
template <class R>
__global__ void __launch_bounds__(32 * kScatterWarps, 5) scatterKnotsKernel(SiftView<R> v) {
  startAfterKernelBefore();
  __shared__ std::int32_t list[kScatterWarps][kRegionKnots];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const int region = static_cast<int>(blockIdx.x) * kScatterWarps + warp;
  if (region >= v.regions()) return;  // uniform over the warp; the warps share no barrier
  const int n = static_cast<int>(v.n);
  const int i0 = region * kRegionSamples + lane * kLaneSamples;  // the lane's first sample
  for (int s = blockIdx.y; s < v.count; s += gridDim.y) {
    const int status = v.status[s], parity = v.parity[s];
    if (v.mustSkip(status, parity)) continue;  // uniform over the block
    const R* x = v.candidateOf(s, parity);
    const std::uint8_t* row = v.flagsOf(s);
    std::size_t out[2];  // the region's first knot of each kind
    // The lane's extrema of each kind, sample i0 + j at bit j.
    unsigned long long mask[2] = {0, 0};
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e)
      out[e] = v.knotBase(s, e) + kMirrored + v.countsOf(s, e)[region * kRegionTiles];
    // Every flag word is loaded before any is used, 16 bytes at a time where the lane's samples
    // are all inside the signal: each word used as it came (a branch between loads, PTX) made
    // the lane's eight loads wait one behind the other.
    constexpr int kWords = kLaneSamples / kRunSamples;
    unsigned long long words[kWords];
    if (i0 + kLaneSamples <= n) {
      const auto* pairs = reinterpret_cast<const ulonglong2*>(row + i0);
      MODESCOPE_UNROLL
      for (int w = 0; w < kWords / 2; ++w) {
        const ulonglong2 pair = pairs[w];
        words[2 * w] = pair.x;
        words[2 * w + 1] = pair.y;
      }
    } else {
      MODESCOPE_UNROLL
      for (int w = 0; w < kWords; ++w) words[w] = loadRunFlags(row, i0 + w * kRunSamples, n);
    }
    MODESCOPE_UNROLL
    for (int w = 0; w < kWords; ++w) {
      MODESCOPE_UNROLL
      for (int e = 0; e < 2; ++e)
        mask[e] |= static_cast<unsigned long long>(extremaBits(words[w], e)) << (w * kRunSamples);
    }
    const int mine = packPair(__popcll(mask[0]), __popcll(mask[1]));
    int inclusive = mine;
    MODESCOPE_UNROLL
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(~0u, inclusive, d);
      if (lane >= d) inclusive += o;
    }
    const int before = inclusive - mine, total = __shfl_sync(~0u, inclusive, 31);
    MODESCOPE_UNROLL
    for (int e = 0; e < 2; ++e) {
      const int count = e == 0 ? highHalf(total) : lowHalf(total);
      int rank = e == 0 ? highHalf(before) : lowHalf(before);
      for (unsigned long long rest = mask[e]; rest; rest &= rest - 1)
        list[warp][rank++] = i0 + __ffsll(static_cast<long long>(rest)) - 1;
      __syncwarp();
      // kScatterBatch knots per lane at a time, every value loaded before any is stored:
      // loaded and stored one at a time, each value's load waited behind the stores before it
      // (ptxas does not move a load across a store it cannot tell apart from it: PTX), some 21
      // trips to memory per kind and lane in a dense region.
      for (int q0 = lane; q0 < count; q0 += 32 * kScatterBatch<R>) {
        std::int32_t p[kScatterBatch<R>];
        R value[kScatterBatch<R>];
        MODESCOPE_UNROLL
        for (int b = 0; b < kScatterBatch<R>; ++b) {
          if (q0 + 32 * b < count) {
            p[b] = list[warp][q0 + 32 * b];
            value[b] = x[p[b]];
          }
        }
        MODESCOPE_UNROLL
        for (int b = 0; b < kScatterBatch<R>; ++b) {
          if (q0 + 32 * b < count) {
            v.knotPos[out[e] + q0 + 32 * b] = p[b];
            v.knotVal[out[e] + q0 + 32 * b] = value[b];
          }
        }
      }
      __syncwarp();  // the list is filled again
    }
    // The signal's last warp to finish its region finishes its knots: each warp's knots are made
    // visible before the warp counts itself. (A kernel of its own, one thread per signal, took
    // 12-16 us per launch, 2 % of a float32 ICEEMDAN run of 1 x 102,401: its chain of dependent
    // loads, which here runs beside the other tiles' scatter; cuda_timeline, H200.)
    __threadfence();
    __syncwarp();
    int ticket = 0;
    if (lane == 0) ticket = atomicAdd(&v.counters[s * kCounters + kScatteredRegions], 1);
    if (__shfl_sync(~0u, ticket, 0) == v.regions() - 1 && lane == 0) finishKnots(v, s);
  }
}

// What the last evaluation (or the input's writer) left unflagged (flagTileRun,
// sift_tile_flags.cuh): the first and the last sample of every tile, whose neighbours lie in other
// tiles, and, in the tiles it marked, the plateaus starting inside them, whose first samples it
// left as kRunStartMark (classifyRun reads a run to its end, maybe in another tile); and the zero
// crossings it counted per tile (and the writer's max |x| per tile) summed per signal. One warp per
// signal and group of kEdgeTiles tiles: lanes 2 k and 2 k + 1 take the edges of the group's tile
// k, then the whole warp walks each marked tile's flags, 32 samples a lane. (A warp per two tiles,
// each lane walking 64 samples of them, took 28 us per launch on 1,000 float32 signals of 102,401
// samples, mostly the wait for its loads: 51,000 warps, six waves of them; cuda_timeline, H200.)
// No lane reads a flag another one writes: a run's first sample is marked, the samples inside it
// are not.
constexpr int kEdgeTiles = 16;
static_assert(2 * kEdgeTiles == 32, "a lane per edge");
// The groups of kEdgeTiles tiles of a signal: the kernel's warps per signal.
__host__ __device__ constexpr int edgeGroupsOf(int tiles) {
  return (tiles + kEdgeTiles - 1) / kEdgeTiles;
}
constexpr int kWalkSamples = kSiftTileSamples / 32;  // a lane's share of a marked tile
static_assert(kWalkSamples % 16 == 0, "a lane's flags in 16-byte loads");
template <class R>
__global__ void flagTileEdgesKernel(SiftView<R> v, bool countZeros, bool firstIteration) {
  startAfterKernelBefore();
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int groups = edgeGroupsOf(v.tiles);
  const int s = warp / groups, group = warp % groups;
  if (s >= v.count) return;  // uniform over the warp
  const int status = v.status[s], parity = v.parity[s];
  if (v.mustSkip(status, parity)) return;
  const R* x = v.candidateOf(s, parity);
  std::uint8_t* flags = v.flagsOf(s);
  const int n = static_cast<int>(v.n);
  const int edgeTile = group * kEdgeTiles + lane / 2;
  const bool inTile = edgeTile < v.tiles;
  const int begin = edgeTile * kSiftTileSamples, end = min(begin + kSiftTileSamples, n);
  const int edge = lane % 2 == 0 ? begin : end - 1;
  // The tile's words, loaded by its even lane beside the edges' samples.
  bool marked = false;
  int zeros = 0;
  unsigned long long maxAbs = 0;
  if (inTile && lane % 2 == 0) {
    const std::size_t entry = v.flagRows().tileEntry(s, edgeTile);
    marked = v.plateauTiles[entry] != 0;
    if (countZeros) zeros = v.tileZeros[entry];
    if (firstIteration) maxAbs = v.tileMaxAbs[entry];
  }
  int edgeCounts = 0;
  // An odd lane only where its tile has more than one sample.
  if (inTile && (lane % 2 == 0 || edge != begin)) {
    const R prev = edge > 0 ? x[edge - 1] : R(0), cur = x[edge];
    const R next = edge + 1 < n ? x[edge + 1] : R(0);
    edgeCounts = flagSample(v, s, x, flags, edge, prev, cur, next, edgeTile);
    if (countZeros) zeros += sift::zeroCrossingsAt(prev, cur, next, edge > 0, edge + 1 < n);
  }
  const int tileCounts = edgeCounts + __shfl_down_sync(~0u, edgeCounts, 1);
  if (inTile && lane % 2 == 0) {
    if (highHalf(tileCounts)) atomicAdd(&v.countsOf(s, 0)[edgeTile], highHalf(tileCounts));
    if (lowHalf(tileCounts)) atomicAdd(&v.countsOf(s, 1)[edgeTile], lowHalf(tileCounts));
  }
  for (unsigned tiles = __ballot_sync(~0u, marked); tiles; tiles &= tiles - 1) {
    const int tile = group * kEdgeTiles + (__ffs(static_cast<int>(tiles)) - 1) / 2;
    const int first = tile * kSiftTileSamples + lane * kWalkSamples;  // the lane's first flag
    int runCounts = 0;
    MODESCOPE_UNROLL
    for (int p = 0; p < kWalkSamples / 16; ++p) {
      const int i0 = first + 16 * p;
      if (i0 >= n) break;
      // Inside the row: i0 is a multiple of 16 below n, and the pitch is a multiple of 16.
      const ulonglong2 pair = *reinterpret_cast<const ulonglong2*>(flags + i0);
      MODESCOPE_UNROLL
      for (int w = 0; w < 2; ++w) {
        const int w0 = i0 + kRunSamples * w;
        unsigned long long marks = runStartMarks(w == 0 ? pair.x : pair.y);
        // Only the signal's own flags: the row's padding past the last sample is never written.
        if (n - w0 < kRunSamples) marks &= n - w0 <= 0 ? 0 : (1ull << (8 * (n - w0))) - 1;
        while (marks) {
          const int i = w0 + (__ffsll(static_cast<long long>(marks)) - 1) / 8;
          marks &= marks - 1;
          runCounts += flagRunFrom(v, s, x, flags, i, tile);
        }
      }
    }
    runCounts = __reduce_add_sync(~0u, runCounts);
    if (lane == 0 && highHalf(runCounts)) atomicAdd(&v.countsOf(s, 0)[tile], highHalf(runCounts));
    if (lane == 0 && lowHalf(runCounts)) atomicAdd(&v.countsOf(s, 1)[tile], lowHalf(runCounts));
  }
  zeros = __reduce_add_sync(~0u, zeros);
  maxAbs = warpMaxBits(maxAbs);
  if (lane != 0) return;
  if (zeros) atomicAdd(&v.counters[s * kCounters + kZeros], zeros);
  if (maxAbs) atomicMax(&v.maxAbsBits[s], maxAbs);
}

}  // namespace

template <class R>
void findKnots(const SiftView<R>& v, dim3 sampleGrid, bool firstIteration, bool countZeros,
               bool tilesFlagged, bool overlap, cudaStream_t stream) {
  if (tilesFlagged) {
    const int warps = v.count * edgeGroupsOf(v.tiles);
    launchOverlapping(flagTileEdgesKernel<R>, dim3((warps + 3) / 4), dim3(128), stream, overlap, v,
                      countZeros, firstIteration);  // 4 warps a block
  } else {
    flagExtremaKernel<<<sampleGrid, kSampleThreads, 0, stream>>>(v, firstIteration, countZeros);
    MODESCOPE_CUDA_CHECK_LAUNCH("flagExtremaKernel", stream);
  }
  launchOverlapping(scanCountsKernel<R>, dim3((2 * v.count + 7) / 8), dim3(256), stream, overlap,
                    v);  // 8 warps per block
  const dim3 warpGrid((v.regions() + kScatterWarps - 1) / kScatterWarps, sampleGrid.y);
  launchOverlapping(scatterKnotsKernel<R>, warpGrid, dim3(32 * kScatterWarps), stream, overlap, v);
}
template void findKnots<float>(const SiftView<float>&, dim3, bool, bool, bool, bool, cudaStream_t);
template void findKnots<double>(const SiftView<double>&, dim3, bool, bool, bool, bool,
                                cudaStream_t);

}  // namespace modescope::cuda::sifting
