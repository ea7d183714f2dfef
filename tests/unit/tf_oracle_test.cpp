// Oracles of the time-frequency transforms on the CPU (docs/time-frequency.md, "Tests"): the
// estimators on signals whose instantaneous frequency is known in closed form (an off-bin tone, a
// linear chirp, a cubic phase), the group delay's sign on an impulse, the reconstruction identity,
// concentration (Renyi entropy), ridges, and every refused input.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stop_token>
#include <string>

#include "engine/core/error.h"
#include "engine/tf/tf_analysis.h"
#include "engine/tf/tf_cpu.h"

namespace modescope {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRate = 1000.0;  // Hz

SignalBlock signal(int n, const std::function<double(double)>& x) {
  SignalBlock b;
  b.channels = {0};
  b.sampleRate = kRate;
  b.samples = n;
  b.data.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) b.data[static_cast<std::size_t>(i)] = static_cast<float>(x(i));
  return b;
}

TfParams params(TfOrder order) {
  TfParams p;
  p.order = order;
  p.windowLength = 128;
  p.sigma = 10;
  p.fftLength = 512;
  p.threshold = 1e-3;
  return p;
}

const TfOrder kSqueezing[] = {TfOrder::First, TfOrder::Second, TfOrder::Third,
                              TfOrder::ThirdCanonical, TfOrder::Fourth};

// Off-bin pure tone: every order's estimate is the tone's frequency, at bins on and off the tone.
TEST(TfOracle, OffBinToneEveryOrderReturnsItsFrequency) {
  const double f0 = 123.4;  // bin 63.18 at N = 512
  const SignalBlock b = signal(1024, [&](double n) { return std::cos(2 * kPi * f0 * n / kRate); });
  for (TfOrder o : kSqueezing)
    for (int bin : {62, 63, 64, 65}) {
      const TfBinEstimate e = tfEstimateAt(b, params(o), 0, 512, bin);
      EXPECT_NEAR(e.frequency, f0, 1e-3) << "order " << tfOrderName(o) << " bin " << bin;
    }
}

// Linear chirp: orders >= 2 exact; the first-order operator is biased off the ridge.
TEST(TfOracle, LinearChirpExactFromSecondOrderFirstOrderBiased) {
  // 300 Hz/s is 0.0019 rad/sample^2, the digest's oracle (0.002).
  const double f0 = 100.0, rate = 300.0;  // Hz, Hz/s: IF(t) = f0 + rate t
  const SignalBlock b = signal(1024, [&](double n) {
    const double t = n / kRate;
    return std::cos(2 * kPi * (f0 * t + 0.5 * rate * t * t));
  });
  const double trueIf = f0 + rate * 0.512;  // column 512: 253.6 Hz, bin 129.8
  for (int bin : {128, 130, 132}) {
    for (TfOrder o : {TfOrder::Second, TfOrder::Third, TfOrder::ThirdCanonical, TfOrder::Fourth})
      EXPECT_NEAR(tfEstimateAt(b, params(o), 0, 512, bin).frequency, trueIf, 1e-3)
          << "order " << tfOrderName(o) << " bin " << bin;
  }
  // Off the ridge the first-order estimate is pulled towards the bin (the chirp's spread).
  const double first = tfEstimateAt(b, params(TfOrder::First), 0, 512, 134).frequency;
  EXPECT_GT(std::fabs(first - trueIf), 0.05);
}

// Cubic phase: EVSS1 (order 3) and order 4 exact; CVSS3, order 2 and order 1 are not.
TEST(TfOracle, CubicPhaseExactForEvss1) {
  // phase(n) = w0 n + r2 n^2 / 2 + r3 n^3 / 6 about column 512, rad/sample units.
  const double w0 = 2 * kPi * 0.12, r2 = 0.0015, r3 = 4e-5;
  const SignalBlock b = signal(1024, [&](double n) {
    const double k = n - 512;
    return std::cos(w0 * k + r2 * k * k / 2 + r3 * k * k * k / 6);
  });
  const double trueIf = w0 / (2 * kPi) * kRate;
  for (int bin : {59, 61, 63}) {
    for (TfOrder o : {TfOrder::Third, TfOrder::Fourth})
      EXPECT_NEAR(tfEstimateAt(b, params(o), 0, 512, bin).frequency, trueIf, 1e-2)
          << "order " << tfOrderName(o) << " bin " << bin;
  }
  // The regression the 3x3 system guards: a model of lower order misses the jerk off the ridge.
  for (TfOrder o : {TfOrder::Second, TfOrder::ThirdCanonical})
    EXPECT_GT(std::fabs(tfEstimateAt(b, params(o), 0, 512, 66).frequency - trueIf), 0.05)
        << "order " << tfOrderName(o);
}

// The group delay of an impulse at n0 is n0 from columns either side (t_hat = t + F^Th / F^h: the
// printed minus sign of the seed's (13) would give 2t - n0).
TEST(TfOracle, ImpulseGroupDelaySign) {
  const int n0 = 500;
  const SignalBlock b = signal(1024, [&](double n) { return n == n0 ? 1.0 : 0.0; });
  for (int64_t column : {490, 497, 503, 510})
    for (int bin : {10, 100, 200}) {
      const TfBinEstimate e = tfEstimateAt(b, params(TfOrder::Spectrogram), 0, column, bin);
      EXPECT_NEAR(e.time * kRate, n0, 1e-6) << "column " << column << " bin " << bin;
    }
}

SignalBlock twoComponents(int n) {
  // A chirp (60-142 Hz) and a tone (250.7 Hz) under a Tukey-like taper, so the signal starts and
  // ends at zero as a pulse does (the columns at the block's ends see a truncated window, where no
  // local model holds).
  return signal(n, [&](double i) {
    const double t = i / kRate, edge = 100;
    const double taper = i < edge           ? 0.5 - 0.5 * std::cos(kPi * i / edge)
                         : i > n - 1 - edge ? 0.5 - 0.5 * std::cos(kPi * (n - 1 - i) / edge)
                                            : 1.0;
    return taper *
           (std::cos(2 * kPi * (60 * t + 0.5 * 40 * t * t)) + 0.5 * std::sin(2 * kPi * 250.7 * t));
  });
}

std::vector<double> samplesOf(const SignalBlock& b) {
  return std::vector<double>(b.data.begin(), b.data.end());
}

// Column sums reconstruct the signal: exactly for the STFT, and at >= 45 dB (the seed's figure)
// for every squeezing order.
TEST(TfOracle, ReconstructionIdentity) {
  const SignalBlock b = twoComponents(2048);
  JobContext ctx;
  const TfResult stft = computeTfCpu(b, params(TfOrder::Spectrogram), 2, ctx);
  EXPECT_GT(tfReconstructionQuality(samplesOf(b), tfReconstruct(stft, 0)), 100.0);
  for (TfOrder o : kSqueezing) {
    const TfResult r = computeTfCpu(b, params(o), 2, ctx);
    EXPECT_GE(tfReconstructionQuality(samplesOf(b), tfReconstruct(r, 0)), 45.0)
        << "order " << tfOrderName(o);
  }
}

int peakRow(const TfResult& r, int64_t t) {
  int best = 0;
  for (int k = 1; k < r.bins; ++k)
    if (std::norm(r.column(0, t)[k]) > std::norm(r.column(0, t)[best])) best = k;
  return best;
}

// The squeezed image of an off-bin tone puts its peak on the tone's nearest bin at every order.
TEST(TfOracle, ToneImagePeaksOnItsBin) {
  const double f0 = 123.4;
  const SignalBlock b = signal(1024, [&](double n) { return std::cos(2 * kPi * f0 * n / kRate); });
  JobContext ctx;
  for (TfOrder o : kSqueezing) {
    const TfResult r = computeTfCpu(b, params(o), 2, ctx);
    for (int64_t t : {200, 500, 800}) EXPECT_EQ(peakRow(r, t), 63) << tfOrderName(o);
  }
}

// Squeezing concentrates: lower Renyi entropy than the spectrogram, at every order.
TEST(TfOracle, RenyiEntropyBelowTheSpectrogram) {
  const SignalBlock b = twoComponents(2048);
  JobContext ctx;
  const double spectrogram =
      tfRenyiEntropy(computeTfCpu(b, params(TfOrder::Spectrogram), 2, ctx), 0);
  for (TfOrder o : kSqueezing) {
    const double h = tfRenyiEntropy(computeTfCpu(b, params(o), 2, ctx), 0);
    EXPECT_LT(h, spectrogram - 1.0) << "order " << tfOrderName(o);
  }
}

// Two ridges follow the tone and the chirp; the tone's ridge reconstructs the tone.
TEST(TfOracle, RidgesFollowTheComponentsAndReconstructThem) {
  const SignalBlock b = twoComponents(2048);
  JobContext ctx;
  const TfResult r = computeTfCpu(b, params(TfOrder::Third), 2, ctx);
  TfRidgeParams rp;
  rp.count = 2;
  rp.halfWidth = 3;
  const auto ridges = tfRidges(r, 0, rp);
  ASSERT_EQ(ridges.size(), 2u);
  const double toneRow = 250.7 * 512 / kRate;
  int toneRidge = std::abs(ridges[0][1000] - toneRow) < std::abs(ridges[1][1000] - toneRow) ? 0 : 1;
  for (int64_t t = 200; t < 1800; ++t) {
    EXPECT_NEAR(ridges[toneRidge][t], toneRow, 1.0) << "column " << t;
    const double chirpRow = (60 + 40 * t / kRate) * 512 / kRate;
    EXPECT_NEAR(ridges[1 - toneRidge][t], chirpRow, 1.5) << "column " << t;
  }
  const std::vector<double> mode = tfReconstructRidge(r, 0, ridges[toneRidge], rp.halfWidth);
  std::vector<double> tone, got;
  for (int i = 200; i < 1800; ++i) {
    tone.push_back(0.5 * std::sin(2 * kPi * 250.7 * i / kRate));
    got.push_back(mode[static_cast<std::size_t>(i)]);
  }
  EXPECT_GT(tfReconstructionQuality(tone, got), 20.0);
  const std::vector<double> band = tfReconstructBand(r, 0, 230, 270);
  EXPECT_GT(
      tfReconstructionQuality(tone, std::vector<double>(band.begin() + 200, band.begin() + 1800)),
      20.0);
}

// CPU results do not depend on the thread count.
TEST(TfOracle, DeterministicAcrossThreadCounts) {
  const SignalBlock b = twoComponents(1024);
  JobContext ctx;
  const TfResult one = computeTfCpu(b, params(TfOrder::Fourth), 1, ctx);
  const TfResult two = computeTfCpu(b, params(TfOrder::Fourth), 2, ctx);
  EXPECT_EQ(one.values, two.values);
}

template <class E>
std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no " + std::string(typeid(E).name()) + " thrown>";
}

TEST(TfBadInput, ClearMessages) {
  const SignalBlock b = twoComponents(1024);
  JobContext ctx;
  TfParams p = params(TfOrder::Third);
  p.windowLength = 2048;
  p.fftLength = 4096;
  p.sigma = 0;
  EXPECT_NE(messageOf<InvalidParameterError>([&] {
              computeTfCpu(b, p, 1, ctx);
            }).find("shorten the window"),
            std::string::npos);
  p = params(TfOrder::Third);
  p.fftLength = 64;
  EXPECT_NE(messageOf<InvalidParameterError>([&] {
              computeTfCpu(b, p, 1, ctx);
            }).find("at least the window length"),
            std::string::npos);
  p = params(TfOrder::Third);
  p.maxFrequency = 800;
  EXPECT_NE(messageOf<InvalidParameterError>([&] {
              computeTfCpu(b, p, 1, ctx);
            }).find("needs at least 1600 Hz"),
            std::string::npos);
  p = params(TfOrder::Third);
  p.window = TfWindow::Hann;
  EXPECT_NE(messageOf<InvalidParameterError>([&] { computeTfCpu(b, p, 1, ctx); }).find("Gaussian"),
            std::string::npos);
  // 1024 columns x 257 bins x 8 bytes = 2.0 MiB against a 1 MiB budget.
  p = params(TfOrder::Third);
  p.maxBytes = std::size_t{1} << 20;
  const std::string big = messageOf<InvalidParameterError>([&] { computeTfCpu(b, p, 1, ctx); });
  EXPECT_NE(big.find("2.0 MiB"), std::string::npos) << big;
  SignalBlock bad = b;
  bad.data[300] = std::nanf("");
  const std::string nan =
      messageOf<InvalidInputError>([&] { computeTfCpu(bad, params(TfOrder::Third), 1, ctx); });
  EXPECT_NE(nan.find("NaN at sample 300"), std::string::npos) << nan;
}

TEST(TfBadInput, CancelStops) {
  const SignalBlock b = twoComponents(4096);
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(computeTfCpu(b, params(TfOrder::Fourth), 2, ctx), Cancelled);
}

}  // namespace
}  // namespace modescope
