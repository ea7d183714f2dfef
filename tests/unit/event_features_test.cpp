// Event-related features and r^2 (engine/ar/event_features.h): the point-biserial r against
// closed forms and its null distribution, trial segmentation and its refusals, a synthetic
// recording with a known class effect, and the PhysioNet demo recording (T1 vs T2).
#include "engine/ar/event_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/ar/ar_spectrum.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/core/recording.h"
#include "engine/io/recording_io.h"
#include "error_message_support.h"

namespace modescope {
namespace {

// A CPU backend with `threads` workers; the temporary lives until the end of the call it is passed
// to.
std::unique_ptr<ComputeBackend> cpu(int threads) { return makeCpuBackend(threads); }

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// An in-memory recording: channels x samples at fs, with the given annotations.
Recording makeRecording(std::vector<std::vector<float>> data, double fs,
                        std::vector<Annotation> annotations) {
  Recording rec;
  rec.info.format = "synthetic";
  for (std::size_t c = 0; c < data.size(); ++c) {
    ChannelInfo ch;
    ch.label = ch.name = "C" + std::to_string(c);
    ch.type = ChannelType::EEG;
    ch.unit = "uV";
    ch.sampleRate = fs;
    ch.sampleCount = static_cast<int64_t>(data[c].size());
    rec.channels.push_back(ch);
  }
  rec.annotations = std::move(annotations);
  rec.source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

// r^2 is r squared; the tests below check r against exact values.
double r2Of(const std::vector<double>& a, const std::vector<double>& b) {
  const double r = pointBiserialR(a.data(), a.size(), b.data(), b.size());
  return r * r;
}

TEST(EventR2, PerfectlySeparatedConstantFeaturesGiveOne) {
  // Within-class spread 0 and different class means: the label explains all variance.
  EXPECT_NEAR(r2Of({5, 5, 5}, {2, 2, 2, 2}), 1.0, 1e-15);
  EXPECT_NEAR(
      pointBiserialR(std::vector<double>{2, 2}.data(), 2, std::vector<double>{7, 7, 7}.data(), 3),
      -1.0, 1e-15);
}

TEST(EventR2, HandComputedTwoPlusTwo) {
  // A = {1, 3}, B = {0, 0}: mean_A = 2, mean_B = 0, pooled mean 1,
  // s^2 = ((0)^2 + 2^2 + 1 + 1) / 4 = 3/2; r = 2 * sqrt(2 * 2) / (4 * sqrt(3/2)) = sqrt(2/3).
  // Equivalently Pearson's r of x = (1,3,0,0) with y = (1,1,0,0): cov = 1/2, sd_x = sqrt(3/2),
  // sd_y = 1/2. r^2 = 2/3 exactly; a few double operations: 1e-15.
  const double r =
      pointBiserialR(std::vector<double>{1, 3}.data(), 2, std::vector<double>{0, 0}.data(), 2);
  EXPECT_NEAR(r, std::sqrt(2.0 / 3.0), 1e-15);
  EXPECT_NEAR(r2Of({1, 3}, {0, 0}), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(
      pointBiserialR(std::vector<double>{0, 0}.data(), 2, std::vector<double>{1, 3}.data(), 2),
      -std::sqrt(2.0 / 3.0), 1e-15);
  // Unequal sizes, A = {4}, B = {1, 2, 3} (nA = 1 allowed by the statistic itself): pooled mean
  // 2.5, s^2 = (2.25 + 2.25 + 0.25 + 0.25) / 4 = 5/4, r = 2 * sqrt(3) / (4 sqrt(5/4)) =
  // sqrt(3/5).
  EXPECT_NEAR(r2Of({4}, {1, 2, 3}), 0.6, 1e-15);
  // All equal: undefined, reported as 0.
  EXPECT_EQ(r2Of({3, 3}, {3, 3}), 0.0);
}

TEST(EventR2, NullDistributionMeanIsOneOverNMinusOne) {
  // Features independent of the label (both classes drawn from one normal): r^2 ~ Beta(1/2,
  // (n-2)/2), mean 1/(n-1), variance 2(n-2)/((n-1)^2 (n+1)). n = 20 (10 + 10): mean 1/19 =
  // 0.0526, sd 0.068; the mean of 4000 independent features has sd 0.0011, so 5 sd = 0.0054
  // (a false failure has probability < 1e-6; a formula with a wrong scale, e.g. sqrt(nA nB)/n
  // missing or one class's std, misses by far more).
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> normal(3.0, 2.0);
  const int n = 20, features = 4000;
  double sum = 0;
  double maxR2 = 0;
  std::vector<double> a(n / 2), b(n / 2);
  for (int f = 0; f < features; ++f) {
    for (auto& v : a) v = normal(rng);
    for (auto& v : b) v = normal(rng);
    const double r2 = r2Of(a, b);
    sum += r2;
    maxR2 = std::max(maxR2, r2);
  }
  const double mean = sum / features;
  const double expected = 1.0 / (n - 1);
  const double sd = std::sqrt(2.0 * (n - 2) / ((n - 1.0) * (n - 1.0) * (n + 1.0)));
  EXPECT_NEAR(mean, expected, 5 * sd / std::sqrt(static_cast<double>(features)));
  EXPECT_LE(maxR2, 1.0);
}

// Synthetic: 3 channels, fs 160 Hz; 20 trials of "A" and 20 of "B", 3 s each with 1 s rest,
// interleaved. Unit white noise everywhere; class A trials add a 10 Hz sine of amplitude 1 on
// channel 1.
Recording syntheticRecording() {
  const double fs = 160.0;
  const int trials = 40;
  const double trialSeconds = 3.0, period = 4.0;
  const int64_t total = static_cast<int64_t>((trials * period + 1.0) * fs);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<float>> data(3, std::vector<float>(static_cast<std::size_t>(total)));
  for (auto& ch : data)
    for (auto& v : ch) v = static_cast<float>(normal(rng));
  std::vector<Annotation> ann;
  for (int t = 0; t < trials; ++t) {
    const double onset = 0.5 + t * period;
    const bool isA = t % 2 == 0;
    ann.push_back({onset, trialSeconds, isA ? "A" : "B"});
    if (!isA) continue;
    const int64_t first = static_cast<int64_t>(std::llround(onset * fs));
    for (int64_t i = 0; i < static_cast<int64_t>(trialSeconds * fs); ++i)
      data[1][static_cast<std::size_t>(first + i)] += static_cast<float>(
          std::sin(2 * std::numbers::pi * 10.0 * static_cast<double>(i) / fs + 0.3 * t));
  }
  return makeRecording(std::move(data), fs, std::move(ann));
}

// BCI2000 preset with 2 Hz bins centred 2..28 Hz (edges 1, 3, ..., 29), so one bin is 9-11 Hz.
BurgArParams twoHzBins() {
  BurgArParams p = burgArPreset("bci2000");
  p.firstBinCenter = 2.0;
  p.lastBinCenter = 28.0;
  p.binWidth = 2.0;
  return p;
}

TEST(EventR2, SyntheticTenHzEffectOnOneChannel) {
  const Recording rec = syntheticRecording();
  JobContext ctx;
  const EventR2Result r = computeEventR2(rec, {0, 1, 2}, "A", "B", twoHzBins(), {}, *cpu(2), ctx);
  ASSERT_EQ(r.trialsA, 20u);
  ASSERT_EQ(r.trialsB, 20u);
  ASSERT_EQ(r.binCount(), 14u);
  std::size_t bin10 = 0;
  for (std::size_t b = 0; b < r.binCount(); ++b)
    if (std::abs(r.binCenters[b] - 10.0) < 1e-9) bin10 = b;
  ASSERT_NEAR(r.binCenters[bin10], 10.0, 1e-9);
  // 3 s trials, 0.5 s windows every 50 ms: floor((480 - 80) / 8) + 1 = 51 windows.
  for (auto w : r.featuresA.windowsPerTrial) EXPECT_EQ(w, 51);
  // Step 2 independently: trial 3 of B, its segment read by hand (onset 0.5 + 7 * 4 = 28.5 s,
  // sample 4560, 480 samples), the AR rows averaged here. Float rows summed in double in both:
  // 1e-9 relative.
  {
    SignalBlock block;
    block.channels = {0, 1, 2};
    block.sampleRate = 160.0;
    block.firstSample = 4560;
    block.samples = 480;
    for (std::size_t c = 0; c < 3; ++c) {
      const auto x = rec.readChannel(c, 4560, 480);
      block.data.insert(block.data.end(), x.begin(), x.end());
    }
    ASSERT_EQ(r.featuresB.trials[3].firstSample, 4560);
    JobContext plain;
    const ArSpectrumResult ar = computeArSpectraCpu(block, twoHzBins(), 1, plain);
    ASSERT_EQ(ar.windowCount(), 51u);
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t b = 0; b < r.binCount(); ++b) {
        double sum = 0;
        for (std::size_t w = 0; w < ar.windowCount(); ++w) sum += ar.row(c, w)[b];
        const double expected = sum / static_cast<double>(ar.windowCount());
        EXPECT_NEAR(r.featuresB.at(3, c, b), expected, 1e-9 * expected);
      }
  }

  double best = -1;
  std::size_t bestC = 99, bestB = 99;
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t b = 0; b < r.binCount(); ++b) {
      const double v = r.r2[r.index(c, b)];
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, 0.0);
      ASSERT_LE(v, 1.0);
      if (v > best) best = v, bestC = c, bestB = b;
    }
  EXPECT_EQ(bestC, 1u);
  EXPECT_EQ(bestB, bin10);
  EXPECT_GT(best, 0.8);
  EXPECT_GT(r.signedR2[r.index(1, bin10)], 0.8);  // class A has the larger power
  EXPECT_GT(r.meanA[r.index(1, bin10)], 3 * r.meanB[r.index(1, bin10)]);
  // Channels without an effect: under the null r^2 ~ Beta(1/2, 19) (n = 40); P(r^2 > 0.35) is
  // about 6e-5 per feature (t = 4.5 with 38 df), so over 30 features a false alarm has < 0.2 %
  // chance. Channel 1's other bins are not under the null: a Burg model that spends poles on the
  // sine lowers its spectrum elsewhere (measured: class A power at 16 Hz 0.0086 vs B 0.0133,
  // r^2 0.41), so there only the maximum at 10 Hz is checked above.
  for (std::size_t c : {0u, 2u})
    for (std::size_t b = 0; b < r.binCount(); ++b)
      EXPECT_LT(r.r2[r.index(c, b)], 0.35) << "channel " << c << " bin " << r.binCenters[b];
}

TEST(EventR2, TrialsOutsideTheRecordingOrInAGapAreSkipped) {
  Recording rec = syntheticRecording();
  const double end = rec.duration();
  rec.annotations.push_back({end - 1.0, 3.0, "A"});  // runs past the end
  rec.annotations.push_back({-0.2, 3.0, "B"});       // moved before the start by the onset
  Diagnostics diag;
  EventFeatureOptions opt;
  opt.gaps.push_back({4.5 + 1.0, 0.5});  // inside the second trial (B at 4.5 s)
  const auto a = trialSegments(rec, {0, 1}, "A", opt, diag);
  const auto b = trialSegments(rec, {0, 1}, "B", opt, diag);
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(b.size(), 19u);
  int outside = 0, gap = 0;
  for (const auto& d : diag) {
    outside += d.code == "events.trialOutsideRecording";
    gap += d.code == "events.trialOverlapsGap";
  }
  EXPECT_EQ(outside, 2);
  EXPECT_EQ(gap, 1);
  // Offset and length: the segment follows them, in samples at 160 Hz.
  opt.gaps.clear();
  opt.offsetSeconds = 0.5;
  opt.lengthSeconds = 1.0;
  const auto shifted = trialSegments(rec, {0}, "A", opt, diag);
  EXPECT_EQ(shifted.front().firstSample, 160);  // (0.5 + 0.5) s * 160
  EXPECT_EQ(shifted.front().samples, 160);
}

TEST(EventR2, ClearErrors) {
  const Recording rec = syntheticRecording();
  JobContext ctx;
  const BurgArParams p = twoHzBins();
  const std::string unknown = test_support::messageOf<InvalidParameterError>(
      [&] { computeEventR2(rec, {0}, "T9", "B", p, {}, *cpu(1), ctx); });
  EXPECT_TRUE(contains(unknown, "T9") && contains(unknown, "'A'") && contains(unknown, "'B'"))
      << unknown;

  Recording few = syntheticRecording();
  few.annotations.erase(std::remove_if(few.annotations.begin(), few.annotations.end(),
                                       [](const Annotation& a) { return a.text == "B"; }),
                        few.annotations.end());
  few.annotations.push_back({4.5, 3.0, "B"});
  few.annotations.push_back({200.0, 3.0, "B"});  // past the end: skipped
  const std::string one = test_support::messageOf<InvalidParameterError>(
      [&] { computeEventR2(few, {0}, "A", "B", p, {}, *cpu(1), ctx); });
  EXPECT_TRUE(contains(one, "'B'") && contains(one, "1 usable trial") &&
              contains(one, "2 annotation") && contains(one, "1 skipped") &&
              contains(one, "at least 2"))
      << one;

  EventFeatureOptions shortTrials;
  shortTrials.lengthSeconds = 0.3;  // the window is 0.5 s = 80 samples
  const std::string tooShort = test_support::messageOf<InvalidParameterError>(
      [&] { computeEventR2(rec, {0}, "A", "B", p, shortTrials, *cpu(1), ctx); });
  EXPECT_TRUE(contains(tooShort, "0.5 s") && contains(tooShort, "80 samples")) << tooShort;

  BurgArParams coeffs = p;
  coeffs.output = ArOutput::Coefficients;
  EXPECT_TRUE(contains(test_support::messageOf<InvalidParameterError>(
                           [&] { computeEventR2(rec, {0}, "A", "B", coeffs, {}, *cpu(1), ctx); }),
                       "output"));
  EXPECT_TRUE(contains(test_support::messageOf<InvalidParameterError>(
                           [&] { computeEventR2(rec, {0}, "A", "A", p, {}, *cpu(1), ctx); }),
                       "different"));
  EXPECT_TRUE(contains(test_support::messageOf<InvalidParameterError>(
                           [&] { computeEventR2(rec, {}, "A", "B", p, {}, *cpu(1), ctx); }),
                       "channel"));
  EXPECT_TRUE(contains(test_support::messageOf<InvalidParameterError>(
                           [&] { computeEventR2(rec, {7}, "A", "B", p, {}, *cpu(1), ctx); }),
                       "7"));
}

TEST(EventR2, CancelStopsTheComputation) {
  const Recording rec = syntheticRecording();
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(computeEventR2(rec, {0, 1}, "A", "B", twoHzBins(), {}, *cpu(1), ctx), Cancelled);
}

TEST(EventR2, PhysioNetDemoT1VersusT2) {
  const auto rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  ASSERT_EQ(rec->channelCount(), 64u);
  // Expected trial counts from the annotations themselves: those of each text whose
  // [onset, onset + duration) lies inside the recording.
  std::size_t n1 = 0, n2 = 0;
  for (const auto& a : rec->annotations) {
    const bool inside = a.onset >= 0 && a.onset + a.duration <= rec->duration() + 1e-9;
    n1 += a.text == "T1" && inside;
    n2 += a.text == "T2" && inside;
  }
  ASSERT_GE(n1, 2u);
  ASSERT_GE(n2, 2u);
  std::vector<std::size_t> all(64);
  for (std::size_t c = 0; c < 64; ++c) all[c] = c;
  JobContext ctx;
  const EventR2Result r =
      computeEventR2(*rec, all, "T1", "T2", burgArPreset("bci2000"), {}, *cpu(2), ctx);
  EXPECT_EQ(r.trialsA, n1);
  EXPECT_EQ(r.trialsB, n2);
  ASSERT_EQ(r.channelCount(), 64u);
  ASSERT_EQ(r.binCount(), 11u);  // bci2000: centres 0..30 Hz every 3 Hz
  ASSERT_EQ(r.r2.size(), 64u * 11u);
  std::size_t positive = 0;
  for (std::size_t k = 0; k < r.r2.size(); ++k) {
    ASSERT_TRUE(std::isfinite(r.r2[k])) << k;
    ASSERT_GE(r.r2[k], 0.0);
    ASSERT_LE(r.r2[k], 1.0);
    EXPECT_NEAR(std::abs(r.signedR2[k]), r.r2[k], 1e-15);
    ASSERT_TRUE(std::isfinite(r.meanA[k]) && r.meanA[k] >= 0);
    ASSERT_TRUE(std::isfinite(r.meanB[k]) && r.meanB[k] >= 0);
    positive += r.r2[k] > 0;
  }
  // Real EEG: no feature is exactly equal across all trials.
  EXPECT_EQ(positive, r.r2.size());
}

}  // namespace
}  // namespace modescope
