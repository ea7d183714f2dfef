// A --start/--duration range that ends after the recording (issue 19): cut to the recording and
// said so on stderr and in the output's provenance, in the same words (app/core/time_range_note.h)
// for a method command (emd) and for convert; a range within the recording says nothing.
// Real file: tests/data/physionet_S001R03_3ch_30s.h5 (30 s at 160 Hz).
#include <gtest/gtest.h>

#include <string>

#include "engine/io/hdf5_emd.h"
#include "engine/io/recording_io.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kRec = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_3ch_30s.h5";
const std::string kNote = "60 s from 25 s asked for, the recording ends at 30 s: 25-30 s is used";

class CliRangeNoteTest : public cli_support::TempDirTest {
 protected:
  CliRangeNoteTest() : TempDirTest("modescope-cli-range-note") {}
};

TEST_F(CliRangeNoteTest, EmdSaysTheRangeWasCutOnStderrAndInItsProvenance) {
  RunResult r = runCli({"emd", kRec, "-o", path("cut.h5"), "--channels", "C3", "--start", "25",
                        "--duration", "60", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find(kNote), std::string::npos) << r.err;
  const EmdFile cut = readEmdFile(path("cut.h5"));
  EXPECT_EQ(cut.modes.samples, 5 * 160);
  EXPECT_NE(cut.modes.provenance.selection.find(kNote), std::string::npos)
      << cut.modes.provenance.selection;

  r = runCli({"emd", kRec, "-o", path("within.h5"), "--channels", "C3", "--start", "25",
              "--duration", "5", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_EQ(r.err.find("asked for"), std::string::npos) << r.err;
  EXPECT_EQ(readEmdFile(path("within.h5")).modes.provenance.selection, "channels C3; 25-30 s");
}

TEST_F(CliRangeNoteTest, ConvertSaysItToo) {
  const RunResult r =
      runCli({"convert", kRec, "-o", path("part.h5"), "--start", "25", "--duration", "60"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find(kNote), std::string::npos) << r.err;
  EXPECT_NEAR(openRecording(path("part.h5"))->duration(), 5.0, 1e-9);
}

}  // namespace
}  // namespace modescope
