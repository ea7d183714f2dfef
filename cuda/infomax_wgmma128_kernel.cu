// The Hopper two-warpgroup Infomax pass kernel for 65 to 128 components in TF32
// (infomax_kernels.cuh, "InfomaxWgmmaLayout", says when it runs and why it exists;
// infomax_wgmma_device.cuh has the producer warp and U = W X, wgmma_tf32.cuh the fragment
// layouts). Built for sm_90a only (cuda/CMakeLists.txt).
//
// W is padded to 128 x 128. Warpgroup g computes W's rows 64 g .. 64 g + 63: warp w (0..7 over
// both), lane 4 q + t owns rows r0 = 16 w + q and r1 = r0 + 8, W's elements
// (r0 | r1, 8 nb + 2 t + {0, 1}), nb < 16, the rows' bias, signs and kurtosis history, all in
// registers. The first warp of a third warpgroup gathers the samples; that warpgroup gives its
// registers to the other two (setmaxnreg). The update is computed reassociated,
// W += lr (B W + Y' (U^T W)): three products of 128 x 128 x 8 NT where the one-warpgroup
// kernel's (B I + Y' U^T) W would need a 128^3 one. Per block update:
//   P1  U = W X + b for the warpgroup's rows: W's rounded copy as A fragments, X from shared
//       memory, the bias as the accumulators' start value; Y' = -(K tanh U + U) (extended) or
//       -tanh(U / 2) (logistic) on the accumulators, kept as P3's A fragments; U (rounded) to
//       shared memory; the bias sums by quad shuffles;                       CTA barrier A
//   P2  V^T = W^T U for the warpgroup's 64 columns of W, both operands from shared memory (W^T
//       as the previous update left it), one product of all 8 NT samples per k-step; V^T
//       (rounded) to shared memory;                                          CTA barrier B
//   P3  D = -Y V for the warpgroup's rows, in column halves so that the update of the first
//       half overlaps the products of the second; W += lr (B W + D) in FP32; W^T (rounded) to
//       shared memory.
// One buffer each for U, W^T and V^T suffices with the two barriers: a warpgroup writes U (P1)
// and W^T (P3) only after barrier B, when the other has finished P2, their only reader; and
// V^T (P2) only after barrier A, when the other has finished P3, its only reader.
//
// Shared memory is K-major without swizzle throughout (wgmma_tf32.cuh). U and W^T run over
// k = row of W in natural order; a k-core of 4 rows is 16 bytes more than its core matrices
// apart, so that rows r and r + 4, which one warp instruction stores, fall in different banks.
// V^T runs over k = sample in the order of P1's accumulators as A fragments (0 2 4 6 1 3 5 7 in
// each tile), and X over k = channel slot in the data's order (wgmmaChannelSlot), for the same
// reason.
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

constexpr int kRows = 128;                  // W padded to 128 x 128; data rows of 128 floats
constexpr int kConsumers = 256;             // two warpgroups that compute
constexpr int kThreads = kConsumers + 128;  // and one whose first warp gathers the samples
// Registers per thread after the start (setmaxnreg): the register file of each SM
// sub-partition holds one warp of each warpgroup, and 2 x 232 + 40 fills its 512 per lane. A
// producer warp of its own would leave 168 to every warp, and the computing ones spill there.
constexpr int kComputingRegisters = 232, kProducerRegisters = 40;
constexpr int kKCores = kRows / 4;  // k-cores of 4 rows (U, W^T) or 4 channels (X)
constexpr int kMinTiles = 4, kMaxTiles = 10;
// Two sample buffers (the one-warpgroup kernel has four): 128 channels take twice the bytes,
// and the producer still fills a buffer in a fraction of an update.
constexpr int kXBuffers = 2;

// Shared-memory bytes and strides for blocks of NT 8-sample tiles.
constexpr int xBytes(int NT) { return sampleBufferBytes<kRows>(NT); }
// U (B of P2: k = row r, n = sample j): (r / 4) uKStride + 16 j + 4 (r % 4).
constexpr int uKStride(int NT) { return NT * kCoreBytes + 16; }
constexpr int uBytes(int NT) { return kKCores * uKStride(NT); }
// W^T (A of P2: m = column c, k = row r): (r / 4) kWtKStride + 16 c + 4 (r % 4).
constexpr int kWtKStride = kRows * 16 + 16;
constexpr int kWtBytes = kKCores * kWtKStride;
// V^T (B of P3: k = sample j of tile s, n = column c): (2 s + j % 2) kVtKStride + 16 c +
// 4 ((j % 8) / 2).
constexpr int kVtKStride = kRows * 16;
constexpr int vtBytes(int NT) { return 2 * NT * kVtKStride; }

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ void consumerSync() { computingThreadsSync<kConsumers>(); }

// W's accumulator element k (4 nb + e: row e < 2 ? r0 : r1, column 8 nb + 2 t + (e & 1)) as an
// offset from the thread's place in U-like layouts (k-core stride `kStride`): row r1 two
// k-cores on, the column 16 bytes per step.
__device__ __forceinline__ int rowColumnOffset(int k, int kStride) {
  return ((k & 2) ? 2 * kStride : 0) + 16 * (8 * (k >> 2) + (k & 1));
}

// W's rounded copy as P1's A fragments, made after W's update (not kept from it, as the
// one-warpgroup kernel does: 64 registers a thread cannot spare during P3). The rounding is an
// opaque add so that the compiler does not fold it into P3's rounded values.
__device__ __forceinline__ void roundedFragments(const float (&w)[64], unsigned (&wf)[16][4]) {
#pragma unroll
  for (int k = 0; k < 64; ++k) {
    unsigned v;
    asm("add.u32 %0, %1, 4096;" : "=r"(v) : "r"(__float_as_uint(w[k])));
    setFragment(wf, k, v);
  }
}

// P2: acc = W^T[warpgroup's columns] U over the 16 k-steps (128 rows), all 8 NT samples per
// product: both operands come from shared memory, and a product split by samples would read
// W^T once per part (wgmma_tf32.cuh, mmaShared).
template <int NT>
__device__ __forceinline__ void productVt(float (&acc)[4 * NT], std::uint64_t dWt,
                                          std::uint64_t dU) {
  wgmma::fence();
#pragma unroll
  for (int s = 0; s < kKCores / 2; ++s)
    wgmma::mmaShared<8 * NT>(acc, wgmma::advance(dWt, 2 * s * kWtKStride),
                             wgmma::advance(dU, 2 * s * uKStride(NT)), s > 0);
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::pin(acc);
}

// P3 for 64 columns: d = -Y V over the NT k-steps (A fragments yf, V^T at dV).
template <int NT>
__device__ __forceinline__ void issueD(float (&d)[32], const unsigned (&yf)[NT][4],
                                       std::uint64_t dV) {
#pragma unroll
  for (int s = 0; s < NT; ++s)
    wgmma::mma<64, -1>(d, yf[s], wgmma::advance(dV, 2 * s * kVtKStride), s > 0);
}

template <int NT, bool kExtended>
__global__ void __launch_bounds__(kThreads, 1)
    infomaxWgmma128Kernel(InfomaxPassArgs a, InfomaxWgmmaLayout L) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char* const X = smem + L.offX;  // kXBuffers buffers, block b in X[b % 2]
  unsigned char* const U = smem + L.offU;
  unsigned char* const WT = smem + L.offWT;
  unsigned char* const VT = smem + L.offVt;
  // full[2], empty[2]: the sample buffers' hand-over (produceSamples).
  auto* const bars = reinterpret_cast<unsigned long long*>(smem + L.offBars);
  unsigned long long* const full = bars;
  unsigned long long* const empty = bars + kXBuffers;
  int* const idxK = reinterpret_cast<int*>(smem + L.offIdxK);  // 2 x 8 NT kurtosis draws
  // [0], [1]: the blow-up of an update, by its parity (a flag is read by the next update while
  // the one after that may set the other); [2]: a sign changed in the kurtosis estimate;
  // [3]: the computing warps have left the loop (the producer stops waiting).
  int* const flags = reinterpret_cast<int*>(smem + L.offFlags);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int q = lane >> 2, t = lane & 3;
  const int r0 = 16 * warp + q;  // and r0 + 8
  const int R = L.R, r = a.components, block = a.block;
  const float lr = a.learningRate, bI = static_cast<float>(block);
  // This thread's places: in U and W^T its row r0 (k-core r0 / 4, slot r0 % 4) and column or
  // sample 2 t; in V^T its column r0 of W (the row of V^T it computes) and k slot t.
  const int rowPlace = 16 * 2 * t + 4 * (q & 3);
  const int uOff = (r0 >> 2) * uKStride(NT) + rowPlace;
  const int wOff = (r0 >> 2) * kWtKStride + rowPlace;
  const int vOff = 16 * r0 + 4 * t;
  const int group = warp >> 2;  // the warpgroup: W's rows (P1, P3) and columns (P2)

  initialiseShared<kThreads>(X, xBytes(NT), kXBuffers, flags, full, empty);
  __syncthreads();  // zeros, flags and the barriers are ready for both roles
  if (threadIdx.x >= kConsumers) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kProducerRegisters));
    if (threadIdx.x < kConsumers + 32)
      produceSamples<NT, kRows, kXBuffers>(a, X, full, empty, flags + 3);
    return;
  }
  // The computing threads' state is loaded after they have their registers: ptxas keeps what
  // lives across setmaxnreg within the entry's count (168 here).
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kComputingRegisters));
  const int tid = threadIdx.x;
  float w[64];
  RowState rows;
  loadState(a, R, r0, t, w, rows);
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;

  // W^T for the first update's P2 (made visible to the tensor cores with P1's U, before
  // barrier A).
#pragma unroll
  for (int k = 0; k < 64; ++k)
    *reinterpret_cast<unsigned*>(WT + wOff + rowColumnOffset(k, kWtKStride)) =
        wgmma::roundTf32(w[k]);
  unsigned wf[16][4];  // W's rounded copy as U = W X's A fragments
  roundedFragments(w, wf);

  long long nextEstimate = kExtended ? nextEstimateBlock(blockNo, extBlocks) : -1;

  for (long long b = 0; b < a.blocks; ++b) {
    const int x0 = static_cast<int>(b & 1);  // this block's sample buffer
    while (!barrierTryWait(full + x0, static_cast<unsigned>((b >> 1) & 1))) {
    }
    wgmma::fenceProxyAsync();  // the producer's copies, for the tensor cores
    const int par = static_cast<int>(b & 1);

    // P1 and the nonlinearity.
    unsigned yf[NT][4];  // Y = K tanh U + U (extended) or tanh(U / 2): P3 negates it
    float sum[2] = {0.f, 0.f};
    {
      float acc[4 * NT];
#pragma unroll
      for (int k = 0; k < 4 * NT; ++k) acc[k] = rows.bias[(k >> 1) & 1];
      issueWX<NT>(acc, wf, wgmma::descriptor(X + x0 * xBytes(NT), NT * kCoreBytes, kCoreBytes));
#pragma unroll
      for (int k = 0; k < 4 * NT; ++k) {
        if (k % 12 == 0) awaitWX<NT>(acc, k / 12);
        *reinterpret_cast<unsigned*>(U + uOff + rowColumnOffset(k, uKStride(NT))) =
            activate<NT, kExtended>(acc[k], k, t, block, rows, sum, yf);
      }
    }
    stepBias<kExtended>(a, sum, rows);
    wgmma::fenceProxyAsync();
    consumerSync();  // barrier A: U and the previous update's W^T complete, P1 done
    if (tid == 0) barrierArrive(empty + x0);  // X[b % 2] back to the producer
    if (flags[par ^ 1]) {                     // the previous update blew up
      blewUp = true;
      break;
    }

    // P2: V^T for the warpgroup's columns.
    {
      float vt[4 * NT];
      productVt<NT>(vt, wgmma::descriptor(WT + group * 64 * 16, kWtKStride, kCoreBytes),
                    wgmma::descriptor(U, uKStride(NT), kCoreBytes));
#pragma unroll
      for (int k = 0; k < 4 * NT; ++k) {
        const int s = k >> 2;
        *reinterpret_cast<unsigned*>(VT + vOff + (2 * s + (k & 1)) * kVtKStride +
                                     ((k & 2) ? 16 * 8 : 0)) = wgmma::roundTf32(vt[k]);
      }
    }
    wgmma::fenceProxyAsync();
    consumerSync();  // barrier B: V^T complete; U and W^T free

    // P3 in column halves; W += lr (B W + D); W^T for the next update's P2. Blow-up: max |W|
    // above the limit, or a NaN (fmaxf skips NaN, but a NaN in W makes the next update's tanh
    // sums NaN).
    {
      float da[32], db[32];
      const std::uint64_t dV = wgmma::descriptor(VT, kVtKStride, kCoreBytes);
      wgmma::fence();
      issueD<NT>(da, yf, dV);
      wgmma::commit();
      issueD<NT>(db, yf, wgmma::advance(dV, 64 * 16));
      wgmma::commit();
      const float maxAbs = updateWeights(w, da, db, lr, bI, [&](int k, unsigned rounded) {
        *reinterpret_cast<unsigned*>(WT + wOff + rowColumnOffset(k, kWtKStride)) = rounded;
      });
      if (!(maxAbs <= a.maxWeight) || isnan(sum[0] + sum[1])) flags[par] = 1;
    }
    roundedFragments(w, wf);
    ++blockNo;

    // Kurtosis estimate (extended mode) with the new W, its chunks gathered into the U and V^T
    // buffers (both free until the next update's stores). The sample buffers stay the
    // producer's.
    if (blockNo == nextEstimate) {
      estimateKurtosis<NT, kRows, kConsumers>(a, wf, U, L.offVt - L.offU, idxK, flags, r0, r,
                                              estimates, signCount, extBlocks, rows);
      nextEstimate = nextEstimateBlock(blockNo, extBlocks);
    }
  }

  __pipeline_wait_prior(0);
  if (tid == 0) *reinterpret_cast<volatile int*>(flags + 3) = 1;  // the producer may stop
  consumerSync();
  if (flags[0] | flags[1]) blewUp = true;  // the last update blew up
  // The state (after a blow-up W is the blown one: the driver restarts from scratch).
  storeState(a, R, r0, t, w, rows);
  if (threadIdx.x == 0) storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
}
#else
// Built without sm_90a features: never launched (planInfomaxWgmma takes only compute 9.0).
template <int NT, bool kExtended>
__global__ void infomaxWgmma128Kernel(InfomaxPassArgs, InfomaxWgmmaLayout) {}
#endif

}  // namespace

bool planInfomaxWgmma128(int R, int blockSize, std::size_t maxSharedBytes,
                         InfomaxWgmmaLayout& out) {
  if (R <= 64 || R > kRows) return false;
  return planWgmmaLayout(R, kRows, blockSize, kMinTiles, kMaxTiles, kXBuffers, maxSharedBytes, out,
                         [](InfomaxWgmmaLayout& L, auto take) {
                           L.offX = take(kXBuffers * xBytes(L.NT));
                           L.offU = take(uBytes(L.NT));
                           L.offWT = take(kWtBytes);
                           L.offVt = take(vtBytes(L.NT));
                         });
}

void launchInfomaxWgmma128Pass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& layout,
                               cudaStream_t stream) {
  if (args.math != InfomaxMath::Tf32 || !args.dataTf32 || layout.rows != kRows)
    throw std::logic_error(
        "launchInfomaxWgmma128Pass: plain TF32 with data rounded on upload, rows of 128 only");
  launchWgmmaPass<kMinTiles, kMaxTiles>(
      args, layout, kThreads, "infomaxWgmma128Kernel", stream,
      [](auto tiles, auto extended) { return infomaxWgmma128Kernel<tiles(), extended()>; });
}

}  // namespace modescope::cuda
