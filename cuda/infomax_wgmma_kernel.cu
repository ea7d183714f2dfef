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
#include "cuda/infomax_wgmma_device.cuh"
#include "cuda/wgmma_tf32.cuh"

namespace modescope::cuda {
namespace {

using namespace infomax;

constexpr int kConsumers = 128;            // the warpgroup that computes
constexpr int kThreads = kConsumers + 32;  // and one producer warp that gathers the samples
constexpr int kRows = 64;                  // W padded to 64 x 64; data rows of 64 floats
constexpr int kMinTiles = 4, kMaxTiles = 12;
// Sample buffers: the producer warp gathers up to 3 blocks ahead of the one computed. The
// gathers are the producer's alone because fence.proxy.async, which the computing threads need
// before every product that reads their stores, waits for all of a thread's memory operations
// in flight: when the computing threads issued the gathers themselves, each update waited for
// its gathers' full latency (a fifth of the time in a profile).
constexpr int kXBuffers = 4;

// Shared-memory bytes of the operand buffers for blocks of NT 8-sample tiles.
constexpr int xBytes(int NT) { return sampleBufferBytes<kRows>(NT); }  // 64 channels x 8 NT samples
constexpr int uBytes(int NT) { return 2 * NT * 8 * kCoreBytes; }       // 64 rows x 8 NT samples
constexpr int kWtBytes = 16 * 8 * kCoreBytes;                          // 64 x 64

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Named barrier of the computing warpgroup (the producer never joins it).
__device__ __forceinline__ void consumerSync() { computingThreadsSync<kConsumers>(); }

// W's element k (accumulator order) into W^T, at the thread's offset (see wOff) plus the
// element's: row r1 two core columns on, column block k / 4 one core row group each, column
// 2 t + 1 one core row on.
__device__ __forceinline__ void storeWt(unsigned char* at, int k, unsigned v) {
  *reinterpret_cast<unsigned*>(at + ((k & 2) ? 2 * 8 * kCoreBytes : 0) + (k >> 2) * kCoreBytes +
                               16 * (k & 1)) = v;
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

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int r0 = 16 * warp + g, r1 = r0 + 8;
  const int R = L.R, r = a.components, block = a.block;
  constexpr int kSlot = 8 * NT;
  const float lr = a.learningRate, bI = static_cast<float>(block);
  // This thread's store offsets: U (row r0, sample 8 s + 2 t + c -> core 2 s + c, column t) and
  // W^T (W's row r0 -> k slot g / 2 of core 2 (r0 / 8) + g % 2; W's column n -> core row n % 8).
  const int uOff = 2 * warp * kCoreBytes + 16 * g + 4 * t;
  const int wOff = (4 * warp + (g & 1)) * 8 * kCoreBytes + 32 * t + 4 * (g >> 1);

  float w[32];
  RowState rows;
  loadState(a, R, r0, t, w, rows);
  unsigned wf[8][4];  // W's TF32 copy as P1's A fragments
#pragma unroll
  for (int k = 0; k < 32; ++k) setFragment(wf, k, wgmma::roundTf32(w[k]));
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;

  initialiseShared<kThreads>(X, xBytes(NT), kXBuffers, flags, full, empty);
  // W^T for the first update's P3 (the producer's registers hold nothing of W).
  if (threadIdx.x < kConsumers)
#pragma unroll
    for (int k = 0; k < 32; ++k) storeWt(WT + wOff, k, wf[k >> 2][fragmentSlot(k & 3)]);

  wgmma::fenceProxyAsync();
  __syncthreads();  // zeros, flags, W^T and the barriers are ready for both roles
  if (threadIdx.x >= kConsumers) {
    produceSamples<NT, kRows, kXBuffers>(a, X, full, empty, flags + 3);
    return;
  }
  const int tid = threadIdx.x;

  long long nextEstimate = kExtended ? nextEstimateBlock(blockNo, extBlocks) : -1;

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
    for (int k = 0; k < 4 * NT; ++k) acc[k] = rows.bias[(k >> 1) & 1];
    issueWX<NT>(acc, wf, wgmma::descriptor(X + x0 * xBytes(NT), NT * kCoreBytes, kCoreBytes));
    unsigned yf[NT][4];  // Y = K tanh U + U (extended) or tanh(U / 2): P2 negates it
    float sum[2] = {0.f, 0.f};
#pragma unroll
    for (int k = 0; k < 4 * NT; ++k) {
      const int s = k >> 2, h = (k >> 1) & 1, c = k & 1;
      if (k % 12 == 0) awaitWX<NT>(acc, k / 12);
      *reinterpret_cast<unsigned*>(Ub + uOff + (2 * s + c) * 1024 + h * kCoreBytes) =
          activate<NT, kExtended>(acc[k], k, t, block, rows, sum, yf);
    }
    stepBias<kExtended>(a, sum, rows);
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
    const float maxAbs = updateWeights(w, da, db, lr, bI, [&](int k, unsigned rounded) {
      setFragment(wf, k, rounded);
      storeWt(WTn + wOff, k, rounded);
    });
    if (!(maxAbs <= a.maxWeight) || isnan(sum[0] + sum[1])) flags[par] = 1;
    ++blockNo;

    // Kurtosis estimate (extended mode) with the new W, in chunks of 8 NT samples gathered by
    // cp.async into the two U buffers (both free until the next update's stores), the next
    // chunk's gather travelling while a chunk is computed. The sample buffers stay the
    // producer's. The same steps as estimateKurtosis (infomax_wgmma_device.cuh), written out
    // here: called from this kernel, ptxas serialises every wgmma of the extended kernels
    // (C7520, "compiler-inserted WG.AR in divergent path"; CUDA 13.0), from the two-warpgroup
    // kernel it does not.
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
                dst + 128 * i, a.data + static_cast<long long>(ids[j0 + 8 * i]) * kRows + 4 * q,
                16);
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
          changed |=
              updateKurtosisSign(mom[h], m, a, rows.oldKurt[h], rows.sign[h], rows.oldSign[h]);
      }
      if (changed) flags[2] = 1;
      consumerSync();
      signCount = flags[2] ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
      nextEstimate = nextEstimateBlock(blockNo, extBlocks);
    }
  }

  __pipeline_wait_prior(0);
  if (tid == 0) *reinterpret_cast<volatile int*>(flags + 3) = 1;  // the producer may stop
  consumerSync();
  if (flags[0] | flags[1]) blewUp = true;  // the last update blew up
  // The state (after a blow-up W is the blown one: the driver restarts from scratch).
  storeState(a, R, r0, t, w, rows);
  if (threadIdx.x == 0) {
    storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
  }
}
#else
// Built without sm_90a features: never launched (planInfomaxWgmma takes only compute 9.0).
template <int NT, bool kExtended>
__global__ void infomaxWgmmaKernel(InfomaxPassArgs, InfomaxWgmmaLayout) {}
#endif

}  // namespace

bool planInfomaxWgmma(int R, int blockSize, InfomaxMath math, int ccMajor, int ccMinor,
                      std::size_t maxSharedBytes, InfomaxWgmmaLayout& out) {
  if (math != InfomaxMath::Tf32 || ccMajor != 9 || ccMinor != 0 || R < 1 || R > 128) return false;
  if (R > kRows) return planInfomaxWgmma128(R, blockSize, maxSharedBytes, out);
  return planWgmmaLayout(R, kRows, blockSize, kMinTiles, kMaxTiles, kXBuffers, maxSharedBytes, out,
                         [](InfomaxWgmmaLayout& L, auto take) {
                           L.offX = take(kXBuffers * xBytes(L.NT));
                           L.offU = take(2 * uBytes(L.NT));
                           L.offWT = take(2 * kWtBytes);
                         });
}

void launchInfomaxWgmmaPass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& layout,
                            cudaStream_t stream) {
  if (layout.rows != kRows) return launchInfomaxWgmma128Pass(args, layout, stream);
  if (args.math != InfomaxMath::Tf32 || !args.dataTf32)
    throw std::logic_error("launchInfomaxWgmmaPass: plain TF32 with data rounded on upload only");
  launchWgmmaPass<kMinTiles, kMaxTiles>(
      args, layout, kThreads, "infomaxWgmmaKernel", stream,
      [](auto tiles, auto extended) { return infomaxWgmmaKernel<tiles(), extended()>; });
}

}  // namespace modescope::cuda
