// The element-wise kernels of the batched EMD run (cuda/emd_methods.cu, their only user): the
// input's conversion, the noise, the realizations, the ensemble means, the noise and EMD steps
// between IMFs and their small per-member kernels, with the grids they are launched on. Internal
// to cuda/; included by one file, so the templates are instantiated once.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda/emd_sifter.cuh"
#include "cuda/sift_tile_flags.cuh"
#include "engine/core/philox.h"
#include "engine/emd/emd.h"

namespace modescope::cuda::emd_rows {

constexpr int kThreads = 256;

inline dim3 rowsGrid(std::int64_t n, int rows) {
  return dim3(static_cast<unsigned>((n + kThreads - 1) / kThreads),
              static_cast<unsigned>(std::min(rows, 65535)));
}

// The element-wise kernels of every IMF (noiseStepKernel, realizeModeKernel) take kRowSamples
// samples per thread, kThreads apart, all loaded before any is stored. With one sample per
// thread they moved about 2.1 TB/s (ncu on an H200, 500 x 102,401 samples: 456 us for noiseStep's
// 1 GB, 203 us for realizeMode's 0.4 GB; with 4 per thread, 301 and 110 us).
constexpr int kRowSamples = 4;
inline dim3 wideRowsGrid(std::int64_t n, int rows) {
  const std::int64_t span = static_cast<std::int64_t>(kThreads) * kRowSamples;
  return dim3(static_cast<unsigned>((n + span - 1) / span),
              static_cast<unsigned>(std::min(rows, 65535)));
}
// Sample j of this thread in a wideRowsGrid block.
__device__ inline std::int64_t wideSample(int j) {
  return (static_cast<std::int64_t>(blockIdx.x) * kRowSamples + j) * kThreads + threadIdx.x;
}
// A wideRowsGrid block writes one tile of a row: those that write the sifter's input flag it
// (sifting::flagWrittenTile), sample j of a thread at stagedIndex(wideTileSample(j)).
static_assert(kThreads * kRowSamples == kSiftTileSamples, "a block per tile of the sifter");
__device__ inline int wideTileSample(int j) { return j * kThreads + static_cast<int>(threadIdx.x); }
// realizeModeKernel takes kWriterRows rows per block (a grid of wideRowsGrid's blocks, fewer
// rows), so that a block loads a row while it flags the last one. (noiseStepKernel, which moves
// 2.5 times the bytes a row, took longer so: 365 against 309 us on 500 x 102,401 float32 rows,
// cuda_timeline, H200.)
constexpr int kWriterRows = 4;
inline dim3 writerRowsGrid(std::int64_t n, int rows) {
  return wideRowsGrid(n, (rows + kWriterRows - 1) / kWriterRows);
}

// One realization sample: base + scale * noise, in one expression everywhere (the ensemble mean
// recomputes it and must round the same way).
template <class R>
__device__ inline R realize(R base, double scale, R noise) {
  return base + static_cast<R>(scale) * noise;
}

template <class R>
__global__ void convertKernel(const float* in, R* out, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = static_cast<R>(in[i]);
}

// max(*at, |x|) where absBits(x) = bits, for a non-negative *at: such values order as their bits.
__device__ inline void atomicMaxAbs(float* at, unsigned long long bits) {
  atomicMax(reinterpret_cast<unsigned*>(at), static_cast<unsigned>(bits));
}
__device__ inline void atomicMaxAbs(double* at, unsigned long long bits) {
  atomicMax(reinterpret_cast<unsigned long long*>(at), bits);
}

// Signal b = channel c * members + member i. out[b] = base[c] + scale[b] * w, w the member's
// Philox noise (paired: members 2j, 2j+1 share stream j with signs +, -). base may be null (0),
// scale may be null (1); copy, if not null, gets the same rows, and maxAbs, if not null (zeroed
// before), each row's largest |value| (emd.m's reference for the too-small-amplitude stop). A
// thread makes samples 2m and 2m + 1 from one Philox block (normalPairDouble: the bits of
// normalDouble(2m) and normalDouble(2m + 1)): one sample per thread, each generated its block and
// logarithm for itself, and the kernel took 548 us for 100 x 358,401 samples (cuda_timeline, H200).
template <class R>
__global__ void noiseKernel(R* out, R* copy, R* maxAbs, const R* base, const double* scale,
                            std::int64_t n, int signals, int members,
                            const std::uint64_t* channelIds, std::uint64_t seed, bool paired) {
  const Philox4x32 gen(seed);
  const std::int64_t pair = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  for (int b = blockIdx.y; b < signals; b += gridDim.y) {
    unsigned long long peak = 0;
    if (2 * pair < n) {
      const int c = b / members, i = b % members;
      const std::uint64_t stream = emdNoiseStream(channelIds[c], paired ? i / 2 : i);
      double w[2];
      gen.normalPairDouble(stream, static_cast<std::uint64_t>(pair), w[0], w[1]);
      const double sign = paired && (i & 1) ? -1.0 : 1.0;
      const double amplitude = scale ? scale[b] : 1.0;
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const std::int64_t t = 2 * pair + j;
        if (t >= n) break;
        const R b0 = base ? base[static_cast<std::size_t>(c) * n + t] : R(0);
        const R y = realize(b0, amplitude, static_cast<R>(sign * w[j]));
        out[static_cast<std::size_t>(b) * n + t] = y;
        if (copy) copy[static_cast<std::size_t>(b) * n + t] = y;
        peak = max(peak, sifting::absBits(y));
      }
    }
    if (maxAbs) {
      peak = sifting::warpMaxBits(peak);
      if (threadIdx.x % 32 == 0 && peak) atomicMaxAbs(&maxAbs[b], peak);
    }
  }
}

// A grid of noiseKernel: a thread per pair of samples.
inline dim3 noiseGrid(std::int64_t n, int rows) { return rowsGrid((n + 1) / 2, rows); }

// Row b's inputs of realizeModeKernel, loaded a row ahead of their use.
template <class R>
struct RealizeInputs {
  bool has;
  double scale;
  R base[kRowSamples], mode[kRowSamples];
  __device__ void load(int b, const R* bases, const R* modes, const double* scales,
                       const int* hasMode, std::int64_t n, int members) {
    has = hasMode[b] != 0;
    scale = has ? scales[b] : 0.0;
    const std::size_t row = static_cast<std::size_t>(b) * n, c = b / members;
#pragma unroll
    for (int j = 0; j < kRowSamples; ++j) {
      const std::int64_t t = wideSample(j);
      if (t < n) {
        base[j] = bases[c * n + t];
        if (has) mode[j] = modes[row + t];
      }
    }
  }
};

// out[b] = base[c] + scale[b] * mode[b] where the member has that mode, else base[c]
// (writerRowsGrid), out being the sifter's input and flagged into `flags` as signal b. Each block
// loads its next row before it flags the one it has written: loading each row after the last
// one's flags, the kernel took 233 instead of 109 us on 500 x 102,401 float32 rows (5 blocks of
// 256 threads per SM; cuda_timeline, H200), the memory idle while the flags were computed.
template <class R>
__global__ void realizeModeKernel(R* out, const R* base, const R* mode, const double* scale,
                                  const int* hasMode, std::int64_t n, int signals, int members,
                                  TileFlagRows flags, bool countZeros) {
  __shared__ sifting::WrittenTile<R> tile;
  int b = blockIdx.y;
  if (b >= signals) return;  // uniform over the block
  tile.start();
  RealizeInputs<R> in;
  in.load(b, base, mode, scale, hasMode, n, members);
  for (;;) {
    const std::size_t row = static_cast<std::size_t>(b) * n;
    unsigned long long maxAbs = 0;
#pragma unroll
    for (int j = 0; j < kRowSamples; ++j) {
      const std::int64_t t = wideSample(j);
      if (t < n) {
        const R y = in.has ? realize(in.base[j], in.scale, in.mode[j]) : in.base[j];
        out[row + t] = y;
        tile.staged[sifting::stagedIndex(wideTileSample(j))] = y;
        maxAbs = max(maxAbs, sifting::absBits(y));
      }
    }
    const int written = b;
    b += gridDim.y;
    if (b < signals) in.load(b, base, mode, scale, hasMode, n, members);
    sifting::flagWrittenTile(flags, written, blockIdx.x, n, countZeros, tile, maxAbs);
    if (b >= signals) return;
  }
}

// Ensemble mean per channel and sample, summed in member order in double (deterministic):
// localMean: mean_i (y_i - IMF_i) with y_i recomputed as realizeModeKernel made it (mode may be
// null: y_i = base); otherwise mean_i IMF_i. A member without an IMF contributes IMF = 0.
// Each member's row pointers and scale are staged in shared memory, kThreads members at a time,
// and the member loop is unrolled, so a thread has several members' loads in flight: read per
// member by every thread, each IMF load waited for the load of its row pointer, with one channel
// giving only ~n / 256 blocks to hide that. The sums are the same, in the same order.
template <class R>
__global__ void ensembleMeanKernel(R* out, R* const* imfs, const int* status, const R* base,
                                   const R* mode, const double* scale, const int* hasMode,
                                   std::int64_t n, int channels, int members, bool localMean) {
  __shared__ const R* imfOf[kThreads];   // null: no IMF
  __shared__ const R* modeOf[kThreads];  // null: y_i = base
  __shared__ double scaleOf[kThreads];
  for (int c = blockIdx.y; c < channels; c += gridDim.y) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    const bool in = t < n;
    const R b0 = in && localMean ? base[static_cast<std::size_t>(c) * n + t] : R(0);
    double sum = 0;
    for (int i0 = 0; i0 < members; i0 += kThreads) {
      const int count = min(kThreads, members - i0);
      __syncthreads();  // the previous members' entries are read
      if (static_cast<int>(threadIdx.x) < count) {
        const int b = c * members + i0 + static_cast<int>(threadIdx.x);
        imfOf[threadIdx.x] = status[b] == kSiftDone ? imfs[b] : nullptr;
        const bool shifted = localMean && mode && hasMode[b];
        modeOf[threadIdx.x] = shifted ? mode + static_cast<std::size_t>(b) * n : nullptr;
        scaleOf[threadIdx.x] = shifted ? scale[b] : 0.0;
      }
      __syncthreads();
      if (!in) continue;
#pragma unroll 8
      for (int i = 0; i < count; ++i) {
        const R* row = imfOf[i];
        const R imf = row ? row[t] : R(0);
        if (localMean) {
          const R* shift = modeOf[i];
          const R y = shift ? realize(b0, scaleOf[i], shift[t]) : b0;
          sum += static_cast<double>(y - imf);
        } else {
          sum += static_cast<double>(imf);
        }
      }
    }
    if (in) out[static_cast<std::size_t>(c) * n + t] = static_cast<R>(sum / members);
  }
}

// After one noise "extract IMF": mode k of every member (its IMF, or its residue when it has no
// IMF left, as emd.m appends the residue as the last row), the residue updated, and the next
// input = the residue (wideRowsGrid), the sifter's input from signal firstSignal on, flagged into
// `flags`. The next input may be the buffer the IMF lies in: each sample is read before it is
// written, by the same thread.
template <class R>
__global__ void noiseStepKernel(R* modeOut, R* residue, R* nextInput, R* const* imfs,
                                const int* status, std::int64_t n, int signals, int firstSignal,
                                TileFlagRows flags, bool countZeros) {
  __shared__ sifting::WrittenTile<R> tile;
  tile.start();
  for (int b = blockIdx.y; b < signals; b += gridDim.y) {
    const int st = status[b];
    const R* imf = imfs[b];
    const std::size_t row = static_cast<std::size_t>(b) * n;
    R r[kRowSamples], m[kRowSamples];
#pragma unroll
    for (int j = 0; j < kRowSamples; ++j) {
      const std::int64_t t = wideSample(j);
      if (t < n) {
        r[j] = residue[row + t];
        if (st == kSiftDone) m[j] = imf[t];
      }
    }
    unsigned long long maxAbs = 0;
#pragma unroll
    for (int j = 0; j < kRowSamples; ++j) {
      const std::int64_t t = wideSample(j);
      if (t >= n) continue;
      const std::size_t at = row + t;
      if (st == kSiftDone) {
        modeOut[at] = m[j];
        r[j] -= m[j];
        residue[at] = r[j];
      } else {
        modeOut[at] = st == kSiftNoImf ? r[j] : R(0);
      }
      nextInput[at] = r[j];
      tile.staged[sifting::stagedIndex(wideTileSample(j))] = r[j];
      maxAbs = max(maxAbs, sifting::absBits(r[j]));
    }
    sifting::flagWrittenTile(flags, firstSignal + b, blockIdx.x, n, countZeros, tile, maxAbs);
  }
}

// Per member: the number of noise modes it has and whether it can yield another IMF.
__global__ void noiseCountKernel(const int* status, int k, int* modeCount, std::uint8_t* alive,
                                 int signals, int* aliveTotal) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= signals) return;
  if (status[b] == kSiftDone) {
    modeCount[b] = k + 1;
    atomicAdd(aliveTotal, 1);
  } else if (status[b] == kSiftNoImf) {
    modeCount[b] = k + 1;  // the residue
    alive[b] = 0;
  }
}

// out = a + alpha * b, element-wise.
template <class R>
__global__ void combineKernel(R* out, const R* a, const R* b, R alpha, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = a[i] + alpha * b[i];
}

// rows[c] /= divisor[c]
template <class R>
__global__ void divideRowsKernel(R* rows, const double* divisor, std::int64_t n, int count) {
  for (int c = blockIdx.y; c < count; c += gridDim.y) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (t < n) {
      R& v = rows[static_cast<std::size_t>(c) * n + t];
      v = static_cast<R>(static_cast<double>(v) / divisor[c]);
    }
  }
}

// EMD: row out[c] = IMF (or 0), residue -= IMF, next input = residue.
template <class R>
__global__ void emdStepKernel(R* out, R* residue, R* nextInput, R* const* imfs, const int* status,
                              std::int64_t n, int signals) {
  for (int b = blockIdx.y; b < signals; b += gridDim.y) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (t >= n) continue;
    const std::size_t at = static_cast<std::size_t>(b) * n + t;
    const R m = status[b] == kSiftDone ? imfs[b][t] : R(0);
    if (out) out[at] = m;
    residue[at] -= m;
    nextInput[at] = residue[at];
  }
}

// hasMode[b] = modeCount[b] >= k + 1 (mode index k, 0-based), scale[b] = factor[c] / (normalise ?
// std[b] : 1).
__global__ void noiseScaleKernel(const int* modeCount, int k, const double* channelFactor,
                                 const double* memberStd, bool normalise, int* hasMode,
                                 double* scale, int signals, int members) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= signals) return;
  const bool has = modeCount[b] >= k + 1 && (!normalise || memberStd[b] > 0);
  hasMode[b] = has;
  scale[b] = has ? channelFactor[b / members] / (normalise ? memberStd[b] : 1.0) : 0.0;
}

// factor[c] = noiseStd * channelStd[c] (channelStd null: noiseStd), the noise's amplitude per
// channel: computed here from rowStatistics's deviations, the host does not wait for them.
__global__ void channelFactorKernel(double* factor, double noiseStd, const double* channelStd,
                                    int channels) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < channels) factor[c] = channelStd ? noiseStd * channelStd[c] : noiseStd;
}

// enabled[b] = channelActive[b / members]
__global__ void expandMaskKernel(const std::uint8_t* channelActive, std::uint8_t* enabled,
                                 int signals, int members) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < signals) enabled[b] = channelActive[b / members];
}

inline unsigned blocksFor(std::size_t count, int threads = kThreads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace modescope::cuda::emd_rows
