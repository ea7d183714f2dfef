// Trigger decoding: closed-form cases (the expected events follow from the rule in
// trigger_channel.h by hand, not from the code under test).
#include "engine/io/trigger_channel.h"

#include <gtest/gtest.h>

#include <vector>

namespace modescope {
namespace {

TriggerCodeReader fromVector(const std::vector<int64_t>& v) {
  return [v](int64_t first, int64_t count, int64_t* out) {
    for (int64_t i = 0; i < count; ++i) out[i] = v[static_cast<std::size_t>(first + i)];
  };
}

TEST(TriggerChannel, EventAtEachChangeToANonZeroCode) {
  // 0 0 5 5 0 7 7 3 0 0 3: changes to non-zero at 2 (5), 5 (7), 7 (3), 10 (3).
  const std::vector<int64_t> codes = {0, 0, 5, 5, 0, 7, 7, 3, 0, 0, 3};
  const auto ev = decodeTriggerEvents(static_cast<int64_t>(codes.size()), fromVector(codes));
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].sample, 2);
  EXPECT_EQ(ev[0].code, 5);
  EXPECT_EQ(ev[1].sample, 5);
  EXPECT_EQ(ev[1].code, 7);
  EXPECT_EQ(ev[2].sample, 7);
  EXPECT_EQ(ev[2].code, 3);
  EXPECT_EQ(ev[3].sample, 10);
}

TEST(TriggerChannel, NonZeroFirstSampleIsAnEvent) {
  const std::vector<int64_t> codes = {9, 9, 0};
  const auto ev = decodeTriggerEvents(3, fromVector(codes));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].sample, 0);
  EXPECT_EQ(ev[0].code, 9);
}

TEST(TriggerChannel, HighBitsOfTheBiosemiStatusWordAreIgnored) {
  // BioSemi status words: bits 16-23 are system state (here CMS/speed bits toggling), the trigger
  // is the low 16 bits. 0xFF980000 as a signed 24-bit read is -6815744.
  const std::vector<int64_t> codes = {-6815744, -6815744 + 128, -6815744 + 128,
                                      -6815744 + 0x10000 + 128, -6815744};
  const auto ev = decodeTriggerEvents(5, fromVector(codes));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].sample, 1);
  EXPECT_EQ(ev[0].code, 128);
}

TEST(TriggerChannel, EventsAcrossPageBoundaries) {
  // 200,000 samples (several 65,536-sample pages): a pulse of code 1 every 1,000 samples.
  std::vector<int64_t> codes(200000, 0);
  for (std::size_t i = 500; i < codes.size(); i += 1000) codes[i] = codes[i + 1] = 1;
  const auto ev = decodeTriggerEvents(static_cast<int64_t>(codes.size()), fromVector(codes));
  ASSERT_EQ(ev.size(), 200u);
  for (std::size_t k = 0; k < ev.size(); ++k)
    EXPECT_EQ(ev[k].sample, 500 + 1000 * static_cast<int64_t>(k));
}

TEST(TriggerChannel, EventCountIsCapped) {
  std::vector<int64_t> codes(2 * kMaxTriggerEvents + 10);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<int64_t>(i % 2);
  bool truncated = false;
  const auto ev =
      decodeTriggerEvents(static_cast<int64_t>(codes.size()), fromVector(codes), &truncated);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(ev.size(), kMaxTriggerEvents);
}

TEST(TriggerChannel, Labels) {
  for (const char* yes : {"Status", "STATUS", " Trigger ", "STI 014", "STI014", "sti 1"}) {
    EXPECT_TRUE(isTriggerChannelLabel(yes)) << yes;
  }
  for (const char* no : {"Fp1", "EEG Status", "STI", "Stim", "STI 01a", "Triggered"}) {
    EXPECT_FALSE(isTriggerChannelLabel(no)) << no;
  }
}

TEST(TriggerChannel, AnnotationsAreAddedSortedAndTheChannelKept) {
  Recording rec;
  ChannelInfo eeg;
  eeg.label = "Fp1";
  eeg.sampleRate = 100;
  eeg.sampleCount = 6;
  ChannelInfo status = eeg;
  status.label = "Status";
  rec.channels = {eeg, status};
  rec.annotations = {{0.035, 0.0, "note"}};
  rec.source = std::make_shared<InMemorySource>(
      std::vector<std::vector<float>>{{1, 2, 3, 4, 5, 6}, {0, 3, 3, 0, 4, 4}});
  addTriggerAnnotations(rec, [&](std::size_t ch) { return physicalTriggerReader(rec, ch, false); });
  ASSERT_EQ(rec.channels.size(), 2u);
  EXPECT_EQ(rec.channels[1].type, ChannelType::STIM);
  ASSERT_EQ(rec.annotations.size(), 3u);
  EXPECT_DOUBLE_EQ(rec.annotations[0].onset, 0.01);
  EXPECT_EQ(rec.annotations[0].text, "trigger 3");
  EXPECT_EQ(rec.annotations[1].text, "note");
  EXPECT_DOUBLE_EQ(rec.annotations[2].onset, 0.04);
  EXPECT_EQ(rec.annotations[2].text, "trigger 4");
}

TEST(TriggerChannel, BdfCodesAreReconstructedFromTheScaling) {
  // A BDF status channel stored with a non-identity scaling: physical = 0.5 * digital + 10.
  Recording rec;
  ChannelInfo status;
  status.label = "Status";
  status.sampleRate = 10;
  status.sampleCount = 3;
  status.digitalMin = -100;
  status.digitalMax = 100;
  status.physicalMin = -40;
  status.physicalMax = 60;
  rec.channels = {status};
  rec.source = std::make_shared<InMemorySource>(std::vector<std::vector<float>>{{10, 12.5f, 10}});
  std::vector<int64_t> codes(3);
  physicalTriggerReader(rec, 0, true)(0, 3, codes.data());
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[1], 5);
  EXPECT_EQ(codes[2], 0);
}

}  // namespace
}  // namespace modescope
