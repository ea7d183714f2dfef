// Hopper warpgroup tensor-core products in TF32 (wgmma, sm_90a only; internal to cuda/).
//
// One warpgroup (4 warps, 128 threads) computes D (64 x N) += A (64 x 8) B (8 x N) per
// instruction, asynchronously. Here A always comes from registers and B from shared memory:
//
//  - A fragments (per warp w, lane = 4 g + t; rows 16 w + ...): a0 (g, k = t), a1 (g + 8, t),
//    a2 (g, t + 4), a3 (g + 8, t + 4).
//  - Accumulators (same rows; for each 8-column block nb): d[4 nb + 0] (g, 8 nb + 2 t),
//    d[4 nb + 1] (g, 8 nb + 2 t + 1), d[4 nb + 2] (g + 8, 8 nb + 2 t), d[4 nb + 3] (g + 8, ...+1).
//    So block nb of one product's accumulators is the next product's A fragment for one k-step,
//    {d0, d2, d1, d3}, if the k index of that step is permuted: slot t <-> column 2 t, slot t + 4
//    <-> column 2 t + 1. B must then hold the same permutation (the sum over k does not care).
//  - B is "K-major without swizzle": core matrices of 8 rows (n) x 16 bytes (4 k values), each
//    128 contiguous bytes; the two core matrices of a k-step are LBO bytes apart, neighbouring
//    8-row groups along n SBO bytes apart. The descriptor encodes start, LBO and SBO in 16-byte
//    units.
//
// Shared memory written by ordinary stores must be made visible to the tensor cores' (async)
// proxy with fenceProxyAsync() before the barrier that precedes the product.
#pragma once

#include <cstdint>

namespace modescope::cuda::wgmma {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ std::uint64_t descriptor(const void* smem, unsigned lboBytes,
                                                    unsigned sboBytes) {
  const auto addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  return static_cast<std::uint64_t>((addr & 0x3ffffu) >> 4) |
         (static_cast<std::uint64_t>(lboBytes >> 4) << 16) |
         (static_cast<std::uint64_t>(sboBytes >> 4) << 32);
}
// The same descriptor moved by `bytes` (a multiple of 16) in shared memory.
__device__ __forceinline__ std::uint64_t advance(std::uint64_t desc, unsigned bytes) {
  return desc + (bytes >> 4);
}

__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// wait<n>() for an n known only after unrolling (at most 3 groups in flight here).
__device__ __forceinline__ void waitFor(int pending) {
  if (pending <= 0)
    wait<0>();
  else if (pending == 1)
    wait<1>();
  else if (pending == 2)
    wait<2>();
  else
    wait<3>();
}
// Ordinary shared-memory stores before this, tensor-core reads after the next barrier.
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// Keeps the compiler from moving reads or writes of accumulator registers across the
// asynchronous region (the asm statements above do not name them).
template <int kN>
__device__ __forceinline__ void pin(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for n registers from d (compile-time indices after unrolling).
__device__ __forceinline__ void pin(float* d, int n) {
#pragma unroll
  for (int i = 0; i < n; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// d (64 x N) = (accumulate ? d : 0) + kScaleA A B, kScaleA 1 or -1; d points at N / 2
// consecutive accumulator registers (after unrolling: the indices must be compile-time
// constants). a: the A fragment, TF32 bit patterns; the tensor cores ignore the low 13 bits, so
// roundTf32 below is all the rounding an operand needs.
template <int N, int kScaleA = 1>
__device__ __forceinline__ void mma(float* d, const unsigned (&a)[4], std::uint64_t b,
                                    bool accumulate);

// x rounded to the nearest TF32 value, ties away from zero, as the tensor cores will read it
// (cvt.rna.tf32.f32 costs four instructions on sm_90; this costs one). Infinities become NaN.
__device__ __forceinline__ unsigned roundTf32(float x) { return __float_as_uint(x) + 0x1000u; }

template <int kScaleA>
__device__ __forceinline__ void mma8(float* d, const unsigned (&a)[4], std::uint64_t b,
                                     bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, %8, p, %10, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)),
        "n"(kScaleA));
}

template <int kScaleA>
__device__ __forceinline__ void mma16(float* d, const unsigned (&a)[4], std::uint64_t b,
                                      bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7}, "
      "{%8,%9,%10,%11}, %12, p, %14, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)),
        "n"(kScaleA));
}

template <int kScaleA>
__device__ __forceinline__ void mma24(float* d, const unsigned (&a)[4], std::uint64_t b,
                                      bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %17, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n24k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, %16, p, %18, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)),
        "n"(kScaleA));
}

template <int kScaleA>
__device__ __forceinline__ void mma32(float* d, const unsigned (&a)[4], std::uint64_t b,
                                      bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, "
      "{%16,%17,%18,%19}, %20, p, %22, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)),
        "n"(kScaleA));
}

template <int kScaleA>
__device__ __forceinline__ void mma64(float* d, const unsigned (&a)[4], std::uint64_t b,
                                      bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%"
      "25,%26,%27,%28,%29,%30,%31}, "
      "{%32,%33,%34,%35}, %36, p, %38, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(accumulate)),
        "n"(kScaleA));
}

// The same with A from shared memory too (K-major, no swizzle, described like B): a covers
// the 64 rows of the product, its two core matrices of a k-step LBO bytes apart. N = 8 NT for
// the blocks the two-warpgroup Infomax kernel takes (NT 4..10), so A is read once per k-step:
// with A in shared memory, a product split by columns reads A once per part, and shared-memory
// bandwidth, not the tensor cores, then sets its pace.
template <int N>
__device__ __forceinline__ void mmaShared(float* d, std::uint64_t a, std::uint64_t b,
                                          bool accumulate);

template <>
__device__ __forceinline__ void mmaShared<32>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}"
      ", %16, %17, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<40>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %22, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n40k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19}"
      ", %20, %21, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<48>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n48k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
      "%22,%23}"
      ", %24, %25, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<56>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %30, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n56k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
      "%22,%23,%24,%25,%26,%27}"
      ", %28, %29, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<64>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
      "%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}"
      ", %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<72>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %38, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n72k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
      "%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35}"
      ", %36, %37, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <>
__device__ __forceinline__ void mmaShared<80>(float* d, std::uint64_t a, std::uint64_t b,
                                              bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n80k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,"
      "%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39}"
      ", %40, %41, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
      : "l"(a), "l"(b), "r"(static_cast<int>(accumulate)));
}

template <int N, int kScaleA>
__device__ __forceinline__ void mma(float* d, const unsigned (&a)[4], std::uint64_t b,
                                    bool accumulate) {
  static_assert(kScaleA == 1 || kScaleA == -1);
  if constexpr (N == 8)
    mma8<kScaleA>(d, a, b, accumulate);
  else if constexpr (N == 16)
    mma16<kScaleA>(d, a, b, accumulate);
  else if constexpr (N == 24)
    mma24<kScaleA>(d, a, b, accumulate);
  else if constexpr (N == 32)
    mma32<kScaleA>(d, a, b, accumulate);
  else if constexpr (N == 64)
    mma64<kScaleA>(d, a, b, accumulate);
  else
    static_assert(N == 8, "no wrapper for this N");
}

#endif

}  // namespace modescope::cuda::wgmma
