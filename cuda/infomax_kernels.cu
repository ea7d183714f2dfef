// The Infomax pass kernel (infomax_kernels.cuh describes the design).
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <algorithm>
#include <type_traits>

#include "cuda/cuda_check.cuh"
#include "cuda/infomax_device.cuh"
#include "cuda/infomax_kernels.cuh"
#include "engine/core/philox.h"

namespace modescope::cuda {
namespace {

namespace cg = cooperative_groups;
using namespace infomax;

constexpr int kThreads = 256;   // 8 warps per CTA
constexpr int kMaxCluster = 8;  // the portable cluster size

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MODESCOPE_INFOMAX_DEVICE 1
#endif

#ifdef MODESCOPE_INFOMAX_DEVICE
using namespace nvcuda;

template <class Frag>
__device__ void toTf32(Frag& f) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = wmma::__float_to_tf32(f.x[i]);
}
// x = hi + lo with both parts representable in TF32 (3xTF32: FP32-accurate products).
template <class Frag>
__device__ void splitTf32(Frag& hi, Frag& lo) {
  for (int i = 0; i < hi.num_elements; ++i) {
    const float x = hi.x[i];
    const float h = wmma::__float_to_tf32(x);
    hi.x[i] = h;
    lo.x[i] = wmma::__float_to_tf32(x - h);
  }
}

// D (M x N) = [D +] A (M x K, row-major) * B (K x N; row-major, or col-major when kBCol) in shared
// memory. M, N multiples of 16, K of 8; leading dimensions multiples of 4 (WMMA's rule for
// float), pointers 32-byte aligned. Every thread of the CTA calls it; no barrier inside.
template <InfomaxMath kMath, bool kBCol>
__device__ void gemm(float* D, int ldd, const float* A, int lda, const float* B, int ldb, int M,
                     int N, int K, bool accumulate) {
  if constexpr (kMath == InfomaxMath::Fp32) {
    for (int e = threadIdx.x; e < M * N; e += blockDim.x) {
      const int i = e / N, j = e % N;
      float s = accumulate ? D[i * ldd + j] : 0.f;
      const float* a = A + i * lda;
      for (int k = 0; k < K; ++k) s = fmaf(a[k], kBCol ? B[j * ldb + k] : B[k * ldb + j], s);
      D[i * ldd + j] = s;
    }
  } else {
    using BLayout = std::conditional_t<kBCol, wmma::col_major, wmma::row_major>;
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int tn = N / 16, tiles = (M / 16) * tn;
    for (int t = warp; t < tiles; t += warps) {
      const int ti = t / tn, tj = t % tn;
      float* d = D + ti * 16 * ldd + tj * 16;
      wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
      if (accumulate)
        wmma::load_matrix_sync(acc, d, ldd, wmma::mem_row_major);
      else
        wmma::fill_fragment(acc, 0.f);
      for (int k = 0; k < K; k += 8) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a, alo;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, BLayout> b, blo;
        wmma::load_matrix_sync(a, A + ti * 16 * lda + k, lda);
        wmma::load_matrix_sync(b, kBCol ? B + tj * 16 * ldb + k : B + k * ldb + tj * 16, ldb);
        if constexpr (kMath == InfomaxMath::Tf32x3) {
          splitTf32(a, alo);
          splitTf32(b, blo);
          wmma::mma_sync(acc, alo, b, acc);  // small terms first
          wmma::mma_sync(acc, a, blo, acc);
        } else {
          toTf32(a);
          toTf32(b);
        }
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(d, acc, ldd, wmma::mem_row_major);
    }
  }
}

// Gathers samples idx[0..cols) (zero columns beyond) into X (R x C, row-major, ld ldC), eight
// loads in flight per thread: the samples are scattered, so each load waits a full memory
// latency and only overlapping them makes the gather cheap.
__device__ void gatherColumns(float* X, int ldC, const float* data, int R, int C, const int* idx,
                              int cols) {
  constexpr int kBatch = 8;
  const int total = R * C, stride = blockDim.x;
  for (int base = threadIdx.x; base < total; base += stride * kBatch) {
    float v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = base + u * stride, i = e % R, j = e / R;
      v[u] = e < total && j < cols ? __ldg(data + static_cast<long long>(idx[j]) * R + i) : 0.f;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = base + u * stride;
      if (e < total) X[(e % R) * ldC + e / R] = v[u];
    }
  }
}

// rows x cols floats (cols a multiple of 4, 16-byte aligned rows) from another CTA's shared
// memory into ours, 16 bytes per load.
__device__ void copyRows(float* dst, int ldDst, const float* src, int ldSrc, int rows, int cols) {
  const int quads = cols / 4;
  for (int e = threadIdx.x; e < rows * quads; e += blockDim.x) {
    const int i = e / quads, j = (e - i * quads) * 4;
    *reinterpret_cast<float4*>(dst + i * ldDst + j) =
        *reinterpret_cast<const float4*>(src + i * ldSrc + j);
  }
}

template <InfomaxMath kMath>
__global__ void __launch_bounds__(kThreads, 1)
    infomaxPassKernel(InfomaxPassArgs a, InfomaxLayout L) {
  extern __shared__ __align__(128) float smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const int q = static_cast<int>(cluster.block_rank());
  const int S = L.S, R = L.R, C = L.C, ldW = L.ldW, ldC = L.ldC, r = L.r;
  const int row0 = q * S;
  float* W = smem + L.offW;
  float* Wlo = smem + L.offWlo;
  float* G = smem + L.offG;
  float* Xbuf[2] = {smem + L.offX0, smem + L.offX1};
  float* UB = smem + L.offB;   // full U chunk; later GW; kurtosis data chunks
  float* Wq = smem + L.offWq;  // a remote W slab
  int* idx3 = reinterpret_cast<int*>(smem + L.offIdx3);
  float* Uo[2] = {smem + L.offU0, smem + L.offU1};
  float* Y = smem + L.offY;
  float* bias = smem + L.offVec;
  float* biasSum = bias + S;
  float* signs = biasSum + S;
  float* oldSigns = signs + S;
  float* oldKurt = oldSigns + S;
  double* mom = reinterpret_cast<double*>(smem + L.offMom);  // s1, s2, s3, s4 per row
  int* idx = reinterpret_cast<int*>(smem + L.offIdx);
  int* flags = reinterpret_cast<int*>(smem + L.offFlags);  // [0..1] blow-up, [2..3] changed
  unsigned* maxBits = reinterpret_cast<unsigned*>(flags + 4);

  // Load this CTA's slab of the state.
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int i = warp; i < S; i += warps)
    for (int j = lane; j < R; j += 32) {
      W[i * ldW + j] = a.state.w[static_cast<long long>(row0 + i) * R + j];
      Wlo[i * ldW + j] = a.state.wlo[static_cast<long long>(row0 + i) * R + j];
    }
  for (int i = threadIdx.x; i < S; i += blockDim.x) {
    bias[i] = a.state.bias[row0 + i];
    signs[i] = a.state.signs[row0 + i];
    oldSigns[i] = a.state.oldSigns[row0 + i];
    oldKurt[i] = a.state.oldKurtosis[row0 + i];
  }
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;
  long long chunkNo = 0;  // parity of the double-buffered U slab
  const float lr = a.learningRate;
  __syncthreads();

  // Prologue of the copy pipeline: indices of chunks 0 and 1, data of chunk 0.
  ChunkPlan plan;
  plan.block = a.block;
  plan.C = C;
  plan.perBlock = (a.block + C - 1) / C;
  plan.total = a.blocks * plan.perBlock;
  fetchIndices(idx3, a.perm, plan, 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const int ldX = L.ldX;
  fetchSamples(Xbuf[0], ldX, a.data, R, idx3, plan, 0);
  fetchIndices(idx3 + C, a.perm, plan, 1);
  __pipeline_commit();
  long long g = 0;  // chunk of the pass

  for (long long b = 0; b < a.blocks; ++b) {
    for (int e = threadIdx.x; e < S * ldW; e += blockDim.x) G[e] = 0.f;
    for (int i = threadIdx.x; i < S; i += blockDim.x) biasSum[i] = 0.f;
    for (int c0 = 0; c0 < a.block; c0 += C, ++g) {
      const int cols = min(C, a.block - c0);
      float* U = Uo[chunkNo & 1];
      ++chunkNo;
      // Chunk g's data and chunk g + 1's indices have landed; start chunk g + 1's data and
      // chunk g + 2's indices, then compute chunk g while they travel.
      __pipeline_wait_prior(0);
      __syncthreads();
      float* X = Xbuf[g & 1];
      fetchSamples(Xbuf[(g + 1) & 1], ldX, a.data, R, idx3 + ((g + 1) % 3) * C, plan, g + 1);
      fetchIndices(idx3 + ((g + 2) % 3) * C, a.perm, plan, g + 2);
      __pipeline_commit();
      gemm<kMath, true>(U, ldC, W, ldW, X, ldX, S, C, R, false);  // X: column-major R x C
      __syncthreads();
      // Nonlinearity, one warp per row: U gets the bias, Y the coefficient rows of G.
      for (int i = warp; i < S; i += warps) {
        const float bi = a.useBias ? bias[i] : 0.f;
        const float ki = signs[i];
        float sum = 0.f;
        for (int j = lane; j < C; j += 32) {
          const float u = U[i * ldC + j] + bi;
          U[i * ldC + j] = u;
          float y = 0.f;
          if (j < cols) {
            if (a.extended) {
              const float t = tanhf(u);
              sum += t;
              y = -(ki * t + u);
            } else {
              y = -tanhf(0.5f * u);
              sum += y;
            }
          }
          Y[i * ldC + j] = y;
        }
        sum = warpSum(sum);
        if (lane == 0) biasSum[i] += sum;
      }
      const float* Ufull = U;  // one CTA: its slab is all of U
      if (L.Q > 1) {
        cluster.sync();  // every CTA's U slab is complete
        for (int p = 0; p < L.Q; ++p)
          copyRows(UB + p * S * ldC, ldC, cluster.map_shared_rank(U, p), ldC, S, C);
        Ufull = UB;
      }
      __syncthreads();
      gemm<kMath, true>(G, ldW, Y, ldC, Ufull, ldC, S, R, C, true);  // G += Y U^T
      __syncthreads();
    }
    for (int i = threadIdx.x; i < S; i += blockDim.x)
      if (row0 + i < r) G[i * ldW + row0 + i] += static_cast<float>(a.block);
    __syncthreads();
    // GW = G W, W's slabs read from their CTAs (our own directly): all at once into a whole W
    // when it fits, else slab by slab.
    if (L.Q == 1) {
      gemm<kMath, false>(UB, ldW, G, ldW, W, ldW, S, R, S, false);
      __syncthreads();
    } else if (L.wholeW) {
      for (int p = 0; p < L.Q; ++p)
        copyRows(Wq + p * S * ldW, ldW, cluster.map_shared_rank(W, p), ldW, S, R);
      __syncthreads();
      gemm<kMath, false>(UB, ldW, G, ldW, Wq, ldW, S, R, R, false);
      __syncthreads();
    } else {
      for (int p = 0; p < L.Q; ++p) {
        copyRows(Wq, ldW, cluster.map_shared_rank(W, p), ldW, S, R);
        __syncthreads();
        gemm<kMath, false>(UB, ldW, G + p * S, ldW, Wq, ldW, S, R, S, p > 0);
        __syncthreads();
      }
    }
    cluster.sync();  // nobody reads W any more in this block
    if (threadIdx.x == 0) *maxBits = 0u;
    __syncthreads();
    unsigned localMax = 0u;
    bool localNan = false;
    for (int i = warp; i < S; i += warps)
      for (int j = lane; j < R; j += 32) {
        const float w = W[i * ldW + j];
        const float y = lr * UB[i * ldW + j] - Wlo[i * ldW + j];
        const float t = w + y;
        Wlo[i * ldW + j] = (t - w) - y;
        W[i * ldW + j] = t;
        if (isnan(t)) localNan = true;
        localMax = max(localMax, __float_as_uint(fabsf(t)));
      }
    if (localNan) localMax = 0xffffffffu;
    for (int o = 16; o > 0; o >>= 1)
      localMax = max(localMax, __shfl_xor_sync(0xffffffffu, localMax, o));
    if (lane == 0) atomicMax(maxBits, localMax);
    for (int i = threadIdx.x; i < S; i += blockDim.x)
      bias[i] += (a.extended ? -2.f : 1.f) * lr * biasSum[i];
    __syncthreads();
    const int slot = static_cast<int>(b & 1);
    if (threadIdx.x == 0) {
      const unsigned m = *maxBits;
      flags[slot] = (m == 0xffffffffu || !(__uint_as_float(m) <= a.maxWeight)) ? 1 : 0;
    }
    ++blockNo;
    cluster.sync();
    bool anyBlow = false;
    for (int p = 0; p < L.Q; ++p) anyBlow |= cluster.map_shared_rank(flags, p)[slot] != 0;
    if (anyBlow) {
      blewUp = true;
      __pipeline_wait_prior(0);  // no copy may land after the kernel's shared memory is gone
      break;
    }

    // Kurtosis estimate (extended mode), on the counter-based draws of infomax_passes.h.
    if (a.extended && extBlocks > 0 && blockNo % static_cast<long long>(extBlocks) == 0) {
      const long long m = min(static_cast<long long>(a.kurtosisSamples), a.n);
      for (int e = threadIdx.x; e < 4 * S; e += blockDim.x) mom[e] = 0.0;
      for (long long c0 = 0; c0 < m; c0 += C) {
        const int cols = static_cast<int>(min(static_cast<long long>(C), m - c0));
        float* U = Uo[chunkNo & 1];
        ++chunkNo;
        for (int j = threadIdx.x; j < cols; j += blockDim.x)
          idx[j] = static_cast<int>(kurtosisSample(a, estimates, m, c0 + j));
        __syncthreads();
        gatherColumns(UB, ldC, a.data, R, C, idx, cols);
        __syncthreads();
        gemm<kMath, false>(U, ldC, W, ldW, UB, ldC, S, C, R, false);
        __syncthreads();
        for (int i = warp; i < S; i += warps) {
          double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
          for (int j = lane; j < cols; j += 32) {
            const double u = U[i * ldC + j], u2 = u * u;
            s1 += u;
            s2 += u2;
            s3 += u2 * u;
            s4 += u2 * u2;
          }
          s1 = warpSum(s1), s2 = warpSum(s2), s3 = warpSum(s3), s4 = warpSum(s4);
          if (lane == 0) {
            mom[4 * i] += s1;
            mom[4 * i + 1] += s2;
            mom[4 * i + 2] += s3;
            mom[4 * i + 3] += s4;
          }
        }
        __syncthreads();
      }
      ++estimates;
      // The rules of IcaSignState::apply (engine/ica/ica_sign_state.cpp), per row of the slab.
      if (threadIdx.x == 0) flags[2 + slot] = 0;
      __syncthreads();
      for (int i = threadIdx.x; i < S; i += blockDim.x) {
        if (row0 + i >= r) continue;
        const double moments[4] = {mom[4 * i], mom[4 * i + 1], mom[4 * i + 2], mom[4 * i + 3]};
        if (updateKurtosisSign(moments, m, a, oldKurt[i], signs[i], oldSigns[i]))
          atomicOr(flags + 2 + slot, 1);
      }
      cluster.sync();
      bool changed = false;
      for (int p = 0; p < L.Q; ++p) changed |= cluster.map_shared_rank(flags, p)[2 + slot] != 0;
      signCount = changed ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
    }
  }

  __pipeline_wait_prior(0);
  // Store the slab and (CTA 0) the counters.
  for (int i = warp; i < S; i += warps)
    for (int j = lane; j < R; j += 32) {
      a.state.w[static_cast<long long>(row0 + i) * R + j] = W[i * ldW + j];
      a.state.wlo[static_cast<long long>(row0 + i) * R + j] = Wlo[i * ldW + j];
    }
  for (int i = threadIdx.x; i < S; i += blockDim.x) {
    a.state.bias[row0 + i] = bias[i];
    a.state.signs[row0 + i] = signs[i];
    a.state.oldSigns[row0 + i] = oldSigns[i];
    a.state.oldKurtosis[row0 + i] = oldKurt[i];
  }
  if (q == 0 && threadIdx.x == 0) {
    storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
  }
  cluster.sync();  // keep every CTA's shared memory alive until the others stop reading it
}
#else
// Built for an architecture without clusters or TF32 tensor cores: never launched (the host
// refuses devices below compute capability 9.0).
template <InfomaxMath kMath>
__global__ void infomaxPassKernel(InfomaxPassArgs, InfomaxLayout) {}
#endif

template <InfomaxMath kMath>
void launchWith(const InfomaxPassArgs& args, const InfomaxLayout& layout, cudaStream_t stream) {
  auto kernel = infomaxPassKernel<kMath>;
  MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(layout.bytes)));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(layout.Q));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = layout.bytes;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(layout.Q);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  MODESCOPE_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, args, layout));
  MODESCOPE_CUDA_CHECK_LAUNCH("infomaxPassKernel", stream);
}

}  // namespace

bool planInfomaxLayout(int r, int blockSize, std::size_t maxSharedBytes, InfomaxLayout& out,
                       int slabRows) {
  InfomaxLayout L;
  L.r = r;
  L.R = roundUp(std::max(r, 1), 16);
  // Default: spread the rows over the full portable cluster of 8 CTAs in slabs of at least 16
  // (64 x 460800 samples, H100: 16-row slabs over 4 CTAs ran a pass in 0.77x the time of one
  // CTA holding all 64 rows; the block update is latency- and instruction-bound in one SM).
  if (slabRows <= 0) slabRows = std::max(16, roundUp((L.R + 7) / 8, 16));
  L.S = std::min(roundUp(slabRows, 16), L.R);
  L.Q = (L.R + L.S - 1) / L.S;
  L.R = L.S * L.Q;  // every CTA owns a full slab
  if (L.Q > kMaxCluster) return false;
  L.ldW = L.R + 4;
  L.wholeW = L.Q > 1 && L.R <= 128;  // a whole W copy (R x ldW) stays small enough
  for (int C = roundUp(std::max(blockSize, 16), 16); C >= 16; C -= 16) {
    L.C = C;
    L.ldC = C + 4;
    int off = 0;
    auto take = [&off](int floats) {
      const int at = off;
      off += roundUp(floats, 8);
      return at;
    };
    const int slab = L.S * L.ldW;
    L.offW = take(slab);
    L.offWlo = take(slab);
    L.offG = take(slab);
    L.ldX = L.R + 4;
    L.offX0 = take(C * L.ldX);
    L.offX1 = take(C * L.ldX);
    L.offB = take(std::max(L.R * L.ldC, slab));
    L.offWq = take(L.Q > 1 ? (L.wholeW ? L.R * L.ldW : slab) : 0);
    L.offIdx3 = take(3 * C);
    L.offU0 = take(L.S * L.ldC);
    L.offU1 = take(L.S * L.ldC);
    L.offY = take(L.S * L.ldC);
    L.offVec = take(5 * L.S);
    L.offMom = take(2 * 4 * L.S);  // doubles
    L.offIdx = take(C);
    L.offFlags = take(8);
    L.bytes = static_cast<std::size_t>(off) * sizeof(float);
    if (L.bytes <= maxSharedBytes) {
      out = L;
      return true;
    }
  }
  return false;
}

void launchInfomaxPass(const InfomaxPassArgs& args, const InfomaxLayout& layout,
                       cudaStream_t stream) {
  switch (args.math) {
    case InfomaxMath::Tf32x3:
      return launchWith<InfomaxMath::Tf32x3>(args, layout, stream);
    case InfomaxMath::Tf32:
      return launchWith<InfomaxMath::Tf32>(args, layout, stream);
    case InfomaxMath::Fp32:
      return launchWith<InfomaxMath::Fp32>(args, layout, stream);
  }
}

}  // namespace modescope::cuda
