// Kernels of the Infomax whitening on the device (cuda/ica_whitening_gpu.cpp drives them): the
// channel means, the centred double chunks that cuBLAS multiplies, and the packing of sphered
// doubles into the float rows the Infomax kernels read.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace modescope::cuda {

// mean[ch] = sum_t raw[ch * n + t] / n in double, for ch < channels (raw: channels x n floats,
// channel-major). Each channel's sum has a fixed order (deterministic).
void launchChannelMeans(const float* raw, int channels, int64_t n, double* mean,
                        cudaStream_t stream);

// out[ch * len + t] = raw[ch * n + t0 + t] - mean[ch] in double, for ch < channels, t < len: a
// len x channels column-major matrix for cuBLAS.
void launchCentreChunk(const float* raw, int channels, int64_t n, int64_t t0, int64_t len,
                       const double* mean, double* out, cudaStream_t stream);

// How the Infomax kernels read the sphered data: one row of `row` floats per sample (zeros past
// the r components), component i at slot(i) (the identity, or the warpgroup kernel's order within
// groups of 8), TF32-rounded (round to nearest, ties away, as cvt.rna.tf32.f32) or not.
struct SpheredRows {
  int components = 0;  // r
  int row = 0;         // floats per sample, r <= row
  bool warpgroupSlots = false;
  bool tf32 = false;
};

// For t < len: out[t * row + slot(i)] = float(sphered[i + t * row]) for i < r, 0 for the slots
// past r (sphered: the product, r x len column-major with leading dimension row).
void launchPackSphered(const double* sphered, int64_t len, const SpheredRows& layout, float* out,
                       cudaStream_t stream);

}  // namespace modescope::cuda
