// Epoching, averaging and spectra (engine/epochs) on recordings whose every sample is known, so
// each number below is computed by hand from the construction.
#include "engine/epochs/epochs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/epochs/epoch_average.h"
#include "engine/epochs/epoch_params.h"
#include "engine/epochs/epoch_spectra.h"

namespace modescope {
namespace {

constexpr double kRate = 100.0;

// Two channels, 20 s at 100 Hz. Channel 0 is 10 + (sample index mod 7) (a known ramp on an
// offset); channel 1 is -5 everywhere except for the events' responses added below.
std::shared_ptr<Recording> makeRecording(const std::vector<Annotation>& annotations) {
  const int64_t n = 2000;
  std::vector<std::vector<float>> data(2, std::vector<float>(static_cast<std::size_t>(n)));
  for (int64_t i = 0; i < n; ++i) {
    data[0][i] = 10.0f + static_cast<float>(i % 7);
    data[1][i] = -5.0f;
  }
  auto rec = std::make_shared<Recording>();
  for (const char* name : {"Cz", "Pz"}) {
    ChannelInfo c;
    c.label = c.name = name;
    c.type = ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = kRate;
    c.sampleCount = n;
    rec->channels.push_back(c);
  }
  // A response of amplitude `a` on channel 1 from 0.1 to 0.2 s after each event ("A": 2, "B": 6,
  // and the third "A" gets 4 so the A epochs differ).
  int aIndex = 0;
  for (const Annotation& ann : annotations) {
    const auto s = static_cast<int64_t>(std::llround(ann.onset * kRate));
    float amp = ann.text == "A" ? (aIndex++ == 2 ? 4.0f : 2.0f) : ann.text == "B" ? 6.0f : 0.0f;
    if (ann.text == "spike") amp = 500.0f;
    for (int64_t i = s + 10; i <= s + 20 && i < n; ++i) data[1][i] += amp;
  }
  rec->annotations = annotations;
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

EpochSpec spec(std::vector<std::string> types) {
  EpochSpec s;
  s.channels = {0, 1};
  s.eventTypes = std::move(types);
  return s;
}

TEST(EpochParams, WindowFollowsMneRounding) {
  EpochParams p;  // -0.2 .. 0.5 s, baseline -0.2 .. 0
  const EpochWindow w = epochWindow(p, kRate);
  EXPECT_EQ(w.first, -20);
  EXPECT_EQ(w.last, 50);
  EXPECT_EQ(w.samples(), 71);
  EXPECT_EQ(w.baselineFirst, 0);
  EXPECT_EQ(w.baselineLast, 20);  // t = 0 is included
  p.baselineStart = -0.1;
  p.baselineEnd = -0.05;
  const EpochWindow v = epochWindow(p, kRate);
  EXPECT_EQ(v.baselineFirst, 10);
  EXPECT_EQ(v.baselineLast, 15);
}

TEST(EpochParams, RefusesWindowsAndBaselinesThatCannotWork) {
  EpochParams p;
  p.tmin = 0.5;
  p.tmax = 0.1;
  try {
    validateEpochParams(p);
    FAIL() << "tmin above tmax accepted";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("tmin"), std::string::npos) << e.what();
  }
  p = EpochParams{};
  p.baselineStart = -0.5;  // before the window
  EXPECT_THROW(validateEpochParams(p), InvalidParameterError);
  p.baseline = false;  // the baseline fields no longer apply
  EXPECT_NO_THROW(validateEpochParams(p));
  p = EpochParams{};
  p.rejectPeakToPeak = -1;
  EXPECT_THROW(validateEpochParams(p), InvalidParameterError);
  p = EpochParams{};
  p.confidence = 1.0;
  EXPECT_THROW(validateEpochParams(p), InvalidParameterError);
}

TEST(EpochParams, ConfidenceQuantiles) {
  EXPECT_NEAR(confidenceZ(0.95), 1.959963985, 1e-8);
  EXPECT_NEAR(confidenceZ(0.99), 2.575829304, 1e-8);
  EXPECT_NEAR(confidenceZ(0.6826894921), 1.0, 1e-8);
}

TEST(Epochs, BaselineIsRemovedAndResponsesStay) {
  auto rec = makeRecording({{2.0, 0, "A"}, {5.0, 0, "B"}, {8.0, 0, "A"}, {11.0, 0, "A"}});
  JobContext ctx;
  const EpochSet set = extractEpochs(*rec, spec({"A", "B"}), ctx);
  ASSERT_EQ(set.epochCount(), 4u);
  EXPECT_EQ(set.keptCount(0), 3u);
  EXPECT_EQ(set.keptCount(1), 1u);
  EXPECT_EQ(set.samples, 71);
  EXPECT_DOUBLE_EQ(set.time(0), -0.2);
  // Channel 1: -5 in the baseline, so after correction 0 there and the amplitude in the response.
  const float* b = set.row(1, 1);  // the B epoch
  EXPECT_NEAR(b[0], 0.0, 1e-5);
  EXPECT_NEAR(b[20 + 15], 6.0, 1e-5);  // 0.15 s
  EXPECT_NEAR(b[20 + 25], 0.0, 1e-5);  // 0.25 s
  // Channel 0: the baseline mean of the ramp is removed, each epoch's mean over -0.2..0 is 0.
  for (std::size_t e = 0; e < set.epochCount(); ++e) {
    double m = 0;
    for (int i = 0; i <= 20; ++i) m += set.row(e, 0)[i];
    EXPECT_NEAR(m / 21.0, 0.0, 1e-5);
  }
}

TEST(Epochs, AveragesAndStandardErrorsByHand) {
  auto rec = makeRecording({{2.0, 0, "A"}, {5.0, 0, "B"}, {8.0, 0, "A"}, {11.0, 0, "A"}});
  JobContext ctx;
  EpochSpec s = spec({"A", "B"});
  s.params.confidence = 0.95;
  const EpochSet set = extractEpochs(*rec, s, ctx);
  auto cpu = makeCpuBackend(1);
  const EpochAverages avg = cpu->averageEpochs(set, ctx);
  ASSERT_EQ(avg.counts, (std::vector<int64_t>{3, 1}));
  const std::size_t i = 20 + 15;  // inside the response
  // A: responses 2, 2, 4 -> mean 8/3, SD sqrt(((2-8/3)^2*2 + (4-8/3)^2) / 2) = sqrt(4/3)
  EXPECT_NEAR(avg.mean[avg.offset(0, 1) + i], 8.0 / 3.0, 1e-9);
  EXPECT_NEAR(avg.standardError[avg.offset(0, 1) + i], std::sqrt(4.0 / 3.0) / std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(avg.mean[avg.offset(1, 1) + i], 6.0, 1e-9);
  EXPECT_TRUE(std::isnan(avg.standardError[avg.offset(1, 1) + i]));  // one epoch: no SE
  const DifferenceWave d = differenceWave(avg, "B", "A");
  EXPECT_EQ(d.name, "B - A");
  EXPECT_NEAR(d.mean[1 * 71 + i], 6.0 - 8.0 / 3.0, 1e-9);
  EXPECT_EQ(parseDifference(avg, "A-B"), (std::pair<std::string, std::string>{"A", "B"}));
  EXPECT_THROW(parseDifference(avg, "A-C"), InvalidParameterError);
  // The same with the grouping the GPU uses.
  const EpochGroups g = groupEpochs(set);
  EXPECT_EQ(g.order, (std::vector<int32_t>{0, 2, 3, 1}));
  EXPECT_EQ(g.offsets, (std::vector<int32_t>{0, 3, 4}));
}

TEST(Epochs, RejectsByPeakToPeakBadSegmentsAndEdges) {
  auto rec = makeRecording({{0.1, 0, "A"},           // window starts before the recording
                            {3.0, 0, "A"},           // kept
                            {6.0, 0, "spike"},       // not an epoched type, but a 500 uV burst
                            {6.0, 0, "A"},           // carries the burst: peak-to-peak > 100
                            {9.0, 0.5, "BAD_move"},  // a bad segment from 9 to 9.5 s
                            {9.6, 0, "A"},           // window 9.4..10.1 overlaps it
                            {19.8, 0, "A"}});        // window ends after the recording
  JobContext ctx;
  EpochSpec s = spec({"A"});
  s.params.rejectPeakToPeak = 100.0;
  s.badSegments = badSegmentsFromAnnotations(*rec);
  ASSERT_EQ(s.badSegments.size(), 1u);
  const EpochSet set = extractEpochs(*rec, s, ctx);
  ASSERT_EQ(set.log.size(), 5u);
  EXPECT_EQ(set.log[0].fate, EpochFate::OutsideData);
  EXPECT_EQ(set.log[1].fate, EpochFate::Kept);
  EXPECT_EQ(set.log[2].fate, EpochFate::PeakToPeak);
  EXPECT_EQ(set.log[2].channel, "Pz");
  EXPECT_NEAR(set.log[2].peakToPeak, 504.0, 1e-3);  // the burst plus this A's response, 4
  EXPECT_EQ(set.log[3].fate, EpochFate::BadSegment);
  EXPECT_EQ(set.log[4].fate, EpochFate::OutsideData);
  EXPECT_EQ(set.epochCount(), 1u);
  // Without the rules both middle epochs come back.
  s.params.rejectPeakToPeak = 0.0;
  s.params.rejectBadSegments = false;
  EXPECT_EQ(extractEpochs(*rec, s, ctx).epochCount(), 3u);
}

TEST(Epochs, ErrorsNameWhatTheRecordingHas) {
  auto rec = makeRecording({{2.0, 0, "T1"}, {5.0, 0, "T2"}});
  JobContext ctx;
  try {
    extractEpochs(*rec, spec({"T3"}), ctx);
    FAIL() << "unknown event type accepted";
  } catch (const InvalidParameterError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'T3'"), std::string::npos) << m;
    EXPECT_NE(m.find("'T1' (1)"), std::string::npos) << m;
  }
  EpochSpec s = spec({"T1"});
  s.params.rejectPeakToPeak = 1e-6;  // every epoch dropped
  try {
    extractEpochs(*rec, s, ctx);
    FAIL() << "an empty set accepted";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("1 peak-to-peak"), std::string::npos) << e.what();
  }
}

TEST(EpochSpectra, SineHasItsPowerAtItsFrequency) {
  // 10 Hz sine of amplitude 2 on channel 0: density peak at 10 Hz, total power = A^2 / 2 = 2.
  SignalBlock block;
  block.channels = {0};
  block.sampleRate = kRate;
  block.samples = 1000;
  for (int i = 0; i < 1000; ++i)
    block.data.push_back(
        static_cast<float>(2.0 * std::sin(2 * std::numbers::pi * 10.0 * i / kRate)));
  Recording rec;
  rec.channels.resize(1);
  rec.channels[0].name = "Cz";
  SpectrumParams p;
  p.segmentLength = 200;
  const ChannelSpectra s = blockSpectra(rec, block, p);
  ASSERT_EQ(s.bins(), 101u);
  std::size_t peak = 0;
  double total = 0;
  for (std::size_t k = 0; k < s.bins(); ++k) {
    if (s.meanPower[k] > s.meanPower[peak]) peak = k;
    total += s.meanPower[k] * s.binHz;
  }
  EXPECT_NEAR(s.frequency(peak), 10.0, 1e-9);
  EXPECT_NEAR(total, 2.0, 0.02);
  p.maxFrequency = 20;
  EXPECT_EQ(blockSpectra(rec, block, p).bins(), 41u);
}

}  // namespace
}  // namespace modescope
