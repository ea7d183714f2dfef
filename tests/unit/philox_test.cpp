// Philox-4x32-10: the published known-answer vectors, the documented (seed, stream, index)
// mapping, and statistical checks of the uniform and normal variates.
#include "engine/core/philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace modescope {
namespace {

void expectBlock(const Philox4x32Block& got, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  EXPECT_EQ(got.w[0], a);
  EXPECT_EQ(got.w[1], b);
  EXPECT_EQ(got.w[2], c);
  EXPECT_EQ(got.w[3], d);
}

// The three Philox4x32-10 vectors of Random123's kat_vectors file (Salmon et al. 2011's reference
// distribution); the same values appear in TensorFlow's and Random123-Boost's tests.
TEST(Philox, KnownAnswerVectorsOfRandom123) {
  expectBlock(philox4x32_10({{0, 0, 0, 0}}, {{0, 0}}), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
              0x9b00dbd8u);
  expectBlock(philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
                            {{0xffffffffu, 0xffffffffu}}),
              0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
  expectBlock(philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                            {{0xa4093822u, 0x299f31d0u}}),
              0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

// The header documents key = (seed low, seed high), counter = (block low, block high, stream
// low, stream high); other code (CUDA kernels) relies on it.
TEST(Philox, SeedStreamIndexMappingIsTheDocumentedOne) {
  const uint64_t seed = 0x0123456789abcdefull;
  const uint64_t stream = 0xfedcba9876543210ull;
  const uint64_t block = 0x0000000500000007ull;
  const Philox4x32 gen(seed);
  const Philox4x32Block direct = philox4x32_10(
      {{0x00000007u, 0x00000005u, 0x76543210u, 0xfedcba98u}}, {{0x89abcdefu, 0x01234567u}});
  const Philox4x32Block viaClass = gen.block(stream, block);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(viaClass.w[i], direct.w[i]);
    EXPECT_EQ(gen.word(stream, block * 4 + i), direct.w[i]);
  }
  // Float uniforms: word n % 4 of block n / 4; double uniforms: words (2m, 2m+1) of block n / 2.
  EXPECT_EQ(gen.uniformFloat(stream, block * 4 + 2), uniformFloatFromWord(direct.w[2]));
  EXPECT_EQ(gen.uniformDouble(stream, block * 2 + 1),
            uniformDoubleFromWords(direct.w[2], direct.w[3]));
}

TEST(Philox, UniformsStayStrictlyInsideTheUnitInterval) {
  // The extreme words give the extreme values; they must not round to 0 or 1.
  EXPECT_GT(uniformFloatFromWord(0u), 0.0f);
  EXPECT_LT(uniformFloatFromWord(0xffffffffu), 1.0f);
  EXPECT_EQ(uniformFloatFromWord(0u), std::ldexp(1.0f, -24));
  EXPECT_EQ(uniformFloatFromWord(0xffffffffu), 1.0f - std::ldexp(1.0f, -24));
  EXPECT_GT(uniformDoubleFromWords(0u, 0u), 0.0);
  EXPECT_LT(uniformDoubleFromWords(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(uniformDoubleFromWords(0u, 0u), std::ldexp(1.0, -53));
  EXPECT_EQ(uniformDoubleFromWords(0xffffffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -53));
  // The normal transform must therefore be finite for the extreme words too.
  EXPECT_TRUE(std::isfinite(std::sqrt(-2.0 * std::log(uniformDoubleFromWords(0u, 0u)))));
  EXPECT_TRUE(std::isfinite(std::sqrt(-2.0f * std::log(uniformFloatFromWord(0u)))));
}

TEST(Philox, DeterministicAndDistinctAcrossSeedsAndStreams) {
  const Philox4x32 a(42), b(42), c(43);
  int sameSeedDiffs = 0, otherSeedEquals = 0, otherStreamEquals = 0;
  for (uint64_t n = 0; n < 4096; ++n) {
    sameSeedDiffs += a.word(7, n) != b.word(7, n);
    otherSeedEquals += a.word(7, n) == c.word(7, n);
    otherStreamEquals += a.word(7, n) == a.word(8, n);
  }
  EXPECT_EQ(sameSeedDiffs, 0);
  // Two independent 32-bit words agree with probability 2^-32: over 4096 pairs, essentially never.
  EXPECT_LE(otherSeedEquals, 1);
  EXPECT_LE(otherStreamEquals, 1);
}

TEST(Philox, SequentialStreamMatchesIndexedAccess) {
  const Philox4x32 gen(99);
  PhiloxStream s(99, 5);
  for (uint64_t n = 0; n < 37; ++n) EXPECT_EQ(s.nextWord(), gen.word(5, n));
  for (uint64_t n = 0; n < 37; ++n) EXPECT_EQ(s.nextUniform(), gen.uniformDouble(5, n));
  for (uint64_t n = 0; n < 37; ++n) EXPECT_EQ(s.nextNormal(), gen.normalDouble(5, n));
  double z0 = 0, z1 = 0;
  gen.normalPairDouble(5, 3, z0, z1);
  EXPECT_EQ(z0, gen.normalDouble(5, 6));
  EXPECT_EQ(z1, gen.normalDouble(5, 7));
}

// Pearson chi-square of `u` in `bins` equal bins. Under uniformity the statistic has mean
// bins-1 and standard deviation sqrt(2 (bins-1)).
double chiSquare(const std::vector<double>& u, int bins) {
  std::vector<double> count(bins, 0.0);
  for (double x : u) {
    int k = static_cast<int>(x * bins);
    if (k >= bins) k = bins - 1;
    if (k < 0) k = 0;
    count[k] += 1.0;
  }
  const double expected = static_cast<double>(u.size()) / bins;
  double chi2 = 0.0;
  for (double c : count) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

// 100 bins -> 99 degrees of freedom: mean 99, sd 14.1. The bound 99 + 6 sd = 183 is exceeded
// by chance with probability below 1e-6, and the seed is fixed, so a failure means a real
// defect (e.g. a broken round or a biased bit mapping), not bad luck.
constexpr int kBins = 100;
constexpr double kChiSquareBound = 99.0 + 6.0 * 14.07;

TEST(Philox, UniformsPassChiSquare) {
  const Philox4x32 gen(20240601);
  constexpr int kN = 1'000'000;
  std::vector<double> ud(kN), uf(kN);
  for (int n = 0; n < kN; ++n) {
    ud[n] = gen.uniformDouble(3, n);
    uf[n] = gen.uniformFloat(3, n);
  }
  EXPECT_LT(chiSquare(ud, kBins), kChiSquareBound);
  EXPECT_LT(chiSquare(uf, kBins), kChiSquareBound);
  // And not suspiciously perfect (a counter in disguise would give chi-square ~ 0): the lower
  // tail at 99 - 6 sd = 15 has probability far below 1e-6.
  EXPECT_GT(chiSquare(ud, kBins), 99.0 - 6.0 * 14.07);
}

TEST(Philox, StreamsAreUncorrelated) {
  const Philox4x32 gen(7);
  constexpr int kN = 200'000;
  double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
  for (int n = 0; n < kN; ++n) {
    const double x = gen.uniformDouble(0, n), y = gen.uniformDouble(1, n);
    sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
  }
  const double cov = sxy / kN - (sx / kN) * (sy / kN);
  const double r = cov / std::sqrt((sxx / kN - sx * sx / kN / kN) * (syy / kN - sy * sy / kN / kN));
  // The sample correlation of independent series has sd 1/sqrt(N) = 0.0022; allow 6 sd.
  EXPECT_LT(std::abs(r), 6.0 / std::sqrt(static_cast<double>(kN)));
}

// Normals: moments against their sampling standard deviations, and the probability integral
// transform Phi(z) (from erfc, independent of the generator) must be uniform.
template <typename NormalAt>
void checkNormals(NormalAt normalAt) {
  constexpr int kN = 1'000'000;
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  std::vector<double> pit(kN);
  for (int n = 0; n < kN; ++n) {
    const double z = normalAt(n);
    ASSERT_TRUE(std::isfinite(z));
    m1 += z, m2 += z * z, m3 += z * z * z, m4 += z * z * z * z;
    pit[n] = 0.5 * std::erfc(-z / std::sqrt(2.0));
  }
  m1 /= kN, m2 /= kN, m3 /= kN, m4 /= kN;
  // Sampling sds for N = 1e6: mean 0.001, E[z^2] sqrt(2/N) = 0.0014, E[z^3] sqrt(15/N) = 0.0039,
  // E[z^4] sqrt(96/N) = 0.0098. Bounds are 6 sds.
  EXPECT_NEAR(m1, 0.0, 0.006);
  EXPECT_NEAR(m2, 1.0, 0.0085);
  EXPECT_NEAR(m3, 0.0, 0.024);
  EXPECT_NEAR(m4, 3.0, 0.06);
  EXPECT_LT(chiSquare(pit, kBins), kChiSquareBound);
}

TEST(Philox, DoubleNormalsHaveStandardNormalDistribution) {
  const Philox4x32 gen(123);
  checkNormals([&](int n) { return gen.normalDouble(11, n); });
}

TEST(Philox, FloatNormalsHaveStandardNormalDistribution) {
  const Philox4x32 gen(123);
  checkNormals([&](int n) { return static_cast<double>(gen.normalFloat(11, n)); });
}

// The two normals of one Box-Muller pair must be uncorrelated too (a wrong angle mapping, e.g.
// pi instead of 2 pi, makes them dependent).
TEST(Philox, BoxMullerPairIsUncorrelated) {
  const Philox4x32 gen(5);
  constexpr int kN = 200'000;
  double s = 0, sx2y2 = 0;
  for (int m = 0; m < kN; ++m) {
    double z0, z1;
    gen.normalPairDouble(0, m, z0, z1);
    s += z0 * z1;
    sx2y2 += z0 * z0 * z1 * z1;
  }
  // E[z0 z1] = 0 with sd 1/sqrt(N); E[z0^2 z1^2] = 1 for independent normals (sd sqrt(8/N)).
  EXPECT_NEAR(s / kN, 0.0, 6.0 / std::sqrt(static_cast<double>(kN)));
  EXPECT_NEAR(sx2y2 / kN, 1.0, 6.0 * std::sqrt(8.0 / kN));
}

}  // namespace
}  // namespace modescope
