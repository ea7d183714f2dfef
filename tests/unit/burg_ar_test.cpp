// Burg AR spectra (engine/ar): closed-form oracles (exact fractions for small windows, computed
// independently with an NR-style Burg in rational arithmetic; the known AR(2) spectrum and its
// peak; the Parseval identity), statistical recovery of known AR models with tolerances from the
// estimator's asymptotic variance, presets against BCI2000's and Wilson and Williams' (2009)
// values, and the refusals of bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/ar/ar_spectrum.h"
#include "engine/ar/burg.h"
#include "engine/core/error.h"
#include "error_message_support.h"

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;

// The exact cases take a dozen double operations on small integers: each rounds by at most half
// an ulp, so 1e-13 relative is a few hundred ulps of margin and still catches any wrong formula
// (a wrong sign, N vs N - 1, a missing factor 2 all change the value in the first digits).
constexpr double kExact = 1e-13;

void expectRel(double got, double expected, double tol, const char* what) {
  EXPECT_NEAR(got, expected, tol * std::abs(expected)) << what;
}

double perSample(const BurgModel& m, double omega) {
  return arPsdPerSample(m.a.data(), static_cast<int>(m.a.size()), m.noiseVariance, omega);
}

SignalBlock makeBlock(const std::vector<std::vector<double>>& channels, double fs) {
  SignalBlock b;
  b.sampleRate = fs;
  b.samples = static_cast<int64_t>(channels.front().size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    b.channels.push_back(c);
    for (double v : channels[c]) b.data.push_back(static_cast<float>(v));
  }
  return b;
}

// x_t = sum a_k x_{t-k} + sigma w_t with a burn-in of 1000 samples so the start-up transient
// (poles at radius <= 0.95 decay by 0.95^1000) is gone.
std::vector<double> simulateAr(const std::vector<double>& a, double sigma, std::size_t n,
                               uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  const std::size_t burn = 1000;
  std::vector<double> x(n + burn, 0.0);
  for (std::size_t t = 0; t < x.size(); ++t) {
    double v = normal(rng);
    for (std::size_t k = 1; k <= a.size() && k <= t; ++k) v += a[k - 1] * x[t - k];
    x[t] = v;
  }
  return {x.begin() + static_cast<std::ptrdiff_t>(burn), x.end()};
}

// --- Exact fractions -------------------------------------------------------------------------

TEST(BurgAr, Order1OnOneToFourGivesTheDigestFractions) {
  const BurgModel m = burg({1, 2, 3, 4}, 1);
  ASSERT_EQ(m.orderReached, 1);
  expectRel(m.reflection[0], 40.0 / 43.0, kExact, "k1");
  expectRel(m.a[0], 40.0 / 43.0, kExact, "a1");
  expectRel(m.meanSquare, 30.0 / 4.0, kExact, "sigma0^2 = sum x^2 / N (not the variance)");
  expectRel(m.noiseVariance, 3735.0 / 3698.0, kExact, "sigma1^2");
  expectRel(perSample(m, 0.0), 415.0 / 2.0, kExact, "P(0)");
  expectRel(perSample(m, kPi), 45.0 / 166.0, kExact, "P(pi)");
}

TEST(BurgAr, Order2OnOneToFiveGivesTheDigestFractions) {
  const BurgModel m = burg({1, 2, 3, 4, 5}, 2);
  ASSERT_EQ(m.orderReached, 2);
  expectRel(m.reflection[0], 20.0 / 21.0, kExact, "k1");
  expectRel(m.reflection[1], -647.0 / 676.0, kExact, "k2");
  expectRel(m.a[0], 315.0 / 169.0, kExact, "a1");
  expectRel(m.a[1], -647.0 / 676.0, kExact, "a2");
  expectRel(m.noiseVariance, 39237.0 / 456976.0, kExact, "sigma2^2");
  expectRel(perSample(m, 0.0), 13079.0 / 1323.0, kExact, "P(0)");
  // An independent Burg gives P(pi) ~ 0.00588094; exactly sigma^2 / (1 + a1 - a2)^2 = 319/54243.
  expectRel(perSample(m, kPi), 319.0 / 54243.0, kExact, "P(pi)");
  EXPECT_NEAR(perSample(m, kPi), 0.00588094, 5e-9);
}

TEST(BurgAr, Order2OnAlternatingWindowGivesTheDigestFractions) {
  const BurgModel m = burg({1, -1, 2, 0, -2, 1}, 2);
  expectRel(m.reflection[0], -1.0 / 2.0, kExact, "k1");
  expectRel(m.reflection[1], -13.0 / 25.0, kExact, "k2");
  expectRel(m.a[0], -19.0 / 25.0, kExact, "a1");
  expectRel(m.a[1], -13.0 / 25.0, kExact, "a2");
  expectRel(m.noiseVariance, 627.0 / 625.0, kExact, "sigma2^2");
  expectRel(perSample(m, 0.0), 11.0 / 57.0, kExact, "P(0)");
  expectRel(perSample(m, kPi), 33.0 / 19.0, kExact, "P(pi)");
}

// --- The known AR(2) spectrum ----------------------------------------------------------------

TEST(BurgAr, KnownAr2SpectrumAndPeakAt25877HzForFs512) {
  BurgModel m;
  m.a = {1.8, -0.9};
  m.noiseVariance = 1.0;
  m.orderReached = 2;
  expectRel(perSample(m, 0.0), 100.0, kExact, "P(0)");
  expectRel(perSample(m, kPi), 1.0 / 13.69, kExact, "P(pi)");
  const double omegaStar = std::acos(0.95);                    // cos w* = -a1 (1 - a2) / (4 a2)
  expectRel(perSample(m, omegaStar), 1000.0, 1e-12, "P(w*)");  // acos rounding: ~1 ulp in w*

  // Find the peak of the physical spectrum numerically (golden section on 20-30 Hz; P is
  // unimodal there) and compare with the closed form acos(0.95) fs / (2 pi);
  // that is 25.877 Hz to three decimals.
  const double fs = 512.0;
  double lo = 20.0, hi = 30.0;
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  while (hi - lo > 1e-10) {
    const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    if (arPsd(m, x1, fs) < arPsd(m, x2, fs))
      lo = x1;
    else
      hi = x2;
  }
  const double peak = (lo + hi) / 2;
  // Near a maximum P changes quadratically, so differences vanish in rounding within
  // ~sqrt(eps) of the peak's width (a few Hz): 1e-5 Hz is the resolution a search can promise.
  EXPECT_NEAR(peak, omegaStar * fs / (2 * kPi), 1e-5);
  EXPECT_NEAR(peak, 25.877, 5e-4);
  // One-sided density in unit^2/Hz: 2 P(w*) / fs.
  expectRel(arPsd(m, peak, fs), 2.0 * 1000.0 / fs, 1e-9, "one-sided peak density");
}

// --- Parseval ---------------------------------------------------------------------------------

TEST(BurgAr, IntegratedPsdEqualsTheWindowsMeanSquare) {
  // A check worked out independently: order 16, N = 128, a 10 Hz sine plus noise at fs 512 (10 uV,
  // 2 uV).
  const double fs = 512.0;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 2.0);
  std::vector<double> x(128);
  for (std::size_t t = 0; t < x.size(); ++t)
    x[t] = 10.0 * std::sin(2 * kPi * 10.0 * static_cast<double>(t) / fs + 0.3) + noise(rng);
  const BurgModel m = burg(x, 16);
  ASSERT_EQ(m.orderReached, 16);
  double ms = 0;
  for (double v : x) ms += v * v;
  ms /= static_cast<double>(x.size());
  expectRel(m.meanSquare, ms, 1e-14, "sigma0^2");

  // P is smooth and periodic, so the trapezoid rule over [0, fs/2] (equal to the rule over the
  // whole period, P being even) converges like r^M with r the largest pole radius; M = 2^16
  // points leave far less than the 1e-10 tolerance, which itself is ~1e6 ulps of summation.
  const int points = 1 << 16;
  const double df = fs / 2 / points;
  double integral = 0.5 * (arPsd(m, 0.0, fs) + arPsd(m, fs / 2, fs));
  for (int j = 1; j < points; ++j) integral += arPsd(m, j * df, fs);
  integral *= df;
  expectRel(integral, ms, 1e-10, "integral of the one-sided PSD over [0, fs/2]");
}

// --- Recovery of known models -----------------------------------------------------------------

// Asymptotic variance of the coefficient estimates of an AR(p) (Burg, Yule-Walker and least
// squares agree to first order): sigma^2 Gamma_p^{-1} / N, whose diagonal by the Gohberg-Semencul
// formula is (sum_{i<j} alpha_i^2 - sum_{i>p-j} alpha_i^2) / N with alpha = (1, -a_1, ..., -a_p).
std::vector<double> asymptoticStd(const std::vector<double>& a, std::size_t n) {
  const std::size_t p = a.size();
  std::vector<double> alpha{1.0};
  for (double v : a) alpha.push_back(-v);
  std::vector<double> sd(p);
  for (std::size_t j = 1; j <= p; ++j) {
    double v = 0;
    for (std::size_t i = 0; i < j; ++i) v += alpha[i] * alpha[i];
    for (std::size_t i = p + 1 - j; i <= p; ++i) v -= alpha[i] * alpha[i];
    sd[j - 1] = std::sqrt(v / static_cast<double>(n));
  }
  return sd;
}

void expectRecovered(const std::vector<double>& a, std::size_t n, uint64_t seed) {
  const double sigma = 1.5;
  const std::vector<double> x = simulateAr(a, sigma, n, seed);
  const BurgModel m = burg(x, static_cast<int>(a.size()));
  const std::vector<double> sd = asymptoticStd(a, n);
  // 5 standard deviations: a false failure has probability ~6e-7 per coefficient (and the seed
  // is fixed), while an error in the recursion moves the estimates by far more than 5 sd
  // (sd ~ 0.003 here).
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_NEAR(m.a[k], a[k], 5 * sd[k]) << "a_" << k + 1 << " (sd " << sd[k] << ")";
  // sigma^2 estimate: variance 2 sigma^4 / N to first order.
  EXPECT_NEAR(m.noiseVariance, sigma * sigma,
              5 * std::sqrt(2.0 / static_cast<double>(n)) * sigma * sigma);
}

TEST(BurgAr, RecoversAKnownAr2FromALongSimulation) { expectRecovered({1.8, -0.9}, 20000, 11); }

TEST(BurgAr, RecoversAKnownAr4FromALongSimulation) {
  // Two resonances: radius 0.95 at 10/256 cycles per sample and 0.9 at 40/256.
  const double r1 = 0.95, t1 = 2 * kPi * 10 / 256, r2 = 0.9, t2 = 2 * kPi * 40 / 256;
  const double b1 = 2 * r1 * std::cos(t1), c1 = -r1 * r1;
  const double b2 = 2 * r2 * std::cos(t2), c2 = -r2 * r2;
  // (1 - b1 z - c1 z^2)(1 - b2 z - c2 z^2) = 1 - sum a_k z^k.
  const std::vector<double> a{b1 + b2, c1 + c2 - b1 * b2, -(b1 * c2 + b2 * c1), -c1 * c2};
  expectRecovered(a, 40000, 12);
}

TEST(BurgAr, WhiteNoiseGivesAFlatSpectrumAtTwoSigmaSquaredOverFs) {
  const double fs = 256.0, sigma = 3.0;
  const std::size_t n = 65536;
  const std::vector<double> x = simulateAr({}, sigma, n, 5);
  SignalBlock block = makeBlock({x}, fs);
  BurgArParams p;
  p.order = 4;
  p.window = {static_cast<double>(n), ArLengthUnit::Samples};
  p.step = {1, ArLengthUnit::Samples};
  p.firstBinCenter = 4;
  p.lastBinCenter = 124;
  p.binWidth = 8;
  p.evaluationsPerBin = 5;
  JobContext ctx;
  const ArSpectrumResult r = computeArSpectraCpu(block, p, 2, ctx);
  ASSERT_EQ(r.windowCount(), 1u);
  // Each a_k ~ N(0, 1/N) (sd 0.004) moves P by ~2 sqrt(p) 0.004 = 1.6 % and sigma^2 by
  // sqrt(2/N) = 0.6 %: 8 % relative is about 5 sd.
  const double expected = 2.0 * sigma * sigma / fs;
  for (std::size_t b = 0; b < r.binCenters.size(); ++b)
    EXPECT_NEAR(r.row(0, 0)[b], expected, 0.08 * expected) << "bin " << r.binCenters[b] << " Hz";
}

// --- Detrending -------------------------------------------------------------------------------

TEST(BurgAr, LinearDetrendRemovesARampExactlyAndMeanRemovesAnOffset) {
  const std::size_t n = 200;
  const std::vector<double> y = simulateAr({0.5, -0.3}, 1.0, n, 3);
  std::vector<double> ramp(n), offset(n), yy = y, yMean = y;
  for (std::size_t t = 0; t < n; ++t) {
    ramp[t] = y[t] + 40.0 - 0.75 * static_cast<double>(t);
    offset[t] = y[t] + 40.0;
  }
  // Detrending is a projection: adding a line (or a constant, for Mean) must not change its
  // output. The residual is summation rounding of values up to ~150: 1e-11 absolute.
  arDetrend(ramp.data(), static_cast<int64_t>(n), ArDetrend::Linear);
  arDetrend(yy.data(), static_cast<int64_t>(n), ArDetrend::Linear);
  arDetrend(offset.data(), static_cast<int64_t>(n), ArDetrend::Mean);
  arDetrend(yMean.data(), static_cast<int64_t>(n), ArDetrend::Mean);
  for (std::size_t t = 0; t < n; ++t) {
    EXPECT_NEAR(ramp[t], yy[t], 1e-11);
    EXPECT_NEAR(offset[t], yMean[t], 1e-11);
  }
  // The detrended window has zero mean and zero slope.
  double s0 = 0, s1 = 0;
  for (std::size_t t = 0; t < n; ++t) {
    s0 += yy[t];
    s1 += (static_cast<double>(t) - (n - 1) / 2.0) * yy[t];
  }
  EXPECT_NEAR(s0, 0.0, 1e-10);
  EXPECT_NEAR(s1, 0.0, 1e-8);

  // Through the driver: a 10 Hz sine in noise, with and without a steep ramp. Undetrended, the
  // ramp's power piles into the 0 Hz bin (Burg removes no mean); linearly detrended, the spectrum
  // is that of the window without the ramp. (Not exactly: the float samples of sine + ramp, up to
  // ~420, are rounded to 2^-16 ~ 1.5e-5, perturbing the detrended window by ~1e-6 of its size;
  // the spectrum's sensitivity near its peak lets that grow to ~1e-4, so 1e-3 relative.)
  const double fs = 160.0;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> noise(0.0, 1.0);  // keeps the window from being predictable
  std::vector<double> plain(80), ramped(80);
  for (std::size_t t = 0; t < plain.size(); ++t) {
    plain[t] = 20.0 * std::sin(2 * kPi * 10.0 * static_cast<double>(t) / fs) + noise(rng);
    ramped[t] = plain[t] + 5.0 * static_cast<double>(t);
  }
  const SignalBlock block = makeBlock({plain, ramped}, fs);
  BurgArParams p = burgArPreset("bci2000");  // 0.5 s at 160 Hz = 80 samples, one window
  JobContext ctx;
  const ArSpectrumResult raw = computeArSpectraCpu(block, p, 1, ctx);
  p.detrend = ArDetrend::Linear;
  const ArSpectrumResult lin = computeArSpectraCpu(block, p, 1, ctx);
  ASSERT_EQ(raw.windowCount(), 1u);
  const std::size_t bins = raw.binCenters.size();
  const float* rawPlain = raw.row(0, 0);
  const float* rawRamp = raw.row(1, 0);
  const float* linPlain = lin.row(0, 0);
  const float* linRamp = lin.row(1, 0);
  const auto tenHz = static_cast<std::ptrdiff_t>(3);  // bins centred 0, 3, 6, 9: 7.5-10.5 Hz
  EXPECT_EQ(std::max_element(rawPlain, rawPlain + bins) - rawPlain, tenHz);
  EXPECT_EQ(std::max_element(rawRamp, rawRamp + bins) - rawRamp, 0) << "ramp leaks into 0 Hz";
  EXPECT_GT(rawRamp[0], 100.0f * rawPlain[0]);
  for (std::size_t b = 0; b < bins; ++b)
    expectRel(linRamp[b], linPlain[b], 1e-3, "linear detrend: ramp removed");
  EXPECT_EQ(std::max_element(linRamp, linRamp + bins) - linRamp, tenHz);
}

// --- Driver -----------------------------------------------------------------------------------

TEST(BurgAr, PaperTestSignalPeaksInTheBinHolding10Hz) {
  // Wilson and Williams' test signal: a 10 Hz, 10 uV sine in 2 uV white noise; 250 ms windows with
  // the Wilson 2009 preset; the largest bin must contain 10 Hz (bins 8-10 and 10-12 share the 10 Hz
  // edge on the edge-inclusive grid, so either qualifies). The paper claims this at 512, 2400 and
  // 4800 Hz; at 4800 Hz it does not hold for Burg: 1200 samples are 2.5 cycles at 0.013 rad/sample
  // and the order-30 model puts two real poles at 0 Hz instead of a pair at 10 Hz, so the 0-2 Hz
  // bin is the largest (measured here and with an independent numpy Burg; docs/ar.md). Checked at
  // 512 and 2400 Hz.
  for (double fs : {512.0, 2400.0}) {
    std::mt19937_64 rng(static_cast<uint64_t>(fs));
    std::normal_distribution<double> noise(0.0, 2.0);
    std::vector<double> x(static_cast<std::size_t>(fs));  // 1 s
    for (std::size_t t = 0; t < x.size(); ++t)
      x[t] = 10.0 * std::sin(2 * kPi * 10.0 * static_cast<double>(t) / fs) + noise(rng);
    const SignalBlock block = makeBlock({x}, fs);
    JobContext ctx;
    const ArSpectrumResult r = computeArSpectraCpu(block, burgArPreset("wilson2009"), 2, ctx);
    // 1 s, 250 ms windows every 50 ms: (1 - 0.25) / 0.05 + 1 = 16 windows at 2400 and 4800 Hz;
    // at 512 Hz 50 ms is 25.6 samples, rounded to 26: (512 - 128) / 26 + 1 = 15.
    ASSERT_EQ(r.windowCount(), fs == 512.0 ? 15u : 16u) << fs;
    ASSERT_EQ(r.stepSamples, fs == 512.0 ? 26 : static_cast<int64_t>(fs / 20)) << fs;
    for (std::size_t w = 0; w < r.windowCount(); ++w) {
      const float* row = r.row(0, w);
      const auto best = std::max_element(row, row + r.binCenters.size()) - row;
      const double c = r.binCenters[static_cast<std::size_t>(best)];
      EXPECT_TRUE(c - 1.0 <= 10.0 && 10.0 <= c + 1.0)
          << "fs " << fs << " window " << w << ": largest bin centred at " << c << " Hz";
    }
  }
}

TEST(BurgAr, DriverRowsMatchTheSingleWindowFunctionsAndDoNotDependOnThreads) {
  const double fs = 160.0;
  std::vector<std::vector<double>> chans;
  for (uint64_t c = 0; c < 5; ++c) chans.push_back(simulateAr({1.2, -0.6}, 4.0, 400, 20 + c));
  const SignalBlock block = makeBlock(chans, fs);
  BurgArParams p = burgArPreset("bci2000");
  p.detrend = ArDetrend::Mean;
  JobContext ctx;
  const ArSpectrumResult one = computeArSpectraCpu(block, p, 1, ctx);
  const ArSpectrumResult three = computeArSpectraCpu(block, p, 3, ctx);
  // 400 samples, 80-sample windows every 8 samples: (400 - 80) / 8 + 1 = 41.
  ASSERT_EQ(one.windowCount(), 41u);
  ASSERT_EQ(one.windowStarts[40], 320);
  ASSERT_EQ(one.binCenters.size(), 11u);
  EXPECT_EQ(one.values, three.values);  // every row is computed by one thread, in one order
  EXPECT_TRUE(one.diagnostics.empty());

  BurgArParams amp = p;
  amp.output = ArOutput::Amplitude;
  BurgArParams coef = p;
  coef.output = ArOutput::Coefficients;
  const ArSpectrumResult a = computeArSpectraCpu(block, amp, 2, ctx);
  const ArSpectrumResult k = computeArSpectraCpu(block, coef, 2, ctx);
  ASSERT_EQ(k.valuesPerWindow(), 16u);
  for (std::size_t c : {0u, 4u}) {
    for (std::size_t w : {0u, 17u, 40u}) {
      std::vector<double> x(80);
      for (std::size_t t = 0; t < 80; ++t)
        x[t] = block.channel(c)[one.windowStarts[w] + static_cast<int64_t>(t)];
      arDetrend(x.data(), 80, ArDetrend::Mean);
      const BurgModel m = burg(x, 16);
      const std::vector<double> bins = arBinValues(m, p, fs);
      // Stored as float: 2^-24 relative rounding, 1e-6 leaves margin.
      for (std::size_t b = 0; b < bins.size(); ++b) {
        expectRel(one.row(c, w)[b], bins[b], 1e-6, "power");
        expectRel(a.row(c, w)[b], std::sqrt(bins[b]), 1e-6, "amplitude = sqrt(power)");
      }
      for (std::size_t j = 0; j < 16; ++j) EXPECT_NEAR(k.row(c, w)[j], m.a[j], 1e-6);
      expectRel(one.noiseVariance[c * 41 + w], m.noiseVariance, 1e-6, "sigma^2");
    }
  }
}

TEST(BurgAr, FlatWindowsGiveZerosAndADiagnosticNotNan) {
  const double fs = 100.0;
  std::vector<double> live = simulateAr({0.5}, 1.0, 300, 9);
  std::vector<double> flat(300, 12.5);  // a disconnected electrode at a DC level
  std::vector<double> partly = live;    // flat for the first 150 samples
  std::fill(partly.begin(), partly.begin() + 150, 0.0);
  const SignalBlock block = makeBlock({live, flat, partly}, fs);
  BurgArParams p;
  p.order = 8;
  p.window = {1.0, ArLengthUnit::Seconds};
  p.step = {0.5, ArLengthUnit::Seconds};
  p.firstBinCenter = 0;
  p.lastBinCenter = 48;
  p.binWidth = 2;
  p.evaluationsPerBin = 3;
  for (ArDetrend d : {ArDetrend::None, ArDetrend::Mean, ArDetrend::Linear}) {
    p.detrend = d;
    JobContext ctx;
    const ArSpectrumResult r = computeArSpectraCpu(block, p, 2, ctx);
    ASSERT_EQ(r.windowCount(), 5u);
    for (float v : r.values) EXPECT_TRUE(std::isfinite(v));
    for (std::size_t w = 0; w < 5; ++w)
      for (std::size_t b = 0; b < r.binCenters.size(); ++b) EXPECT_EQ(r.row(1, w)[b], 0.0f);
    EXPECT_EQ(r.row(2, 0)[0], 0.0f);  // samples 0-99: flat
    EXPECT_GT(r.row(2, 4)[0], 0.0f);  // samples 200-299: live
    int flatDiagnostics = 0;
    for (const Diagnostic& dg : r.diagnostics) {
      if (dg.code != "ar.flatWindows") continue;
      ++flatDiagnostics;
      EXPECT_EQ(dg.severity, Severity::Warning);
    }
    EXPECT_EQ(flatDiagnostics, 2) << arDetrendName(d);
    EXPECT_NE(r.diagnostics.front().message.find("channel 1: 5 of 5 windows are flat"),
              std::string::npos)
        << r.diagnostics.front().message;
  }
  // burg() itself on a constant window: the flat model, no NaN.
  const BurgModel m = burg(std::vector<double>(10, 3.0), 2);
  EXPECT_TRUE(m.flat);
  EXPECT_EQ(m.noiseVariance, 0.0);
  EXPECT_EQ(arPsd(m, 1.0, 10.0), 0.0);
}

TEST(BurgAr, PerfectlyPredictableWindowStopsBelowTheOrderWithoutNan) {
  // An alternating window is predicted without error by x_t = -x_{t-1}: stage 1 gives
  // 2 num = -8 = -den, i.e. k_1 = -1 exactly, a pole on the unit circle and sigma^2 = 0 (a 0/0
  // spectrum). Burg must stop before that stage: order 0, sigma^2 = the mean square 1.
  const BurgModel m = burg({1, -1, 1, -1, 1, -1, 1}, 3);
  EXPECT_FALSE(m.flat);
  EXPECT_EQ(m.orderReached, 0);
  EXPECT_EQ(m.noiseVariance, 1.0);
  EXPECT_EQ(m.a, std::vector<double>(3, 0.0));
  for (double f = 0; f <= 5; f += 0.25) EXPECT_EQ(arPsd(m, f, 10.0), 2.0 / 10.0) << f;

  // The driver reports it.
  std::vector<double> alt(40);
  for (std::size_t t = 0; t < alt.size(); ++t) alt[t] = t % 2 == 0 ? 1.0 : -1.0;
  const SignalBlock block = makeBlock({alt}, 20.0);
  BurgArParams p;
  p.order = 4;
  p.window = {20, ArLengthUnit::Samples};
  p.step = {10, ArLengthUnit::Samples};
  p.firstBinCenter = 1;
  p.lastBinCenter = 9;
  p.binWidth = 2;
  p.evaluationsPerBin = 4;
  JobContext ctx;
  const ArSpectrumResult r = computeArSpectraCpu(block, p, 1, ctx);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "ar.orderReduced");
  EXPECT_NE(r.diagnostics[0].message.find("3 of 3 windows"), std::string::npos)
      << r.diagnostics[0].message;
  for (float v : r.values) EXPECT_TRUE(std::isfinite(v));

  // A noiseless sinusoid obeys x_t = 2 cos(w) x_{t-1} - x_{t-2}: after stage 2 only rounding is
  // left. Whatever the later stages fit to it, the spectrum stays finite and peaks near w = 0.7
  // rad/sample (11.14 Hz at fs 100). Burg's frequency estimate of a short noiseless sinusoid has
  // a known phase-dependent bias (Chen and Stegen 1974), a few percent of the 1/N resolution
  // (1.56 Hz here; measured 0.03 Hz): 0.1 Hz allows for it and still fails a wrong peak.
  std::vector<double> x(64);
  for (std::size_t t = 0; t < x.size(); ++t) x[t] = std::cos(0.7 * static_cast<double>(t));
  const BurgModel ms = burg(x, 10);
  double best = 0, bestF = 0;
  for (double f = 0; f <= 50; f += 0.01) {
    const double v = arPsd(ms, f, 100.0);
    ASSERT_TRUE(std::isfinite(v)) << f;
    if (v > best) best = v, bestF = f;
  }
  EXPECT_NEAR(bestF, 0.7 * 100.0 / (2 * kPi), 0.1);
}

TEST(BurgAr, CancelledBeforeTheRunThrowsCancelled) {
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  const SignalBlock block = makeBlock({simulateAr({0.5}, 1.0, 400, 1)}, 160.0);
  EXPECT_THROW(computeArSpectraCpu(block, burgArPreset("bci2000"), 2, ctx), Cancelled);
}

TEST(BurgAr, ProgressIsReportedAndEndsAtOne) {
  std::vector<double> fractions;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) { fractions.push_back(f); });
  const SignalBlock block = makeBlock({simulateAr({0.5}, 1.0, 400, 1)}, 160.0);
  computeArSpectraCpu(block, burgArPreset("bci2000"), 1, ctx);
  ASSERT_FALSE(fractions.empty());
  EXPECT_EQ(fractions.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
}

// --- Presets ---------------------------------------------------------------------------------

TEST(BurgArParams, PresetsCarryTheDigestsValues) {
  // BCI2000 (its ARFilter defaults: ModelOrder 16, BinWidth 3 Hz, bins centred 0-30 Hz,
  // EvaluationsPerBin 15, WindowLength 0.5 s, Detrend none; TransferSpectrum's midpoint grid).
  const BurgArParams b = burgArPreset("bci2000");
  EXPECT_EQ(b.order, 16);
  EXPECT_EQ(b.window.value, 0.5);
  EXPECT_EQ(b.window.unit, ArLengthUnit::Seconds);
  EXPECT_EQ(b.firstBinCenter, 0.0);
  EXPECT_EQ(b.lastBinCenter, 30.0);
  EXPECT_EQ(b.binWidth, 3.0);
  EXPECT_EQ(b.evaluationsPerBin, 15);
  EXPECT_EQ(b.binGrid, ArBinGrid::Midpoints);
  EXPECT_EQ(b.detrend, ArDetrend::None);
  EXPECT_EQ(arBinCenters(b).size(), 11u);
  // Wilson 2009 (order 30 in every example, 250 ms buffer recomputed every 50 ms block, a 2 Hz
  // bin with 11 evaluations 0.2 Hz apart, edges included; no mean removal, as memcof).
  const BurgArParams w = burgArPreset(" Wilson2009 ");
  EXPECT_EQ(w.order, 30);
  EXPECT_EQ(w.window.value, 0.25);
  EXPECT_EQ(w.window.unit, ArLengthUnit::Seconds);
  EXPECT_EQ(w.step.value, 0.05);
  EXPECT_EQ(w.binWidth, 2.0);
  EXPECT_EQ(w.evaluationsPerBin, 11);
  EXPECT_EQ(w.binGrid, ArBinGrid::EdgeInclusive);
  EXPECT_EQ(w.detrend, ArDetrend::None);
  // The seed's example bin 10-12 Hz evaluates at 10.0, 10.2, ..., 12.0.
  const std::vector<double> f = arEvaluationFrequencies(w, 11.0);
  ASSERT_EQ(f.size(), 11u);
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(f[i], 10.0 + 0.2 * i, 1e-12);
  // At the paper's rates 250 ms is 128, 600 and 1200 samples.
  EXPECT_EQ(resolveArLengths(w, 512).windowSamples, 128);
  EXPECT_EQ(resolveArLengths(w, 2400).windowSamples, 600);
  EXPECT_EQ(resolveArLengths(w, 4800).windowSamples, 1200);
  // BCI2000's grid: midpoints of 15 sub-intervals of the 3 Hz bin centred on 9 Hz.
  const std::vector<double> g = arEvaluationFrequencies(b, 9.0);
  ASSERT_EQ(g.size(), 15u);
  EXPECT_NEAR(g.front(), 7.6, 1e-12);
  EXPECT_NEAR(g.back(), 10.4, 1e-12);
  for (const BurgArPreset& preset : burgArPresets())
    EXPECT_NO_THROW(validateBurgArParams(preset.params, 160.0)) << preset.name;
}

// --- Refusals ---------------------------------------------------------------------------------

TEST(BurgArParams, BadParametersAreRefusedWithTheParameterTheValueAndARemedy) {
  BurgArParams p = burgArPreset("bci2000");
  // Order 16 needs 17 samples; 0.1 s at 160 Hz is 16.
  p.window = {0.1, ArLengthUnit::Seconds};
  std::string m =
      test_support::messageOf<InvalidParameterError>([&] { validateBurgArParams(p, 160.0); });
  EXPECT_NE(m.find("'window'"), std::string::npos) << m;
  EXPECT_NE(m.find("16 samples"), std::string::npos) << m;
  EXPECT_NE(m.find("at least 17 samples"), std::string::npos) << m;
  p.window = {17, ArLengthUnit::Samples};
  EXPECT_NO_THROW(validateBurgArParams(p, 160.0));
  p.window = {0.5, ArLengthUnit::Seconds};

  p.order = kArMaxOrder + 1;
  m = test_support::messageOf<InvalidParameterError>([&] { validateBurgArParams(p, 160.0); });
  EXPECT_NE(m.find("'order'"), std::string::npos) << m;
  EXPECT_NE(m.find("1 to 64"), std::string::npos) << m;
  EXPECT_NE(m.find("limit of this implementation"), std::string::npos) << m;
  p.order = 0;
  EXPECT_THROW(validateBurgArParams(p, 160.0), InvalidParameterError);
  p.order = 16;

  p.lastBinCenter = 81;  // fs/2 = 80
  m = test_support::messageOf<InvalidParameterError>([&] { validateBurgArParams(p, 160.0); });
  EXPECT_NE(m.find("'lastBinCenter'"), std::string::npos) << m;
  EXPECT_NE(m.find("80 Hz"), std::string::npos) << m;
  EXPECT_NE(m.find("use 78 Hz"), std::string::npos) << m;  // 0 + 26 * 3, the last fit below 80
  p.lastBinCenter = 31;                                    // not 0 + k * 3
  m = test_support::messageOf<InvalidParameterError>([&] { validateBurgArParams(p, 160.0); });
  EXPECT_NE(m.find("use 30 or 33 Hz"), std::string::npos) << m;
  p.lastBinCenter = 30;

  const auto refused = [&](auto mutate, const char* name) {
    BurgArParams q = burgArPreset("bci2000");
    mutate(q);
    const std::string msg =
        test_support::messageOf<InvalidParameterError>([&] { validateBurgArParams(q, 160.0); });
    EXPECT_NE(msg.find(std::string("'") + name + "'"), std::string::npos) << msg;
  };
  refused([](BurgArParams& q) { q.binWidth = 0; }, "binWidth");
  refused([](BurgArParams& q) { q.binWidth = std::nan(""); }, "binWidth");
  refused([](BurgArParams& q) { q.firstBinCenter = -1; }, "firstBinCenter");
  refused([](BurgArParams& q) { q.lastBinCenter = -3; }, "lastBinCenter");
  refused([](BurgArParams& q) { q.evaluationsPerBin = 0; }, "evaluationsPerBin");
  refused([](BurgArParams& q) { q.evaluationsPerBin = kArMaxEvaluationsPerBin + 1; },
          "evaluationsPerBin");
  refused([](BurgArParams& q) { q.step = {0, ArLengthUnit::Seconds}; }, "step");
  refused([](BurgArParams& q) { q.step = {0.001, ArLengthUnit::Seconds}; }, "step");  // 0 samples
  refused([](BurgArParams& q) { q.window = {80.5, ArLengthUnit::Samples}; }, "window");
  refused(
      [](BurgArParams& q) {
        q.binWidth = 0.001;
        q.lastBinCenter = 30;
      },
      "binWidth");
  EXPECT_THROW(validateBurgArParams(p, 0.0), InvalidParameterError);
  EXPECT_THROW(burgArPreset("bci2001"), InvalidParameterError);
  EXPECT_EQ(parseArDetrend("Linear"), ArDetrend::Linear);
  EXPECT_EQ(parseArOutput("amplitude"), ArOutput::Amplitude);
  EXPECT_EQ(parseArBinGrid("edge-inclusive"), ArBinGrid::EdgeInclusive);
  EXPECT_THROW(parseArOutput("phase"), InvalidParameterError);
  EXPECT_EQ(arValueUnit(ArOutput::Power, "uV"), "uV^2/Hz");
  EXPECT_EQ(arValueUnit(ArOutput::Amplitude, "uV"), "uV/sqrt(Hz)");
}

TEST(BurgArParams, BadBlocksAreRefused) {
  JobContext ctx;
  const BurgArParams p = burgArPreset("bci2000");  // 80 samples at 160 Hz
  SignalBlock shortBlock = makeBlock({std::vector<double>(79, 1.0)}, 160.0);
  const std::string m = test_support::messageOf<InvalidParameterError>(
      [&] { computeArSpectraCpu(shortBlock, p, 1, ctx); });
  EXPECT_NE(m.find("'window'"), std::string::npos) << m;
  EXPECT_NE(m.find("79 samples"), std::string::npos) << m;

  std::vector<double> x = simulateAr({0.5}, 1.0, 200, 2);
  x[123] = std::numeric_limits<double>::quiet_NaN();
  SignalBlock bad = makeBlock({simulateAr({0.5}, 1.0, 200, 3), x}, 160.0);
  try {
    computeArSpectraCpu(bad, p, 1, ctx);
    ADD_FAILURE() << "NaN accepted";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.path(), "channel 1");
    EXPECT_NE(e.field().find("sample 123"), std::string::npos) << e.what();
  }
  SignalBlock empty;
  empty.sampleRate = 160.0;
  EXPECT_THROW(computeArSpectraCpu(empty, p, 1, ctx), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
