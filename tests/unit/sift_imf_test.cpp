// Single-signal sifting (engine/emd/sifting.h): envelope means with closed-form answers, IMF
// extraction on separated tones, the loop's counting rules and EMD's completeness.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stop_token>
#include <vector>

#include "engine/core/error.h"
#include "engine/emd/sifting.h"
#include "tests/unit/correlation_support.h"

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;

using test_support::correlation;

TEST(SiftEnvelope, OffsetCosineHasAConstantMeanEnvelope) {
  // x[n] = cos(2 pi n / 20) + 0.7: every maximum sample is exactly 1.7 (n = 0 mod 20) and every
  // minimum exactly -0.3 (n = 10 mod 20), mirrored knots included, so both not-a-knot envelopes
  // are constants (zero divided differences give zero slopes) and the mean is 0.7 everywhere, to
  // rounding (cos(2 pi k) is 1 only to ~1e-15 for large k). sigma = 0.7 / 1 exceeds both
  // thresholds at every sample; cos + 0.7 crosses zero twice per period.
  const int n = 400;
  std::vector<double> x(n), mean(n);
  for (int i = 0; i < n; ++i) x[i] = std::cos(2 * kPi * i / 20.0) + 0.7;
  SiftWorkspace ws;
  sift::SiftStats st;
  StopRule rule;
  ASSERT_TRUE(envelopeMean(x.data(), n, rule, mean.data(), st, ws));
  for (int i = 0; i < n; ++i) EXPECT_NEAR(mean[i], 0.7, 1e-12) << i;
  EXPECT_EQ(st.maxima, 19);  // n = 20, 40, ..., 380 (0 is an end sample)
  EXPECT_EQ(st.minima, 20);  // n = 10, 30, ..., 390
  EXPECT_EQ(st.zeroCrossings, 40);
  EXPECT_EQ(st.aboveThreshold1, n);
  EXPECT_EQ(st.aboveThreshold2, n);
  EXPECT_FALSE(st.envelopeFailed);
}

TEST(SiftEnvelope, MatchesTheLiteralCompositionOfThePrimitives) {
  // envelopeMean walks the spline pieces; the CUDA backend finds each sample's piece with
  // splinePiece. Composing the primitives literally here (binary search per sample) must give the
  // same bits, or the two backends would not compare like with like.
  std::vector<double> x(777);
  uint32_t state = 12345;
  for (double& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<double>(state >> 8) / 16777216.0 - 0.5;
  }
  x[100] = x[101] = x[102] = 2.0;  // a plateau maximum
  const auto n = static_cast<int64_t>(x.size());
  SiftWorkspace ws;
  sift::SiftStats st;
  std::vector<double> mean(x.size());
  ASSERT_TRUE(envelopeMean(x.data(), n, StopRule{}, mean.data(), st, ws));

  std::vector<uint8_t> flags(x.size());
  std::vector<int32_t> imax, imin;
  for (int64_t i = 0; i < n; ++i)
    if (sift::startsRun(x.data(), i)) sift::classifyRun(x.data(), n, i, flags.data());
  for (int64_t i = 0; i < n; ++i) {
    if (flags[i] == sift::kMaximum) imax.push_back(static_cast<int32_t>(i));
    if (flags[i] == sift::kMinimum) imin.push_back(static_cast<int32_t>(i));
  }
  sift::Boundaries b;
  ASSERT_TRUE(sift::mirrorBoundaries(x.data(), static_cast<int32_t>(n), imax.data(),
                                     static_cast<int>(imax.size()), imin.data(),
                                     static_cast<int>(imin.size()), b));
  auto knots = [&](const std::vector<int32_t>& idx, const sift::EndKnots& e,
                   std::vector<int32_t>& t, std::vector<double>& y) {
    for (int k = 0; k < e.leftCount; ++k) {
      t.push_back(e.leftPos[k]);
      y.push_back(x[e.leftSrc[k]]);
    }
    for (int32_t i : idx) {
      t.push_back(i);
      y.push_back(x[i]);
    }
    for (int k = 0; k < e.rightCount; ++k) {
      t.push_back(e.rightPos[k]);
      y.push_back(x[e.rightSrc[k]]);
    }
  };
  std::vector<int32_t> tu, tl;
  std::vector<double> yu, yl;
  knots(imax, b.max, tu, yu);
  knots(imin, b.min, tl, yl);
  std::vector<double> su(tu.size()), sl(tl.size()), work(std::max(tu.size(), tl.size()));
  sift::splineSlopes(tu.data(), yu.data(), static_cast<int>(tu.size()), su.data(), work.data());
  sift::splineSlopes(tl.data(), yl.data(), static_cast<int>(tl.size()), sl.data(), work.data());
  int64_t above1 = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int ku = sift::splinePiece(tu.data(), static_cast<int>(tu.size()), p);
    const int kl = sift::splinePiece(tl.data(), static_cast<int>(tl.size()), p);
    const double u = sift::splineValue(tu.data(), yu.data(), su.data(), ku, p);
    const double l = sift::splineValue(tl.data(), yl.data(), sl.data(), kl, p);
    ASSERT_EQ(mean[p], (u + l) / 2) << p;
    above1 += sift::stopRatio(u, l) > 0.05;
  }
  EXPECT_EQ(st.aboveThreshold1, above1);
  EXPECT_EQ(st.maxima, static_cast<int64_t>(imax.size()));
  EXPECT_EQ(st.minima, static_cast<int64_t>(imin.size()));
}

TEST(SiftEnvelope, TooFewExtremaGiveAZeroMeanAndAFailure) {
  std::vector<double> x = {0, 1, 2, 1, 2, 3, 4, 5}, mean(8, 9.0);
  SiftWorkspace ws;
  sift::SiftStats st;
  EXPECT_FALSE(envelopeMean(x.data(), 8, StopRule{}, mean.data(), st, ws));
  EXPECT_TRUE(st.envelopeFailed);
  EXPECT_EQ(st.maxima, 1);
  EXPECT_EQ(st.minima, 1);
  for (double v : mean) EXPECT_EQ(v, 0.0);
}

TEST(SiftImf, RecoversTheHighToneOfTwoSeparatedTones) {
  // 0.2 and 0.013 cycles/sample: a factor of 15 apart, far beyond EMD's one-octave resolution
  // limit (Rilling and Flandrin 2008), so the first IMF is the high tone up to end effects and
  // spline error; 0.99 correlation leaves room for the first and last periods.
  const int n = 1000;
  std::vector<double> x(n), high(n), imf(n);
  for (int i = 0; i < n; ++i) {
    high[i] = std::sin(2 * kPi * 0.2 * i);
    x[i] = high[i] + 1.5 * std::sin(2 * kPi * 0.013 * i + 0.4);
  }
  SiftWorkspace ws;
  const int sifts = extractImf(x.data(), n, StopRule{}, imf.data(), ws);
  EXPECT_GT(sifts, 0);
  EXPECT_LT(sifts, 2000);
  EXPECT_GT(correlation(imf, high), 0.99);
  EXPECT_EQ(ws.capReached, 0);
}

TEST(SiftImf, FixedSiftsRunsExactlyThatManyAndCapsAreCounted) {
  const int n = 500;
  std::vector<double> x(n), imf(n);
  for (int i = 0; i < n; ++i)
    x[i] = std::sin(0.9 * i) + std::sin(0.31 * i + 1) + 0.5 * std::sin(0.05 * i);
  SiftWorkspace ws;
  StopRule fixed;
  fixed.kind = StopRuleKind::FixedSifts;
  fixed.fixedSifts = 7;
  EXPECT_EQ(extractImf(x.data(), n, fixed, imf.data(), ws), 7);
  EXPECT_EQ(ws.capReached, 0);  // a fixed count is not a cap
  // One sift is the definition: imf = x - mean envelope of x.
  fixed.fixedSifts = 1;
  std::vector<double> mean(n);
  sift::SiftStats st;
  ASSERT_TRUE(envelopeMean(x.data(), n, fixed, mean.data(), st, ws));
  EXPECT_EQ(extractImf(x.data(), n, fixed, imf.data(), ws), 1);
  for (int i = 0; i < n; ++i) EXPECT_EQ(imf[i], x[i] - mean[i]);
  // A Rilling cap of 2 on a signal that needs more sifts: 2 sifts, and counted as a cap hit.
  StopRule tight;
  tight.maxSifts = 2;
  EXPECT_EQ(extractImf(x.data(), n, tight, imf.data(), ws), 2);
  EXPECT_EQ(ws.capReached, 1);
}

TEST(SiftImf, MonotonicSignalHasNoImf) {
  std::vector<double> x(50), imf(50);
  for (int i = 0; i < 50; ++i) x[i] = 0.1 * i * i;
  SiftWorkspace ws;
  EXPECT_EQ(extractImf(x.data(), 50, StopRule{}, imf.data(), ws), -1);
}

TEST(SiftImf, CancelStopsBetweenIterations) {
  std::stop_source stop;
  JobContext ctx(stop.get_token(), {});
  SiftWorkspace ws;
  ws.context = &ctx;
  std::vector<double> x(200), imf(200);
  for (int i = 0; i < 200; ++i) x[i] = std::sin(0.7 * i) + std::sin(0.1 * i);
  stop.request_stop();
  StopRule fixed;
  fixed.kind = StopRuleKind::FixedSifts;
  EXPECT_THROW(extractImf(x.data(), 200, fixed, imf.data(), ws), Cancelled);
}

TEST(SiftEmd, RowsSumToTheSignalAndFrequenciesDescend) {
  // EMD is complete by construction (each IMF is subtracted from the residue), so in double the
  // rows sum to x to ~1e-13 relative. Three tones an octave and more apart come out high first:
  // zero crossings per IMF decrease.
  const int n = 2049;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = std::sin(2 * kPi * 0.21 * i) + std::sin(2 * kPi * 0.05 * i) +
           std::sin(2 * kPi * 0.011 * i) + 0.001 * i;
  SiftWorkspace ws;
  std::vector<double> rows;
  std::vector<int> sifts;
  const int k = empiricalModes(x.data(), n, StopRule{}, 0, rows, sifts, ws);
  ASSERT_GE(k, 3);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(k + 1) * n);
  ASSERT_EQ(sifts.size(), static_cast<std::size_t>(k));
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int r = 0; r <= k; ++r) s += rows[static_cast<std::size_t>(r) * n + i];
    EXPECT_NEAR(s, x[i], 1e-12 * 4);
  }
  auto crossings = [&](int r) {
    int c = 0;
    for (int i = 0; i < n; ++i)
      c += sift::zeroCrossingsAt(rows.data() + static_cast<std::size_t>(r) * n, n, i);
    return c;
  };
  for (int r = 0; r + 1 < 3; ++r) EXPECT_GT(crossings(r), crossings(r + 1)) << r;
  // maxImfs caps the count; the residue then carries the rest.
  const int k2 = empiricalModes(x.data(), n, StopRule{}, 1, rows, sifts, ws);
  EXPECT_EQ(k2, 1);
  EXPECT_EQ(rows.size(), 2u * n);
}

}  // namespace
}  // namespace modescope
