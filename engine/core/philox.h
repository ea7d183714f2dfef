// Philox-4x32-10, the counter-based random number generator of Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11 (2011), and the uniform and normal
// variates ModeScope derives from it.
//
// A counter-based generator is a pure function: bits = philox(counter, key). Nothing is carried
// from one draw to the next, so any thread (CPU or CUDA) can compute draw n of stream s directly,
// and the CPU and GPU produce the same ensemble noise (docs/emd.md, "Noise and reproducibility").
//
// Mapping used everywhere in ModeScope (change it and every seeded result changes):
//   key     = (k0, k1) = (low 32 bits of seed, high 32 bits of seed)
//   counter = (c0, c1, c2, c3) = (block b low, block b high, stream s low, stream s high)
//   one block = 4 words w0..w3 = philox4x32_10(counter, key)
//   uniformFloat(seed, s, n)  = ((w[n % 4] >> 9) + 0.5) * 2^-23, from block b = n / 4
//   uniformDouble(seed, s, n) = (((w[2m] << 20) | (w[2m+1] >> 12)) + 0.5) * 2^-52,
//                               m = n % 2, from block b = n / 2
//   normalDouble(seed, s, n): Box-Muller on the two doubles of block b = n / 2,
//                               u1 from (w0, w1), u2 from (w2, w3), r = sqrt(-2 ln u1),
//                               n even -> r cos(2 pi u2), n odd -> r sin(2 pi u2)
//   normalFloat(seed, s, n):  the same in float with u1 = word 2m, u2 = word 2m+1 of block
//                               b = n / 4, m = (n % 4) / 2, even/odd n -> cos/sin.
// Uniforms lie strictly inside (0, 1), so ln(u1) is finite. The integer words and the uniforms
// are bit-identical on every platform; normals go through log/sqrt/cos/sin, whose last bits may
// differ between the host libm and CUDA's device library (a few ulp): parity tests compare
// normals with a tolerance, uniforms exactly.
//
// Thread rules: everything here is a pure function of its arguments (const member functions on an
// immutable key), safe from any number of threads. Functions marked MODESCOPE_HOST_DEVICE compile
// as __host__ __device__ under nvcc and use no standard-library facilities.
#pragma once

#include <math.h>  // ::sqrt, ::log, ::cos, ::sin and float variants: host and device overloads
#include <stdint.h>

#include "engine/core/host_device.h"

namespace modescope {

// Four 32-bit words: a counter or one generated block.
struct Philox4x32Block {
  uint32_t w[4];
};

struct Philox4x32Key {
  uint32_t k[2];
};

namespace philox_detail {

// Multipliers and Weyl key increments of Philox-4x32 (Salmon et al. 2011, table 2 / section 5).
constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kW1 = 0xBB67AE85u;  // sqrt(3) - 1

MODESCOPE_HOST_DEVICE inline void mulHiLo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

// One S-box/P-box round: two 32x32->64 multiplications, the high halves xored with the other
// counter words and the round key, then the words permuted.
MODESCOPE_HOST_DEVICE inline Philox4x32Block round(const Philox4x32Block& c,
                                                   const Philox4x32Key& k) {
  uint32_t hi0, lo0, hi1, lo1;
  mulHiLo(kM0, c.w[0], hi0, lo0);
  mulHiLo(kM1, c.w[2], hi1, lo1);
  Philox4x32Block r;
  r.w[0] = hi1 ^ c.w[1] ^ k.k[0];
  r.w[1] = lo1;
  r.w[2] = hi0 ^ c.w[3] ^ k.k[1];
  r.w[3] = lo0;
  return r;
}

}  // namespace philox_detail

// The raw bijection: 10 rounds, the key bumped by the Weyl constants between rounds.
MODESCOPE_HOST_DEVICE inline Philox4x32Block philox4x32_10(Philox4x32Block counter,
                                                           Philox4x32Key key) {
  for (int i = 0; i < 10; ++i) {
    if (i > 0) {
      key.k[0] += philox_detail::kW0;
      key.k[1] += philox_detail::kW1;
    }
    counter = philox_detail::round(counter, key);
  }
  return counter;
}

// A 32-bit word to a float strictly inside (0, 1): the top 23 bits at the centre of their bin.
// 23, not 24: x + 0.5 is exact in float only for x < 2^23 (with 24 bits the largest value would
// round up to exactly 1). Every step is exact, so host and device give the same bits.
// Smallest value 2^-24, largest 1 - 2^-24.
MODESCOPE_HOST_DEVICE inline float uniformFloatFromWord(uint32_t w) {
  return (static_cast<float>(w >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

// Two words to a double strictly inside (0, 1) from 52 bits: all 32 of `a`, the top 20 of `b`
// (52 for the same exactness reason as above). Smallest value 2^-53, largest 1 - 2^-53.
MODESCOPE_HOST_DEVICE inline double uniformDoubleFromWords(uint32_t a, uint32_t b) {
  const uint64_t bits = (static_cast<uint64_t>(a) << 20) | (static_cast<uint64_t>(b) >> 12);
  return (static_cast<double>(bits) + 0.5) * (1.0 / 4503599627370496.0);
}

// Philox keyed by a 64-bit seed, addressed by (stream, index) as documented at the top.
class Philox4x32 {
 public:
  MODESCOPE_HOST_DEVICE explicit Philox4x32(uint64_t seed) {
    key_.k[0] = static_cast<uint32_t>(seed);
    key_.k[1] = static_cast<uint32_t>(seed >> 32);
  }

  MODESCOPE_HOST_DEVICE Philox4x32Key key() const { return key_; }

  // The four words of block `block` of stream `stream`.
  MODESCOPE_HOST_DEVICE Philox4x32Block block(uint64_t stream, uint64_t block) const {
    Philox4x32Block c;
    c.w[0] = static_cast<uint32_t>(block);
    c.w[1] = static_cast<uint32_t>(block >> 32);
    c.w[2] = static_cast<uint32_t>(stream);
    c.w[3] = static_cast<uint32_t>(stream >> 32);
    return philox4x32_10(c, key_);
  }

  // Word n of stream s (4 words per block).
  MODESCOPE_HOST_DEVICE uint32_t word(uint64_t stream, uint64_t n) const {
    return block(stream, n >> 2).w[n & 3];
  }

  MODESCOPE_HOST_DEVICE float uniformFloat(uint64_t stream, uint64_t n) const {
    return uniformFloatFromWord(word(stream, n));
  }

  MODESCOPE_HOST_DEVICE double uniformDouble(uint64_t stream, uint64_t n) const {
    const Philox4x32Block b = block(stream, n >> 1);
    const int m = static_cast<int>(n & 1) * 2;
    return uniformDoubleFromWords(b.w[m], b.w[m + 1]);
  }

  // Standard normal number n of stream s (Box-Muller; pairs share a block, see the top).
  MODESCOPE_HOST_DEVICE double normalDouble(uint64_t stream, uint64_t n) const {
    const Philox4x32Block b = block(stream, n >> 1);
    const double u1 = uniformDoubleFromWords(b.w[0], b.w[1]);
    const double u2 = uniformDoubleFromWords(b.w[2], b.w[3]);
    const double r = ::sqrt(-2.0 * ::log(u1));
    const double a = kTwoPi * u2;
    return (n & 1) ? r * ::sin(a) : r * ::cos(a);
  }

  MODESCOPE_HOST_DEVICE float normalFloat(uint64_t stream, uint64_t n) const {
    const Philox4x32Block b = block(stream, n >> 2);
    const int m = static_cast<int>((n >> 1) & 1) * 2;
    const float u1 = uniformFloatFromWord(b.w[m]);
    const float u2 = uniformFloatFromWord(b.w[m + 1]);
    const float r = ::sqrtf(-2.0f * ::logf(u1));
    const float a = static_cast<float>(kTwoPi) * u2;
    return (n & 1) ? r * ::sinf(a) : r * ::cosf(a);
  }

  // Both normals of the pair (2m, 2m+1) from one block, for callers that want pairs cheaply.
  MODESCOPE_HOST_DEVICE void normalPairDouble(uint64_t stream, uint64_t m, double& z0,
                                              double& z1) const {
    const Philox4x32Block b = block(stream, m);
    const double u1 = uniformDoubleFromWords(b.w[0], b.w[1]);
    const double u2 = uniformDoubleFromWords(b.w[2], b.w[3]);
    const double r = ::sqrt(-2.0 * ::log(u1));
    const double a = kTwoPi * u2;
    z0 = r * ::cos(a);
    z1 = r * ::sin(a);
  }

 private:
  static constexpr double kTwoPi = 6.283185307179586476925286766559;
  Philox4x32Key key_;
};

// Host-side sequential view of one stream: next*() return draws 0, 1, 2, ... of `stream`, the
// same numbers as the indexed functions above (so a sequential CPU loop and a GPU kernel indexed
// by n agree). Not thread-safe: one per thread.
class PhiloxStream {
 public:
  PhiloxStream(uint64_t seed, uint64_t stream) : gen_(seed), stream_(stream) {}

  uint32_t nextWord() { return gen_.word(stream_, words_++); }
  double nextUniform() { return gen_.uniformDouble(stream_, uniforms_++); }
  double nextNormal() {
    // Both normals of a block come out of one Box-Muller step: cache the second.
    if ((normals_ & 1) == 0) gen_.normalPairDouble(stream_, normals_ >> 1, z0_, z1_);
    return (normals_++ & 1) ? z1_ : z0_;
  }
  // Uniform in [lo, hi).
  double nextUniform(double lo, double hi) { return lo + (hi - lo) * nextUniform(); }
  // Skips `count` uniforms: the stream then continues exactly where drawing them would have left
  // it (the draws are counter-based), so independent pieces of one stream can be drawn apart.
  void skipUniforms(uint64_t count) { uniforms_ += count; }

 private:
  Philox4x32 gen_;
  uint64_t stream_;
  uint64_t words_ = 0, uniforms_ = 0, normals_ = 0;
  double z0_ = 0, z1_ = 0;
};

}  // namespace modescope
