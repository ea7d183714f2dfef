// The register-resident Infomax pass kernel for up to 64 components (infomax_kernels.cuh,
// "InfomaxFastLayout", says when it runs and why it exists).
//
// One CTA of 4 x (R / 16) warps; warp (h, mi) owns rows 16 mi .. 16 mi + 15 of W. Per block
// update, with three CTA barriers and no cluster:
//   A  U = W X + b over the sample tiles 3h .. 3h + 2 of the block (8 samples each): W's rows as
//      TF32 A fragments in registers, X from shared memory (it arrived by cp.async during the
//      previous update), the bias as the accumulators' start value;
//   B  the nonlinearity on the accumulators in registers: Y' = -(K tanh U + U) (extended) or
//      -tanh(U / 2) (logistic), the bias sums; U and Y' to shared memory;      barrier 1
//   C  G = B I + Y' U^T for the warp's rows and its share of the columns, over the whole block;
//      to shared memory;                                                       barrier 2
//   D  GW = G W for the same rows and columns, then W += lr GW (Kahan-compensated) into the
//      other of two W buffers, so no one waits for readers of the old W; b += lr * bias sums;
//      the blow-up test;                                                       barrier 3.
// Every extBlocks blocks (extended) the kurtosis estimate reuses step A on gathered samples.
// Nothing is indexed by a run-time value inside the products: the guards the compiler cannot
// prove uniform cost a warp synchronisation per product, and run-time trip counts cost unrolled
// remainder code (the first version of this kernel spent 2,600 instructions per warp and block).
//
// mma.sync m16n8k8 TF32 fragments (lane = 4 g + t): A a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
// a3 (g + 8, t + 4); B b0 (k = t, n = g), b1 (k = t + 4, n = g); C c0 (g, 2t), c1 (g, 2t + 1),
// c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
#include <cuda_pipeline.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/infomax_device.cuh"
#include "cuda/infomax_kernels.cuh"

namespace modescope::cuda {
namespace {

using namespace infomax;

constexpr int kGroups = 4;                           // warps per 16 rows of W
constexpr int kTilesPerGroup = 3;                    // 8-sample tiles per warp in steps A and B
constexpr int kMaxTiles = kGroups * kTilesPerGroup;  // 96 samples: blocks up to 96

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

__device__ __forceinline__ unsigned tf32Bits(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// One operand: its TF32 part, and with kX3 the TF32 remainder (3xTF32: FP32-accurate products).
template <bool kX3>
struct Operand {
  unsigned hi, lo;
  Operand() = default;
  __device__ __forceinline__ explicit Operand(float x) {
    hi = tf32Bits(x);
    lo = kX3 ? tf32Bits(x - __uint_as_float(hi)) : 0u;
  }
  // A value already rounded to TF32 (plain mode only).
  __device__ __forceinline__ static Operand rounded(float x) {
    Operand o;
    o.hi = __float_as_uint(x);
    o.lo = 0u;
    return o;
  }
};

// d += a b with the products of kX3 (the small cross terms first).
template <bool kX3>
__device__ __forceinline__ void mma(float (&d)[4], const Operand<kX3> (&a)[4],
                                    const Operand<kX3>& b0, const Operand<kX3>& b1) {
  if constexpr (kX3) {
    mmaTf32(d, a[0].lo, a[1].lo, a[2].lo, a[3].lo, b0.hi, b1.hi);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b0.lo, b1.lo);
  }
  mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b0.hi, b1.hi);
}

// Shared-memory regions of the CTA. The double buffers are two equal regions one stride apart,
// so a buffer is base + parity * stride: an indexed array of pointers would live in local memory.
// Every operand is read as 16 bytes per lane (rows g, columns 4t .. 4t + 3; leading dimensions
// 16 mod 32 words, so a quarter warp covers all banks once), which serves two k-steps.
struct Smem {
  float* X;   // 2 x 8 (NT + 1) x ldX, sample-major: this block's samples and the next one's;
              // rows past the block are zero (the last 8: the zero tile)
  float* U;   // R x ldU: U of the block, sample columns (TF32-rounded in plain mode)
  float* Y;   // R x ldU: Y' of the block (likewise)
  float* G;   // R x ldG: G = B I + Y' U^T
  float* P;   // 2 x R x ldP: the products' W, row-major (TF32-rounded in plain mode)
  float* PT;  // 2 x R x ldP: the same transposed
  float *bias, *signs, *oldSigns, *oldKurt, *biasSum;  // R each, biasSum 4 x R
  double* mom;                                         // 4 x R x 4
  int* idx3;          // 3 x 8 NT: permutation entries, two blocks ahead
  int* idxK;          // 8 NT: kurtosis draws
  unsigned* maxBits;  // [2]: max |W| of the block, by parity
  int* changed;       // sign changes of the estimate
  int xStride, pStride;
  __device__ float* x(int parity) const { return X + parity * xStride; }
  __device__ float* p(int parity) const { return P + parity * pStride; }
  __device__ float* pt(int parity) const { return PT + parity * pStride; }
};

__device__ Smem carve(float* base, const InfomaxFastLayout& L) {
  Smem s;
  s.X = base + L.offX0;
  s.xStride = L.offX1 - L.offX0;
  s.U = base + L.offU;
  s.Y = base + L.offY;
  s.G = base + L.offG;
  s.P = base + L.offP0;
  s.PT = base + L.offPT0;
  s.pStride = L.offP1 - L.offP0;
  s.bias = base + L.offVec;
  s.signs = s.bias + L.R;
  s.oldSigns = s.signs + L.R;
  s.oldKurt = s.oldSigns + L.R;
  s.biasSum = s.oldKurt + L.R;
  s.mom = reinterpret_cast<double*>(base + L.offMom);
  s.idx3 = reinterpret_cast<int*>(base + L.offIdx3);
  s.idxK = reinterpret_cast<int*>(base + L.offIdxK);
  s.maxBits = reinterpret_cast<unsigned*>(base + L.offFlags);
  s.changed = reinterpret_cast<int*>(base + L.offFlags + 2);
  return s;
}

// A value of a products' copy: TF32 already in plain mode, split in 3xTF32 mode.
template <bool kX3>
__device__ __forceinline__ Operand<kX3> productOperand(float v) {
  if constexpr (kX3)
    return Operand<kX3>(v);
  else
    return Operand<kX3>::rounded(v);
}

__device__ __forceinline__ float4 load16(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}

// The k index of the products is permuted within each 16-wide chunk so that a lane's operands
// for two k-steps are four consecutive values q at column 16 kk + 4t: step 2 kk takes (q.x, q.y)
// as its k = t and t + 4, step 2 kk + 1 takes (q.z, q.w). A and B use the same permutation, so
// the sum over k is unchanged.
template <bool kX3>
__device__ __forceinline__ void aFragments(Operand<kX3> (&lo)[4], Operand<kX3> (&hi)[4],
                                           const float4& q0, const float4& q1) {
  lo[0] = productOperand<kX3>(q0.x);
  lo[1] = productOperand<kX3>(q1.x);
  lo[2] = productOperand<kX3>(q0.y);
  lo[3] = productOperand<kX3>(q1.y);
  hi[0] = productOperand<kX3>(q0.z);
  hi[1] = productOperand<kX3>(q1.z);
  hi[2] = productOperand<kX3>(q0.w);
  hi[3] = productOperand<kX3>(q1.w);
}

// d += A B over one 16-wide k chunk: a the two steps' A fragments, q the lane's four B values.
template <bool kX3, bool kRounded = !kX3>
__device__ __forceinline__ void mma16(float (&d)[4], const Operand<kX3> (&a0)[4],
                                      const Operand<kX3> (&a1)[4], const float4& q) {
  if constexpr (kRounded) {
    mma(d, a0, Operand<kX3>::rounded(q.x), Operand<kX3>::rounded(q.y));
    mma(d, a1, Operand<kX3>::rounded(q.z), Operand<kX3>::rounded(q.w));
  } else {
    mma(d, a0, Operand<kX3>(q.x), Operand<kX3>(q.y));
    mma(d, a1, Operand<kX3>(q.z), Operand<kX3>(q.w));
  }
}

// The warp's W rows as A fragments, two k-steps per 16-byte load of each row.
template <int MT, bool kX3>
__device__ __forceinline__ void loadWFragments(Operand<kX3> (&wa)[2 * MT][4], const float* P,
                                               int ldP, int r0, int t) {
#pragma unroll
  for (int kk = 0; kk < MT; ++kk)
    aFragments<kX3>(wa[2 * kk], wa[2 * kk + 1], load16(P + r0 * ldP + 16 * kk + 4 * t),
                    load16(P + (r0 + 8) * ldP + 16 * kk + 4 * t));
}

// Step A: acc[j] = start + W_rows X[:, tile tile0 + j], j < 3; tiles at or past NT read the
// zero tile. kRounded: X holds TF32 values already.
template <int MT, bool kX3, bool kRounded>
__device__ __forceinline__ void productWX(float (&acc)[kTilesPerGroup][4],
                                          const Operand<kX3> (&wa)[2 * MT][4], const float* X,
                                          int ldX, int tile0, int NT, float start0, float start1,
                                          int g, int t) {
#pragma unroll
  for (int j = 0; j < kTilesPerGroup; ++j) {
    acc[j][0] = acc[j][1] = start0;
    acc[j][2] = acc[j][3] = start1;
    const float* x = X + (8 * min(tile0 + j, NT) + g) * ldX + 4 * t;
#pragma unroll
    for (int kk = 0; kk < MT; ++kk)
      mma16<kX3, kRounded>(acc[j], wa[2 * kk], wa[2 * kk + 1], load16(x + 16 * kk));
  }
}

// Steps C and D: acc[c] = A B over `chunks` 16-wide k chunks for A's rows r0, r0 + 8 and B's
// column tiles c0 .. c0 + CT - 1, with A (rows x k) and B^T (columns x k) row-major in shared
// memory: G = Y' U^T (A = Y', B^T = U) and GW (A = G, B^T = W^T).
template <int CT, bool kX3>
__device__ __forceinline__ void bandProduct(float (&acc)[CT][4], const float* A, int ldA,
                                            const float* BT, int ldB, int r0, int c0, int g, int t,
                                            int chunks) {
#pragma unroll
  for (int c = 0; c < CT; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
#pragma unroll
  for (int kk = 0; kk < chunks; ++kk) {
    const int k = 16 * kk + 4 * t;
    Operand<kX3> a0[4], a1[4];
    aFragments<kX3>(a0, a1, load16(A + r0 * ldA + k), load16(A + (r0 + 8) * ldA + k));
#pragma unroll
    for (int c = 0; c < CT; ++c)
      mma16<kX3>(acc[c], a0, a1, load16(BT + (8 * (c0 + c) + g) * ldB + k));
  }
}

// Stores a 16 x 8 accumulator tile (rows r0, r0 + 8; columns col, col + 1) at M (ld), rounded to
// TF32 for plain-mode products.
template <bool kX3>
__device__ __forceinline__ void storeTile(float* M, int ld, int r0, int col, const float (&c)[4]) {
  float2 a = make_float2(c[0], c[1]), b = make_float2(c[2], c[3]);
  if constexpr (!kX3) {
    a = make_float2(__uint_as_float(tf32Bits(a.x)), __uint_as_float(tf32Bits(a.y)));
    b = make_float2(__uint_as_float(tf32Bits(b.x)), __uint_as_float(tf32Bits(b.y)));
  }
  *reinterpret_cast<float2*>(M + r0 * ld + col) = a;
  *reinterpret_cast<float2*>(M + (r0 + 8) * ld + col) = b;
}

template <bool kX3>
__device__ __forceinline__ float productValue(float w) {
  return kX3 ? w : __uint_as_float(tf32Bits(w));
}

// kRounded: the data on the device are TF32 already (plain mode, rounded on upload).
template <int MT, bool kX3, bool kExtended, bool kRounded>
__global__ void __launch_bounds__(kGroups * 4 * 32, 1)
    infomaxFastKernel(InfomaxPassArgs a, InfomaxFastLayout L) {
  constexpr int R = 16 * MT, GT = 2 * MT;
  // Column tiles of G and GW per warp in steps C and D (groups past GT idle there).
  constexpr int CT = (GT + kGroups - 1) / kGroups;
  extern __shared__ __align__(128) float smem[];
  const Smem s = carve(smem, L);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int h = warp / MT, mi = warp - h * MT;
  const int ldX = L.ldX, ldU = L.ldU, ldG = L.ldG, ldP = L.ldP;
  const int block = a.block, r = a.components, NT = L.NT;
  const int r0 = 16 * mi + g, r1 = r0 + 8;
  const int tile0 = h * kTilesPerGroup;
  const int c0 = h * CT;  // first column tile of steps C and D
  const bool owner = c0 < GT;
  const float lr = a.learningRate;
  const float biasStep = (kExtended ? -2.f : 1.f) * lr;

  // The weights this lane updates (rows r0, r1; columns 8 (c0 + c) + 2t + {0, 1}) stay in
  // registers for the whole pass, with their Kahan compensation; shared memory holds the
  // products' copies.
  float wOwn[CT][4], loOwn[CT][4];
#pragma unroll
  for (int c = 0; c < CT; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int at = (e < 2 ? r0 : r1) * R + 8 * (c0 + c) + 2 * t + (e & 1);
      wOwn[c][e] = owner ? a.state.w[at] : 0.f;
      loOwn[c][e] = owner ? a.state.wlo[at] : 0.f;
    }
  for (int e = threadIdx.x; e < R * R; e += blockDim.x) {
    const int i = e / R, j = e % R;
    const float w = productValue<kX3>(a.state.w[e]);
    s.P[i * ldP + j] = w;
    s.PT[j * ldP + i] = w;
  }
  for (int i = threadIdx.x; i < R; i += blockDim.x) {
    s.bias[i] = a.state.bias[i];
    s.signs[i] = a.state.signs[i];
    s.oldSigns[i] = a.state.oldSigns[i];
    s.oldKurt[i] = a.state.oldKurtosis[i];
  }
  // X's rows past the block stay zero.
  for (int e = threadIdx.x; e < 2 * s.xStride; e += blockDim.x) s.X[e] = 0.f;
  if (threadIdx.x < 2) s.maxBits[threadIdx.x] = 0u;
  long long blockNo = a.state.counters[0];
  long long estimates = a.state.counters[1];
  int signCount = static_cast<int>(a.state.counters[2]);
  double extBlocks = *a.state.extBlocks;
  bool blewUp = false;
  int cur = 0;
  __syncthreads();

  // The copy pipeline: block b's samples are in X[b & 1] before block b starts; block b + 1's
  // samples and block b + 2's permutation entries travel while block b is computed. (Slots and
  // offsets are counted, not divided: 64-bit divisions cost hundreds of instructions.)
  const int slotSize = 8 * NT;
  if (a.blocks > 0) copyIndicesAsync(s.idx3, a.perm, block);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (a.blocks > 0) copySamplesAsync(s.x(0), ldX, a.data, R, s.idx3, block, block);
  if (a.blocks > 1) copyIndicesAsync(s.idx3 + slotSize, a.perm + block, block);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  int slotNext = 1, slotAfter = 2;  // idx3 slots of blocks b + 1 and b + 2
  // The next block number at which the kurtosis is estimated (blockNo % extBlocks == 0).
  auto nextMultiple = [](long long after, double ext) {
    const long long e = static_cast<long long>(ext);
    return e > 0 ? (after / e + 1) * e : -1;
  };
  long long nextEstimate = kExtended ? nextMultiple(blockNo, extBlocks) : -1;

  Operand<kX3> wa[2 * MT][4];
  for (long long b = 0; b < a.blocks; ++b) {
    const int nxt = cur ^ 1;
    if (b + 1 < a.blocks)
      copySamplesAsync(s.x(nxt), ldX, a.data, R, s.idx3 + slotNext * slotSize, block, block);
    if (b + 2 < a.blocks)
      copyIndicesAsync(s.idx3 + slotAfter * slotSize, a.perm + (b + 2) * block, block);
    __pipeline_commit();
    slotNext = slotAfter;
    slotAfter = slotAfter == 2 ? 0 : slotAfter + 1;

    // A: U = W X + b.
    loadWFragments<MT, kX3>(wa, s.p(cur), ldP, r0, t);
    float acc[kTilesPerGroup][4];
    productWX<MT, kX3, kRounded>(acc, wa, s.x(cur), ldX, tile0, NT, a.useBias ? s.bias[r0] : 0.f,
                                 a.useBias ? s.bias[r1] : 0.f, g, t);

    // B: the nonlinearity, the bias sums; U and Y' to shared memory (tiles up to NT: tile NT,
    // all zero Y', pads the last 16-sample chunk of step C).
    {
      const float k0 = s.signs[r0], k1 = s.signs[r1];
      float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
      for (int j = 0; j < kTilesPerGroup; ++j) {
        const int col = 8 * (tile0 + j) + 2 * t;
        float y[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float u = acc[j][e];
          const bool valid = col + (e & 1) < block;
          float v, term;
          if constexpr (kExtended) {
            const float th = kX3 ? tanhf(u) : fastTanh(u);
            v = -((e < 2 ? k0 : k1) * th + u);
            term = th;
          } else {
            v = -(kX3 ? tanhf(0.5f * u) : fastTanh(0.5f * u));
            term = v;
          }
          y[e] = valid ? v : 0.f;
          term = valid ? term : 0.f;
          if (e < 2)
            sum0 += term;
          else
            sum1 += term;
        }
        if (tile0 + j <= NT) {
          storeTile<kX3>(s.U, ldU, r0, col, acc[j]);
          storeTile<kX3>(s.Y, ldU, r0, col, y);
        }
      }
      sum0 += __shfl_xor_sync(0xffffffffu, sum0, 1);
      sum0 += __shfl_xor_sync(0xffffffffu, sum0, 2);
      sum1 += __shfl_xor_sync(0xffffffffu, sum1, 1);
      sum1 += __shfl_xor_sync(0xffffffffu, sum1, 2);
      if (t == 0) {
        s.biasSum[h * R + r0] = sum0;
        s.biasSum[h * R + r1] = sum1;
      }
    }
    __syncthreads();  // barrier 1: U, Y' and the bias sums complete
    if (threadIdx.x == 0) s.maxBits[nxt] = 0u;

    // C: G = B I + Y' U^T for rows r0, r1 and column tiles c0 .. c0 + CT - 1, over the block
    // in 16-sample chunks.
    if (owner) {
      float gacc[CT][4];
      bandProduct<CT, kX3>(gacc, s.Y, ldU, s.U, ldU, r0, c0, g, t, (NT + 1) / 2);
      const float bI = static_cast<float>(block);
#pragma unroll
      for (int c = 0; c < CT; ++c) {
        const int col = 8 * (c0 + c) + 2 * t;
        // The identity term B I on the real rows.
        if (r0 == col && r0 < r) gacc[c][0] += bI;
        if (r0 == col + 1 && r0 < r) gacc[c][1] += bI;
        if (r1 == col && r1 < r) gacc[c][2] += bI;
        if (r1 == col + 1 && r1 < r) gacc[c][3] += bI;
        storeTile<kX3>(s.G, ldG, r0, col, gacc[c]);
      }
    }
    __syncthreads();  // barrier 2: G complete

    // The bias (read by step A only, which every warp has passed).
    if (h == 0 && t == 0) {
      float b0 = 0.f, b1 = 0.f;
#pragma unroll
      for (int q = 0; q < kGroups; ++q) {
        b0 += s.biasSum[q * R + r0];
        b1 += s.biasSum[q * R + r1];
      }
      s.bias[r0] += biasStep * b0;
      s.bias[r1] += biasStep * b1;
    }

    // D: GW = G W for rows r0, r1 and column tiles c0 .. c0 + CT - 1; W += lr GW (Kahan) in the
    // lane's registers; the products' copies of W_next into the other buffers.
    unsigned localMax = 0u;
    if (owner) {
      float gw[CT][4];
      bandProduct<CT, kX3>(gw, s.G, ldG, s.pt(cur), ldP, r0, c0, g, t, MT);
      float* Pn = s.p(nxt);
      float* PTn = s.pt(nxt);
      bool nan = false;
#pragma unroll
      for (int c = 0; c < CT; ++c) {
        const int col = 8 * (c0 + c) + 2 * t;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float w = wOwn[c][e];
          const float y = lr * gw[c][e] - loOwn[c][e];
          const float sum = w + y;
          loOwn[c][e] = (sum - w) - y;
          wOwn[c][e] = sum;
          nan |= isnan(sum);
          localMax = max(localMax, __float_as_uint(fabsf(sum)));
          PTn[(col + (e & 1)) * ldP + (e < 2 ? r0 : r1)] = productValue<kX3>(sum);
        }
        *reinterpret_cast<float2*>(Pn + r0 * ldP + col) =
            make_float2(productValue<kX3>(wOwn[c][0]), productValue<kX3>(wOwn[c][1]));
        *reinterpret_cast<float2*>(Pn + r1 * ldP + col) =
            make_float2(productValue<kX3>(wOwn[c][2]), productValue<kX3>(wOwn[c][3]));
      }
      if (nan) localMax = 0xffffffffu;
    }
    for (int o = 16; o > 0; o >>= 1)
      localMax = max(localMax, __shfl_xor_sync(0xffffffffu, localMax, o));
    if (lane == 0) atomicMax(s.maxBits + cur, localMax);
    __pipeline_wait_prior(0);  // block b + 1's samples
    __syncthreads();           // barrier 3: W_next, the bias and the next samples complete
    ++blockNo;
    const int done = cur;  // X[done] is free until the next block's copies
    cur = nxt;
    {
      const unsigned m = s.maxBits[done];
      if (m == 0xffffffffu || !(__uint_as_float(m) <= a.maxWeight)) {
        blewUp = true;
        break;
      }
    }

    // Kurtosis estimate (extended mode) with the new W, on the draws of infomax_passes.h, in
    // chunks of 8 NT samples gathered into the free X buffer.
    if (blockNo == nextEstimate) {
      float* XK = s.x(done);
      const long long m = min(static_cast<long long>(a.kurtosisSamples), a.n);
      for (int e = threadIdx.x; e < kGroups * R * 4; e += blockDim.x) s.mom[e] = 0.0;
      if (threadIdx.x == 0) *s.changed = 0;
      loadWFragments<MT, kX3>(wa, s.p(cur), ldP, r0, t);
      for (long long k0 = 0; k0 < m; k0 += slotSize) {
        const int cols = static_cast<int>(min(static_cast<long long>(slotSize), m - k0));
        for (int j = threadIdx.x; j < cols; j += blockDim.x)
          s.idxK[j] = static_cast<int>(kurtosisSample(a, estimates, m, k0 + j));
        __syncthreads();
        for (int e = threadIdx.x; e < slotSize * (R / 4); e += blockDim.x) {
          const int j = e / (R / 4), i = (e - j * (R / 4)) * 4;
          *reinterpret_cast<float4*>(XK + j * ldX + i) =
              j < cols ? __ldg(reinterpret_cast<const float4*>(
                             a.data + static_cast<long long>(s.idxK[j]) * R + i))
                       : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        __syncthreads();
        float acc[kTilesPerGroup][4];
        productWX<MT, kX3, kRounded>(acc, wa, XK, ldX, tile0, NT, 0.f, 0.f, g, t);
        double m0[4] = {0, 0, 0, 0}, m1[4] = {0, 0, 0, 0};
#pragma unroll
        for (int j = 0; j < kTilesPerGroup; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            if (8 * (tile0 + j) + 2 * t + (e & 1) >= cols) continue;
            const double u = acc[j][e], u2 = u * u;
            if (e < 2) {
              m0[0] += u;
              m0[1] += u2;
              m0[2] += u2 * u;
              m0[3] += u2 * u2;
            } else {
              m1[0] += u;
              m1[1] += u2;
              m1[2] += u2 * u;
              m1[3] += u2 * u2;
            }
          }
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          m0[k] += __shfl_xor_sync(0xffffffffu, m0[k], 1);
          m0[k] += __shfl_xor_sync(0xffffffffu, m0[k], 2);
          m1[k] += __shfl_xor_sync(0xffffffffu, m1[k], 1);
          m1[k] += __shfl_xor_sync(0xffffffffu, m1[k], 2);
        }
        if (t == 0)
          for (int k = 0; k < 4; ++k) {
            s.mom[(h * R + r0) * 4 + k] += m0[k];
            s.mom[(h * R + r1) * 4 + k] += m1[k];
          }
        __syncthreads();  // XK and idxK are refilled next
      }
      // The borrowed block buffer must be zero past the block again.
      for (int e = threadIdx.x; e < s.xStride; e += blockDim.x) XK[e] = 0.f;
      ++estimates;
      for (int i = threadIdx.x; i < r; i += blockDim.x) {
        double moments[4] = {0, 0, 0, 0};
#pragma unroll
        for (int q = 0; q < kGroups; ++q)
          for (int k = 0; k < 4; ++k) moments[k] += s.mom[(q * R + i) * 4 + k];
        if (updateKurtosisSign(moments, m, a, s.oldKurt[i], s.signs[i], s.oldSigns[i]))
          atomicOr(s.changed, 1);
      }
      __syncthreads();
      signCount = *s.changed ? 0 : signCount + 1;
      if (signCount >= a.signCountThreshold) {
        extBlocks = trunc(extBlocks * a.signCountStep);
        signCount = 0;
      }
      nextEstimate = nextMultiple(blockNo, extBlocks);
      __syncthreads();  // *s.changed is reset by the next estimate
    }
  }

  __pipeline_wait_prior(0);
  // Store the state (after a blow-up W is the blown one: the driver restarts from scratch).
  if (owner) {
#pragma unroll
    for (int c = 0; c < CT; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int at = (e < 2 ? r0 : r1) * R + 8 * (c0 + c) + 2 * t + (e & 1);
        a.state.w[at] = wOwn[c][e];
        a.state.wlo[at] = loOwn[c][e];
      }
  }
  for (int i = threadIdx.x; i < R; i += blockDim.x) {
    a.state.bias[i] = s.bias[i];
    a.state.signs[i] = s.signs[i];
    a.state.oldSigns[i] = s.oldSigns[i];
    a.state.oldKurtosis[i] = s.oldKurt[i];
  }
  if (threadIdx.x == 0) {
    storePassCounters(a, blockNo, estimates, signCount, blewUp, extBlocks);
  }
}
#else
// Built for an architecture without TF32 tensor cores: never launched (the host refuses devices
// below compute capability 9.0).
template <int MT, bool kX3, bool kExtended, bool kRounded>
__global__ void infomaxFastKernel(InfomaxPassArgs, InfomaxFastLayout) {}
#endif

template <int MT, bool kX3, bool kExtended, bool kRounded>
void launchFast(const InfomaxPassArgs& args, const InfomaxFastLayout& L, cudaStream_t stream) {
  auto kernel = infomaxFastKernel<MT, kX3, kExtended, kRounded>;
  MODESCOPE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(L.bytes)));
  kernel<<<1, L.warps * 32, L.bytes, stream>>>(args, L);
  MODESCOPE_CUDA_CHECK_LAUNCH("infomaxFastKernel", stream);
}

// The instantiations: R / 16 rows of fragments; 3xTF32 (data never pre-rounded) or plain TF32
// (data always rounded on upload); extended or logistic.
template <int MT>
void launchFastFor(const InfomaxPassArgs& args, const InfomaxFastLayout& L, cudaStream_t stream) {
  const bool x3 = args.math == InfomaxMath::Tf32x3;
  if (x3 && args.extended) return launchFast<MT, true, true, false>(args, L, stream);
  if (x3) return launchFast<MT, true, false, false>(args, L, stream);
  if (args.extended) return launchFast<MT, false, true, true>(args, L, stream);
  return launchFast<MT, false, false, true>(args, L, stream);
}

}  // namespace

void requireTf32DataExactlyForTf32(const InfomaxPassArgs& args, const char* launcher) {
  if ((args.math == InfomaxMath::Tf32) != args.dataTf32)
    throw std::logic_error(std::string(launcher) +
                           ": plain TF32 expects data rounded on upload, other math FP32 data");
}

bool planInfomaxFast(int R, int blockSize, InfomaxMath math, std::size_t maxSharedBytes,
                     InfomaxFastLayout& out) {
  if (math == InfomaxMath::Fp32 || R % 16 != 0 || R < 16 || R > 64 || blockSize < 1 ||
      blockSize > kMaxTiles * 8)
    return false;
  InfomaxFastLayout L;
  L.R = R;
  L.NT = roundUp(blockSize, 8) / 8;
  L.warps = kGroups * (R / 16);
  // Operands are read 16 bytes per lane at (row g, column 4t): leading dimensions of 16 mod 32
  // words put a quarter warp on every bank once.
  auto ld16 = [](int cols) {
    int ld = cols;
    while (ld % 32 != 16) ++ld;
    return ld;
  };
  const int xRows = 8 * (L.NT + 1);  // the block's tiles and the zero tile
  L.ldX = ld16(R);
  L.ldU = ld16(xRows);
  L.ldG = ld16(R);
  L.ldP = ld16(R);
  int off = 0;
  auto take = [&off](int floats) {
    const int at = off;
    off += roundUp(floats, 8);
    return at;
  };
  L.offX0 = take(xRows * L.ldX);
  L.offX1 = take(xRows * L.ldX);
  L.offU = take(R * L.ldU);
  L.offY = take(R * L.ldU);
  L.offG = take(R * L.ldG);
  L.offP0 = take(R * L.ldP);
  L.offP1 = take(R * L.ldP);
  L.offPT0 = take(R * L.ldP);
  L.offPT1 = take(R * L.ldP);
  L.offVec = take((4 + kGroups) * R);
  L.offMom = take(2 * kGroups * R * 4);  // doubles
  L.offIdx3 = take(3 * 8 * L.NT);
  L.offIdxK = take(8 * L.NT);
  L.offFlags = take(8);
  L.bytes = static_cast<std::size_t>(off) * sizeof(float);
  if (L.bytes > maxSharedBytes) return false;
  out = L;
  return true;
}

void launchInfomaxFastPass(const InfomaxPassArgs& args, const InfomaxFastLayout& layout,
                           cudaStream_t stream) {
  requireTf32DataExactlyForTf32(args, "launchInfomaxFastPass");
  switch (layout.R / 16) {
    case 1:
      return launchFastFor<1>(args, layout, stream);
    case 2:
      return launchFastFor<2>(args, layout, stream);
    case 3:
      return launchFastFor<3>(args, layout, stream);
    default:
      return launchFastFor<4>(args, layout, stream);
  }
}

}  // namespace modescope::cuda
