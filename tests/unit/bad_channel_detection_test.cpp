// Bad-channel suggestions (engine/spatial/bad_channel_detection.h) on a synthetic recording whose
// bad channels are known: 16 channels share one brain-like source with their own gains and a
// little white noise; then one is flat, one ten times too loud, one carries 80 Hz noise and one
// an unrelated signal of the same size. Each must be suggested for its own reason and no clean
// channel for any; the robust statistics are checked against hand-computed values.
#include "engine/spatial/bad_channel_detection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "engine/core/error.h"
#include "error_message_support.h"

namespace modescope {
namespace {

constexpr double kRate = 256.0;
constexpr std::size_t kRows = 16;
constexpr std::size_t kFlat = 3, kLoud = 7, kHighFrequency = 11, kUnrelated = 14;

SignalBlock syntheticBlock() {
  const int64_t n = static_cast<int64_t>(20 * kRate);
  SignalBlock b;
  b.sampleRate = kRate;
  b.samples = n;
  b.data.resize(kRows * static_cast<std::size_t>(n));
  std::mt19937 rng(12345);
  std::normal_distribution<double> noise(0.0, 1.0);
  const double twoPi = 2.0 * std::numbers::pi;
  for (std::size_t r = 0; r < kRows; ++r) {
    b.channels.push_back(100 + r);
    const double gain = 0.8 + 0.4 * static_cast<double>(r) / (kRows - 1);
    float* x = b.channel(r);
    for (int64_t i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) / kRate;
      double v = 20.0 * std::sin(twoPi * 3.0 * t) + 15.0 * std::sin(twoPi * 7.0 * t + 1.0) +
                 10.0 * std::sin(twoPi * 10.0 * t + 2.0);
      if (r == kUnrelated) {
        v = 20.0 * std::sin(twoPi * 4.5 * t) + 15.0 * std::sin(twoPi * 8.5 * t + 0.3) +
            10.0 * std::sin(twoPi * 12.5 * t + 0.7);
      }
      v = gain * v + 1.0 * noise(rng);
      if (r == kLoud) v *= 10.0;
      if (r == kHighFrequency) v += 8.0 * std::sin(twoPi * 80.0 * t);
      if (r == kFlat) v = 3.0;
      x[i] = static_cast<float>(v);
    }
  }
  return b;
}

bool has(const ChannelQuality& q, BadChannelReason r) {
  return std::find(q.reasons.begin(), q.reasons.end(), r) != q.reasons.end();
}

TEST(BadChannelDetection, SuggestsEachBadChannelForItsReasonAndNoCleanOne) {
  const SignalBlock block = syntheticBlock();
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  const BadChannelReport report = suggestBadChannels(block, {}, *backend, ctx);
  ASSERT_EQ(report.channels.size(), kRows);
  EXPECT_EQ(report.windows, 20);
  EXPECT_TRUE(report.notes.empty());
  for (std::size_t r = 0; r < kRows; ++r) {
    const ChannelQuality& q = report.channels[r];
    EXPECT_EQ(q.channel, 100 + r);
    const std::string why = q.explanation(report.criteria);
    switch (r) {
      case kFlat:
        EXPECT_EQ(q.reasons, std::vector<BadChannelReason>{BadChannelReason::Flat}) << why;
        break;
      case kLoud:
        EXPECT_TRUE(has(q, BadChannelReason::Deviation)) << why;
        EXPECT_FALSE(has(q, BadChannelReason::LowCorrelation)) << why;
        break;
      case kHighFrequency:
        EXPECT_TRUE(has(q, BadChannelReason::HighFrequencyNoise)) << why;
        EXPECT_FALSE(has(q, BadChannelReason::LowCorrelation)) << why;
        break;
      case kUnrelated:
        EXPECT_TRUE(has(q, BadChannelReason::LowCorrelation)) << why;
        EXPECT_FALSE(has(q, BadChannelReason::Deviation)) << why;
        EXPECT_GT(q.lowCorrelationFraction, 0.5);
        break;
      default:
        EXPECT_FALSE(q.suggested()) << "clean channel " << r << ": " << why;
        EXPECT_LT(std::abs(q.deviationZ), 3.0);
        EXPECT_EQ(q.lowCorrelationFraction, 0.0);
    }
  }
  EXPECT_EQ(report.suggested(), (std::vector<std::size_t>{100 + kFlat, 100 + kLoud,
                                                          100 + kHighFrequency, 100 + kUnrelated}));
  // The user is told the thresholds used.
  const auto lines = report.thresholdLines();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[1].find("> 5"), std::string::npos) << lines[1];
  EXPECT_NE(lines[3].find("0.4"), std::string::npos) << lines[3];
  EXPECT_NE(report.channels[kLoud].explanation(report.criteria).find("deviation z"),
            std::string::npos);
}

TEST(BadChannelDetection, ThresholdsChangeTheVerdict) {
  const SignalBlock block = syntheticBlock();
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  BadChannelCriteria lenient;
  lenient.deviationZ = 1000.0;
  lenient.highFrequencyZ = 1000.0;
  lenient.correlationThreshold = 0.01;
  const BadChannelReport report = suggestBadChannels(block, lenient, *backend, ctx);
  EXPECT_EQ(report.suggested(), std::vector<std::size_t>{100 + kFlat});
}

TEST(BadChannelDetection, SkipsTheHighFrequencyCriterionBelowTheCutoffAndSaysSo) {
  SignalBlock block = syntheticBlock();
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  BadChannelCriteria c;
  c.highFrequencyCutoff = 200.0;  // above Nyquist (128 Hz)
  const BadChannelReport report = suggestBadChannels(block, c, *backend, ctx);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("high-frequency criterion skipped"), std::string::npos);
  EXPECT_TRUE(std::isnan(report.channels[0].highFrequencyZ));
}

TEST(BadChannelDetection, SlowDriftIsRemovedBeforeMeasuring) {
  // A DC-coupled amplifier's drift (BioSemi): 0.05 Hz, 40 times the signal, on a clean channel.
  SignalBlock block = syntheticBlock();
  constexpr std::size_t kDrifting = 5;
  float* x = block.channel(kDrifting);
  for (int64_t i = 0; i < block.samples; ++i)
    x[i] += static_cast<float>(
        1500.0 * std::sin(2.0 * std::numbers::pi * 0.05 * static_cast<double>(i) / kRate));
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  const BadChannelReport detrended = suggestBadChannels(block, {}, *backend, ctx);
  EXPECT_FALSE(detrended.channels[kDrifting].suggested())
      << detrended.channels[kDrifting].explanation(detrended.criteria);
  EXPECT_EQ(
      detrended.suggested(),
      (std::vector<std::size_t>{100 + kFlat, 100 + kLoud, 100 + kHighFrequency, 100 + kUnrelated}));
  BadChannelCriteria raw;
  raw.detrendCutoff = 0.0;  // as before pyprep's removeTrend: the drift passes for deviation
  const BadChannelReport measuredRaw = suggestBadChannels(block, raw, *backend, ctx);
  EXPECT_TRUE(has(measuredRaw.channels[kDrifting], BadChannelReason::Deviation));
  EXPECT_NE(measuredRaw.thresholdLines().back().find("without detrending"), std::string::npos);
}

TEST(BadChannelDetection, MatlabQuantileAsPrep) {
  // MATLAB: the sorted values sit at (i - 0.5) / n; linear between, the ends beyond.
  EXPECT_DOUBLE_EQ(matlabQuantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(matlabQuantile({4, 1, 3, 2}, 0.98), 4.0);  // past (4 - 0.5) / 4
  EXPECT_DOUBLE_EQ(matlabQuantile({4, 1, 3, 2}, 0.01), 1.0);
  EXPECT_DOUBLE_EQ(matlabQuantile({1, 2, 3, 4}, 0.75), 3.5);  // position 3.5
  std::vector<double> sixtyFour(64);
  for (std::size_t i = 0; i < 64; ++i) sixtyFour[i] = static_cast<double>(i);
  // 64 x 0.98 + 0.5 = 63.22: between the 63rd (62) and the 64th (63) value.
  EXPECT_NEAR(matlabQuantile(sixtyFour, 0.98), 62.22, 1e-12);
}

TEST(BadChannelDetection, RobustStatisticsByHand) {
  EXPECT_DOUBLE_EQ(medianOf({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(medianOf({4, 1, 3, 2}), 2.5);
  // median 3, |x - 3| = {2, 1, 0, 1, 97} -> MAD 1 -> z = (x - 3) / 1.4826.
  const auto z = robustZScores({1, 2, 3, 4, 100});
  EXPECT_NEAR(z[0], -2.0 / 1.4826, 1e-12);
  EXPECT_NEAR(z[4], 97.0 / 1.4826, 1e-12);
  const auto same = robustZScores({2, 2, 2, 5});
  EXPECT_EQ(same[0], 0.0);
  EXPECT_TRUE(std::isinf(same[3]) && same[3] > 0);
}

TEST(BadChannelDetection, RefusesWhatItCannotMeasure) {
  using test_support::messageOf;
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  SignalBlock block = syntheticBlock();
  BadChannelCriteria c;
  c.correlationWindow = 15.0;
  std::string m =
      messageOf<InvalidParameterError>([&] { suggestBadChannels(block, c, *backend, ctx); });
  EXPECT_NE(m.find("correlationWindow"), std::string::npos) << m;
  c = {};
  c.deviationZ = 0.0;
  m = messageOf<InvalidParameterError>([&] { suggestBadChannels(block, c, *backend, ctx); });
  EXPECT_NE(m.find("deviationZ"), std::string::npos) << m;
  block.channels.resize(2);
  m = messageOf<InvalidParameterError>([&] { suggestBadChannels(block, {}, *backend, ctx); });
  EXPECT_NE(m.find("at least 3 channels"), std::string::npos) << m;
}

}  // namespace
}  // namespace modescope
