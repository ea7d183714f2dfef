// Kernels of the Burg AR spectra on the device (internal to cuda/; engine/ar/ar_spectrum.h and
// engine/ar/burg.h give the procedure, which these follow step by step).
//
// One warp per (row, window): a window of a few hundred to a few thousand samples keeps its two
// error sequences in shared memory (2 N floats per warp), and every sum of the recursion is a
// warp-shuffle reduction in double, so no stage needs a block-wide barrier. Thousands of windows
// (channels x windows of a recording, or 1000 channels of one streamed block) fill the GPU.
// Arithmetic: sums, the coefficients, the noise power and the spectrum in double; the error
// sequences are stored as float (the CPU keeps them in double: the parity tests bound the
// difference).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace modescope::cuda {

// What the AR kernel computes, for `rows` x `windows` work items (item = row * windows + w).
struct BurgBatch {
  // Input: row r's samples start at data + r * rowStride. Window w covers samples
  // start_w + j, j = 0..n-1, start_w = firstStart + w * step; with ring > 0 each row is a
  // circular buffer of `ring` samples and indices wrap (firstStart < ring, n <= ring).
  const float* data = nullptr;
  std::int64_t rowStride = 0;
  std::int64_t ring = 0;
  std::int64_t firstStart = 0;
  std::int64_t step = 0;
  int rows = 0;
  int windows = 0;
  int n = 0;        // window samples N (>= order + 1)
  int order = 0;    // p, 1..64
  int detrend = 0;  // 0 none, 1 mean, 2 linear (ArDetrend order)
  int output = 0;   // 0 power, 1 amplitude, 2 coefficients (ArOutput order)
  // Evaluation angles of the bins, bin-major (bins x evals): cos w and sin w.
  const double* cosOmega = nullptr;
  const double* sinOmega = nullptr;
  int bins = 0;
  int evals = 0;
  double scale = 0.0;  // 2 / fs: per-sample PSD -> one-sided unit^2/Hz
  // Outputs, per item: values[item * perWindow ...] (bins, or order coefficients), noise[item]
  // (sigma_p^2, 0 when flat), orderReached[item] (-1 when flat, else the order the model reached).
  float* values = nullptr;
  float* noise = nullptr;
  int* orderReached = nullptr;
  // Global scratch of scratchSlots x 2n floats, used instead of shared memory when the window is
  // too long for it (burgSharedBytesPerWarp() above the opt-in limit); null otherwise.
  float* scratch = nullptr;
  int scratchSlots = 0;
};

// Shared memory one warp needs: its two error sequences and the coefficients.
std::size_t burgSharedBytesPerWarp(int n, int order);

// Launches the batch on `stream` (asynchronous; launch checked). The launcher picks warps per
// block from the shared memory a warp needs and the device's opt-in limit `maxSharedPerBlock`;
// when one warp does not fit, the caller must pass scratch (burgNeedsScratch) and the items run
// grid-stride over scratchSlots warps.
bool burgNeedsScratch(int n, int order, std::size_t maxSharedPerBlock);
void launchBurgWindows(const BurgBatch& batch, std::size_t maxSharedPerBlock, cudaStream_t stream);

// First non-finite sample of a rows x count block (row-major, row stride `stride`): writes
// min(row * count + column) into *firstBad, which the caller initialises to INT64_MAX.
void launchFindNonFinite(const float* data, int rows, std::int64_t count, std::int64_t stride,
                         unsigned long long* firstBad, cudaStream_t stream);

}  // namespace modescope::cuda
