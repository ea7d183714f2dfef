// Device pieces the two warpgroup Infomax kernels share (internal to cuda/; sm_90a only):
// infomax_wgmma_kernel.cu (up to 64 components, one computing warpgroup) and
// infomax_wgmma128_kernel.cu (65 to 128, two). Both take the samples from a producer warp that
// gathers them into shared memory and hands each buffer over through mbarriers, and both compute
// U = W X + b with W's rounded copy as A fragments (wgmma_tf32.cuh has the layouts).
//
// The sample buffers (B of U = W X: k = channel slot, n = sample): channel quad q of sample j at
// q * 128 NT + 16 j bytes, so the two core matrices of a k-step are 128 NT bytes apart and
// neighbouring 8-sample groups 128. The data rows hold each 8 channels in the order
// 0 2 4 6 1 3 5 7 (wgmmaChannelSlot): the k order in which W's accumulators serve as A fragments.
#pragma once

#include <cuda_pipeline.h>

#include <cstdint>
#include <type_traits>

#include "cuda/cuda_check.cuh"
#include "cuda/infomax_device.cuh"
#include "cuda/infomax_kernels.cuh"
#include "cuda/wgmma_tf32.cuh"

namespace modescope::cuda::infomax {

constexpr int kCoreBytes = 128;  // one core matrix: 8 rows x 16 bytes

// Bytes of one sample buffer: kRow channels x 8 NT samples.
template <int kRow>
constexpr int sampleBufferBytes(int NT) {
  return kRow / 4 * NT * kCoreBytes;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Shared-memory mbarriers (the producer's hand-over of each sample buffer).
__device__ __forceinline__ unsigned smemAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrierInit(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddress(bar)), "r"(count)
               : "memory");
}
__device__ __forceinline__ void barrierArrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddress(bar)) : "memory");
}
// Arrives once all of this thread's earlier cp.async copies have landed.
__device__ __forceinline__ void barrierArriveOnCopies(unsigned long long* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smemAddress(bar))
               : "memory");
}
__device__ __forceinline__ bool barrierTryWait(unsigned long long* bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(smemAddress(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
// Named barrier 1 of the kThreads computing threads (the producer never joins it).
template <int kThreads>
__device__ __forceinline__ void computingThreadsSync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
}

// The producer warp: block k's samples into X[k % kBuffers] (kBuffers 2 or 4), once the
// computing warps have released the buffer (empty[k % kBuffers]); full[k % kBuffers] completes
// when every lane's copies have landed. Lane (q = lane % Q, h = lane / Q, Q = kRow / 4 channel
// quads) copies quad q of samples h, h + 32 / Q, ...; the block's permutation entries are read
// by the lanes (j = lane, lane + 32, lane + 64) and passed round by shuffles. kRow: floats per
// data row (64 or 128). stop: set by the computing warps when they leave early (a blow-up), so
// no wait is endless.
template <int NT, int kRow, int kBuffers>
__device__ void produceSamples(const InfomaxPassArgs& a, unsigned char* X, unsigned long long* full,
                               unsigned long long* empty, const volatile int* stop) {
  static_assert(kBuffers == 2 || kBuffers == 4);
  constexpr int kQuads = kRow / 4, kPerCopy = 32 / kQuads, kShift = kBuffers == 4 ? 2 : 1;
  const int lane = threadIdx.x & 31, q = lane & (kQuads - 1), h = lane / kQuads;
  const int block = a.block;
  const float* const src = a.data + 4 * q;
  // The entries of block k + 1 are loaded while block k's buffer is awaited and filled.
  int e[3];
  auto loadEntries = [&](long long k) {
    const int* const perm = a.perm + k * block;
#pragma unroll
    for (int r = 0; r < 3; ++r)
      e[r] = k < a.blocks && lane + 32 * r < block ? __ldg(perm + lane + 32 * r) : 0;
  };
  loadEntries(0);
  for (long long k = 0; k < a.blocks; ++k) {
    const int s = static_cast<int>(k & (kBuffers - 1));
    const int cur[3] = {e[0], e[1], e[2]};
    loadEntries(k + 1);
    if (k >= kBuffers) {
      const unsigned parity = static_cast<unsigned>(((k >> kShift) - 1) & 1);
      while (!barrierTryWait(empty + s, parity))
        if (*stop) {
          __pipeline_wait_prior(0);
          return;
        }
    }
    unsigned char* const dst = X + s * sampleBufferBytes<kRow>(NT) + q * NT * kCoreBytes;
#pragma unroll
    for (int i = 0; i < 8 * NT / kPerCopy; ++i) {
      const int j = kPerCopy * i + h;
      const int at = __shfl_sync(0xffffffffu, cur[(kPerCopy * i) / 32], (kPerCopy * i) % 32 + h);
      if (j < block)
        __pipeline_memcpy_async(dst + 16 * j, src + static_cast<long long>(at) * kRow, 16);
    }
    barrierArriveOnCopies(full + s);
  }
  __pipeline_wait_prior(0);
}

// A computing thread's share of the pass state: W's elements in accumulator order (element
// 4 nb + e is row e < 2 ? r0 : r1 = r0 + 8, column 8 nb + 2 t + (e & 1)), and its two rows'
// bias, sign and kurtosis history. Rows and columns past R are zero (sign 1). W is taken as
// w - wlo: no Kahan compensation in the warpgroup kernels (plain TF32 products err by ~2^-11 of
// each update, far above FP32's rounding of the sum), so it is stored back with wlo = 0.
struct RowState {
  float bias[2], sign[2], oldSign[2], oldKurt[2];
};
template <int kN>
__device__ __forceinline__ void loadState(const InfomaxPassArgs& a, int R, int r0, int t,
                                          float (&w)[kN], RowState& rows) {
#pragma unroll
  for (int k = 0; k < kN; ++k) {
    const int row = r0 + ((k & 2) ? 8 : 0), col = 8 * (k >> 2) + 2 * t + (k & 1);
    const bool in = row < R && col < R;
    w[k] = in ? a.state.w[row * R + col] : 0.f;
    if (in) w[k] -= a.state.wlo[row * R + col];
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = r0 + 8 * h;
    const bool in = row < R;
    rows.bias[h] = in && a.useBias ? a.state.bias[row] : 0.f;
    rows.sign[h] = in ? a.state.signs[row] : 1.f;
    rows.oldSign[h] = in ? a.state.oldSigns[row] : 0.f;
    rows.oldKurt[h] = in ? a.state.oldKurtosis[row] : 0.f;
  }
}
template <int kN>
__device__ __forceinline__ void storeState(const InfomaxPassArgs& a, int R, int r0, int t,
                                           const float (&w)[kN], const RowState& rows) {
#pragma unroll
  for (int k = 0; k < kN; ++k) {
    const int row = r0 + ((k & 2) ? 8 : 0), col = 8 * (k >> 2) + 2 * t + (k & 1);
    if (row < R && col < R) {
      a.state.w[row * R + col] = w[k];
      a.state.wlo[row * R + col] = 0.f;
    }
  }
  if (t == 0)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r0 + 8 * h;
      if (row >= R) continue;
      a.state.bias[row] = rows.bias[h];
      a.state.signs[row] = rows.sign[h];
      a.state.oldSigns[row] = rows.oldSign[h];
      a.state.oldKurtosis[row] = rows.oldKurt[h];
    }
}

// The sample buffers' zeros (samples past the block stay zero: copies never write them), the
// flags and the hand-over barriers (full: one arrival per producer lane; empty: one from the
// computing warps), by all kThreads threads before their first barrier.
template <int kThreads>
__device__ __forceinline__ void initialiseShared(unsigned char* X, int xBytes, int buffers,
                                                 int* flags, unsigned long long* full,
                                                 unsigned long long* empty) {
  for (int e = threadIdx.x; e < buffers * xBytes / 16; e += kThreads)
    reinterpret_cast<float4*>(X)[e] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (threadIdx.x < 4) flags[threadIdx.x] = 0;
  if (threadIdx.x == 0)
    for (int i = 0; i < buffers; ++i) {
      barrierInit(full + i, 32);
      barrierInit(empty + i, 1);
    }
}

// Operands kept as A fragments: f[s] is k-step s, filled from accumulator element k = 4 s + e
// (wgmma_tf32.cuh: the fragment is {d0, d2, d1, d3}), so each fragment is 4 registers in the
// order the instruction reads them and nothing is moved before a product.
__device__ __forceinline__ constexpr int fragmentSlot(int e) { return ((e & 1) << 1) | (e >> 1); }
template <int kS>
__device__ __forceinline__ void setFragment(unsigned (&f)[kS][4], int k, unsigned v) {
  f[k >> 2][fragmentSlot(k & 3)] = v;
}

// U = W X in chunks of tiles 3c .. 3c + 2 (m64n24k8), the last one 1 or 2 tiles (n8 or n16).
template <int NT>
constexpr int kWxChunks = (NT + 2) / 3;

// Issues acc += W X over kS k-steps (8 kS channels), one commit group per chunk, so the
// nonlinearity of a chunk overlaps the products of the next. wf: W's rounded A fragments;
// dX: the sample buffer (layout above).
template <int NT, int kS>
__device__ __forceinline__ void issueWX(float (&acc)[4 * NT], const unsigned (&wf)[kS][4],
                                        std::uint64_t dX) {
  constexpr int kC24 = NT / 3, kRem = NT % 3;
  wgmma::fence();
#pragma unroll
  for (int c = 0; c < kWxChunks<NT>; ++c) {
#pragma unroll
    for (int s = 0; s < kS; ++s) {
      const std::uint64_t ds = wgmma::advance(dX, (2 * s * NT + 3 * c) * kCoreBytes);
      if (c < kC24)
        wgmma::mma<24>(acc + 12 * c, wf[s], ds, true);
      else if constexpr (kRem == 1)
        wgmma::mma<8>(acc + 12 * c, wf[s], ds, true);
      else if constexpr (kRem == 2)
        wgmma::mma<16>(acc + 12 * c, wf[s], ds, true);
    }
    wgmma::commit();
  }
}

// Waits for chunk c of the chunked products above (before its first accumulator is read).
template <int NT>
__device__ __forceinline__ void awaitWX(float (&acc)[4 * NT], int c) {
  wgmma::waitFor(kWxChunks<NT> - 1 - c);
  wgmma::pin(acc + 12 * c, min(12, 4 * NT - 12 * c));
}

template <int NT, int kS>
__device__ __forceinline__ void productWX(float (&acc)[4 * NT], const unsigned (&wf)[kS][4],
                                          std::uint64_t dX) {
  issueWX<NT>(acc, wf, dX);
  wgmma::wait<0>();
  wgmma::pin(acc);
}

// P1's follow-up for its accumulator element k (tile s = k / 4, row h = (k >> 1) & 1, sample
// 8 s + 2 t + (k & 1)), U = u: Y = K tanh U + U (extended) or tanh(U / 2) into yf as the A
// fragment of the product that takes Y (P2 in the one-warpgroup kernel, P3 in the two-warpgroup
// one; both negate it there), tanh's share of the row's bias sum; returns U rounded for its
// store. Only the last tile can reach past the block; there U = 0 contributes nothing.
template <int NT, bool kExtended>
__device__ __forceinline__ unsigned activate(float u, int k, int t, int block, const RowState& rows,
                                             float (&sum)[2], unsigned (&yf)[NT][4]) {
  const int s = k >> 2, h = (k >> 1) & 1;
  if (s == NT - 1 && 8 * s + 2 * t + (k & 1) >= block) u = 0.f;
  const float th = fastTanh(kExtended ? u : 0.5f * u);
  sum[h] += th;
  setFragment(yf, k, wgmma::roundTf32(kExtended ? fmaf(rows.sign[h], th, u) : th));
  return wgmma::roundTf32(u);
}

// The bias step from the rows' sums of the quad's lanes: b += lr * sum(-2 tanh u) (extended)
// or lr * sum(-tanh(u / 2)) (logistic: 1 - 2 sigmoid u).
template <bool kExtended>
__device__ __forceinline__ void stepBias(const InfomaxPassArgs& a, float (&sum)[2],
                                         RowState& rows) {
  const float biasStep = (kExtended ? -2.f : -1.f) * a.learningRate;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 1);
    sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 2);
    if (a.useBias) rows.bias[h] += biasStep * sum[h];
  }
}

// W += lr (B W + D) for the thread's kN elements (B: the block's samples), D in the halves da
// and db of two committed product groups: the first half is updated while the second group
// still runs. store(k, w) takes each new element rounded to TF32 (W^T for the next update, and
// in the one-warpgroup kernel P1's fragments). Returns max |W| for the blow-up test.
template <int kN, class Store>
__device__ __forceinline__ float updateWeights(float (&w)[kN], float (&da)[kN / 2],
                                               float (&db)[kN / 2], float lr, float bI,
                                               Store store) {
  float maxAbs = 0.f;
#pragma unroll
  for (int k = 0; k < kN; ++k) {
    if (k == 0) {
      wgmma::wait<1>();
      wgmma::pin(da);
    } else if (k == kN / 2) {
      wgmma::wait<0>();
      wgmma::pin(db);
    }
    const float dk = k < kN / 2 ? da[k] : db[k - kN / 2];
    const float s = fmaf(lr, fmaf(bI, w[k], dk), w[k]);
    w[k] = s;
    maxAbs = fmaxf(maxAbs, fabsf(s));
    store(k, wgmma::roundTf32(s));
  }
  return maxAbs;
}

// The extended rule's kurtosis estimate after an update, with its W (wf: the rounded A
// fragments). Every computing thread calls it once all have finished the update's products: it
// synchronises them. The moments (sum u, u^2, u^3, u^4) of u = W x for the thread's two rows
// (r0 and r0 + 8; those below `components` take the new signs) over the draws of estimate
// `estimates` (kurtosisSample), in chunks of 8 NT samples gathered by cp.async into buf0 and
// buf0 + bufStride in turn (the sample buffers' layout; both must be free), the next chunk's
// gather travelling while a chunk is computed. Then the pass's sign count and extBlocks as
// runica keeps them. idxK: 2 x 8 NT ints; flags[2] collects "a sign changed".
template <int NT, int kRow, int kComputing, int kS>
__device__ __forceinline__ void estimateKurtosis(const InfomaxPassArgs& a,
                                                 const unsigned (&wf)[kS][4], unsigned char* buf0,
                                                 int bufStride, int* idxK, int* flags, int r0,
                                                 int components, long long& estimates,
                                                 int& signCount, double& extBlocks,
                                                 RowState& rows) {
  constexpr int kSlot = 8 * NT, kQuads = kRow / 4;
  static_assert(kComputing / kQuads == 8, "8 rows of threads, each gathering every 8th sample");
  const int tid = threadIdx.x, t = tid & 3;
  auto buf = [&](long long c) { return buf0 + (c & 1) * bufStride; };
  const long long m = min(static_cast<long long>(a.kurtosisSamples), a.n);
  const long long chunks = (m + kSlot - 1) / kSlot;
  double mom[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  auto columns = [&](long long c) {
    return static_cast<int>(min(static_cast<long long>(kSlot), m - c * kSlot));
  };
  // Chunk c's draws into idxK slot c % 2, then its samples into buf(c) (zeros past m).
  auto fetch = [&](long long c) {
    const int cols = columns(c);
    int* const ids = idxK + (c & 1) * kSlot;
    for (int j = tid; j < cols; j += kComputing)
      ids[j] = static_cast<int>(kurtosisSample(a, estimates, m, c * kSlot + j));
    computingThreadsSync<kComputing>();
    const int q = tid & (kQuads - 1), j0 = tid / kQuads;
    unsigned char* const dst = buf(c) + q * NT * kCoreBytes + 16 * j0;
#pragma unroll
    for (int i = 0; i < NT; ++i) {
      if (j0 + 8 * i < cols)
        __pipeline_memcpy_async(
            dst + 128 * i, a.data + static_cast<long long>(ids[j0 + 8 * i]) * kRow + 4 * q, 16);
      else
        *reinterpret_cast<float4*>(dst + 128 * i) = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    __pipeline_commit();
  };
  computingThreadsSync<kComputing>();  // every warp is past the update's products
  if (tid == 0) flags[2] = 0;
  fetch(0);
  for (long long c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) {
      fetch(c + 1);
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    wgmma::fenceProxyAsync();
    computingThreadsSync<kComputing>();
    const int cols = columns(c);
    float uk[4 * NT];
#pragma unroll
    for (int k = 0; k < 4 * NT; ++k) uk[k] = 0.f;
    productWX<NT>(uk, wf, wgmma::descriptor(buf(c), NT * kCoreBytes, kCoreBytes));
#pragma unroll
    for (int k = 0; k < 4 * NT; ++k) {
      if (8 * (k >> 2) + 2 * t + (k & 1) >= cols) continue;
      const double u = uk[k], u2 = u * u;
      double* mh = mom[(k >> 1) & 1];
      mh[0] += u;
      mh[1] += u2;
      mh[2] += u2 * u;
      mh[3] += u2 * u2;
    }
    computingThreadsSync<kComputing>();  // buf(c) and its draws are refilled next
  }
  ++estimates;
  bool changed = false;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      mom[h][k] += __shfl_xor_sync(0xffffffffu, mom[h][k], 1);
      mom[h][k] += __shfl_xor_sync(0xffffffffu, mom[h][k], 2);
    }
    if (r0 + 8 * h < components)
      changed |= updateKurtosisSign(mom[h], m, a, rows.oldKurt[h], rows.sign[h], rows.oldSign[h]);
  }
  if (changed) flags[2] = 1;
  computingThreadsSync<kComputing>();
  signCount = flags[2] ? 0 : signCount + 1;
  if (signCount >= a.signCountThreshold) {
    extBlocks = trunc(extBlocks * a.signCountStep);
    signCount = 0;
  }
}

#endif

// A warpgroup kernel's layout for blocks of `blockSize` samples: NT 8-sample tiles (false
// outside minTiles..maxTiles); takeOperands(L, take) places the kernel's operand buffers in
// order, then the mbarriers of `xBuffers` sample buffers, the kurtosis draws and the flags
// follow; every region 128-byte aligned. False where it exceeds maxSharedBytes.
template <class TakeOperands>
bool planWgmmaLayout(int R, int rows, int blockSize, int minTiles, int maxTiles, int xBuffers,
                     std::size_t maxSharedBytes, InfomaxWgmmaLayout& out,
                     TakeOperands takeOperands) {
  const int NT = (blockSize + 7) / 8;
  if (NT < minTiles || NT > maxTiles) return false;
  InfomaxWgmmaLayout L;
  L.R = R;
  L.rows = rows;
  L.NT = NT;
  int off = 0;
  auto take = [&off](int bytes) {
    const int at = off;
    off += (bytes + 127) / 128 * 128;
    return at;
  };
  takeOperands(L, take);
  L.offBars = take(2 * xBuffers * 8);
  L.offIdxK = take(2 * 8 * NT * 4);
  L.offFlags = take(8 * 4);
  L.bytes = static_cast<std::size_t>(off);
  if (L.bytes > maxSharedBytes) return false;
  out = L;
  return true;
}

// Launches the pass kernel kernelFor(tiles, extended) (the instance of a kernel template for
// the block's tiles, std::integral_constant NT from kMinTiles to kMaxTiles as the layout says,
// and the rule, std::bool_constant) as one CTA of `threads` threads with the layout's shared
// memory. Throws DeviceError.
template <int NT, int kMaxTiles, class KernelFor>
void launchWgmmaPass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& L, int threads,
                     const char* name, cudaStream_t stream, KernelFor kernelFor) {
  if constexpr (NT < kMaxTiles) {
    if (L.NT != NT)
      return launchWgmmaPass<NT + 1, kMaxTiles>(args, L, threads, name, stream, kernelFor);
  }
  const auto kernel = args.extended
                          ? kernelFor(std::integral_constant<int, NT>{}, std::true_type{})
                          : kernelFor(std::integral_constant<int, NT>{}, std::false_type{});
  MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(L.bytes)));
  kernel<<<1, threads, L.bytes, stream>>>(args, L);
  MODESCOPE_CUDA_CHECK_LAUNCH(name, stream);
}

}  // namespace modescope::cuda::infomax
