// Kernels of the Hilbert-Huang transform on the device (internal to cuda/; engine/hht/hht.h defines
// every quantity). Every launcher takes an explicit stream, launches asynchronously and checks the
// launch (MODESCOPE_CUDA_CHECK_LAUNCH).
//
// Layout of one batch: `items` IMF rows of `n` samples, item-major ([items][n]); the items of
// channel c of the batch are itemBegin[c] .. itemBegin[c+1]-1. The spectrum of the batch is
// [channels][bins][timeBins] (hht.h's row-major grid per channel), the marginal [channels][bins].
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace modescope::cuda {

// The frequency grid (hht.h): bin k = floor(scale * (f - fMin)) (linear) or
// floor(scale * ln(f / fMin)) (logarithmic), clamped to 0 .. bins-1, for fMin <= f <= fMax;
// scale = bins / (fMax - fMin) or bins / ln(fMax / fMin), computed once on the host.
struct HhtDeviceGrid {
  int bins = 0;
  bool logScale = false;
  double fMin = 0.0, fMax = 0.0, scale = 0.0;
};

// z[i] = (x[i], 0) for i < count.
void launchRealToComplex(const float* x, std::int64_t count, float2* z, cudaStream_t stream);

// A forward spectrum in place -> the analytic signal's spectrum scaled for cuFFT's unnormalised
// inverse: Z[k] *= h[k] / n, h = 1 at DC and Nyquist (even n), 2 on 1 .. ceil(n/2)-1, 0 above.
void launchAnalyticWeights(float2* z, std::int64_t items, std::int64_t n, cudaStream_t stream);

// Instantaneous amplitude a = |z| and frequency in Hz (hht.h: mean of the two one-sided phase
// steps, one-sided at the ends), [items][n] each.
void launchInstantaneous(const float2* z, std::int64_t items, std::int64_t n, double sampleRate,
                         float* amplitude, float* frequency, cudaStream_t stream);

// Per-IMF sums over the included samples edge .. n-1-edge, in double: partial[(item * blocks + b)
// * 3 + {0, 1, 2}] = block b's sum of a^2 f and of a^2 over samples with 0 < f <= nyquist, and
// of x^2. The host adds the `blocks` partials of an item in order.
void launchImfSums(const float* x, const float* amplitude, const float* frequency,
                   std::int64_t items, std::int64_t n, std::int64_t edge, double nyquist,
                   int blocks, double* partial, cudaStream_t stream);

// Bytes of dynamic shared memory the spectrum kernel uses for `bins` bins on the shared path.
std::size_t spectrumSharedBytes(int bins);
// Blocks per channel along the time axis on the global-scratch path (the scratch then holds
// min(channels, 65535) x spectrumScratchColumns(timeBins) x bins doubles).
int spectrumScratchColumns(int timeBins);

// One block per (time column, channel): the column's histogram over its included samples and
// the channel's IMFs, in double (shared memory when `scratch` is null, else that global scratch),
// written as the mean per included sample, 0 for a column inside the edges. timeEdges:
// timeBins + 1 sample offsets. energy: a^2 instead of a. The caller passes scratch whenever
// spectrumSharedBytes(bins) exceeds the device's opt-in shared memory per block
// (cudaDevAttrMaxSharedMemoryPerBlockOptin); the launcher opts in above the default 48 KiB.
void launchSpectrumColumns(const float* amplitude, const float* frequency, const int* itemBegin,
                           std::int64_t channels, std::int64_t n, std::int64_t edge,
                           const std::int64_t* timeEdges, int timeBins, HhtDeviceGrid grid,
                           bool energy, double* scratch, float* spectrum, cudaStream_t stream);

// marginal[c][k] = sum_j spectrum[c][k][j] * columnWeight[j] in double (columnWeight[j] = included
// samples of column j / fs), one warp per row.
void launchMarginal(const float* spectrum, std::int64_t channels, int bins, int timeBins,
                    const double* columnWeight, double* marginal, cudaStream_t stream);

}  // namespace modescope::cuda
