// Kernels of the CUDA time-frequency transform (cuda/tf_gpu.cpp drives them; engine/tf/tf_cpu.h
// is the procedure, engine/tf/tf_operators.h the per-bin formulas shared with the CPU).
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <cstdint>

namespace modescope::cuda {

// The grid of one transform, as the kernels need it.
struct TfGrid {
  int fftLength;     // N
  int bins;          // M = N / 2 + 1 source bins per spectrum
  int windowLength;  // L
  int stfts;         // J
  int orderCode;     // tf::OrderCode
  int firstBin;      // image rows firstBin..lastBin
  int lastBin;
  int hop;
  int64_t samples;  // S per channel
  int64_t columns;  // T per channel
  float sigma;
  float detFloor;
};

// frames[(f * J + j) * N + n] = x_c(t hop + k) w_j(k) for frame f0 + f = c T + t, k the tap that
// lands at FFT index n (k mod N), zero outside the signal. x: C x S, w: J x L. Writes only the L
// taps of each row: the caller keeps the other N - L positions zero (zeroes the buffer whenever
// N, L or the row layout change).
void launchTfFrames(const TfGrid& g, const float* x, const float* windows, int64_t firstFrame,
                    int64_t frames, float* out, cudaStream_t stream);

// A warp per frame (up to 513 source bins) or a block per frame: the target bin of every source
// bin (thresholds: per channel), then each
// image row summed by one thread over its sources in increasing source bin (the CPU's order; no
// floating-point atomics, so the image is deterministic). spectra: (frames x J) x M; out: frames x
// K (K = lastBin - firstBin + 1); scratch: frames x tfSqueezeScratchInts ints (used only when a
// column does not fit in shared memory).
void launchTfSqueeze(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                     int64_t firstFrame, int64_t frames, int* scratch, float2* out,
                     cudaStream_t stream);

// out[i] = |in[i]| = sqrt(re^2 + im^2) in float, for i < count: the magnitudes of a streamed
// image (engine/tf/tf_tiles.cpp computes them alike on the CPU).
void launchTfMagnitude(const float2* in, int64_t count, float* out, cudaStream_t stream);

// Whether a column's targets, source lists and row offsets fit the device's shared memory (else
// the kernel keeps them in `scratch`).
bool tfSqueezeFitsShared(const TfGrid& g);

// The ints the squeeze needs per frame: M targets, M listed sources, K + 1 row starts and K
// cursors (K = lastBin - firstBin + 1).
__host__ __device__ inline std::size_t tfSqueezeScratchInts(const TfGrid& g) {
  const std::size_t K = static_cast<std::size_t>(g.lastBin - g.firstBin + 1);
  return 2 * static_cast<std::size_t>(g.bins) + 2 * K + 1;
}

}  // namespace modescope::cuda
