// The plausibility check of samples at open (engine/io/sample_plausibility.h) on in-memory
// recordings: clean sines pass; pinned, out-of-range and jumping channels are told apart, and a
// single bad record is not called damage. The real files (and a real file shifted by a byte) are
// checked in tests/integration/sample_plausibility_files_test.cpp.
#include "engine/io/sample_plausibility.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace modescope {
namespace {

// An in-memory recording of `channels` EEG channels of a 10 uV sine at 100 Hz, 20 s, range
// +-500 uV over 16 bits; `edit` changes samples of channel c.
Recording sineRecording(int channels, const std::function<void(int, std::vector<float>&)>& edit) {
  Recording rec;
  std::vector<std::vector<float>> data;
  for (int c = 0; c < channels; ++c) {
    ChannelInfo info;
    info.name = info.label = "E" + std::to_string(c + 1);
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = 100;
    info.sampleCount = 2000;
    info.physicalMin = -500;
    info.physicalMax = 500;
    info.digitalMin = -32768;
    info.digitalMax = 32767;
    rec.channels.push_back(info);
    std::vector<float> x(2000);
    for (int i = 0; i < 2000; ++i)
      x[static_cast<std::size_t>(i)] = static_cast<float>(10 * std::sin(0.3 * i + c));
    edit(c, x);
    data.push_back(std::move(x));
  }
  rec.source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

TEST(SamplePlausibility, CleanSinesPass) {
  const Recording rec = sineRecording(8, [](int, std::vector<float>&) {});
  const PlausibilityReport r = checkSamplePlausibility(rec);
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(r.recordsChecked, 20);
  EXPECT_EQ(r.channelsChecked, 8);
}

TEST(SamplePlausibility, PinnedChannelIsNamedNotTheFile) {
  const Recording rec = sineRecording(8, [](int c, std::vector<float>& x) {
    if (c == 2) std::fill(x.begin(), x.end(), 500.0f);  // saturated at the physical maximum
  });
  const PlausibilityReport r = checkSamplePlausibility(rec);
  EXPECT_EQ(r.damagedFromRecord, -1);
  ASSERT_EQ(r.implausibleChannels.size(), 1u);
  EXPECT_EQ(r.implausibleChannels[0], "E3 (values pinned at the digital limit)");
}

TEST(SamplePlausibility, BeyondRangeAndJumpFromARecord) {
  // From record 12 on, every channel's amplitude is 5000 times larger: beyond +-500 uV and a
  // jump of its own scale.
  const Recording rec = sineRecording(6, [](int, std::vector<float>& x) {
    for (std::size_t i = 1200; i < x.size(); ++i) x[i] *= 5000.0f;
  });
  const PlausibilityReport r = checkSamplePlausibility(rec);
  EXPECT_EQ(r.damagedFromRecord, 12);
  EXPECT_EQ(r.damagedRecords, 8);
}

TEST(SamplePlausibility, RoughnessCountsOnlyForDigitisedChannels) {
  // Channel 2 alternates +-450 uV every sample: noise across the whole +-500 uV span. Digitised
  // (EDF-like) that is implausible; stored as floats whose range is what the writer measured
  // (HDF5 of a synthetic EMG channel), the same span says nothing about the amplifier.
  const auto edit = [](int c, std::vector<float>& x) {
    if (c == 2)
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? 450.0f : -450.0f;
  };
  Recording digitised = sineRecording(4, edit);
  const PlausibilityReport r = checkSamplePlausibility(digitised);
  ASSERT_EQ(r.implausibleChannels.size(), 1u);
  EXPECT_EQ(r.implausibleChannels[0], "E3 (noise across the whole physical range)");

  Recording floats = sineRecording(4, edit);
  for (ChannelInfo& info : floats.channels) info.digitalMin = info.digitalMax = 0;
  EXPECT_TRUE(checkSamplePlausibility(floats).clean());
}

TEST(SamplePlausibility, AJumpAloneIsCaught) {
  // From record 5 on, 40 times the amplitude (400 uV: inside the range, smooth): only the jump
  // test sees it.
  const Recording rec = sineRecording(4, [](int, std::vector<float>& x) {
    for (std::size_t i = 500; i < x.size(); ++i) x[i] *= 40.0f;
  });
  const PlausibilityReport r = checkSamplePlausibility(rec);
  EXPECT_EQ(r.damagedFromRecord, 5);
}

TEST(SamplePlausibility, OneBadRecordIsNotDamageFromThere) {
  // A single record of noise in the middle (an electrode artefact) is not a damaged file.
  const Recording rec = sineRecording(4, [](int c, std::vector<float>& x) {
    if (c != 0) return;
    for (std::size_t i = 700; i < 800; ++i) x[i] = (i % 2) ? 480.0f : -480.0f;
  });
  const PlausibilityReport r = checkSamplePlausibility(rec);
  EXPECT_TRUE(r.clean());
}

}  // namespace
}  // namespace modescope
