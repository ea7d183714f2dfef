// IMF-based cleaning (app/core/emd_cleaning.h). Oracles: modes built from closed-form signals
// (sines, a ramp, a constant), so the cleaned samples are known without the code under test; the
// samples outside the decomposed channels and range must come back bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "app/core/emd_cleaning.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

constexpr double kRate = 100.0;
constexpr int64_t kLength = 100;   // samples per channel
constexpr int64_t kFirst = 20;     // decomposed range [20, 70)
constexpr int64_t kSamples = 50;

double fast(int64_t n) { return 10.0 * std::sin(2 * std::numbers::pi * 0.23 * n); }
double slow(int64_t n) { return 3.0 * std::sin(2 * std::numbers::pi * 0.031 * n); }
double trend(int64_t n) { return 0.5 + 0.01 * n; }

// Channel `ch` of the recording holds, at sample n, ch * 1000 + n (so every value is distinct);
// inside the decomposed range of channel 1 it holds fast + slow + trend.
std::shared_ptr<const Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data(3);
  const char* names[] = {"Fp1", "Cz", "O2"};
  for (int ch = 0; ch < 3; ++ch) {
    ChannelInfo c;
    c.name = c.label = names[ch];
    c.unit = "uV";
    c.sampleRate = kRate;
    c.sampleCount = kLength;
    rec->channels.push_back(c);
    for (int64_t n = 0; n < kLength; ++n) data[ch].push_back(static_cast<float>(ch * 1000 + n));
  }
  for (int64_t n = kFirst; n < kFirst + kSamples; ++n) {
    data[1][n] = static_cast<float>(fast(n) + slow(n) + trend(n));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

EmdChannelModes closedFormModes(std::size_t channel) {
  EmdChannelModes m;
  m.channel = channel;
  m.rows = 3;
  for (auto f : {fast, slow, trend}) {
    for (int64_t n = kFirst; n < kFirst + kSamples; ++n) m.data.push_back(static_cast<float>(f(n)));
  }
  return m;
}

EmdResult makeModes() {
  EmdResult r;
  r.sampleRate = kRate;
  r.firstSample = kFirst;
  r.samples = kSamples;
  r.channels.push_back(closedFormModes(1));
  return r;
}

// Each row is rounded to float once; the sum of two or three such rows in double, rounded once,
// differs from the exact value by at most a few float ulps of the largest row (|x| <= 14).
constexpr double kFloatSumTolerance = 4 * 14.0 * 1.2e-7;

TEST(EmdCleaning, SumKeptRowsMatchesTheClosedForm) {
  const EmdChannelModes m = closedFormModes(0);
  const std::vector<float> noFast = sumKeptRows(m, kSamples, {0});
  const std::vector<float> onlySlow = sumKeptRows(m, kSamples, {0, 2});
  const std::vector<float> all = sumKeptRows(m, kSamples, {});
  const std::vector<float> ignoresBadRows = sumKeptRows(m, kSamples, {-1, 3, 99});
  ASSERT_EQ(noFast.size(), static_cast<std::size_t>(kSamples));
  for (int64_t i = 0; i < kSamples; ++i) {
    const int64_t n = kFirst + i;
    EXPECT_NEAR(noFast[i], slow(n) + trend(n), kFloatSumTolerance) << i;
    EXPECT_NEAR(onlySlow[i], slow(n), kFloatSumTolerance) << i;
    EXPECT_NEAR(all[i], fast(n) + slow(n) + trend(n), kFloatSumTolerance) << i;
    EXPECT_EQ(ignoresBadRows[i], all[i]) << i;
  }
}

TEST(EmdCleaning, ReplacesOnlyTheDecomposedChannelsAndRange) {
  const auto rec = makeRecording();
  EmdCleaning c;
  c.dropImfs = {1};
  const CleanedRecording out = cleanWithModes(rec, makeModes(), c);
  ASSERT_TRUE(out.recording);
  EXPECT_TRUE(out.notes.empty());
  ASSERT_EQ(out.recording->channelCount(), 3u);
  for (std::size_t ch = 0; ch < 3; ++ch) {
    const std::vector<float> before = rec->readChannel(ch, 0, kLength);
    const std::vector<float> after = out.recording->readChannel(ch, 0, kLength);
    ASSERT_EQ(after.size(), static_cast<std::size_t>(kLength));
    for (int64_t n = 0; n < kLength; ++n) {
      const bool replaced = ch == 1 && n >= kFirst && n < kFirst + kSamples;
      if (replaced) {
        EXPECT_NEAR(after[n], slow(n) + trend(n), kFloatSumTolerance) << n;
      } else {
        EXPECT_EQ(after[n], before[n]) << "channel " << ch << " sample " << n;
      }
    }
  }
  // Reads that straddle the range's edges see both parts.
  const std::vector<float> edge = out.recording->readChannel(1, kFirst - 3, 6);
  EXPECT_EQ(edge[0], 1000.0f + (kFirst - 3));
  EXPECT_EQ(edge[2], 1000.0f + (kFirst - 1));
  EXPECT_NEAR(edge[3], slow(kFirst) + trend(kFirst), kFloatSumTolerance);
  const std::vector<float> tail = out.recording->readChannel(1, kFirst + kSamples - 2, 4);
  EXPECT_NEAR(tail[1], slow(kFirst + kSamples - 1) + trend(kFirst + kSamples - 1),
              kFloatSumTolerance);
  EXPECT_EQ(tail[2], 1000.0f + (kFirst + kSamples));
  // What was done is said.
  bool said = false;
  for (const auto& d : out.recording->diagnostics) said = said || d.code == "emd.cleaned";
  EXPECT_TRUE(said);
}

TEST(EmdCleaning, ResidueCanBeDroppedToo) {
  const auto rec = makeRecording();
  EmdCleaning c;
  c.dropResidue = true;
  const CleanedRecording out = cleanWithModes(rec, makeModes(), c);
  const std::vector<float> x = out.recording->readChannel(1, kFirst, kSamples);
  for (int64_t i = 0; i < kSamples; ++i) {
    EXPECT_NEAR(x[i], fast(kFirst + i) + slow(kFirst + i), kFloatSumTolerance) << i;
  }
  EXPECT_EQ(describeCleaning(c), "the residue");
  c.dropImfs = {2, 1};
  EXPECT_EQ(describeCleaning(c), "IMF 1, IMF 2 and the residue");
}

TEST(EmdCleaning, ImfNumbersBeyondAChannelsCountAreSkippedWithANote) {
  const auto rec = makeRecording();
  EmdCleaning c;
  c.dropImfs = {1, 5};
  const CleanedRecording out = cleanWithModes(rec, makeModes(), c);
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("Cz"), std::string::npos) << out.notes[0];
  EXPECT_NE(out.notes[0].find("IMF 5"), std::string::npos) << out.notes[0];
  const std::vector<float> x = out.recording->readChannel(1, kFirst, kSamples);
  EXPECT_NEAR(x[0], slow(kFirst) + trend(kFirst), kFloatSumTolerance);
}

TEST(EmdCleaning, RefusesNothingToDropAndModesThatDoNotFit) {
  const auto rec = makeRecording();
  EXPECT_THROW(cleanWithModes(rec, makeModes(), EmdCleaning{}), InvalidParameterError);
  EmdCleaning c;
  c.dropImfs = {0};
  EXPECT_THROW(cleanWithModes(rec, makeModes(), c), InvalidParameterError);
  c.dropImfs = {1};
  EmdResult m = makeModes();
  m.channels[0].channel = 3;
  EXPECT_THROW(cleanWithModes(rec, m, c), InvalidParameterError);
  m = makeModes();
  m.firstSample = kLength - kSamples + 1;
  EXPECT_THROW(cleanWithModes(rec, m, c), InvalidParameterError);
  m = makeModes();
  m.sampleRate = 2 * kRate;
  EXPECT_THROW(cleanWithModes(rec, m, c), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
