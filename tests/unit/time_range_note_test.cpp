// A time range that ends after the recording (app/core/time_range_note.h): cut to the recording
// and said so, in the same words on the command line, in the dialogs and in the provenance's
// selection (describeSelection). And the file's annotations as the user corrected them replacing
// the file's own (engine/core/corrected_annotations.h).
#include "app/core/time_range_note.h"

#include <gtest/gtest.h>

#include "app/core/recording_selection.h"
#include "engine/core/corrected_annotations.h"

namespace modescope {
namespace {

// 2 channels, 125 s at 160 Hz (the demo's length); no samples are read.
Recording recording125s() {
  Recording rec;
  for (const char* name : {"C3", "C4"}) {
    ChannelInfo c;
    c.label = c.name = name;
    c.sampleRate = 160.0;
    c.sampleCount = 20000;
    rec.channels.push_back(c);
  }
  rec.annotations = {{1.0, 0.0, "T0"}, {5.0, 4.0, "T1"}};
  return rec;
}

TEST(TimeRangeNote, ARangeWithinTheRecordingSaysNothing) {
  EXPECT_EQ(truncatedRangeNote(125.0, 0.0, 125.0, 0.0), "");
  EXPECT_EQ(truncatedRangeNote(125.0, 100.0, 25.0, 0.0), "");
  EXPECT_EQ(truncatedRangeNote(125.0, 100.0, -1.0, 0.0), "") << "to the end";
  // Rounding of a dialog's three decimals is within the tolerance.
  EXPECT_EQ(truncatedRangeNote(125.0, 100.0, 25.0004, 0.0005), "");
}

TEST(TimeRangeNote, ARangeEndingAfterTheRecordingSaysWhatIsUsed) {
  EXPECT_EQ(truncatedRangeNote(125.0, 100.0, 600.0, 0.0),
            "600 s from 100 s asked for, the recording ends at 125 s: 100-125 s is used");
  const Recording rec = recording125s();
  EXPECT_EQ(truncatedRangeNote(rec, 0.0, 125.0), "");
  EXPECT_EQ(truncatedRangeNote(rec, 0.0, 125.0 + 0.4 / 160.0), "") << "within half a sample";
  EXPECT_NE(truncatedRangeNote(rec, 0.0, 126.0), "");
}

TEST(TimeRangeNote, TheProvenanceSelectionCarriesTheNote) {
  const Recording rec = recording125s();
  EXPECT_EQ(describeSelection(rec, {0, 1}, 100.0, 20.0), "all 2 channels; 100-120 s");
  EXPECT_EQ(describeSelection(rec, {0, 1}, 100.0, 600.0),
            "all 2 channels; 100-125 s (600 s from 100 s asked for, the recording ends at 125 s: "
            "100-125 s is used)");
}

TEST(CorrectedAnnotations, ReplaceTheFileAnnotationsSortedAndShareTheSamples) {
  const Recording rec = recording125s();
  EXPECT_EQ(withFileAnnotations(rec, std::nullopt)->annotations.size(), 2u);
  const auto corrected =
      withFileAnnotations(rec, std::vector<Annotation>{{9.0, 1.0, "T2"}, {5.5, 2.0, "T1"}});
  ASSERT_EQ(corrected->annotations.size(), 2u);
  EXPECT_EQ(corrected->annotations[0].text, "T1");
  EXPECT_EQ(corrected->annotations[0].onset, 5.5);
  EXPECT_EQ(corrected->annotations[1].text, "T2");
  EXPECT_EQ(corrected->channels.size(), rec.channels.size());
  EXPECT_EQ(corrected->source, rec.source);
  EXPECT_TRUE(withFileAnnotations(rec, std::vector<Annotation>{})->annotations.empty());
}

}  // namespace
}  // namespace modescope
