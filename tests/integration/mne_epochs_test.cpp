// `modescope-cli epoch` and `average` against MNE-Python 1.3 (tests/tools/mne_epochs.py, run with
// /usr/bin/python3) on a real recording with events: PhysioNet EEGMMIDB S001R03 (64 channels,
// 160 Hz, T0/T1/T2 annotations). MNE reads the EDF with its own parser, makes events from the
// annotations and cuts mne.Epochs with the same window, baseline and peak-to-peak threshold; the
// kept epochs must be the same events and the averages and standard errors must agree.
//
// Tolerances: averages and standard errors 1e-3 uV (EDF samples are 16-bit integers scaled to
// physical values; ModeScope keeps them in float32, about 1e-5 uV at these amplitudes, MNE in
// double); onsets 1e-9 s (both are round(onset fs) / fs).
//
// Also the command line's own behaviour: the annotation round trip through CSV and events.tsv,
// and the messages for a wrong event type and a window that does not fit.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/json_value.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kEdf = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";
const std::string kChecker = std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/mne_epochs.py";

class MneEpochsTest : public cli_support::TempDirTest {
 protected:
  MneEpochsTest() : TempDirTest("modescope-mne-epochs") {}
  static bool haveMne() {
    return cli_support::Child({"-c", "import mne, h5py"}, "/usr/bin/python3").finish().exitCode ==
           0;
  }
  JsonValue compare(const std::string& h5, const std::vector<std::string>& params) {
    std::vector<std::string> args = {kChecker, kEdf, h5};
    args.insert(args.end(), params.begin(), params.end());
    const RunResult r = cli_support::Child(args, "/usr/bin/python3").finish();
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    return parseJson(r.out, "mne_epochs.py output");
  }
};

void expectAgreement(const JsonValue& j, std::size_t conditions) {
  EXPECT_EQ(j.find("channels_ours")->asInt64(), j.find("channels_mne")->asInt64());
  const auto& ours = j.find("ours_times")->asArray();
  const auto& theirs = j.find("mne_times")->asArray();
  EXPECT_NEAR(ours[0].asDouble(), theirs[0].asDouble(), 1e-9);
  EXPECT_NEAR(ours[1].asDouble(), theirs[1].asDouble(), 1e-9);
  EXPECT_EQ(ours[2].asInt64(), theirs[2].asInt64());
  const auto& cs = j.find("conditions")->asArray();
  ASSERT_EQ(cs.size(), conditions);
  for (const JsonValue& c : cs) {
    const std::string name = c.find("name")->asString();
    EXPECT_EQ(c.find("kept_ours")->asInt64(), c.find("kept_mne")->asInt64()) << name;
    ASSERT_FALSE(c.find("onset_max_diff_s")->isNull()) << name;
    EXPECT_LT(c.find("onset_max_diff_s")->asDouble(), 1e-9) << name;
    EXPECT_GT(c.find("mean_max_abs_uv")->asDouble(), 1.0) << name;  // a real signal compared
    EXPECT_LT(c.find("mean_max_abs_diff_uv")->asDouble(), 1e-3) << name;
    EXPECT_LT(c.find("se_max_abs_diff_uv")->asDouble(), 1e-3) << name;
  }
}

TEST_F(MneEpochsTest, EpochsAndAveragesAgreeWithMne) {
  if (!haveMne()) GTEST_SKIP() << "MNE-Python or h5py is not importable by /usr/bin/python3";
  const std::string out = path("epochs.h5");
  const RunResult r = runCli({"epoch", kEdf, "-o", out, "--events", "T1,T2", "--tmin", "-0.5",
                              "--tmax", "1.0", "--baseline-start", "-0.5", "--baseline-end", "0",
                              "--reject", "400", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const JsonValue summary = parseJson(r.out, "epoch --json");
  const JsonValue j = compare(out, {"T1,T2", "-0.5", "1.0", "-0.5", "0", "400"});
  expectAgreement(j, 2);
  // The threshold did reject epochs, in both (otherwise the rejection was not compared).
  EXPECT_GT(summary.find("dropped_peak_to_peak")->asInt64(), 0) << r.out;
  EXPECT_EQ(summary.find("dropped_peak_to_peak")->asInt64() +
                summary.find("dropped_outside_data")->asInt64(),
            j.find("dropped_mne")->asInt64());
}

TEST_F(MneEpochsTest, AverageWithoutRejectionAndShortBaselineAgrees) {
  if (!haveMne()) GTEST_SKIP() << "MNE-Python or h5py is not importable by /usr/bin/python3";
  const std::string out = path("erp.h5");
  const RunResult r = runCli({"average", kEdf, "-o", out, "--events", "T0,T1,T2", "--tmin", "-0.2",
                              "--tmax", "0.6", "--baseline-start", "-0.1", "--baseline-end",
                              "-0.0125", "--difference", "T1-T2", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  expectAgreement(compare(out, {"T0,T1,T2", "-0.2", "0.6", "-0.1", "-0.0125", "0"}), 3);
}

TEST_F(MneEpochsTest, CommandLineErrorsSayWhatToDo) {
  RunResult r = runCli({"epoch", kEdf, "-o", path("x.h5"), "--events", "T7"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("'T7'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'T0' (15)"), std::string::npos) << r.err;  // what the file has
  r = runCli(
      {"epoch", kEdf, "-o", path("x.h5"), "--events", "T1", "--tmin", "0.5", "--tmax", "0.2"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--tmin"), std::string::npos) << r.err;
  r = runCli({"epoch", kEdf, "-o", path("x.h5")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--events"), std::string::npos) << r.err;
  EXPECT_TRUE(listDir().empty());  // nothing half-written
}

TEST_F(MneEpochsTest, PipelineEpochStepWritesWhatTheCommandWrites) {
  std::ofstream(path("p.json")) << R"({"modescope_pipeline": 1, "steps": [
      {"step": "epoch", "events": ["T1", "T2"], "differences": ["T1-T2"], "backend": "cpu",
       "channels": ["C3", "Cz", "C4"], "params": {"tmin": -0.2, "tmax": 0.6}}]})";
  const RunResult r =
      runCli({"run", path("p.json"), "--input", kEdf, "-o", path("out"), "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const JsonValue run = readJsonFile(path("out/run.json"));
  const JsonValue& step = run.find("steps")->asArray().at(0);
  EXPECT_EQ(step.find("kind")->asString(), "epoch");
  EXPECT_EQ(step.find("channels")->asInt64(), 3);
  EXPECT_EQ(step.find("events")->asInt64(), 15);  // 8 T1 + 7 T2
  EXPECT_EQ(step.find("epochs_kept")->asInt64(), 15);
  // The same numbers as the command: compared with MNE like the command's file.
  if (haveMne()) {
    const JsonValue j =
        compare(path("out/01-epoch.h5"), {"T1,T2", "-0.2", "0.6", "-0.2", "0", "0"});
    const auto& cs = j.find("conditions")->asArray();
    ASSERT_EQ(cs.size(), 2u);
    for (const JsonValue& c : cs) EXPECT_LT(c.find("mean_max_abs_diff_uv")->asDouble(), 1e-3);
  }
}

TEST_F(MneEpochsTest, AnnotationsExportImportRoundTrip) {
  const std::string tsv = path("events.tsv");
  RunResult r = runCli({"annotations", "export", kEdf, "-o", tsv});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::ifstream in(tsv);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), "onset\tduration\ttrial_type\tsample");
  EXPECT_NE(text.str().find("4.2\t4.1\tT2\t672\n"), std::string::npos) << text.str();

  std::ofstream(path("marks.csv")) << "onset,duration,description\n10.5,2,\"BAD, movement\"\n";
  r = runCli({"annotations", "import", kEdf, path("marks.csv"), "-o", path("marked.edf")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  r = runCli({"annotations", "export", path("marked.edf"), "-o", path("back.csv")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::ifstream back(path("back.csv"));
  std::stringstream b;
  b << back.rdbuf();
  EXPECT_NE(b.str().find("10.5,2,\"BAD, movement\""), std::string::npos) << b.str();
  EXPECT_NE(b.str().find(",T0\n"), std::string::npos) << b.str();  // the file's own kept

  // The imported bad segment drops the epochs it overlaps.
  r = runCli({"epoch", path("marked.edf"), "-o", path("e.h5"), "--events", "T1", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"dropped_bad_segment\": 1"), std::string::npos) << r.out;

  r = runCli({"annotations", "import", kEdf, path("nope.csv"), "-o", path("y.edf")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  r = runCli({"annotations", "export", kEdf, "-o", path("x.txt")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find(".tsv"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace modescope
