// The shared sifting primitives (engine/emd/sift_primitives.h) against hand-worked cases from
// emd.m's extr and boundary_conditions, and the not-a-knot spline against polynomial closed
// forms and an independent dense solve of the piecewise-cubic conditions.
#include "engine/emd/sift_primitives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace modescope {
namespace {

using sift::kMaximum;
using sift::kMinimum;

struct Extrema {
  std::vector<int32_t> max, min;
};

// Runs classifyRun over every run start, as envelopeMean does, and checks that every flag was
// written (the primitive promises each sample exactly once).
Extrema findExtrema(const std::vector<double>& x) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<uint8_t> flags(x.size(), 99);
  for (int64_t i = 0; i < n; ++i)
    if (sift::startsRun(x.data(), i)) sift::classifyRun(x.data(), n, i, flags.data());
  Extrema e;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NE(flags[i], 99) << "flag " << i << " never written";
    if (flags[i] == kMaximum) e.max.push_back(static_cast<int32_t>(i));
    if (flags[i] == kMinimum) e.min.push_back(static_cast<int32_t>(i));
  }
  return e;
}

int zeroCrossings(const std::vector<double>& x) {
  int c = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i)
    c += sift::zeroCrossingsAt(x.data(), static_cast<int64_t>(x.size()), i);
  return c;
}

using V = std::vector<int32_t>;

TEST(SiftExtrema, StrictPeaksAndTroughs) {
  const Extrema e = findExtrema({0, 1, 0, -1, 0, 2, 1});
  EXPECT_EQ(e.max, (V{1, 5}));
  EXPECT_EQ(e.min, (V{3}));
}

TEST(SiftExtrema, PlateauMiddleRoundsLikeMatlab) {
  // emd.m extr: a plateau x(a..b) (1-based) bounded by a rise and a fall gives one extremum at
  // round((a + b) / 2), MATLAB rounding halves away from zero. 0-based run 1..2 -> a=2, b=3,
  // round(2.5) = 3 -> index 2.
  EXPECT_EQ(findExtrema({0, 1, 1, 0}).max, (V{2}));
  // Run 1..3 -> round((2 + 4) / 2) = 3 -> index 2.
  EXPECT_EQ(findExtrema({0, 1, 1, 1, 0}).max, (V{2}));
  // Run 1..4 (4 samples) -> round((2 + 5) / 2) = round(3.5) = 4 -> index 3.
  EXPECT_EQ(findExtrema({0, 1, 1, 1, 1, 0}).max, (V{3}));
  // A trough plateau, 0-based 1..2 -> index 2.
  EXPECT_EQ(findExtrema({1, 0, 0, 1}).min, (V{2}));
  // Alternating plateaus: max run 1..2 -> 2, min run 3..4 -> round((4 + 5) / 2) = 5 -> 4,
  // max run 5..6 -> 6.
  const Extrema e = findExtrema({0, 1, 1, 0, 0, 1, 1, 0});
  EXPECT_EQ(e.max, (V{2, 6}));
  EXPECT_EQ(e.min, (V{4}));
}

TEST(SiftExtrema, StepsAndPlateausAtTheEndsAreNotExtrema) {
  // A plateau between a rise and a rise is a step (extr requires the sign of d to change).
  EXPECT_TRUE(findExtrema({0, 1, 1, 2}).max.empty());
  EXPECT_TRUE(findExtrema({0, 1, 1, 2}).min.empty());
  // Plateaus touching an end are dropped (extr removes debs(1) == 1 and fins(end) == m).
  Extrema e = findExtrema({1, 1, 0, 1});
  EXPECT_TRUE(e.max.empty());
  EXPECT_EQ(e.min, (V{2}));
  e = findExtrema({0, 1, 2, 2});
  EXPECT_TRUE(e.max.empty());
  EXPECT_TRUE(e.min.empty());
  // End samples are never extrema, even when they are the largest values.
  e = findExtrema({5, 0, 1, 0, 5});
  EXPECT_EQ(e.max, (V{2}));
  EXPECT_EQ(e.min, (V{1, 3}));
  // A constant signal has none.
  e = findExtrema({3, 3, 3, 3});
  EXPECT_TRUE(e.max.empty() && e.min.empty());
}

TEST(SiftZeroCrossings, SignChangesPlusZeroRuns) {
  // extr's indzer: pairs with x1 .* x2 < 0, plus one index per run of exact zeros.
  EXPECT_EQ(zeroCrossings({1, -1, 1, -1}), 3);
  // (1,-1) is one change; zero runs [2..3] and [5] count one each; (-1,0), (0,1) are not changes.
  EXPECT_EQ(zeroCrossings({1, -1, 0, 0, 1, 0, -1}), 3);
  EXPECT_EQ(zeroCrossings({0, 0, 0}), 1);
  EXPECT_EQ(zeroCrossings({0, 1, 2, 0}), 2);
  EXPECT_EQ(zeroCrossings({1, 2, 3}), 0);
  // Signs, not products: 1e-200 * -1e-200 underflows to -0 in double, yet it is a crossing.
  EXPECT_EQ(zeroCrossings({1e-200, -1e-200}), 1);
}

// ---- mirrorBoundaries, cases worked by hand through emd.m's boundary_conditions ---------------

struct Knots {
  V maxPos, maxSrc, minPos, minSrc;
};

Knots mirror(const std::vector<double>& x, bool expectOk = true) {
  const Extrema e = findExtrema(x);
  sift::Boundaries b;
  const bool ok = sift::mirrorBoundaries(x.data(), static_cast<int32_t>(x.size()), e.max.data(),
                                         static_cast<int>(e.max.size()), e.min.data(),
                                         static_cast<int>(e.min.size()), b);
  EXPECT_EQ(ok, expectOk);
  Knots k;
  if (!ok) return k;
  for (int i = 0; i < b.max.leftCount; ++i) {
    k.maxPos.push_back(b.max.leftPos[i]);
    k.maxSrc.push_back(b.max.leftSrc[i]);
  }
  for (int i = 0; i < b.max.rightCount; ++i) {
    k.maxPos.push_back(b.max.rightPos[i]);
    k.maxSrc.push_back(b.max.rightSrc[i]);
  }
  for (int i = 0; i < b.min.leftCount; ++i) {
    k.minPos.push_back(b.min.leftPos[i]);
    k.minSrc.push_back(b.min.leftSrc[i]);
  }
  for (int i = 0; i < b.min.rightCount; ++i) {
    k.minPos.push_back(b.min.rightPos[i]);
    k.minSrc.push_back(b.min.rightSrc[i]);
  }
  return k;
}

TEST(SiftMirror, MaxFirstEndAboveMinimumMirrorsAboutTheExtrema) {
  // 1-based: indmax = [2 4 6], indmin = [3 5 7], lx = 8.
  // Left, indmax(1) < indmin(1) and x(1) = 0.5 > x(3) = -1 (first branch):
  //   lmax = fliplr(indmax(2:3)) = [6 4], lmin = fliplr(indmin(1:2)) = [5 3], lsym = 2;
  //   tlmax = 4 - [6 4] = [-2 0], tlmin = 4 - [5 3] = [-1 1]; neither > t(1) = 1.
  // Right, indmax(end) = 6 < indmin(end) = 7 and x(8) = 0.8 < x(6) = 1 (first branch):
  //   rmax = fliplr(indmax(2:3)) = [6 4], rmin = fliplr(indmin(1:2)) = [5 3], rsym = 7;
  //   trmax = 14 - [6 4] = [8 10], trmin = [9 11]; neither < t(8) = 8.
  // 0-based positions are one less, sources one less.
  const Knots k = mirror({0.5, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.8});
  EXPECT_EQ(k.maxPos, (V{-3, -1, 7, 9}));
  EXPECT_EQ(k.maxSrc, (V{5, 3, 5, 3}));
  EXPECT_EQ(k.minPos, (V{-2, 0, 8, 10}));
  EXPECT_EQ(k.minSrc, (V{4, 2, 4, 2}));
}

TEST(SiftMirror, EndBelowTheFirstMinimumMirrorsAboutTheEndSample) {
  // 1-based: indmax = [2 4 6 8], indmin = [3 5 7], lx = 9.
  // Left, max first and x(1) = -2 <= x(3) = -1 (second branch):
  //   lmax = fliplr(indmax(1:2)) = [4 2], lmin = [fliplr(indmin(1:1)) 1] = [3 1], lsym = 1;
  //   tlmax = 2 - [4 2] = [-2 0], tlmin = [-1 1].
  // Right, indmax(end) = 8 > indmin(end) = 7 and x(9) = 0 > x(7) = -1 (third branch):
  //   rmax = fliplr(indmax(2:3)) = [6 4], rmin = fliplr(indmin(2:3)) = [7 5], rsym = 8;
  //   trmax = 16 - [6 4] = [10 12], trmin = [9 11].
  const Knots k = mirror({-2, 1, -1, 1, -1, 1, -1, 1, 0});
  EXPECT_EQ(k.maxPos, (V{-3, -1, 9, 11}));
  EXPECT_EQ(k.maxSrc, (V{3, 1, 5, 3}));
  EXPECT_EQ(k.minPos, (V{-2, 0, 8, 10}));
  EXPECT_EQ(k.minSrc, (V{2, 0, 6, 4}));
}

TEST(SiftMirror, MinFirstAndEndBelowTheLastMinimum) {
  // 1-based: indmin = [2 4 6], indmax = [3 5 7], lx = 8.
  // Left, indmax(1) = 3 > indmin(1) = 2 and x(1) = 0 < x(3) = 1 (third branch):
  //   lmax = fliplr(indmax(1:2)) = [5 3], lmin = fliplr(indmin(2:3)) = [6 4], lsym = 2;
  //   tlmax = 4 - [5 3] = [-1 1], tlmin = [-2 0].
  // Right, indmax(end) = 7 > indmin(end) = 6 and x(8) = -3 <= x(6) = -1 (fourth branch):
  //   rmax = fliplr(indmax(2:3)) = [7 5], rmin = [8 fliplr(indmin(3:3))] = [8 6], rsym = 8;
  //   trmax = 16 - [7 5] = [9 11], trmin = 16 - [8 6] = [8 10].
  const Knots k = mirror({0, -1, 1, -1, 1, -1, 1, -3});
  EXPECT_EQ(k.maxPos, (V{-2, 0, 8, 10}));
  EXPECT_EQ(k.maxSrc, (V{4, 2, 6, 4}));
  EXPECT_EQ(k.minPos, (V{-3, -1, 7, 9}));
  EXPECT_EQ(k.minSrc, (V{5, 3, 7, 5}));
}

TEST(SiftMirror, MirrorThatDoesNotReachTheStartFallsBackToTheEndSample) {
  // 1-based: indmax = [6 8 10], indmin = [7 9 11], lx = 12.
  // Left, first branch (x(1) = 0 > x(7) = -1): lmax = [10 8], lmin = [9 7], lsym = 6;
  //   tlmin = 12 - [9 7] = [3 5]: tlmin(1) = 3 > t(1) = 1, "symmetrized parts do not extend
  //   enough": lsym == indmax(1), so lmax = fliplr(indmax(1:2)) = [8 6]; lsym = 1;
  //   tlmax = 2 - [8 6] = [-6 -4], tlmin = 2 - [9 7] = [-7 -5].
  // Right, first branch (x(12) = 0 < x(10) = 1): rmax = [10 8], rmin = [9 7], rsym = 11;
  //   trmax = 22 - [10 8] = [12 14], trmin = [13 15].
  const Knots k = mirror({0.0, 0.2, 0.4, 0.6, 0.8, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0});
  EXPECT_EQ(k.maxPos, (V{-7, -5, 11, 13}));
  EXPECT_EQ(k.maxSrc, (V{7, 5, 9, 7}));
  EXPECT_EQ(k.minPos, (V{-8, -6, 12, 14}));
  EXPECT_EQ(k.minSrc, (V{8, 6, 8, 6}));
}

TEST(SiftMirror, TooFewExtremaForTheMirrorFails) {
  // 1-based: indmax = [2], indmin = [3]. Left, first branch: lmax = fliplr(indmax(2:1)) = [],
  // lmin = [3], lsym = 2; tlmin(1) = 4 - 3 = 1 is not > 1, so MATLAB evaluates tlmax(1) on an
  // empty vector: an index error, caught by stop_sifting (envelope failure).
  mirror({0, 1, -1, 0}, false);
}

// ---- Not-a-knot spline -------------------------------------------------------------------------

struct Spline {
  std::vector<int32_t> t;
  std::vector<double> y, s;
  double at(int64_t p) const {
    const int k = sift::splinePiece(t.data(), static_cast<int>(t.size()), p);
    return sift::splineValue(t.data(), y.data(), s.data(), k, p);
  }
};

Spline fit(std::vector<int32_t> t, std::vector<double> y) {
  Spline sp{std::move(t), std::move(y), {}};
  sp.s.resize(sp.t.size());
  std::vector<double> work(sp.t.size());
  sift::splineSlopes(sp.t.data(), sp.y.data(), static_cast<int>(sp.t.size()), sp.s.data(),
                     work.data());
  return sp;
}

double cubic(double x) { return 0.5 - 1.25 * x + 0.3 * x * x - 0.02 * x * x * x; }
double cubicSlope(double x) { return -1.25 + 0.6 * x - 0.06 * x * x; }

TEST(SiftSpline, NotAKnotReproducesACubicExactly) {
  // A cubic satisfies every condition of the not-a-knot spline (C2, continuous third
  // derivative at the second and penultimate knots), which has a unique solution: the spline is
  // the cubic itself, on any knots, inside and outside them. Tolerance: a few hundred ulp of
  // values ~10 after an O(count) elimination.
  const std::vector<std::vector<int32_t>> knotSets = {
      {-3, 0, 1, 5, 6, 9, 14, 15}, {0, 1, 2, 3}, {-7, -2, 4, 11, 12}, {2, 9, 10, 30, 31, 45}};
  for (const auto& t : knotSets) {
    std::vector<double> y;
    for (int32_t v : t) y.push_back(cubic(v));
    const Spline sp = fit(t, y);
    for (std::size_t k = 0; k < t.size(); ++k) EXPECT_NEAR(sp.s[k], cubicSlope(t[k]), 1e-11);
    for (int64_t p = t.front() - 3; p <= t.back() + 3; ++p)
      EXPECT_NEAR(sp.at(p), cubic(static_cast<double>(p)), 1e-10 * (1 + std::fabs(cubic(p))));
  }
}

TEST(SiftSpline, ThreeKnotsGiveTheParabolaTwoTheLine) {
  // spline.m: 3 points -> the interpolating parabola; 2 points -> the straight line.
  auto parabola = [](double x) { return 2.0 - 0.5 * x + 0.25 * x * x; };
  const Spline p = fit({-2, 3, 7}, {parabola(-2), parabola(3), parabola(7)});
  for (int64_t x = -6; x <= 12; ++x) EXPECT_NEAR(p.at(x), parabola(x), 1e-12 * (1 + parabola(x)));
  EXPECT_NEAR(p.s[1], -0.5 + 0.5 * 3, 1e-13);
  const Spline l = fit({4, 10}, {1.0, -2.0});
  for (int64_t x = 0; x <= 14; ++x) EXPECT_NEAR(l.at(x), 1.0 - 0.5 * (x - 4), 1e-13);
}

// Independent reference: the spline as 4(K-1) unknown cubic coefficients a_j + b_j u + c_j u^2 +
// d_j u^3 on each piece, fixed by interpolation at both ends of each piece, C1 and C2 continuity
// at interior knots and not-a-knot (equal third derivatives across knots 1 and K-2), solved by
// Gaussian elimination with partial pivoting on the dense system.
std::vector<double> denseNotAKnot(const std::vector<int32_t>& t, const std::vector<double>& y) {
  const int K = static_cast<int>(t.size());
  const int P = K - 1, U = 4 * P;
  std::vector<std::vector<double>> A(static_cast<std::size_t>(U),
                                     std::vector<double>(static_cast<std::size_t>(U) + 1, 0.0));
  int row = 0;
  auto h = [&](int j) { return static_cast<double>(t[j + 1] - t[j]); };
  for (int j = 0; j < P; ++j) {
    A[row][4 * j] = 1;
    A[row++][U] = y[j];
    A[row][4 * j] = 1;
    A[row][4 * j + 1] = h(j);
    A[row][4 * j + 2] = h(j) * h(j);
    A[row][4 * j + 3] = h(j) * h(j) * h(j);
    A[row++][U] = y[j + 1];
  }
  for (int j = 0; j + 1 < P; ++j) {  // C1, C2 at knot j + 1
    A[row][4 * j + 1] = 1;
    A[row][4 * j + 2] = 2 * h(j);
    A[row][4 * j + 3] = 3 * h(j) * h(j);
    A[row++][4 * (j + 1) + 1] = -1;
    A[row][4 * j + 2] = 2;
    A[row][4 * j + 3] = 6 * h(j);
    A[row++][4 * (j + 1) + 2] = -2;
  }
  A[row][3] = 1;  // not-a-knot: d_0 = d_1, d_{P-2} = d_{P-1}
  A[row++][7] = -1;
  A[row][4 * (P - 2) + 3] = 1;
  A[row++][4 * (P - 1) + 3] = -1;
  EXPECT_EQ(row, U);
  for (int c = 0; c < U; ++c) {
    int piv = c;
    for (int r = c + 1; r < U; ++r)
      if (std::fabs(A[r][c]) > std::fabs(A[piv][c])) piv = r;
    std::swap(A[c], A[piv]);
    for (int r = c + 1; r < U; ++r) {
      const double f = A[r][c] / A[c][c];
      for (int k = c; k <= U; ++k) A[r][k] -= f * A[c][k];
    }
  }
  std::vector<double> coef(static_cast<std::size_t>(U));
  for (int r = U - 1; r >= 0; --r) {
    double v = A[r][U];
    for (int k = r + 1; k < U; ++k) v -= A[r][k] * coef[k];
    coef[r] = v / A[r][r];
  }
  std::vector<double> slopes(static_cast<std::size_t>(K));
  for (int j = 0; j < P; ++j) slopes[j] = coef[4 * j + 1];
  slopes[P] = coef[4 * (P - 1) + 1] + 2 * coef[4 * (P - 1) + 2] * h(P - 1) +
              3 * coef[4 * (P - 1) + 3] * h(P - 1) * h(P - 1);
  return slopes;
}

TEST(SiftSpline, MatchesADenseSolveOnRandomKnots) {
  // Random gaps 1..40 and values in [-1, 1], 4 to 60 knots (the envelope's situation: irregular
  // extrema). The dense pivoted solve and the eliminated Thomas sweep are different roundings of
  // the same well-conditioned problem: slopes agree to ~1e-12 relative to the data scale
  // (max |y| / min gap = 2), values at samples likewise.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> gap(1, 40), count(4, 60);
  std::uniform_real_distribution<double> val(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int K = count(rng);
    std::vector<int32_t> t{-gap(rng)};
    std::vector<double> y{val(rng)};
    for (int k = 1; k < K; ++k) {
      t.push_back(t.back() + gap(rng));
      y.push_back(val(rng));
    }
    const Spline sp = fit(t, y);
    const std::vector<double> ref = denseNotAKnot(t, y);
    for (int k = 0; k < K; ++k)
      ASSERT_NEAR(sp.s[k], ref[k], 1e-10) << "trial " << trial << " knot " << k;
    for (int64_t p = t.front(); p <= t.back(); ++p) {
      // The spline passes through the knots exactly up to rounding.
      const int k = sift::splinePiece(t.data(), K, p);
      ASSERT_GE(p, t[k]);
      if (k < K - 2) {
        ASSERT_LT(p, t[k + 1]);
      }
    }
    for (int k = 0; k < K; ++k) ASSERT_NEAR(sp.at(t[k]), y[k], 1e-12);
  }
}

TEST(SiftStop, RatioAndTests) {
  // sigma = |U + L| / |U - L|: 0 mean -> 0; zero amplitude with nonzero mean -> infinity.
  EXPECT_DOUBLE_EQ(sift::stopRatio(1.0, -1.0), 0.0);
  EXPECT_DOUBLE_EQ(sift::stopRatio(3.0, 1.0), 2.0);
  EXPECT_TRUE(std::isinf(sift::stopRatio(1.0, 1.0)));
  EXPECT_DOUBLE_EQ(sift::stopRatio(0.0, 0.0), 0.0);
  sift::SiftStats st;
  st.maxima = 5;
  st.minima = 5;
  st.zeroCrossings = 10;
  int sc = 0;
  // 4 of 100 samples above theta_1 (<= 5 %), none above theta_2, |zc - extrema| <= 1: stop.
  st.aboveThreshold1 = 4;
  EXPECT_TRUE(sift::stopSifting(st, 100, sift::StopKind::Rilling, 0.05, 4, sc));
  st.aboveThreshold1 = 6;  // 6 % > 5 %: keep sifting
  EXPECT_FALSE(sift::stopSifting(st, 100, sift::StopKind::Rilling, 0.05, 4, sc));
  st.aboveThreshold1 = 0;
  st.aboveThreshold2 = 1;  // any sample above theta_2: keep sifting
  EXPECT_FALSE(sift::stopSifting(st, 100, sift::StopKind::Rilling, 0.05, 4, sc));
  st.aboveThreshold2 = 0;
  st.zeroCrossings = 12;  // |12 - 10| > 1: keep sifting
  EXPECT_FALSE(sift::stopSifting(st, 100, sift::StopKind::Rilling, 0.05, 4, sc));
  // S-number 2: two consecutive candidates with |zc - extrema| <= 1.
  st.zeroCrossings = 10;
  sc = 0;
  EXPECT_FALSE(sift::stopSifting(st, 100, sift::StopKind::SNumber, 0.05, 2, sc));
  EXPECT_TRUE(sift::stopSifting(st, 100, sift::StopKind::SNumber, 0.05, 2, sc));
  st.envelopeFailed = true;
  EXPECT_TRUE(sift::stopSifting(st, 100, sift::StopKind::Fixed, 0.05, 2, sc));
}

// The GPU solves long spline systems in pieces (one per warp lane), each piece's Thomas sweep
// started and ended kSplineOverlap rows outside it. The reduced system's rows satisfy
// |diag| >= 2 (|sub| + |sup|), so what is dropped at a cut reaches a kept row at most 2^-64 of the
// solution away: the pieces must give the whole-system solution to double rounding (a few ulp
// from the different operation order; 1e-13 of the largest slope allows that and nothing more).
TEST(SiftSpline, PiecewiseSolveWithOverlapEqualsTheWholeSolve) {
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> gap(1, 9);
  std::normal_distribution<double> value(0.0, 1.0);
  for (int count : {200, 5001, 40000}) {
    std::vector<int32_t> t(count);
    std::vector<double> y(count);
    t[0] = -7;
    for (int k = 1; k < count; ++k) t[k] = t[k - 1] + gap(rng);
    for (auto& v : y) v = value(rng);
    std::vector<double> whole(count), work(count);
    sift::splineSlopes(t.data(), y.data(), count, whole.data(), work.data());
    const auto ends = sift::splineEnds(t.data(), y.data(), count);
    std::vector<double> pieces(count, std::nan("")), work2(count);
    const int rows = count - 2, lanes = 32, chunk = (rows + lanes - 1) / lanes;
    for (int lane = 0; lane < lanes; ++lane) {
      const int first = 1 + lane * chunk;
      const int last = std::min(count - 1, first + chunk);
      if (first >= last) continue;
      sift::splineSlopeRows(t.data(), y.data(), count, ends, first, last, sift::kSplineOverlap,
                            pieces.data(), work2.data());
    }
    sift::splineEndSlopes(t.data(), count, ends, pieces.data());
    double scale = 0, worst = 0;
    for (int k = 0; k < count; ++k) scale = std::max(scale, std::abs(whole[k]));
    for (int k = 0; k < count; ++k) worst = std::max(worst, std::abs(pieces[k] - whole[k]));
    EXPECT_LE(worst, 1e-13 * scale) << count << " knots";
  }
}

}  // namespace
}  // namespace modescope
