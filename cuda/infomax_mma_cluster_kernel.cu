// The Infomax pass kernel for 65 to 256 components on the tensor cores (infomax_kernels.cuh,
// "InfomaxMmaClusterLayout", says when it runs and why it exists).
//
// runica's update W += lr (B I + Y' U^T) W is computed reassociated, W += lr (B W + Y' (U^T W)):
// three products of R x R x B (2 R^2 B flops each) instead of two of those and one of R^3, and
// W is only ever needed by columns. A cluster of Q = RK / S CTAs (W padded to RK = 128, 192 or
// 256 rows; S = 16 or 32 columns per CTA); CTA q owns W's columns S q .. S q + S - 1 in
// registers, warp w the rows 16 w .. 16 w + 15 of them, lane 4 g + t the elements
// (16 w + g | + 8, 8 c + 2 t | + 1), c = 0 .. S / 8 - 1, exactly an mma.sync m16n8k8 accumulator
// layout. Per block update of B samples:
//   1  U_q = W[:, q] X[q, :], the partial activations from this CTA's S channels (X: the
//      block's samples of those channels, gathered by cp.async during the previous update; W's
//      registers are the A fragments, in the k order c: 2t, 2t + 1 -> t, t + 4). Each warp
//      stores its 16 rows into the slot q of the CTA that owns those rows (distributed shared
//      memory);                                                          cluster barrier A
//   3  CTA p sums the Q partial slots of its rows S p .. S p + S - 1 in a fixed order, adds the
//      bias, takes the bias sums, and stores the rows of U into every CTA;  cluster barrier B
//   5  V^T = W[:, q]^T U (S x B, K = RK; W^T and U from shared memory);    CTA barrier C
//   6  D = Y' V[:, q] (warp w: its 16 rows, K = B), Y' = -(K tanh U + U) (extended) or
//      -tanh(U / 2) computed from U as the A fragments are loaded, then W += lr (B W + D) in
//      FP32 with a Kahan compensation in the owning lane's registers; max |W| to every CTA.
// Every warp does the same work at a given S whatever RK is (16 rows x S columns in steps 1 and
// 6); halving S halves it, and each SM's share of the update with it, for twice the CTAs.
// Two cluster barriers and one CTA barrier per update; the blow-up test of update b is read
// after barrier A of update b + 1 (or before a kurtosis estimate, or at the end of the pass).
//
// Shared-memory operands are read by scalar or 8-byte loads without bank conflicts: U, W^T and
// V are stored as 8 x 8 blocks in which element (i, j) sits at 2 ((i & 3) 8 + (j ^ (i & 2) 2))
// + (i >> 2), so the pairs (i, j), (i + 4, j) that a B fragment (or W^T's A fragment) needs are
// one 8-byte word and both a row and a column of a block can be read by a warp at once.
//
// Every sum runs in a fixed order (the partial slots by CTA rank, the bias and moment partials
// by thread groups), so repeated runs give the same bits.
#include <cuda_pipeline.h>

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/infomax_device.cuh"
#include "cuda/infomax_kernels.cuh"

namespace modescope::cuda {
namespace {

using namespace infomax;

constexpr int kMaxTiles = 12;  // 8-sample tiles of a block: blocks up to 96 samples
// The portable cluster size. A cluster of 16 (non-portable, 16 columns per CTA at 256
// components) was measured on an H200 and was no faster per pass than 8 CTAs of 32 columns
// (ncu: 150 ms against 141 ms), and slower to convergence.
constexpr int kMaxCluster = 8;

int roundUp(int v, int m) { return (v + m - 1) / m * m; }
// Floats per row of X (one sample's S channels): 8 or 24 mod 32, so the 8-byte B-fragment reads
// of a half warp (rows g = 0..3, words 2 t) fall in distinct banks.
__host__ __device__ constexpr int ldXFor(int S) { return S == 16 ? 24 : 40; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

__device__ __forceinline__ unsigned clusterRank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every CTA of the cluster; stores before it are visible to loads after it.
__device__ __forceinline__ void clusterSync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n\t"
      "barrier.cluster.wait.acquire.aligned;" ::
          : "memory");
}

__device__ __forceinline__ unsigned sharedAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The same shared-memory address in the CTA of cluster rank `rank`.
__device__ __forceinline__ unsigned inRank(unsigned address, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(address), "r"(rank));
  return r;
}
__device__ __forceinline__ void storeCluster(unsigned address, float x, float y) {
  asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(address), "f"(x), "f"(y)
               : "memory");
}
__device__ __forceinline__ void storeCluster(unsigned address, float x) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(address), "f"(x) : "memory");
}
__device__ __forceinline__ void storeCluster(unsigned address, int x) {
  asm volatile("st.shared::cluster.s32 [%0], %1;" ::"r"(address), "r"(x) : "memory");
}
__device__ __forceinline__ void maxCluster(unsigned address, unsigned v) {
  asm volatile("red.shared::cluster.max.u32 [%0], %1;" ::"r"(address), "r"(v) : "memory");
}

// TF32 rounding: the tensor cores ignore the low 13 bits, so adding half of their weight rounds
// to nearest (ties away from zero, as cvt.rna). Masked where the value is stored for reuse.
__device__ __forceinline__ unsigned tf32Add(float x) { return __float_as_uint(x) + 0x1000u; }
__device__ __forceinline__ float tf32Value(float x) {
  return __uint_as_float(tf32Add(x) & 0xffffe000u);
}

// One operand: its TF32 part and, for 3xTF32, the TF32 remainder (FP32-accurate products).
template <bool kX3>
struct Operand {
  unsigned hi, lo;
};
// A value as stored in shared memory: TF32 already in plain mode, FP32 in 3xTF32 mode.
template <bool kX3>
__device__ __forceinline__ Operand<kX3> storedOperand(float x) {
  Operand<kX3> o;
  if constexpr (kX3) {
    const float h = tf32Value(x);
    o.hi = __float_as_uint(h);
    o.lo = tf32Add(x - h);
  } else {
    o.hi = __float_as_uint(x);
    o.lo = 0u;
  }
  return o;
}
// A value from registers, not rounded yet.
template <bool kX3>
__device__ __forceinline__ Operand<kX3> freshOperand(float x) {
  if constexpr (kX3) return storedOperand<kX3>(x);
  Operand<kX3> o;
  o.hi = tf32Add(x);
  o.lo = 0u;
  return o;
}
template <bool kX3>
__device__ __forceinline__ float storedValue(float x) {
  return kX3 ? x : tf32Value(x);
}

// d += a b; 3xTF32 adds the small cross terms first.
template <bool kX3>
__device__ __forceinline__ void mma(float (&d)[4], const Operand<kX3> (&a)[4],
                                    const Operand<kX3>& b0, const Operand<kX3>& b1) {
  if constexpr (kX3) {
    mmaTf32(d, a[0].lo, a[1].lo, a[2].lo, a[3].lo, b0.hi, b1.hi);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b0.lo, b1.lo);
  }
  mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b0.hi, b1.hi);
}

// Offset of element (i, j) in an 8 x 8 block (the file's header explains the order).
__device__ __forceinline__ int blockOffset(int i, int j) {
  return 2 * ((i & 3) * 8 + (j ^ ((i & 2) << 1))) + (i >> 2);
}

// Block `b + 1`'s samples of channels col0 .. col0 + S - 1 (those below Rs) into X, by cp.async.
template <int S>
__device__ __forceinline__ void copySlabAsync(float* X, const float* data, int Rs, int col0,
                                              const int* idx, int cols) {
  constexpr int ld = ldXFor(S), quads = S / 4;
  for (int e = threadIdx.x; e < cols * quads; e += blockDim.x) {
    const int j = e / quads, i = e % quads, ch = col0 + 4 * i;
    if (ch < Rs)
      __pipeline_memcpy_async(X + j * ld + 4 * i, data + static_cast<long long>(idx[j]) * Rs + ch,
                              4 * sizeof(float));
  }
}

__device__ __forceinline__ bool blownUp(unsigned maxBits, float maxWeight) {
  return maxBits == 0xffffffffu || !(__uint_as_float(maxBits) <= maxWeight);
}

template <int Q, int S, bool kX3>
__global__ void __launch_bounds__(2 * Q * S, 1)
    infomaxMmaClusterKernel(InfomaxPassArgs a, InfomaxMmaClusterLayout L) {
  constexpr int RK = S * Q;                 // rows of W in the kernel
  constexpr int NC = S / 8;                 // 8-column tiles of the CTA's slab
  constexpr int kWarps = RK / 16;           // 16 rows each
  constexpr int G = 32 * kWarps / (4 * S);  // sample groups of step 3 (4 S threads each)
  constexpr int kLdX = ldXFor(S);
  static_assert(S == 16 || S == 32, "slabs of 16 or 32 columns");
  extern __shared__ __align__(128) float smem[];
  float* const X = smem + L.offX;          // rows x kLdX: the block's samples, this CTA's channels
  float* const slots = smem + L.offSlots;  // Q x S x ldS: partial U of this CTA's rows, by source
  float* const U = smem + L.offU;          // RK x rows in 8 x 8 blocks (or the second slot buffer)
  float* const Wc = smem + L.offW;         // RK x S in 8 x 8 blocks: W[:, q] for step 5
  float* const V = smem + L.offV;          // rows x S in 8 x 8 blocks: V[:, q] = U^T W[:, q]
  float* const bias = smem + L.offVec;     // S: this CTA's rows
  float* const oldKurt = bias + S;
  float* const oldSigns = oldKurt + S;
  float* const signs = oldSigns + S;   // RK: every row's (step 6 needs all)
  float* const biasPart = signs + RK;  // G x S
  double* const mom = reinterpret_cast<double*>(smem + L.offMom);            // G x S x 4
  int* const idx3 = reinterpret_cast<int*>(smem + L.offIdx3);                // 3 x rows
  int* const idxK = reinterpret_cast<int*>(smem + L.offIdxK);                // rows
  unsigned* const maxBits = reinterpret_cast<unsigned*>(smem + L.offFlags);  // [2] by parity
  int* const changed = reinterpret_cast<int*>(smem + L.offFlags + 2);        // [Q] by CTA
  int* const changedHere = changed + kMaxCluster;

  const int q = static_cast<int>(clusterRank());
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
  const int Rs = L.R, NT = L.NT, ldS = L.ldS, block = a.block;
  const int rows = 8 * NT;
  const float lr = a.learningRate, bf = static_cast<float>(block);
  const bool extended = a.extended != 0, useBias = a.useBias != 0;
  const float biasStep = (extended ? -2.f : 1.f) * lr;
  // Step 3's element pair of this thread: rows rowA = 8 cb + ap and rowB = rowA + 4 of this
  // CTA's S, sample bi of the sample blocks grp, grp + G, ...
  const int bi = tid & 7, ap = (tid >> 3) & 3, cb = (tid >> 5) & (NC - 1), grp = tid / (4 * S);
  const int rowA = 8 * cb + ap, rowB = rowA + 4;
  const int pairAp = 2 * (ap * 8 + (bi ^ ((ap & 2) << 1)));
  // The pair (t, g), (t + 4, g) of a block: the B fragments' 8-byte word.
  const int pairTg = 2 * (t * 8 + (g ^ ((t & 2) << 1)));
  const int ch0 = 16 * w + g, ch1 = ch0 + 8;  // the lane's rows of W

  // W[:, q]'s elements of this lane and their Kahan compensation, for the whole pass.
  float wOwn[NC][4], lo[NC][4];
#pragma unroll
  for (int c = 0; c < NC; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int ch = e < 2 ? ch0 : ch1, col = S * q + 8 * c + 2 * t + (e & 1);
      const bool in = ch < Rs && col < Rs;
      const long long at = static_cast<long long>(ch) * Rs + col;
      wOwn[c][e] = in ? a.state.w[at] : 0.f;
      lo[c][e] = in ? a.state.wlo[at] : 0.f;
    }
  // W's stored copy (step 5's operand): element (ch, col) of block (ch / 8, col / 8).
  auto storeW = [&]() {
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        Wc[((2 * w + (e >> 1)) * NC + c) * 64 + blockOffset(g, 2 * t + (e & 1))] =
            storedValue<kX3>(wOwn[c][e]);
  };
  storeW();
  for (int e = tid; e < rows * kLdX; e += blockDim.x) X[e] = 0.f;  // channels past Rs stay 0
  for (int i = tid; i < RK; i += blockDim.x) signs[i] = i < Rs ? a.state.signs[i] : 1.f;
  if (tid < S) {
    const int ch = S * q + tid;
    bias[tid] = ch < Rs ? a.state.bias[ch] : 0.f;
    oldKurt[tid] = ch < Rs ? a.state.oldKurtosis[ch] : 0.f;
    oldSigns[tid] = ch < Rs ? a.state.oldSigns[ch] : 0.f;
  }
  if (tid < 2) maxBits[tid] = 0u;
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;

  // The copy pipeline (as the one-CTA kernels): block b + 1's samples and block b + 2's
  // permutation entries travel during block b.
  if (a.blocks > 0) copyIndicesAsync(idx3, a.perm, block);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (a.blocks > 0) copySlabAsync<S>(X, a.data, Rs, S * q, idx3, block);
  if (a.blocks > 1) copyIndicesAsync(idx3 + rows, a.perm + block, block);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  int slotNext = 1, slotAfter = 2;
  long long nextEstimate = extended ? nextEstimateBlock(blockNo, extBlocks) : -1;
  clusterSync();  // every CTA initialised before any remote store

  const unsigned uAddress = sharedAddress(U);
  // Step 1 into `buffer` (the slots, or U as the kurtosis estimate's second slot buffer) of the
  // CTA owning this warp's rows.
  auto partialU = [&](float* buffer) {
    Operand<kX3> wa[NC][4];
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      wa[c][0] = freshOperand<kX3>(wOwn[c][0]);
      wa[c][1] = freshOperand<kX3>(wOwn[c][2]);
      wa[c][2] = freshOperand<kX3>(wOwn[c][1]);
      wa[c][3] = freshOperand<kX3>(wOwn[c][3]);
    }
    // Rows 16 w .. 16 w + 15 belong to CTA 16 w / S.
    const unsigned dst = inRank(sharedAddress(buffer + (q * S + (16 * w) % S + g) * ldS + 2 * t),
                                static_cast<unsigned>(16 * w / S));
#pragma unroll
    for (int n = 0; n < kMaxTiles; ++n) {
      if (n >= NT) break;
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      const float* x = X + (8 * n + g) * kLdX + 2 * t;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const float2 v = *reinterpret_cast<const float2*>(x + 8 * c);
        mma<kX3>(acc, wa[c], storedOperand<kX3>(v.x), storedOperand<kX3>(v.y));
      }
      storeCluster(dst + 4u * (8 * n), acc[0], acc[1]);
      storeCluster(dst + 4u * (8 * ldS + 8 * n), acc[2], acc[3]);
    }
  };
  // Row r's sum over the Q partial slots of `buffer` at sample s, in rank order.
  auto slotSum = [&](const float* buffer, int row, int s) {
    float u = 0.f;
#pragma unroll
    for (int p = 0; p < Q; ++p) u += buffer[(p * S + row) * ldS + s];
    return u;
  };

  // Step 5's item: V^T's columns 16 m .. 16 m + 15 at the T 8-sample tiles from n. Each tile
  // sums even and odd k chunks apart (two independent mma chains) and adds them at the end.
  auto productVt = [&]<int T>(int m, int n) {
    float acc[T][2][4];
#pragma unroll
    for (int i = 0; i < T; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) acc[i][h][0] = acc[i][h][1] = acc[i][h][2] = acc[i][h][3] = 0.f;
    const float* wp = Wc + 2 * m * 64 + pairTg;
    const float* up = U + n * 64 + pairTg;
#pragma unroll 2
    for (int kc = 0; kc < RK / 8; kc += 2) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float2 a02 = *reinterpret_cast<const float2*>(wp + (kc + h) * NC * 64);
        const float2 a13 = *reinterpret_cast<const float2*>(wp + (kc + h) * NC * 64 + 64);
        const Operand<kX3> af[4] = {storedOperand<kX3>(a02.x), storedOperand<kX3>(a13.x),
                                    storedOperand<kX3>(a02.y), storedOperand<kX3>(a13.y)};
#pragma unroll
        for (int i = 0; i < T; ++i) {
          const float2 bb = *reinterpret_cast<const float2*>(up + (kc + h) * NT * 64 + i * 64);
          mma<kX3>(acc[i][h], af, storedOperand<kX3>(bb.x), storedOperand<kX3>(bb.y));
        }
      }
    }
    // acc (column 16 m + g (+ 8), sample 8 (n + i) + 2 t (+ 1)) -> V (sample, column).
#pragma unroll
    for (int i = 0; i < T; ++i) {
      float* vb = V + ((n + i) * NC + 2 * m) * 64;
      vb[blockOffset(2 * t, g)] = storedValue<kX3>(acc[i][0][0] + acc[i][1][0]);
      vb[blockOffset(2 * t + 1, g)] = storedValue<kX3>(acc[i][0][1] + acc[i][1][1]);
      vb[64 + blockOffset(2 * t, g)] = storedValue<kX3>(acc[i][0][2] + acc[i][1][2]);
      vb[64 + blockOffset(2 * t + 1, g)] = storedValue<kX3>(acc[i][0][3] + acc[i][1][3]);
    }
  };

  for (long long b = 0; b < a.blocks; ++b) {
    partialU(slots);  // step 1
    clusterSync();    // A: every partial slot complete
    if (b > 0 && blownUp(maxBits[(b - 1) & 1], a.maxWeight)) {
      blewUp = true;  // the previous update blew up: every CTA reads the same maximum
      break;
    }
    const int slotOfNext = slotNext;
    if (b + 1 < a.blocks) copySlabAsync<S>(X, a.data, Rs, S * q, idx3 + slotNext * rows, block);
    if (b + 2 < a.blocks)
      copyIndicesAsync(idx3 + slotAfter * rows, a.perm + (b + 2) * block, block);
    __pipeline_commit();
    slotNext = slotAfter;
    slotAfter = slotAfter == 2 ? 0 : slotAfter + 1;

    // Step 3: this CTA's rows of U = bias + sum of the partial slots; the bias sums; the rows
    // to every CTA.
    {
      const float biasA = useBias ? bias[rowA] : 0.f, biasB = useBias ? bias[rowB] : 0.f;
      float partA = 0.f, partB = 0.f;
      for (int sb = grp; sb < NT; sb += G) {
        const int s = 8 * sb + bi;
        const bool valid = s < block;
        float uA = valid ? biasA + slotSum(slots, rowA, s) : 0.f;
        float uB = valid ? biasB + slotSum(slots, rowB, s) : 0.f;
        uA = storedValue<kX3>(uA);
        uB = storedValue<kX3>(uB);
        if (extended) {
          partA += kX3 ? tanhf(uA) : fastTanh(uA);
          partB += kX3 ? tanhf(uB) : fastTanh(uB);
        } else {
          partA -= kX3 ? tanhf(0.5f * uA) : fastTanh(0.5f * uA);
          partB -= kX3 ? tanhf(0.5f * uB) : fastTanh(0.5f * uB);
        }
        const unsigned at = uAddress + 4u * (((NC * q + cb) * NT + sb) * 64 + pairAp);
#pragma unroll
        for (int p = 0; p < Q; ++p) storeCluster(inRank(at, static_cast<unsigned>(p)), uA, uB);
      }
#pragma unroll
      for (int o = 1; o < 8; o <<= 1) {
        partA += __shfl_xor_sync(0xffffffffu, partA, o);
        partB += __shfl_xor_sync(0xffffffffu, partB, o);
      }
      if (bi == 0) {
        biasPart[grp * S + rowA] = partA;
        biasPart[grp * S + rowB] = partB;
      }
    }
    clusterSync();  // B: every CTA holds all of U
    if (useBias && tid < S) {
      float sum = 0.f;
#pragma unroll
      for (int p = 0; p < G; ++p) sum += biasPart[p * S + tid];
      bias[tid] += biasStep * sum;
    }

    // Step 5: V^T = W[:, q]^T U, items (16 columns, 16 samples: W^T's A fragments loaded once
    // for both 8-sample tiles; the last item of an odd NT has one tile) over the warps.
    constexpr int kHalves = S / 16;  // 16-column halves of the slab
    const int pairs = (NT + 1) / 2;
    for (int item = w; item < kHalves * pairs; item += kWarps) {
      const int m = item % kHalves, n = 2 * (item / kHalves);
      if (n + 1 < NT)
        productVt.template operator()<2>(m, n);
      else
        productVt.template operator()<1>(m, n);
    }
    __pipeline_wait_prior(0);  // block b + 1's samples, block b + 2's entries
    if (tid == 0 && b > 0) maxBits[(b - 1) & 1] = 0u;  // read by every thread after A
    __syncthreads();                                   // C: V complete

    // Step 6: D = Y' V[:, q] for the warp's rows; W += lr (B W + D).
    {
      float acc[NC][4];
#pragma unroll
      for (int c = 0; c < NC; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
      const float k0 = signs[ch0], k1 = signs[ch1];
      const float* u0 = U + 2 * w * NT * 64;
      const float* u1 = u0 + NT * 64;
      const int offT = blockOffset(g, t), offT4 = blockOffset(g, t + 4);
      auto y = [&](float u, float k) {
        if (extended) return -(k * (kX3 ? tanhf(u) : fastTanh(u)) + u);
        return -(kX3 ? tanhf(0.5f * u) : fastTanh(0.5f * u));
      };
#pragma unroll
      for (int j = 0; j < kMaxTiles; ++j) {
        if (j >= NT) break;
        const Operand<kX3> af[4] = {freshOperand<kX3>(y(u0[j * 64 + offT], k0)),
                                    freshOperand<kX3>(y(u1[j * 64 + offT], k1)),
                                    freshOperand<kX3>(y(u0[j * 64 + offT4], k0)),
                                    freshOperand<kX3>(y(u1[j * 64 + offT4], k1))};
#pragma unroll
        for (int c = 0; c < NC; ++c) {
          const float2 v = *reinterpret_cast<const float2*>(V + (j * NC + c) * 64 + pairTg);
          mma<kX3>(acc[c], af, storedOperand<kX3>(v.x), storedOperand<kX3>(v.y));
        }
      }
      unsigned localMax = 0u;
      bool nan = false;
#pragma unroll
      for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float wv = wOwn[c][e];
          const float yv = lr * (bf * wv + acc[c][e]) - lo[c][e];
          const float sum = wv + yv;
          lo[c][e] = (sum - wv) - yv;
          wOwn[c][e] = sum;
          nan |= isnan(sum);
          localMax = max(localMax, __float_as_uint(fabsf(sum)));
        }
      storeW();
      if (nan) localMax = 0xffffffffu;
      for (int o = 16; o > 0; o >>= 1)
        localMax = max(localMax, __shfl_xor_sync(0xffffffffu, localMax, o));
      if (lane < Q)
        maxCluster(inRank(sharedAddress(maxBits + (b & 1)), static_cast<unsigned>(lane)), localMax);
    }
    ++blockNo;

    // Kurtosis estimate (extended mode) with the new W on the draws of infomax_passes.h, in
    // chunks of `rows` samples through steps 1 and 3 (the partial slots alternate with U's
    // space, so one cluster barrier per chunk); this CTA takes the moments of its 32 rows.
    if (blockNo == nextEstimate) {
      clusterSync();
      if (blownUp(maxBits[b & 1], a.maxWeight)) {
        blewUp = true;
        break;
      }
      const long long m = min(static_cast<long long>(a.kurtosisSamples), a.n);
      double moA[4] = {0, 0, 0, 0}, moB[4] = {0, 0, 0, 0};
      int chunk = 0;
      for (long long k0 = 0; k0 < m; k0 += rows, ++chunk) {
        const int cols = static_cast<int>(min(static_cast<long long>(rows), m - k0));
        for (int j = tid; j < cols; j += blockDim.x)
          idxK[j] = static_cast<int>(kurtosisSample(a, estimates, m, k0 + j));
        __syncthreads();
        for (int e = tid; e < cols * (S / 4); e += blockDim.x) {
          const int j = e / (S / 4), i = e % (S / 4), ch = S * q + 4 * i;
          if (ch < Rs)
            *reinterpret_cast<float4*>(X + j * kLdX + 4 * i) =
                __ldg(reinterpret_cast<const float4*>(a.data +
                                                      static_cast<long long>(idxK[j]) * Rs + ch));
        }
        __syncthreads();
        float* buffer = (chunk & 1) ? U : slots;
        partialU(buffer);
        clusterSync();
        for (int sb = grp; sb < NT; sb += G) {
          const int s = 8 * sb + bi;
          if (s >= cols) continue;
          const double uA = slotSum(buffer, rowA, s), uB = slotSum(buffer, rowB, s);
          const double a2 = uA * uA, b2 = uB * uB;
          moA[0] += uA;
          moA[1] += a2;
          moA[2] += a2 * uA;
          moA[3] += a2 * a2;
          moB[0] += uB;
          moB[1] += b2;
          moB[2] += b2 * uB;
          moB[3] += b2 * b2;
        }
      }
#pragma unroll
      for (int k = 0; k < 4; ++k)
        for (int o = 1; o < 8; o <<= 1) {
          moA[k] += __shfl_xor_sync(0xffffffffu, moA[k], o);
          moB[k] += __shfl_xor_sync(0xffffffffu, moB[k], o);
        }
      if (bi == 0)
        for (int k = 0; k < 4; ++k) {
          mom[(grp * S + rowA) * 4 + k] = moA[k];
          mom[(grp * S + rowB) * 4 + k] = moB[k];
        }
      if (tid == 0) *changedHere = 0;
      __syncthreads();
      if (tid < S && S * q + tid < a.components) {
        double moments[4] = {0, 0, 0, 0};
        for (int p = 0; p < G; ++p)
          for (int k = 0; k < 4; ++k) moments[k] += mom[(p * S + tid) * 4 + k];
        float sign = signs[S * q + tid];
        if (updateKurtosisSign(moments, m, a, oldKurt[tid], sign, oldSigns[tid]))
          atomicOr(changedHere, 1);
        const unsigned at = sharedAddress(signs + S * q + tid);
        for (int p = 0; p < Q; ++p) storeCluster(inRank(at, static_cast<unsigned>(p)), sign);
      }
      __syncthreads();
      if (tid < Q)
        storeCluster(inRank(sharedAddress(changed + q), static_cast<unsigned>(tid)), *changedHere);
      clusterSync();  // the signs and the change flags everywhere; the slots free again
      int any = 0;
      for (int p = 0; p < Q; ++p) any |= changed[p];
      ++estimates;
      signCount = any ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
      nextEstimate = nextEstimateBlock(blockNo, extBlocks);
      // The estimate used X: block b + 1's samples again.
      if (b + 1 < a.blocks) copySlabAsync<S>(X, a.data, Rs, S * q, idx3 + slotOfNext * rows, block);
      __pipeline_commit();
      __pipeline_wait_prior(0);
      __syncthreads();
    }
  }

  __pipeline_wait_prior(0);
  if (!blewUp && a.blocks > 0) {
    clusterSync();
    blewUp = blownUp(maxBits[(a.blocks - 1) & 1], a.maxWeight);
  }
  // Store the state (after a blow-up W is the blown one: the driver restarts from scratch).
#pragma unroll
  for (int c = 0; c < NC; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int ch = e < 2 ? ch0 : ch1, col = S * q + 8 * c + 2 * t + (e & 1);
      if (ch < Rs && col < Rs) {
        const long long at = static_cast<long long>(ch) * Rs + col;
        a.state.w[at] = wOwn[c][e];
        a.state.wlo[at] = lo[c][e];
      }
    }
  if (tid < S && S * q + tid < Rs) {
    const int ch = S * q + tid;
    a.state.bias[ch] = bias[tid];
    a.state.signs[ch] = signs[ch];
    a.state.oldSigns[ch] = oldSigns[tid];
    a.state.oldKurtosis[ch] = oldKurt[tid];
  }
  if (q == 0 && tid == 0) storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
  clusterSync();  // no CTA leaves while another may still address its shared memory
}
#else
// Built for an architecture without clusters: never launched (the host refuses devices below
// compute capability 9.0).
template <int Q, int S, bool kX3>
__global__ void infomaxMmaClusterKernel(InfomaxPassArgs, InfomaxMmaClusterLayout) {}
#endif

// The kernel of a layout, with its shared memory, and a launch configuration for it on `stream`.
template <int Q, int S, bool kX3>
struct ClusterLaunch {
  using Kernel = void (*)(InfomaxPassArgs, InfomaxMmaClusterLayout);
  Kernel kernel = infomaxMmaClusterKernel<Q, S, kX3>;
  cudaLaunchAttribute attr[1] = {};
  cudaLaunchConfig_t config = {};

  ClusterLaunch(const InfomaxMmaClusterLayout& L, cudaStream_t stream) {
    MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(L.bytes)));
    config.gridDim = dim3(static_cast<unsigned>(Q));
    config.blockDim = dim3(2 * Q * S);
    config.dynamicSmemBytes = L.bytes;
    config.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(Q);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
  }
};

// Calls f.template operator()<Q, S, kX3>() for the layout's shape and the args' math.
template <typename F>
auto withShape(const InfomaxMmaClusterLayout& L, InfomaxMath math, F&& f) {
  const bool x3 = math == InfomaxMath::Tf32x3;
  auto pick = [&]<int Q, int S>() {
    return x3 ? f.template operator()<Q, S, true>() : f.template operator()<Q, S, false>();
  };
  if (L.S == 16) return pick.template operator()<8, 16>();
  if (L.Q == 4) return pick.template operator()<4, 32>();
  if (L.Q == 6) return pick.template operator()<6, 32>();
  return pick.template operator()<8, 32>();
}

}  // namespace

bool planInfomaxMmaCluster(int R, int blockSize, InfomaxMath math, int ccMajor,
                           std::size_t maxSharedBytes, int columns, InfomaxMmaClusterLayout& out) {
  if (math == InfomaxMath::Fp32 || ccMajor < 9 || R <= 64 || R > 256 ||
      (columns != 16 && columns != 32) || blockSize < 1 || blockSize > 8 * kMaxTiles)
    return false;
  InfomaxMmaClusterLayout L;
  L.R = R;
  L.RK = roundUp(R, 64);
  L.S = columns;
  L.Q = L.RK / columns;
  if (L.Q > kMaxCluster) return false;
  L.NT = roundUp(blockSize, 8) / 8;
  const int rows = 8 * L.NT;
  const int groups = L.RK / (2 * L.S);  // step 3's sample groups of 4 S threads
  // Slot rows of 8 or 24 words mod 32 make step 3's reads conflict-free; where that does not
  // fit, the plain length.
  int conflictFree = rows;
  while (conflictFree % 32 != 8 && conflictFree % 32 != 24) ++conflictFree;
  for (int ldS : {conflictFree, rows}) {
    L.ldS = ldS;
    int off = 0;
    auto take = [&off](int floats) {
      const int at = off;
      off += roundUp(floats, 32);
      return at;
    };
    L.offX = take(rows * ldXFor(L.S));
    L.offSlots = take(L.RK * ldS);
    L.offU = take(L.RK * ldS);  // U (RK x rows) or the kurtosis estimate's second slot buffer
    L.offW = take(L.RK * L.S);
    L.offV = take(rows * L.S);
    L.offVec = take(3 * L.S + L.RK + groups * L.S);
    L.offMom = take(2 * groups * L.S * 4);  // doubles
    L.offIdx3 = take(3 * rows);
    L.offIdxK = take(rows);
    L.offFlags = take(2 + 2 * kMaxCluster);
    L.bytes = static_cast<std::size_t>(off) * sizeof(float);
    if (L.bytes <= maxSharedBytes) {
      out = L;
      return true;
    }
  }
  return false;
}

void launchInfomaxMmaClusterPass(const InfomaxPassArgs& args, const InfomaxMmaClusterLayout& L,
                                 cudaStream_t stream) {
  requireTf32DataExactlyForTf32(args, "launchInfomaxMmaClusterPass");
  withShape(L, args.math, [&]<int Q, int S, bool kX3>() {
    ClusterLaunch<Q, S, kX3> launch(L, stream);
    MODESCOPE_CUDA_TRY(cudaLaunchKernelEx(&launch.config, launch.kernel, args, L));
    MODESCOPE_CUDA_CHECK_LAUNCH("infomaxMmaClusterKernel", stream);
  });
}

}  // namespace modescope::cuda
