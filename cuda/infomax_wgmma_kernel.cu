// The Hopper warpgroup Infomax pass kernel for up to 64 components in TF32 (infomax_kernels.cuh,
// "InfomaxWgmmaLayout", says when it runs and why it exists; wgmma_tf32.cuh has the fragment
// layouts). Built for sm_90a only (cuda/CMakeLists.txt).
//
// One warpgroup, W padded to 64 x 64. Warp w, lane 4 g + t owns rows r0 = 16 w + g and r1 = r0 + 8
// of every product, and W's elements (r0 | r1, 8 nb + 2 t + {0, 1}), the rows' bias, signs and
// kurtosis history, all in registers. Per block update:
//   P1  U = W X + b: W's rounded copy as A fragments, X (the block's samples, gathered by cp.async
//       two blocks ahead) from shared memory; the bias is the accumulators' start value;
//       Y' = -(K tanh U + U) (extended) or -tanh(U / 2) (logistic) on the accumulators; U to
//       shared memory; the bias sums by quad shuffles;                          one CTA barrier
//   P2  P = Y' U^T: Y' as A fragments straight from P1's accumulators, U from shared memory;
//   P3  D = P W: P as A fragments, W^T from shared memory; W += lr (B W + D) (B I, the identity
//       term of G = B I + Y' U^T, is applied in FP32 here instead of being rounded into P); W's
//       rounded copy to the other W^T buffer and to the A fragments.
// P2 and P3 run in column halves so that each half's follow-up overlaps the other half's
// products; P1 in chunks of 24 samples so that the nonlinearity overlaps the later chunks.
// The data are uploaded as rows of 64 floats with the channels of every 8 in the order
// 0 2 4 6 1 3 5 7: that is the k order in which P3's accumulators serve as P1's A fragments.
#include <cuda_pipeline.h>

#include <stdexcept>

#include "cuda/cuda_check.cuh"
#include "cuda/infomax_device.cuh"
#include "cuda/infomax_kernels.cuh"
#include "cuda/wgmma_tf32.cuh"

namespace modescope::cuda {
namespace {

using namespace infomax;

constexpr int kThreads = 128;    // one warpgroup
constexpr int kCoreBytes = 128;  // one core matrix: 8 rows x 16 bytes
constexpr int kMinTiles = 4, kMaxTiles = 12;
// Sample buffers: block b + 3's samples are gathered while block b is computed. Random 256-byte
// rows from a ~100 MB array take longer than one update (~1.7 us) to arrive; two updates of lead
// hid them in a profile where one did not.
constexpr int kXBuffers = 4;

// Shared-memory bytes of the operand buffers for blocks of NT 8-sample tiles.
constexpr int xBytes(int NT) { return 16 * NT * kCoreBytes; }     // 64 channels x 8 NT samples
constexpr int uBytes(int NT) { return 2 * NT * 8 * kCoreBytes; }  // 64 rows x 8 NT samples
constexpr int kWtBytes = 16 * 8 * kCoreBytes;                     // 64 x 64

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ float fastTanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Block samples into X (k = channel slot, n = sample): channel quad q of sample j at
// q * 128 NT + 16 j bytes. Thread (q = tid % 16, j0 = tid / 16) copies samples j0, j0 + 8, ...
template <int NT>
__device__ __forceinline__ void copyBlockAsync(unsigned char* X, const float* data, const int* idx,
                                               int count) {
  const int q = threadIdx.x & 15, j0 = threadIdx.x >> 4;
  const float* const src = data + 4 * q;
  unsigned char* const dst = X + q * NT * kCoreBytes + 16 * j0;
  // All entries first: one shared-memory latency instead of one per copy.
  int at[NT];
#pragma unroll
  for (int i = 0; i < NT; ++i) at[i] = j0 + 8 * i < count ? idx[j0 + 8 * i] : -1;
#pragma unroll
  for (int i = 0; i < NT; ++i)
    if (at[i] >= 0)
      __pipeline_memcpy_async(dst + 128 * i, src + static_cast<long long>(at[i]) * kWgmmaDataRow,
                              16);
}

// Permutation entries of one block (at most 96 < 128 threads: one copy per thread).
__device__ __forceinline__ void copyEntriesAsync(int* idx, const int* src, int count, int tid) {
  if (tid < count) __pipeline_memcpy_async(idx + tid, src + tid, sizeof(int));
}

// Operands kept as A fragments: f[s] is k-step s, filled from accumulator element k = 4 s + e
// (wgmma_tf32.cuh: the fragment is {d0, d2, d1, d3}), so each fragment is 4 registers in the
// order the instruction reads them and nothing is moved before a product.
__device__ __forceinline__ constexpr int fragmentSlot(int e) { return ((e & 1) << 1) | (e >> 1); }
template <int kS>
__device__ __forceinline__ void setFragment(unsigned (&f)[kS][4], int k, unsigned v) {
  f[k >> 2][fragmentSlot(k & 3)] = v;
}

// W's element k (accumulator order) into W^T, at the thread's offset (see wOff) plus the
// element's: row r1 two core columns on, column block k / 4 one core row group each, column
// 2 t + 1 one core row on.
__device__ __forceinline__ void storeWt(unsigned char* at, int k, unsigned v) {
  *reinterpret_cast<unsigned*>(at + ((k & 2) ? 2 * 8 * kCoreBytes : 0) + (k >> 2) * kCoreBytes +
                               16 * (k & 1)) = v;
}

// P1 chunks: tiles 3c .. 3c + 2 (m64n24k8), the last one 1 or 2 tiles (n8 or n16).
template <int NT>
constexpr int kWxChunks = (NT + 2) / 3;

// Issues P1, acc += W X over the 8 k-steps (64 channels), one commit group per chunk, so the
// nonlinearity of a chunk overlaps the products of the next. wf: W's rounded A fragments.
template <int NT>
__device__ __forceinline__ void issueWX(float (&acc)[4 * NT], const unsigned (&wf)[8][4],
                                        std::uint64_t dX) {
  constexpr int kC24 = NT / 3, kRem = NT % 3;
  wgmma::fence();
#pragma unroll
  for (int c = 0; c < kWxChunks<NT>; ++c) {
#pragma unroll
    for (int s = 0; s < 8; ++s) {
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

// Waits for P1's chunk c (before its first accumulator is read).
template <int NT>
__device__ __forceinline__ void awaitWX(float (&acc)[4 * NT], int c) {
  wgmma::waitFor(kWxChunks<NT> - 1 - c);
  wgmma::pin(acc + 12 * c, min(12, 4 * NT - 12 * c));
}

template <int NT>
__device__ __forceinline__ void productWX(float (&acc)[4 * NT], const unsigned (&wf)[8][4],
                                          std::uint64_t dX) {
  issueWX<NT>(acc, wf, dX);
  wgmma::wait<0>();
  wgmma::pin(acc);
}

// d (+)= kScaleA A B for 32 output columns over k-steps s0 .. s1 - 1 (A fragment s - s0 of a),
// B at dB with k-steps 2048 bytes apart (LBO 1024); `fresh`: d starts at zero (the first
// product ignores d, so d needs no zeroing instructions).
template <int kScaleA, int kS>
__device__ __forceinline__ void issueHalf(float (&d)[16], const unsigned (&a)[kS][4], int s0,
                                          int s1, std::uint64_t dB, bool fresh) {
#pragma unroll
  for (int s = s0; s < s1; ++s)
    wgmma::mma<32, kScaleA>(d, a[s - s0], wgmma::advance(dB, 2 * s * 1024), !(fresh && s == s0));
}

template <int NT, bool kExtended>
__global__ void __launch_bounds__(kThreads, 1)
    infomaxWgmmaKernel(InfomaxPassArgs a, InfomaxWgmmaLayout L) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* const X = smem + L.offX;    // kXBuffers buffers, block b in X[b % 4]
  unsigned char* const U = smem + L.offU;    // 2 buffers (b % 2)
  unsigned char* const WT = smem + L.offWT;  // 2 buffers: W^T of the update that reads it
  int* const idx = reinterpret_cast<int*>(smem + L.offIdx);    // 4 slots of 8 NT (b % 4)
  int* const idxK = reinterpret_cast<int*>(smem + L.offIdxK);  // 2 x 8 NT kurtosis draws
  // [0], [1]: the blow-up of an update, by its parity (a flag is read by the next update while
  // the one after that may set the other); [2]: a sign changed in the kurtosis estimate.
  int* const flags = reinterpret_cast<int*>(smem + L.offFlags);
  constexpr int kSlot = 8 * NT;

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int r0 = 16 * warp + g, r1 = r0 + 8;
  const int R = L.R, r = a.components, block = a.block;
  const float lr = a.learningRate, bI = static_cast<float>(block);
  // b += lr * sum(-2 tanh u) (extended) or lr * sum(-tanh(u / 2)) (logistic: 1 - 2 sigmoid u).
  const float biasStep = (kExtended ? -2.f : -1.f) * lr;
  // This thread's store offsets: U (row r0, sample 8 s + 2 t + c -> core 2 s + c, column t) and
  // W^T (W's row r0 -> k slot g / 2 of core 2 (r0 / 8) + g % 2; W's column n -> core row n % 8).
  const int uOff = 2 * warp * kCoreBytes + 16 * g + 4 * t;
  const int wOff = (4 * warp + (g & 1)) * 8 * kCoreBytes + 32 * t + 4 * (g >> 1);

  // W (accumulator order: element 4 nb + e is row e < 2 ? r0 : r1, column 8 nb + 2 t + (e & 1)).
  // No Kahan compensation here: plain TF32 products err by ~2^-11 of each update, far above FP32's
  // rounding of the sum, so the compensation the other kernels keep buys nothing. W is taken as
  // w - wlo and stored with wlo = 0.
  float w[32];
  unsigned wf[8][4];  // W's TF32 copy as P1's A fragments
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    const int row = (k & 2) ? r1 : r0, col = 8 * (k >> 2) + 2 * t + (k & 1);
    const bool in = row < R && col < R;
    w[k] = in ? a.state.w[row * R + col] : 0.f;
    if (in) w[k] -= a.state.wlo[row * R + col];
    setFragment(wf, k, wgmma::roundTf32(w[k]));
  }
  float bias[2], sign[2], oldSign[2], oldKurt[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = h ? r1 : r0;
    const bool in = row < R;
    bias[h] = in && a.useBias ? a.state.bias[row] : 0.f;
    sign[h] = in ? a.state.signs[row] : 1.f;
    oldSign[h] = in ? a.state.oldSigns[row] : 0.f;
    oldKurt[h] = in ? a.state.oldKurtosis[row] : 0.f;
  }
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;

  // Samples past the block stay zero in every X buffer (copies never write them).
  for (int e = threadIdx.x; e < kXBuffers * xBytes(NT) / 16; e += kThreads)
    reinterpret_cast<float4*>(X)[e] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (threadIdx.x < 3) flags[threadIdx.x] = 0;
    // W^T for the first update's P3.
#pragma unroll
  for (int k = 0; k < 32; ++k) storeWt(WT + wOff, k, wf[k >> 2][fragmentSlot(k & 3)]);

  // The copy pipeline. Before block b starts its samples are in X[b % 4] and the permutation
  // entries of blocks b + 3 .. b + 5 in idx (slot k % 4 for block k). Update b's copy group
  // carries the samples of b + 3 and the entries of b + 6; it is waited for two updates later.
  const int tid = threadIdx.x;
  for (int i = 0; i < 4; ++i)
    if (i < a.blocks) copyEntriesAsync(idx + i * kSlot, a.perm + i * block, block, tid);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  for (int i = 0; i < 3; ++i)
    if (i < a.blocks) copyBlockAsync<NT>(X + i * xBytes(NT), a.data, idx + i * kSlot, block);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  for (int i = 4; i < 6; ++i)
    if (i < a.blocks)
      copyEntriesAsync(idx + (i & 3) * kSlot, a.perm + static_cast<long long>(i) * block, block,
                       tid);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  wgmma::fenceProxyAsync();
  __syncthreads();

  auto nextMultiple = [](long long after, double ext) {
    const long long e = static_cast<long long>(ext);
    return e > 0 ? (after / e + 1) * e : -1;
  };
  long long nextEstimate = kExtended ? nextMultiple(blockNo, extBlocks) : -1;

  for (long long b = 0; b < a.blocks; ++b) {
    const int x0 = static_cast<int>(b & 3);  // this block's buffer and entry slot
    const int par = static_cast<int>(b & 1);
    unsigned char* const Ub = U + par * uBytes(NT);

    // P1 and the nonlinearity.
    float acc[4 * NT];
#pragma unroll
    for (int k = 0; k < 4 * NT; ++k) acc[k] = bias[(k >> 1) & 1];
    issueWX<NT>(acc, wf, wgmma::descriptor(X + x0 * xBytes(NT), NT * kCoreBytes, kCoreBytes));
    unsigned yf[NT][4];  // Y = K tanh U + U (extended) or tanh(U / 2): P2 negates it
    float sum[2] = {0.f, 0.f};
#pragma unroll
    for (int k = 0; k < 4 * NT; ++k) {
      const int s = k >> 2, h = (k >> 1) & 1, c = k & 1;
      if (k % 12 == 0) awaitWX<NT>(acc, k / 12);
      float u = acc[k];
      // Only the last tile can reach past the block; there U = 0 contributes nothing.
      if (s == NT - 1 && 8 * s + 2 * t + c >= block) u = 0.f;
      const float th = fastTanh(kExtended ? u : 0.5f * u);
      sum[h] += th;
      setFragment(yf, k, wgmma::roundTf32(kExtended ? fmaf(sign[h], th, u) : th));
      *reinterpret_cast<unsigned*>(Ub + uOff + (2 * s + c) * 1024 + h * kCoreBytes) =
          wgmma::roundTf32(u);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 1);
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 2);
      if (a.useBias) bias[h] += biasStep * sum[h];
    }
    // The copies are issued here, where what follows waits anyway: issued earlier, the reuse of
    // their address registers stalled the nonlinearity (a tenth of the time in a profile).
    if (b + 3 < a.blocks) {
      const int x3 = (x0 + 3) & 3;
      copyBlockAsync<NT>(X + x3 * xBytes(NT), a.data, idx + x3 * kSlot, block);
    }
    if (b + 6 < a.blocks)
      copyEntriesAsync(idx + ((x0 + 2) & 3) * kSlot, a.perm + (b + 6) * block, block, tid);
    __pipeline_commit();
    __pipeline_wait_prior(2);  // update b - 2's group: samples of b + 1, entries of b + 4
    wgmma::fenceProxyAsync();
    __syncthreads();       // U, the previous update's W^T and the next samples complete
    if (flags[par ^ 1]) {  // the previous update blew up
      blewUp = true;
      break;
    }

    // P2 and P3 in column halves, so P3 starts on P's first half while P2 finishes its second,
    // and the update of W's first half overlaps P3's second.
    const std::uint64_t dU = wgmma::descriptor(Ub, 1024, kCoreBytes);
    const std::uint64_t dW = wgmma::descriptor(WT + par * kWtBytes, 1024, kCoreBytes);
    float pa[16], pb[16], da[16], db[16];
    wgmma::fence();
    issueHalf<-1>(pa, yf, 0, NT, dU, true);
    wgmma::commit();
    issueHalf<-1>(pb, yf, 0, NT, wgmma::advance(dU, 4 * kCoreBytes), true);
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::pin(pa);
    unsigned qa[4][4], qb[4][4];  // P's halves as P3's A fragments
#pragma unroll
    for (int k = 0; k < 16; ++k) setFragment(qa, k, wgmma::roundTf32(pa[k]));
    wgmma::fence();
    issueHalf<1>(da, qa, 0, 4, dW, true);
    issueHalf<1>(db, qa, 0, 4, wgmma::advance(dW, 4 * kCoreBytes), true);
    wgmma::commit();
    wgmma::wait<1>();
    wgmma::pin(pb);
#pragma unroll
    for (int k = 0; k < 16; ++k) setFragment(qb, k, wgmma::roundTf32(pb[k]));
    wgmma::fence();
    issueHalf<1>(da, qb, 4, 8, dW, false);
    wgmma::commit();
    issueHalf<1>(db, qb, 4, 8, wgmma::advance(dW, 4 * kCoreBytes), false);
    wgmma::commit();

    // W += lr (B W + D); the rounded copies for the next update. Blow-up: max |W| above the
    // limit, or a NaN (fmaxf skips NaN, but a NaN in W makes the next update's tanh sums NaN).
    unsigned char* const WTn = WT + (par ^ 1) * kWtBytes;
    float maxAbs = 0.f;
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      if (k == 0) {
        wgmma::wait<1>();
        wgmma::pin(da);
      } else if (k == 16) {
        wgmma::wait<0>();
        wgmma::pin(db);
      }
      const float dk = k < 16 ? da[k] : db[k - 16];
      const float s = fmaf(lr, fmaf(bI, w[k], dk), w[k]);
      w[k] = s;
      maxAbs = fmaxf(maxAbs, fabsf(s));
      const unsigned rounded = wgmma::roundTf32(s);
      setFragment(wf, k, rounded);
      storeWt(WTn + wOff, k, rounded);
    }
    if (!(maxAbs <= a.maxWeight) || isnan(sum[0] + sum[1])) flags[par] = 1;
    ++blockNo;

    // Kurtosis estimate (extended mode) with the new W, in chunks of 8 NT samples gathered by
    // cp.async into two borrowed buffers, X[b % 4] and U[b % 2] (free until the next update's
    // copies and stores), the next chunk's gather travelling while a chunk is computed.
    if (blockNo == nextEstimate) {
      unsigned char* const XK = X + x0 * xBytes(NT);
      auto buf = [&](long long c) { return (c & 1) ? Ub : XK; };
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
        for (int j = tid; j < cols; j += kThreads)
          ids[j] = static_cast<int>(kurtosisSample(a, estimates, m, c * kSlot + j));
        __syncthreads();
        const int q = tid & 15, j0 = tid >> 4;
        unsigned char* const dst = buf(c) + q * NT * kCoreBytes + 16 * j0;
#pragma unroll
        for (int i = 0; i < NT; ++i) {
          if (j0 + 8 * i < cols)
            __pipeline_memcpy_async(
                dst + 128 * i,
                a.data + static_cast<long long>(ids[j0 + 8 * i]) * kWgmmaDataRow + 4 * q, 16);
          else
            *reinterpret_cast<float4*>(dst + 128 * i) = make_float4(0.f, 0.f, 0.f, 0.f);
        }
        __pipeline_commit();
      };
      __syncthreads();  // every warp is past P2 of this block (U[b % 2] is free)
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
        __syncthreads();
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
        __syncthreads();  // buf(c) and its draws are refilled next
      }
      // The borrowed buffer must be zero past the block again.
      for (int e = threadIdx.x; e < 16 * (kSlot - block); e += kThreads) {
        const int q = e / (kSlot - block), j = block + e % (kSlot - block);
        *reinterpret_cast<float4*>(XK + q * NT * kCoreBytes + 16 * j) =
            make_float4(0.f, 0.f, 0.f, 0.f);
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
        if ((h ? r1 : r0) < r)
          changed |= updateKurtosisSign(mom[h], m, a, oldKurt[h], sign[h], oldSign[h]);
      }
      if (changed) flags[2] = 1;
      __syncthreads();
      signCount = flags[2] ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
      nextEstimate = nextMultiple(blockNo, extBlocks);
    }
  }

  __pipeline_wait_prior(0);
  __syncthreads();
  if (flags[0] | flags[1]) blewUp = true;  // the last update blew up
    // The state (after a blow-up W is the blown one: the driver restarts from scratch).
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    const int row = (k & 2) ? r1 : r0, col = 8 * (k >> 2) + 2 * t + (k & 1);
    if (row < R && col < R) {
      a.state.w[row * R + col] = w[k];
      a.state.wlo[row * R + col] = 0.f;
    }
  }
  if (t == 0)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = h ? r1 : r0;
      if (row >= R) continue;
      a.state.bias[row] = bias[h];
      a.state.signs[row] = sign[h];
      a.state.oldSigns[row] = oldSign[h];
      a.state.oldKurtosis[row] = oldKurt[h];
    }
  if (threadIdx.x == 0) {
    a.state.counters[0] = blockNo;
    a.state.counters[1] = estimates;
    a.state.counters[2] = signCount;
    a.state.counters[3] = blewUp ? 1 : 0;
    *a.state.extBlocks = extBlocks;
  }
}
#else
// Built without sm_90a features: never launched (planInfomaxWgmma takes only compute 9.0).
template <int NT, bool kExtended>
__global__ void infomaxWgmmaKernel(InfomaxPassArgs, InfomaxWgmmaLayout) {}
#endif

template <int NT, bool kExtended>
void launchWgmma(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& L, cudaStream_t stream) {
  auto kernel = infomaxWgmmaKernel<NT, kExtended>;
  MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(L.bytes)));
  kernel<<<1, kThreads, L.bytes, stream>>>(args, L);
  MODESCOPE_CUDA_CHECK_LAUNCH("infomaxWgmmaKernel", stream);
}

template <int NT>
void launchWgmmaFor(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& L, cudaStream_t stream) {
  if constexpr (NT < kMaxTiles) {
    if (L.NT != NT) return launchWgmmaFor<NT + 1>(args, L, stream);
  }
  if (args.extended) return launchWgmma<NT, true>(args, L, stream);
  return launchWgmma<NT, false>(args, L, stream);
}

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

bool planInfomaxWgmma(int R, int blockSize, InfomaxMath math, int ccMajor, int ccMinor,
                      std::size_t maxSharedBytes, InfomaxWgmmaLayout& out) {
  if (math != InfomaxMath::Tf32 || ccMajor != 9 || ccMinor != 0 || R < 1 || R > 64) return false;
  const int NT = roundUp(blockSize, 8) / 8;
  if (NT < kMinTiles || NT > kMaxTiles) return false;
  InfomaxWgmmaLayout L;
  L.R = R;
  L.NT = NT;
  int off = 0;
  auto take = [&off](int bytes) {
    const int at = off;
    off += roundUp(bytes, 128);
    return at;
  };
  L.offX = take(kXBuffers * xBytes(NT));
  L.offU = take(2 * uBytes(NT));
  L.offWT = take(2 * kWtBytes);
  L.offIdx = take(kXBuffers * 8 * NT * 4);
  L.offIdxK = take(2 * 8 * NT * 4);
  L.offFlags = take(8 * 4);
  L.bytes = static_cast<std::size_t>(off);
  if (L.bytes > maxSharedBytes) return false;
  out = L;
  return true;
}

void launchInfomaxWgmmaPass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& layout,
                            cudaStream_t stream) {
  if (args.math != InfomaxMath::Tf32 || !args.dataTf32)
    throw std::logic_error("launchInfomaxWgmmaPass: plain TF32 with data rounded on upload only");
  launchWgmmaFor<kMinTiles>(args, layout, stream);
}

}  // namespace modescope::cuda
