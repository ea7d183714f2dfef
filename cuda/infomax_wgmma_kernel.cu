// The Hopper warpgroup Infomax pass kernel for up to 64 components in TF32 (infomax_kernels.cuh,
// "InfomaxWgmmaLayout", says when it runs and why it exists; wgmma_tf32.cuh has the fragment
// layouts). Built for sm_90a only (cuda/CMakeLists.txt).
//
// One computing warpgroup (W padded to 64 x 64) and one producer warp that gathers the samples
// (produceSamples). Warp w, lane 4 g + t owns rows r0 = 16 w + g and r1 = r0 + 8
// of every product, and W's elements (r0 | r1, 8 nb + 2 t + {0, 1}), the rows' bias, signs and
// kurtosis history, all in registers. Per block update:
//   P1  U = W X + b: W's rounded copy as A fragments, X (the block's samples, gathered by the
//       producer up to three blocks ahead) from shared memory; the bias is the accumulators'
//       start value;
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

constexpr int kConsumers = 128;            // the warpgroup that computes
constexpr int kThreads = kConsumers + 32;  // and one producer warp that gathers the samples
constexpr int kCoreBytes = 128;            // one core matrix: 8 rows x 16 bytes
constexpr int kMinTiles = 4, kMaxTiles = 12;
// Sample buffers: the producer warp gathers up to 3 blocks ahead of the one computed. The
// gathers are the producer's alone because fence.proxy.async, which the computing threads need
// before every product that reads their stores, waits for all of a thread's memory operations
// in flight: when the computing threads issued the gathers themselves, each update waited for
// its gathers' full latency (a fifth of the time in a profile).
constexpr int kXBuffers = 4;

// Shared-memory bytes of the operand buffers for blocks of NT 8-sample tiles.
constexpr int xBytes(int NT) { return 16 * NT * kCoreBytes; }     // 64 channels x 8 NT samples
constexpr int uBytes(int NT) { return 2 * NT * 8 * kCoreBytes; }  // 64 rows x 8 NT samples
constexpr int kWtBytes = 16 * 8 * kCoreBytes;                     // 64 x 64

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
// Named barrier of the computing warpgroup (the producer never joins it).
__device__ __forceinline__ void consumerSync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory");
}

// The producer warp: block k's samples into X[k % 4] (k = channel slot, n = sample: channel
// quad q of sample j at q * 128 NT + 16 j bytes), once the computing warps have released the
// buffer (empty[k % 4]); full[k % 4] completes when every lane's copies have landed. Lane
// (q = lane % 16, h = lane / 16) copies quad q of samples h, h + 2, ...; the block's permutation
// entries are read by the lanes (j = lane, lane + 32, lane + 64) and passed round by shuffles.
// stop: set by the computing warps when they leave early (a blow-up), so no wait is endless.
template <int NT>
__device__ void produceSamples(const InfomaxPassArgs& a, unsigned char* X, unsigned long long* full,
                               unsigned long long* empty, const volatile int* stop) {
  const int lane = threadIdx.x & 31, q = lane & 15, h = lane >> 4;
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
    const int s = static_cast<int>(k & 3);
    const int cur[3] = {e[0], e[1], e[2]};
    loadEntries(k + 1);
    if (k >= kXBuffers) {
      const unsigned parity = static_cast<unsigned>(((k >> 2) - 1) & 1);
      while (!barrierTryWait(empty + s, parity))
        if (*stop) {
          __pipeline_wait_prior(0);
          return;
        }
    }
    unsigned char* const dst = X + s * xBytes(NT) + q * NT * kCoreBytes;
#pragma unroll
    for (int i = 0; i < 4 * NT; ++i) {
      const int j = 2 * i + h;
      const int at = __shfl_sync(0xffffffffu, cur[(2 * i) / 32], (2 * i) % 32 + h);
      if (j < block)
        __pipeline_memcpy_async(dst + 16 * j, src + static_cast<long long>(at) * kWgmmaDataRow, 16);
    }
    barrierArriveOnCopies(full + s);
  }
  __pipeline_wait_prior(0);
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
  // full[4], empty[4]: the sample buffers' hand-over (produceSamples).
  auto* const bars = reinterpret_cast<unsigned long long*>(smem + L.offBars);
  unsigned long long* const full = bars;
  unsigned long long* const empty = bars + kXBuffers;
  int* const idxK = reinterpret_cast<int*>(smem + L.offIdxK);  // 2 x 8 NT kurtosis draws
  // [0], [1]: the blow-up of an update, by its parity (a flag is read by the next update while
  // the one after that may set the other); [2]: a sign changed in the kurtosis estimate;
  // [3]: the computing warps have left the loop (the producer stops waiting).
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
  if (threadIdx.x < 4) flags[threadIdx.x] = 0;
  if (threadIdx.x == 0)
    for (int i = 0; i < kXBuffers; ++i) {
      barrierInit(full + i, 32);  // one arrival per producer lane
      barrierInit(empty + i, 1);  // one arrival from the computing warps
    }
  // W^T for the first update's P3 (the producer's registers hold nothing of W).
  if (threadIdx.x < kConsumers)
#pragma unroll
    for (int k = 0; k < 32; ++k) storeWt(WT + wOff, k, wf[k >> 2][fragmentSlot(k & 3)]);

  wgmma::fenceProxyAsync();
  __syncthreads();  // zeros, flags, W^T and the barriers are ready for both roles
  if (threadIdx.x >= kConsumers) {
    produceSamples<NT>(a, X, full, empty, flags + 3);
    return;
  }
  const int tid = threadIdx.x;

  auto nextMultiple = [](long long after, double ext) {
    const long long e = static_cast<long long>(ext);
    return e > 0 ? (after / e + 1) * e : -1;
  };
  long long nextEstimate = kExtended ? nextMultiple(blockNo, extBlocks) : -1;

  for (long long b = 0; b < a.blocks; ++b) {
    const int x0 = static_cast<int>(b & 3);  // this block's sample buffer
    while (!barrierTryWait(full + x0, static_cast<unsigned>((b >> 2) & 1))) {
    }
    wgmma::fenceProxyAsync();  // the producer's copies, for the tensor cores
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
    wgmma::fenceProxyAsync();
    consumerSync();  // U and the previous update's W^T complete; P1 of this block is done
    if (tid == 0) barrierArrive(empty + x0);  // X[b % 4] back to the producer
    if (flags[par ^ 1]) {                     // the previous update blew up
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
    // cp.async into the two U buffers (both free until the next update's stores), the next
    // chunk's gather travelling while a chunk is computed. The sample buffers stay the
    // producer's.
    if (blockNo == nextEstimate) {
      auto buf = [&](long long c) { return U + (c & 1) * uBytes(NT); };
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
        for (int j = tid; j < cols; j += kConsumers)
          ids[j] = static_cast<int>(kurtosisSample(a, estimates, m, c * kSlot + j));
        consumerSync();
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
      consumerSync();  // every warp is past P2 of this block (both U buffers are free)
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
        consumerSync();
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
        consumerSync();  // buf(c) and its draws are refilled next
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
      consumerSync();
      signCount = flags[2] ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
      nextEstimate = nextMultiple(blockNo, extBlocks);
    }
  }

  __pipeline_wait_prior(0);
  if (tid == 0) *reinterpret_cast<volatile int*>(flags + 3) = 1;  // the producer may stop
  consumerSync();
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
    storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
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
  L.offBars = take(2 * kXBuffers * 8);
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
