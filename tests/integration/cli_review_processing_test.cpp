// End-to-end tests of the review steps that became processing (issue 19): `modescope-cli montage`
// and the pipeline step "montage" (the same samples bit for bit), `epoch --bad-segments` (the
// window's marked segments from an annotation export), and `xapen` leaving out the epochs that
// overlap bad segments unless --no-exclude-bad-segments. Small inputs: the 64-channel PhysioNet
// HDF5 (2 min at 160 Hz) and its 3-channel 30 s cut.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/io/hdf5_entropy.h"
#include "engine/io/recording_io.h"
#include "engine/io/session.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string k64 = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5";
const std::string k3 = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_3ch_30s.h5";

class CliReviewProcessingTest : public cli_support::TempDirTest {
 protected:
  CliReviewProcessingTest() : TempDirTest("modescope-cli-review") {}
};

std::vector<float> all(const Recording& rec, std::size_t c) {
  return rec.readChannel(c, 0, rec.channels[c].sampleCount);
}

TEST_F(CliReviewProcessingTest, MontageCommandWritesTheDerivations) {
  const std::string out = path("banana.h5");
  const RunResult r = runCli({"montage", k64, "-o", out, "--montage", "double-banana"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("derived 18 channels"), std::string::npos) << r.out;
  const auto in = openRecording(k64);
  const auto banana = openRecording(out);
  ASSERT_EQ(banana->channelCount(), 18u);
  EXPECT_EQ(banana->channels[0].label, "Fp1-F7");
  EXPECT_EQ(banana->annotations.size(), in->annotations.size());
  const auto fp1 = all(*in, static_cast<std::size_t>(in->findChannel("Fp1")));
  const auto f7 = all(*in, static_cast<std::size_t>(in->findChannel("F7")));
  const auto row = all(*banana, 0);
  ASSERT_EQ(row.size(), fp1.size());
  for (std::size_t i = 0; i < row.size(); ++i) ASSERT_EQ(row[i], fp1[i] - f7[i]) << i;

  // A montage file (the editor's format) works the same way.
  std::ofstream(path("mine.montage")) << "name: Mine\nC3 Lap: C3 - 0.25*FC3 - 0.25*CP3 - "
                                         "0.25*C5 - 0.25*C1\nnot here: X1 - X2\n";
  const RunResult f =
      runCli({"montage", k64, "-o", path("mine.h5"), "--montage", path("mine.montage")});
  ASSERT_EQ(f.exitCode, 0) << describe(f);
  EXPECT_NE(f.err.find("left out not here: no channel X1"), std::string::npos) << f.err;
  EXPECT_EQ(openRecording(path("mine.h5"))->channelCount(), 1u);

  const RunResult bad = runCli({"montage", k64, "-o", path("x.h5"), "--montage", "banana"});
  EXPECT_EQ(bad.exitCode, 1) << describe(bad);
  EXPECT_NE(bad.err.find("double-banana, transverse, laplacian, average or mastoids"),
            std::string::npos)
      << bad.err;
  const RunResult none = runCli({"montage", k64, "-o", path("x.h5")});
  EXPECT_EQ(none.exitCode, 1) << describe(none);
  EXPECT_NE(none.err.find("--montage"), std::string::npos) << none.err;
}

TEST_F(CliReviewProcessingTest, PipelineMontageStepGivesTheCommandsSamples) {
  std::ofstream(path("p.json")) << R"({"modescope_pipeline": 1, "steps": [
    {"step": "montage", "montage": "laplacian"},
    {"step": "filter", "filters": ["highpass:1"], "channels": ["C3-Lap", "Cz-Lap"]}]})";
  const RunResult r =
      runCli({"run", path("p.json"), "--input", k64, "-o", path("run"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const RunResult c = runCli({"montage", k64, "-o", path("lap.h5"), "--montage", "laplacian"});
  ASSERT_EQ(c.exitCode, 0) << describe(c);
  const auto step = openRecording(path("run/01-montage.h5"));
  const auto command = openRecording(path("lap.h5"));
  ASSERT_EQ(step->channelCount(), command->channelCount());
  ASSERT_GT(step->channelCount(), 60u);
  for (std::size_t ch = 0; ch < step->channelCount(); ++ch) {
    EXPECT_EQ(step->channels[ch].label, command->channels[ch].label);
    ASSERT_EQ(all(*step, ch), all(*command, ch)) << step->channels[ch].label;
  }
  // The next step reads the derived channels by their labels.
  const auto filtered = openRecording(path("run/02-filter.h5"));
  ASSERT_EQ(filtered->channelCount(), 2u);
  EXPECT_EQ(filtered->channels[0].label, "C3-Lap");
}

TEST_F(CliReviewProcessingTest, EpochHonoursTheMarkedSegmentsOfAnExport) {
  // The window's annotation export: the marked segment over the first T1 events.
  std::ofstream(path("marks.csv")) << "onset,duration,description\n0,20,BAD_segment\n30,1,note\n";
  RunResult plain = runCli({"epoch", k3, "-o", path("plain.h5"), "--events", "T1,T2"});
  ASSERT_EQ(plain.exitCode, 0) << describe(plain);
  EXPECT_NE(plain.out.find("bad segments: 0 honoured, 0 epoch(s)"), std::string::npos) << plain.out;
  RunResult marked = runCli({"epoch", k3, "-o", path("marked.h5"), "--events", "T1,T2",
                             "--bad-segments", path("marks.csv")});
  ASSERT_EQ(marked.exitCode, 0) << describe(marked);
  EXPECT_NE(marked.out.find("bad segments: 1 honoured, "), std::string::npos) << marked.out;
  EXPECT_EQ(marked.out.find("0 epoch(s) overlapping"), std::string::npos) << marked.out;
  EXPECT_NE(marked.out.find("bad segment)"), std::string::npos) << marked.out;
  RunResult json = runCli({"epoch", k3, "-o", path("j.h5"), "--events", "T1,T2", "--bad-segments",
                           path("marks.csv"), "--json", "--quiet"});
  ASSERT_EQ(json.exitCode, 0) << describe(json);
  EXPECT_NE(json.out.find("\"bad_segments\": 1"), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("\"dropped_bad_segment\": 0"), std::string::npos) << json.out;
  RunResult missing = runCli(
      {"epoch", k3, "-o", path("m.h5"), "--events", "T1", "--bad-segments", path("nope.csv")});
  EXPECT_EQ(missing.exitCode, 2) << describe(missing);
}

// A saved session brings the file's annotations as the user corrected them in the window: they
// replace the recording's own, so a deleted event is not epoched and a BAD_ annotation typed over
// a file annotation rejects what it covers.
TEST_F(CliReviewProcessingTest, EpochAppliesASessionsCorrectionsOfTheFilesAnnotations) {
  const std::shared_ptr<const Recording> rec = openRecording(k3);
  std::vector<Annotation> corrected;
  bool droppedT1 = false, markedT2 = false;
  for (const Annotation& a : rec->annotations) {
    if (a.text == "T1" && !droppedT1) {
      droppedT1 = true;  // deleted in the window
      continue;
    }
    Annotation b = a;
    if (a.text == "T2" && !markedT2) {
      markedT2 = true;  // its text edited to a bad segment over the whole event
      b = {a.onset - 1.0, a.duration + 2.0, "BAD_edited"};
    }
    corrected.push_back(b);
  }
  ASSERT_TRUE(droppedT1 && markedT2);
  Session session;
  session.recordingPath = k3;
  session.marks.fileAnnotations = corrected;
  saveSession(session, path("session.h5"));
  RunResult r = runCli(
      {"epoch", k3, "-o", path("s.h5"), "--events", "T1,T2", "--bad-segments", path("session.h5")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("T1: 1 epochs kept of 1"), std::string::npos) << r.out;
  // The edited T2 is no longer an event; the other T2 is kept unless the new bad segment covers it.
  EXPECT_NE(r.out.find("T2: 1 epochs kept of 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bad segments: 1 honoured"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("as corrected in"), std::string::npos) << r.err;
}

TEST_F(CliReviewProcessingTest, XapenLeavesOutEpochsOverBadSegments) {
  std::ofstream(path("bad.csv")) << "onset,duration,description\n5.5,1,BAD_muscle\n";
  const RunResult imp =
      runCli({"annotations", "import", k3, path("bad.csv"), "-o", path("marked.h5")});
  ASSERT_EQ(imp.exitCode, 0) << describe(imp);
  const RunResult left = runCli(
      {"xapen", path("marked.h5"), "-o", path("left.h5"), "--epoch", "320samples", "--quiet"});
  ASSERT_EQ(left.exitCode, 0) << describe(left);
  const RunResult kept = runCli({"xapen", path("marked.h5"), "-o", path("kept.h5"), "--epoch",
                                 "320samples", "--no-exclude-bad-segments", "--quiet"});
  ASSERT_EQ(kept.exitCode, 0) << describe(kept);
  const EntropyFile l = readEntropyFile(path("left.h5"));
  const EntropyFile k = readEntropyFile(path("kept.h5"));
  ASSERT_EQ(k.recordings.front().result.epochCount(), 15u);  // 30 s / 2 s
  // 5.5-6.5 s lies in epoch 3 (4-6 s) and epoch 4 (6-8 s): the third kept is epoch 5 (8-10 s).
  ASSERT_EQ(l.recordings.front().result.epochCount(), 13u);
  EXPECT_EQ(l.recordings.front().result.epochStarts[2], 4 * 320);
  bool said = false;
  for (const auto& [key, value] : l.recordings.front().provenance.parameters)
    said = said || (key == "ran.badSegments" && value.find("2 of 15 epochs left out") == 0);
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace modescope
