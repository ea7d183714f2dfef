// Device pieces the Infomax pass kernels share (internal to cuda/; infomax_kernels.cuh gives
// the three kernels): the pass's chunk sequence with its asynchronous copies, warp sums, the
// extended rule's kurtosis sign update and draws, and the final counters.
#pragma once

#include <cuda_pipeline.h>

#include "cuda/infomax_kernels.cuh"
#include "engine/core/philox.h"

namespace modescope::cuda::infomax {

// The next block number after `after` at which the extended rule estimates the kurtosis signs
// (blockNo % extBlocks == 0), or -1 when extBlocks is below 1 (no estimate).
__device__ __forceinline__ long long nextEstimateBlock(long long after, double extBlocks) {
  const long long e = static_cast<long long>(extBlocks);
  return e > 0 ? (after / e + 1) * e : -1;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// tanh on the special function unit (about 2^-11 relative error: plain TF32 products err more).
__device__ __forceinline__ float fastTanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// d += a b on the tensor cores: mma.sync m16n8k8 with TF32 operands (their low 13 bits are
// ignored) and FP32 accumulators. Fragments (lane = 4 g + t): A a0 (g, t), a1 (g + 8, t),
// a2 (g, t + 4), a3 (g + 8, t + 4); B b0 (k = t, n = g), b1 (k = t + 4, n = g); C c0 (g, 2t),
// c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
__device__ __forceinline__ void mmaTf32(float (&d)[4], unsigned a0, unsigned a1, unsigned a2,
                                        unsigned a3, unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
#endif

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warpSum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The pass's chunk sequence: chunk g is columns c0 .. c0 + cols of block g / perBlock.
struct ChunkPlan {
  int block, C, perBlock;
  long long total;
  __device__ long long permBase(long long g) const {
    return (g / perBlock) * block + (g % perBlock) * static_cast<long long>(C);
  }
  __device__ int cols(long long g) const {
    return min(C, block - static_cast<int>(g % perBlock) * C);
  }
};

// Asynchronous copies (cp.async) of `count` permutation entries into idx ...
__device__ __forceinline__ void copyIndicesAsync(int* idx, const int* src, int count) {
  for (int j = threadIdx.x; j < count; j += blockDim.x)
    __pipeline_memcpy_async(idx + j, src + j, sizeof(int));
}
// ... and of the samples idx[0..cols) into X, sample-major (C x ldX: one sample's R values
// contiguous, as in the data), 16 bytes per copy; columns cols .. C - 1 are zeroed.
__device__ __forceinline__ void copySamplesAsync(float* X, int ldX, const float* data, int R,
                                                 const int* idx, int cols, int C) {
  const int quads = R / 4;
  for (int e = threadIdx.x; e < C * quads; e += blockDim.x) {
    const int j = e / quads, i = (e - j * quads) * 4;
    if (j < cols)
      __pipeline_memcpy_async(X + j * ldX + i, data + static_cast<long long>(idx[j]) * R + i,
                              4 * sizeof(float));
    else
      *reinterpret_cast<float4*>(X + j * ldX + i) = make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

// The same for chunk g of a ChunkPlan: its permutation entries, and its samples (indices
// already in idx).
__device__ inline void fetchIndices(int* idx, const int* perm, const ChunkPlan& p, long long g) {
  if (g >= p.total) return;
  copyIndicesAsync(idx, perm + p.permBase(g), p.cols(g));
}
__device__ inline void fetchSamples(float* X, int ldX, const float* data, int R, const int* idx,
                                    const ChunkPlan& p, long long g) {
  if (g >= p.total) return;
  copySamplesAsync(X, ldX, data, R, idx, p.cols(g), p.C);
}

// The extended rule's sign of one component from the moments s = (sum u, u^2, u^3, u^4) of its
// activation over m kurtosis samples: IcaSignState::apply (engine/ica/ica_sign_state.cpp).
// Updates the momentum-smoothed kurtosis and the signs; returns whether the sign changed.
__device__ __forceinline__ bool updateKurtosisSign(const double (&s)[4], long long m,
                                                   const InfomaxPassArgs& a, float& oldKurt,
                                                   float& sign, float& oldSign) {
  const double inv = 1.0 / static_cast<double>(m);
  double m2 = s[1] * inv, m4 = s[3] * inv;
  if (a.centredKurtosis) {
    const double mu = s[0] * inv, m3 = s[2] * inv;
    m4 = m4 - 4 * mu * m3 + 6 * mu * mu * m2 - 3 * mu * mu * mu * mu;
    m2 = m2 - mu * mu;
  }
  double kurt = m4 / (m2 * m2) - 3.0;
  if (a.momentum != 0.f) {
    kurt = a.momentum * static_cast<double>(oldKurt) + (1.0 - a.momentum) * kurt;
    oldKurt = static_cast<float>(kurt);
  }
  const double biased = kurt + a.signsBias;
  const float next = biased > 0 ? 1.f : biased < 0 ? -1.f : 0.f;
  sign = next;
  const bool changed = next != oldSign;
  oldSign = next;
  return changed;
}

// The pass's counters and extBlocks back into the device state (one thread).
__device__ __forceinline__ void storePassCounters(const InfomaxPassArgs& a, long long blockNo,
                                                  long long estimates, int signCount, bool blewUp,
                                                  double extBlocks) {
  a.state.counters[0] = blockNo;
  a.state.counters[1] = estimates;
  a.state.counters[2] = signCount;
  a.state.counters[3] = blewUp ? 1 : 0;
  *a.state.extBlocks = extBlocks;
}

// Sample index j of kurtosis estimate `estimate` (m draws from n samples, the counter-based
// draws of engine/ica/infomax_passes.h): all samples in order when m = n.
__device__ inline long long kurtosisSample(const InfomaxPassArgs& a, long long estimate,
                                           long long m, long long j) {
  if (m >= a.n) return j;
  const Philox4x32 rng(a.seed);
  const double u =
      rng.uniformDouble(a.kurtosisStream, static_cast<unsigned long long>(estimate * m + j));
  return min(a.n - 1, static_cast<long long>(u * static_cast<double>(a.n)));
}

}  // namespace modescope::cuda::infomax
