// checkSelection (app/core/recording_selection.h), the one check every method job and the command
// line make on a Selection: which parameter each refusal names, that the message says the value
// found and what is allowed, and the rate and sample count it hands back (extractBlock's
// rounding).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

// Three channels at 100 Hz (Fz 1000 samples, Cz 1000, Pz 900) and one at 50 Hz (Resp, 500).
std::shared_ptr<Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  const char* names[] = {"Fz", "Cz", "Pz", "Resp"};
  const double rates[] = {100.0, 100.0, 100.0, 50.0};
  const int64_t counts[] = {1000, 1000, 900, 500};
  std::vector<std::vector<float>> data;
  for (int c = 0; c < 4; ++c) {
    ChannelInfo ch;
    ch.name = ch.label = names[c];
    ch.sampleRate = rates[c];
    ch.sampleCount = counts[c];
    rec->channels.push_back(ch);
    data.emplace_back(static_cast<std::size_t>(counts[c]), 0.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

// The refusal's parameter and message, or "(accepted)".
struct Refusal {
  std::string parameter, message;
};
Refusal refusalOf(const Recording& rec, const Selection& s, const SelectionNeeds& needs = {}) {
  try {
    checkSelection(rec, s, needs);
  } catch (const InvalidParameterError& e) {
    return {e.parameter(), e.what()};
  }
  return {"(accepted)", ""};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SelectionCheck, GivesTheRateAndTheSamplesExtractBlockWillCut) {
  const auto rec = makeRecording();
  CheckedSelection c = checkSelection(*rec, Selection{{0, 1}, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(c.sampleRate, 100.0);
  EXPECT_EQ(c.samples, 300);
  // To the end: the shortest channel (Pz, 900 samples) ends the range.
  c = checkSelection(*rec, Selection{{0, 2}, 2.0, -1.0});
  EXPECT_EQ(c.samples, 700);
  // A duration past the end is cut there (the time-range note says so elsewhere).
  c = checkSelection(*rec, Selection{{1}, 9.0, 600.0});
  EXPECT_EQ(c.samples, 100);
  // Rounded as extractBlock rounds: first round(2.004 * 100) = 200, round(0.996 * 100) = 100.
  c = checkSelection(*rec, Selection{{1}, 2.004, 0.996});
  EXPECT_EQ(c.samples, 100);
}

TEST(SelectionCheck, RefusesTooFewChannelsWithTheMethodsReason) {
  const auto rec = makeRecording();
  Refusal r = refusalOf(*rec, Selection{{}, 0.0, -1.0});
  EXPECT_EQ(r.parameter, "channels");
  EXPECT_TRUE(contains(r.message, "got none")) << r.message;
  EXPECT_TRUE(contains(r.message, "at least 1 channel")) << r.message;
  r = refusalOf(*rec, Selection{{0}, 0.0, -1.0}, {2, "ICA unmixes several channels", ""});
  EXPECT_EQ(r.parameter, "channels");
  EXPECT_TRUE(contains(r.message, "got 1 channel(s)")) << r.message;
  EXPECT_TRUE(contains(r.message, "at least 2 channels (ICA unmixes several channels)"))
      << r.message;
  EXPECT_EQ(refusalOf(*rec, Selection{{0, 1}, 0.0, -1.0}, {2, "", ""}).parameter, "(accepted)");
}

TEST(SelectionCheck, RefusesAChannelTheRecordingLacksCountingFromOne) {
  const auto rec = makeRecording();
  const Refusal r = refusalOf(*rec, Selection{{0, 7}, 0.0, -1.0});
  EXPECT_EQ(r.parameter, "channels");
  EXPECT_TRUE(contains(r.message, "got channel 8")) << r.message;
  EXPECT_TRUE(contains(r.message, "1..4")) << r.message;
}

TEST(SelectionCheck, RefusesMixedRatesNamingAChannelAtEach) {
  const auto rec = makeRecording();
  const Refusal r = refusalOf(*rec, Selection{{0, 3}, 0.0, -1.0});
  EXPECT_EQ(r.parameter, "channels");
  EXPECT_TRUE(contains(r.message, "Fz at 100 Hz")) << r.message;
  EXPECT_TRUE(contains(r.message, "Resp at 50 Hz")) << r.message;
  EXPECT_TRUE(contains(r.message, "one sample rate")) << r.message;
}

TEST(SelectionCheck, RefusesANonPositiveRate) {
  auto rec = makeRecording();
  rec->channels[1].sampleRate = 0.0;
  EXPECT_EQ(refusalOf(*rec, Selection{{1}, 0.0, -1.0}).parameter, "channels");
}

TEST(SelectionCheck, RefusesAStartOutsideTheRecording) {
  const auto rec = makeRecording();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double start : {-0.5, 10.0, 12.0, nan}) {
    const Refusal r = refusalOf(*rec, Selection{{0}, start, -1.0});
    EXPECT_EQ(r.parameter, "start") << start;
    EXPECT_TRUE(contains(r.message, "0 to 10 s")) << r.message;
  }
  EXPECT_EQ(refusalOf(*rec, Selection{{0}, 9.99, -1.0}).parameter, "(accepted)");
}

TEST(SelectionCheck, RefusesADurationThatHoldsNoSample) {
  const auto rec = makeRecording();
  const double inf = std::numeric_limits<double>::infinity();
  for (double duration : {0.0, inf, 0.004}) {
    EXPECT_EQ(refusalOf(*rec, Selection{{0}, 1.0, duration}).parameter, "duration") << duration;
  }
  // Pz ends at 9 s: from 9.5 s on, a selection with it holds nothing.
  const Refusal r = refusalOf(*rec, Selection{{0, 2}, 9.5, -1.0});
  EXPECT_EQ(r.parameter, "duration");
  EXPECT_TRUE(contains(r.message, "at least one sample")) << r.message;
}

}  // namespace
}  // namespace modescope
