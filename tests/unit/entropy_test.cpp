// Entropy matrices (engine/entropy): closed-form oracles (closed forms, limits, the white-noise
// value, which this test also derives itself by numerical integration), an independent
// straightforward Cross-ApEn written here from the definition in docs/entropy.md (per-template C
// arrays and the bias rules applied literally, nothing shared with the engine's count summaries),
// SampEn and cross-SampEn by hand and by brute force (Richman and Moorman 2000), batch invariance,
// and the refusals of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/entropy/entropy_cpu.h"
#include "engine/entropy/entropy_params.h"
#include "error_message_support.h"

namespace modescope {
namespace {

using test_support::messageOf;

// Same data, same double operations in the same order: results must agree to the last bit, but a
// compiler may contract a multiply-add differently in two inlined copies, so allow a few ulps.
constexpr double kSameOps = 1e-13;
// Closed forms of a few logarithms of small integers: a handful of roundings.
constexpr double kClosedForm = 1e-12;

SignalBlock makeBlock(const std::vector<std::vector<double>>& channels, double fs = 100.0) {
  SignalBlock b;
  b.sampleRate = fs;
  b.samples = static_cast<int64_t>(channels.front().size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    b.channels.push_back(c);
    for (double v : channels[c]) b.data.push_back(static_cast<float>(v));
  }
  return b;
}

std::vector<double> gaussian(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = static_cast<float>(normal(rng));  // what the float block will hold
  return x;
}

EntropyParams apen(double r = 0.2, ApEnBias bias = ApEnBias::Max, int m = 1) {
  EntropyParams p;
  p.measure = EntropyMeasure::ApproximateEntropy;
  p.r = r;
  p.bias = bias;
  p.m = m;
  return p;
}

EntropyParams sampen(double r = 0.2, int m = 1) {
  EntropyParams p = apen(r, ApEnBias::Max, m);
  p.measure = EntropyMeasure::SampleEntropy;
  return p;
}

EntropyMatrixResult run(const SignalBlock& b, const EntropyParams& p) {
  JobContext ctx;
  return computeEntropyCpu(b, p, 2, ctx);
}

// ---- the independent references, written from the definition ----

std::vector<double> zscorePopulation(const std::vector<double>& x) {
  std::vector<float> f(x.begin(), x.end());
  double mean = 0;
  for (float v : f) mean += v;
  mean /= static_cast<double>(f.size());
  double var = 0;
  for (float v : f) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(f.size()));
  std::vector<double> z(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) z[i] = (f[i] - mean) / sd;
  return z;
}

// Cross-ApEn(m, r, N)(v||u): templates from u, searched in v (docs/entropy.md, "What is computed").
double referenceXApEn(const std::vector<double>& uRaw, const std::vector<double>& vRaw, int m,
                      double r, ApEnBias bias) {
  const std::vector<double> u = zscorePopulation(uRaw), v = zscorePopulation(vRaw);
  const int n = static_cast<int>(u.size());
  auto dist = [&](int i, int j, int len) {
    double d = 0;
    for (int k = 0; k < len; ++k) d = std::max(d, std::abs(u[i + k] - v[j + k]));
    return d;
  };
  std::vector<double> cm(n - m + 1), cm1(n - m);
  for (int i = 0; i <= n - m; ++i) {
    int count = 0;
    for (int j = 0; j <= n - m; ++j) count += dist(i, j, m) <= r;
    cm[i] = static_cast<double>(count) / (n - m + 1);
  }
  for (int i = 0; i < n - m; ++i) {
    int count = 0;
    for (int j = 0; j < n - m; ++j) count += dist(i, j, m + 1) <= r;
    cm1[i] = static_cast<double>(count) / (n - m);
  }
  for (int i = 0; i <= n - m; ++i) {
    const bool hasLonger = i < n - m;
    if (bias == ApEnBias::Zero) {
      if (cm[i] == 0) {
        cm[i] = 1;
        if (hasLonger) cm1[i] = 1;
      } else if (hasLonger && cm1[i] == 0) {
        cm1[i] = 1.0 / (n - m);
      }
    } else {
      if (cm[i] == 0) cm[i] = 1;
      if (hasLonger && cm1[i] == 0) cm1[i] = 1.0 / (n - m + 1);
    }
  }
  double phiM = 0, phiM1 = 0;
  for (double c : cm) phiM += std::log(c);
  for (double c : cm1) phiM1 += std::log(c);
  return phiM / (n - m + 1) - phiM1 / (n - m);
}

// SampEn (self = true, pairs i != j) or cross-SampEn (all pairs), Richman and Moorman 2000,
// straight from the definition: templates i, j in [0, N - m), -ln(A / B).
double referenceSampEn(const std::vector<double>& uRaw, const std::vector<double>& vRaw, int m,
                       double r, bool self) {
  const std::vector<double> u = zscorePopulation(uRaw), v = zscorePopulation(vRaw);
  const int n = static_cast<int>(u.size());
  long a = 0, b = 0;
  for (int i = 0; i < n - m; ++i)
    for (int j = 0; j < n - m; ++j) {
      if (self && i == j) continue;
      double d = 0;
      for (int k = 0; k < m; ++k) d = std::max(d, std::abs(u[i + k] - v[j + k]));
      if (d > r) continue;
      ++b;
      if (std::max(d, std::abs(u[i + m] - v[j + m])) <= r) ++a;
    }
  if (a == 0 || b == 0) return std::numeric_limits<double>::quiet_NaN();
  return -std::log(static_cast<double>(a) / static_cast<double>(b));
}

// ---- closed-form oracles ----

TEST(EntropyOracles, DiagonalEqualsApEnAndCrossApEnOfACopy) {
  const std::vector<double> u = gaussian(300, 1);
  for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
    const EntropyMatrixResult res = run(makeBlock({u, u}), apen(0.2, bias));
    EXPECT_NEAR(res.averageAt(0, 1), res.averageAt(0, 0), kSameOps);
    EXPECT_NEAR(res.averageAt(1, 0), res.averageAt(0, 0), kSameOps);
    EXPECT_NEAR(res.averageAt(0, 0), referenceXApEn(u, u, 1, 0.2, bias), 1e-12);
  }
}

TEST(EntropyOracles, AffineInvariance) {
  const std::vector<double> u = gaussian(300, 2);
  std::vector<double> w(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) w[i] = 3 * u[i] + 5;
  const EntropyMatrixResult res = run(makeBlock({u, w}), apen());
  // 3u + 5 rounded to float moves z-scores by ~1e-7; a flip needs a distance within that of r,
  // which for these 90,000 pairs has probability ~1e-2 (this seed has none): then the values agree
  // to the rounding of the z-scores themselves.
  EXPECT_NEAR(res.averageAt(0, 1), res.averageAt(0, 0), 1e-9);
  EXPECT_NEAR(res.averageAt(1, 1), res.averageAt(0, 0), 1e-9);
}

double alternatingClosedForm(int n) {
  const double h = n / 2.0;
  return std::log(0.5) -
         (h * std::log(h / (n - 1)) + (h - 1) * std::log((h - 1) / (n - 1))) / (n - 1);
}

TEST(EntropyOracles, AlternatingSeriesClosedForm) {
  // The closed form's value for N = 10 (-0.006185604, negative) and the closed form itself.
  EXPECT_NEAR(alternatingClosedForm(10), -0.006185604, 1e-9);
  for (int n : {10, 100, 1000}) {
    std::vector<double> x(n);
    for (int i = 0; i < n; ++i) x[i] = i % 2;
    for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
      const EntropyMatrixResult res = run(makeBlock({x}), apen(0.2, bias));
      EXPECT_NEAR(res.channelEntropy(0), alternatingClosedForm(n), kClosedForm) << n;
    }
  }
  // Negative, and not clamped (ApEn of a short, regular series can be below 0).
  std::vector<double> x(10);
  for (int i = 0; i < 10; ++i) x[i] = i % 2;
  EXPECT_LT(run(makeBlock({x}), apen()).channelEntropy(0), 0.0);
}

TEST(EntropyOracles, RampHasOnlySelfMatches) {
  const EntropyMatrixResult res = run(makeBlock({{1, 2, 3, 4, 5, 6}}), apen());
  EXPECT_NEAR(res.channelEntropy(0), std::log(5.0 / 6.0), kClosedForm);
  EXPECT_NEAR(res.channelEntropy(0), -0.1823216, 1e-7);
}

TEST(EntropyOracles, TinyToleranceTwoSeriesBothBiases) {
  for (int n : {200, 1024}) {
    const std::vector<double> u = gaussian(n, 10 + n), v = gaussian(n, 20 + n);
    const double r = 1e-12;  // below any distance between distinct floats' z-scores here
    const EntropyMatrixResult zero = run(makeBlock({u, v}), apen(r, ApEnBias::Zero));
    const EntropyMatrixResult max = run(makeBlock({u, v}), apen(r, ApEnBias::Max));
    EXPECT_EQ(zero.averageAt(0, 1), 0.0);  // bias 0: exactly 0
    EXPECT_EQ(zero.averageAt(1, 0), 0.0);
    EXPECT_NEAR(max.averageAt(0, 1), std::log(n), kClosedForm);  // ln(N - m + 1)
    EXPECT_NEAR(max.averageAt(1, 0), std::log(n), kClosedForm);
    // The diagonal: self-matches only, ln((N - m) / (N - m + 1)), under either bias.
    EXPECT_NEAR(zero.averageAt(0, 0), std::log((n - 1.0) / n), kClosedForm);
    EXPECT_NEAR(max.averageAt(1, 1), std::log((n - 1.0) / n), kClosedForm);
  }
  EXPECT_NEAR(std::log(200.0), 5.2983174, 1e-7);
  EXPECT_NEAR(std::log(1024.0), 6.9314718, 1e-7);
}

TEST(EntropyOracles, ReversedRampHandCase) {
  const std::vector<double> u{1, 2, 3, 4, 5, 6}, v{6, 5, 4, 3, 2, 1};
  const EntropyMatrixResult zero = run(makeBlock({u, v}), apen(0.2, ApEnBias::Zero));
  const EntropyMatrixResult max = run(makeBlock({u, v}), apen(0.2, ApEnBias::Max));
  EXPECT_NEAR(zero.averageAt(0, 1), std::log(5.0 / 6.0), kClosedForm);
  EXPECT_NEAR(max.averageAt(0, 1), 0.0, kClosedForm);
}

TEST(EntropyOracles, HugeToleranceGivesZero) {
  const std::vector<double> u = gaussian(128, 3), v = gaussian(128, 4);
  for (const EntropyParams& p :
       {apen(1e6, ApEnBias::Zero), apen(1e6, ApEnBias::Max), sampen(1e6)}) {
    const EntropyMatrixResult res = run(makeBlock({u, v}), p);
    for (double x : res.epochValues) EXPECT_NEAR(x, 0.0, kClosedForm);
  }
}

// -E_X[ln(Phi(X + r) - Phi(X - r))], X ~ N(0, 1): the large-N limit of Cross-ApEn (m = 1) of two
// independent Gaussian series, by Simpson's rule over [0, 12] doubled (the integrand is even and
// decays like x^2 e^{-x^2/2}); the probability is taken from upper tails (erfc) so it does not
// round to 0 far out.
double whiteNoiseLimit(double r) {
  auto f = [&](double x) {
    const double p =
        0.5 * (std::erfc((x - r) / std::sqrt(2.0)) - std::erfc((x + r) / std::sqrt(2.0)));
    return -std::exp(-x * x / 2) / std::sqrt(2 * M_PI) * std::log(p);
  };
  const int steps = 12000;
  const double h = 12.0 / steps;
  double s = f(0.0) + f(12.0);
  for (int i = 1; i < steps; ++i) s += f(i * h) * (i % 2 ? 4 : 2);
  return 2 * s * h / 3;
}

TEST(EntropyOracles, WhiteNoiseNearItsLimit) {
  const double limit = whiteNoiseLimit(0.2);
  EXPECT_NEAR(limit, 2.335273, 2e-6);  // -E[ln(Phi(X + r) - Phi(X - r))], X ~ N(0, 1)
  for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
    const std::vector<double> u = gaussian(1024, 30), v = gaussian(1024, 31);
    const EntropyMatrixResult res = run(makeBlock({u, v}), apen(0.2, bias));
    // Four independent N = 1024 runs span 2.326-2.355 (spread about +-0.015 around 2.34, finite-N
    // bias included): 0.05 is over three times that spread.
    EXPECT_NEAR(res.averageAt(0, 1), limit, 0.05);
    EXPECT_NEAR(res.averageAt(1, 0), limit, 0.05);
    // The diagonal is lower (self-match bias): 2.21-2.24 at N = 1024, widened alike.
    EXPECT_GT(res.averageAt(0, 0), 2.16);
    EXPECT_LT(res.averageAt(0, 0), 2.29);
    EXPECT_LT(res.averageAt(0, 0), res.averageAt(0, 1));
  }
}

TEST(EntropyOracles, AsymmetryMatchesTheStraightforwardReference) {
  const std::vector<double> u = gaussian(300, 5);
  std::vector<double> v = gaussian(300, 6);
  for (double& x : v) x = x * x * x;
  for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
    const EntropyMatrixResult res = run(makeBlock({u, v}), apen(0.2, bias));
    // Row = template channel u, column = target v: [0][1] = Cross-ApEn(v||u).
    EXPECT_NEAR(res.averageAt(0, 1), referenceXApEn(u, v, 1, 0.2, bias), 1e-12);
    EXPECT_NEAR(res.averageAt(1, 0), referenceXApEn(v, u, 1, 0.2, bias), 1e-12);
    // An independent pair (2.0839 vs 2.2312) differs by 0.15; any such pair differs by far more
    // than rounding.
    EXPECT_GT(std::abs(res.averageAt(0, 1) - res.averageAt(1, 0)), 0.01);
  }
}

TEST(EntropyOracles, BiasRulesAgainstReferenceWhereTemplatesGoUnmatched) {
  // A small r and m = 2 leave many templates without matches at length m or m + 1, so every
  // branch of both corrections is exercised.
  const std::vector<double> u = gaussian(150, 7), v = gaussian(150, 8);
  for (int m : {1, 2, 3})
    for (double r : {0.05, 0.15, 0.4})
      for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
        EntropyParams p = apen(r, bias, m);
        p.keepCounts = true;
        const EntropyMatrixResult res = run(makeBlock({u, v}), p);
        EXPECT_NEAR(res.averageAt(0, 1), referenceXApEn(u, v, m, r, bias), 1e-12) << m << " " << r;
        EXPECT_NEAR(res.averageAt(1, 0), referenceXApEn(v, u, m, r, bias), 1e-12) << m << " " << r;
        EXPECT_NEAR(res.averageAt(1, 1), referenceXApEn(v, v, m, r, bias), 1e-12) << m << " " << r;
      }
}

// ---- SampEn ----

TEST(SampleEntropy, HandComputedCases) {
  // u = 0 0 1 0 1 1: 3 zeros, 3 ones -> z = -1/+1. Length-1 templates (i < 5): 0 0 1 0 1 -> B =
  // 3*2 + 2*1 = 8 ordered pairs i != j; length 2: 00 01 10 01 11 -> A = 2 (the two 01).
  // SampEn = -ln(2/8) = ln 4.
  // v = 1 0 0 1 1 0: length 1 (j < 5): 1 0 0 1 1; all pairs (i, j): B = 3*2 + 2*3 = 12; length 2:
  // 10 00 01 11 10; A = 1 (00) + 2*1 (01) + 1*2 (10) + 1 (11) = 6 -> cross-SampEn = ln 2.
  const std::vector<double> u{0, 0, 1, 0, 1, 1}, v{1, 0, 0, 1, 1, 0};
  EntropyParams p = sampen(0.2);
  p.keepCounts = true;
  const EntropyMatrixResult res = run(makeBlock({u, v}), p);
  EXPECT_NEAR(res.averageAt(0, 0), std::log(4.0), kClosedForm);
  EXPECT_NEAR(res.averageAt(0, 1), std::log(2.0), kClosedForm);
  EXPECT_NEAR(res.averageAt(1, 0), std::log(2.0), kClosedForm);
  // Counts as stored: self-pairs included (8 + 5 self-pairs, 2 + 5).
  EXPECT_EQ(res.counts[0].matchesM, 13);
  EXPECT_EQ(res.counts[0].matchesM1, 7);
  EXPECT_EQ(res.counts[1].matchesM, 12);
  EXPECT_EQ(res.counts[1].matchesM1, 6);
}

TEST(SampleEntropy, AgainstBruteForce) {
  const std::vector<double> u = gaussian(200, 11), v = gaussian(200, 12);
  std::vector<double> w = u;
  for (std::size_t i = 1; i < w.size(); ++i) w[i] = 0.7 * w[i - 1] + 0.3 * v[i];  // smoother
  for (int m : {1, 2, 3}) {
    const EntropyMatrixResult res = run(makeBlock({u, w}), sampen(0.25, m));
    EXPECT_NEAR(res.averageAt(0, 0), referenceSampEn(u, u, m, 0.25, true), 1e-12);
    EXPECT_NEAR(res.averageAt(1, 1), referenceSampEn(w, w, m, 0.25, true), 1e-12);
    EXPECT_NEAR(res.averageAt(0, 1), referenceSampEn(u, w, m, 0.25, false), 1e-12);
    // Cross-SampEn is direction independent (Richman and Moorman): the Chebyshev distance is.
    EXPECT_NEAR(res.averageAt(1, 0), res.averageAt(0, 1), kSameOps);
  }
}

TEST(SampleEntropy, UndefinedIsNaNWithADiagnostic) {
  // A ramp has no pair i != j within r: B = 0, SampEn undefined.
  const EntropyMatrixResult res = run(makeBlock({{1, 2, 3, 4, 5, 6, 7, 8}}), sampen(0.2));
  EXPECT_TRUE(std::isnan(res.channelEntropy(0)));
  EXPECT_EQ(res.averageEpochs[0], 0);
  bool found = false;
  for (const Diagnostic& d : res.diagnostics) found |= d.code == "entropy.undefined";
  EXPECT_TRUE(found);
}

// ---- epochs and batches ----

TEST(EntropyEpochs, BatchInvarianceAndBoundaries) {
  const int n = 64, epochs = 3;
  std::vector<std::vector<double>> ch;
  for (int c = 0; c < 4; ++c) ch.push_back(gaussian(n * epochs + 10, 40 + c));  // 10-sample tail
  for (const EntropyParams& base :
       {apen(0.3, ApEnBias::Zero), apen(0.3, ApEnBias::Max), sampen(0.3)}) {
    EntropyParams p = base;
    p.epochSamples = n;
    p.rows = {3, 0, 2, 1};  // a channel order other than the block's
    const EntropyMatrixResult all = run(makeBlock(ch), p);
    ASSERT_EQ(all.epochCount(), 3u);
    ASSERT_EQ(all.channelCount(), 4u);
    EXPECT_EQ(all.channels, (std::vector<std::size_t>{3, 0, 2, 1}));
    for (int e = 0; e < epochs; ++e)
      for (std::size_t u = 0; u < 4; ++u)
        for (std::size_t v = 0; v < 4; ++v) {
          // The same pair alone, one epoch cut out: nothing else in the launch.
          const std::size_t cu = p.rows[u], cv = p.rows[v];
          std::vector<double> a(ch[cu].begin() + e * n, ch[cu].begin() + (e + 1) * n);
          std::vector<double> b(ch[cv].begin() + e * n, ch[cv].begin() + (e + 1) * n);
          EntropyParams single = base;
          const EntropyMatrixResult alone = run(makeBlock({a, b}), single);
          const double expected = u == v ? alone.averageAt(0, 0) : alone.averageAt(0, 1);
          EXPECT_NEAR(all.at(e, u, v), expected, kSameOps) << e << " " << u << " " << v;
        }
    // The average is the mean of the epochs.
    double mean = 0;
    for (int e = 0; e < epochs; ++e) mean += all.at(e, 1, 2);
    EXPECT_NEAR(all.averageAt(1, 2), mean / epochs, kSameOps);
    bool dropped = false;
    for (const Diagnostic& d : all.diagnostics) dropped |= d.code == "entropy.droppedTail";
    EXPECT_TRUE(dropped);
  }
}

TEST(EntropyEpochs, ConstantEpochIsNaNAndSkippedInTheAverage) {
  std::vector<double> a = gaussian(300, 50), b = gaussian(300, 51);
  for (int k = 100; k < 200; ++k) b[k] = 4.25;  // flat in epoch 2 of 3
  EntropyParams p = apen();
  p.epochSamples = 100;
  const EntropyMatrixResult res = run(makeBlock({a, b}), p);
  EXPECT_TRUE(std::isnan(res.at(1, 0, 1)));
  EXPECT_TRUE(std::isnan(res.at(1, 1, 0)));
  EXPECT_TRUE(std::isnan(res.at(1, 1, 1)));
  EXPECT_FALSE(std::isnan(res.at(1, 0, 0)));
  EXPECT_EQ(res.averageEpochs[1], 2);
  EXPECT_NEAR(res.averageAt(0, 1), (res.at(0, 0, 1) + res.at(2, 0, 1)) / 2, kSameOps);
  EXPECT_EQ(res.constantEpochs[1 * 2 + 1], 1);
  bool found = false;
  for (const Diagnostic& d : res.diagnostics)
    found |=
        d.code == "entropy.constantEpochs" && d.message.find("epoch(s) 2") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(EntropyEpochs, CpuBackendRunsTheSameProcedure) {
  const std::vector<double> u = gaussian(256, 60), v = gaussian(256, 61);
  EntropyParams p = apen();
  p.epochSamples = 128;
  auto backend = makeCpuBackend(2);
  JobContext ctx;
  const EntropyMatrixResult viaBackend = backend->entropyMatrices(makeBlock({u, v}), p, ctx);
  const EntropyMatrixResult direct = run(makeBlock({u, v}), p);
  ASSERT_EQ(viaBackend.epochValues.size(), direct.epochValues.size());
  for (std::size_t k = 0; k < direct.epochValues.size(); ++k)
    EXPECT_EQ(viaBackend.epochValues[k], direct.epochValues[k]);
}

TEST(EntropyEpochs, ProgressAndCancel) {
  const std::vector<double> u = gaussian(512, 70), v = gaussian(512, 71);
  double last = -1;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) { last = f; });
  computeEntropyCpu(makeBlock({u, v}), apen(), 2, ctx);
  EXPECT_EQ(last, 1.0);
  std::stop_source stop;
  stop.request_stop();
  JobContext cancelled(stop.get_token(), {});
  EXPECT_THROW(computeEntropyCpu(makeBlock({u, v}), apen(), 2, cancelled), Cancelled);
}

// ---- bad input ----

TEST(EntropyBadInput, ParametersAreRefusedWithTheirNames) {
  const SignalBlock b = makeBlock({gaussian(100, 80), gaussian(100, 81)});
  for (double r : {0.0, -0.2, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()}) {
    const std::string msg = messageOf<InvalidParameterError>([&] { run(b, apen(r)); });
    EXPECT_NE(msg.find("r"), std::string::npos) << msg;
  }
  EXPECT_NE(
      messageOf<InvalidParameterError>([&] { run(b, apen(0.2, ApEnBias::Max, 0)); }).find("m"),
      std::string::npos);
  EXPECT_THROW(run(b, apen(0.2, ApEnBias::Max, kEntropyMaxM + 1)), InvalidParameterError);
  EntropyParams shortEpoch = apen(0.2, ApEnBias::Max, 2);
  shortEpoch.epochSamples = 3;  // m + 2 = 4
  const std::string msg = messageOf<InvalidParameterError>([&] { run(b, shortEpoch); });
  EXPECT_NE(msg.find("m + 2 = 4"), std::string::npos) << msg;
  // A whole selection shorter than m + 2 (epoch = the selection).
  EXPECT_THROW(run(makeBlock({{1, 2}}), apen()), InvalidParameterError);
  EntropyParams longEpoch = apen();
  longEpoch.epochSamples = 101;
  EXPECT_THROW(run(b, longEpoch), InvalidParameterError);
  EntropyParams badRows = apen();
  badRows.rows = {0, 2};
  EXPECT_THROW(run(b, badRows), InvalidParameterError);
  badRows.rows = {1, 1};
  EXPECT_THROW(run(b, badRows), InvalidParameterError);
  EXPECT_THROW(parseEntropyMeasure("fuzzy"), InvalidParameterError);
  EXPECT_THROW(parseApEnBias("min"), InvalidParameterError);
}

TEST(EntropyBadInput, NonFiniteSamplesNameChannelAndSample) {
  std::vector<double> a = gaussian(100, 90), b = gaussian(100, 91);
  b[37] = std::numeric_limits<double>::quiet_NaN();
  std::string msg = messageOf<InvalidInputError>([&] { run(makeBlock({a, b}), apen()); });
  EXPECT_NE(msg.find("channel #2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NaN at sample 37"), std::string::npos) << msg;
  b[37] = 0;
  a[5] = -std::numeric_limits<double>::infinity();
  msg = messageOf<InvalidInputError>([&] { run(makeBlock({a, b}), apen()); });
  EXPECT_NE(msg.find("channel #1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("infinite value at sample 5"), std::string::npos) << msg;
}

TEST(EntropyBadInput, ConstantChannelIsRefusedByName) {
  const std::vector<double> a = gaussian(100, 92), flat(100, 0.1);
  const std::string msg = messageOf<InvalidParameterError>([&] {
    run(makeBlock({a, flat}), apen());
  });
  EXPECT_NE(msg.find("channel #2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("constant"), std::string::npos) << msg;
}

TEST(EntropyZscore, ConventionsAndExactConstants) {
  const std::vector<float> x{1, 2, 3, 4};
  std::vector<double> z(4);
  // Population SD of 1..4 is sqrt(1.25); sample SD sqrt(5/3).
  EXPECT_NEAR(zscoreSeries(x.data(), 4, SdConvention::Population, z.data()), std::sqrt(1.25),
              1e-15);
  EXPECT_NEAR(z[0], -1.5 / std::sqrt(1.25), 1e-15);
  EXPECT_NEAR(zscoreSeries(x.data(), 4, SdConvention::Sample, z.data()), std::sqrt(5.0 / 3), 1e-15);
  // 0.1f summed 1000 times rounds in double; a constant series must still give exactly 0.
  const std::vector<float> c(1000, 0.1f);
  std::vector<double> zc(1000, 7.0);
  EXPECT_EQ(zscoreSeries(c.data(), 1000, SdConvention::Population, zc.data()), 0.0);
  for (double v : zc) EXPECT_EQ(v, 0.0);
}

}  // namespace
}  // namespace modescope
