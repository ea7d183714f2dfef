// Kernels of the CUDA time-frequency transform (cuda/tf_gpu.cpp drives them; engine/tf/tf_cpu.h
// is the procedure, engine/tf/tf_operators.h the per-bin formulas shared with the CPU).
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

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
// lands at FFT index n (k mod N), zero outside the window and the signal. x: C x S, w: J x L.
void launchTfFrames(const TfGrid& g, const float* x, const float* windows, int64_t firstFrame,
                    int64_t frames, float* out, cudaStream_t stream);

// One block per frame: the target bin of every source bin (thresholds: per channel), then each
// image row summed by the one thread that owns it, in increasing source bin (no atomics, the CPU's
// order). spectra: (frames x J) x M; out: frames x K (K = lastBin - firstBin + 1); scratch:
// frames x M ints (used only when a column does not fit in shared memory).
void launchTfSqueeze(const TfGrid& g, const cufftComplex* spectra, const float* thresholds,
                     int64_t firstFrame, int64_t frames, int* scratch, float2* out,
                     cudaStream_t stream);

// Whether a column's targets and rows fit the device's shared memory (else the kernel uses
// scratch and accumulates in global memory, still one owner per row).
bool tfSqueezeFitsShared(const TfGrid& g);

}  // namespace modescope::cuda
