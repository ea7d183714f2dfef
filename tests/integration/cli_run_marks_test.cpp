// `modescope-cli run PIPELINE --input REC -o OUTDIR --bad-segments FILE --bad-channels FILE`
// (issue 19, item 2) on a real recording (tests/data/physionet_S001R03_3ch_30s.h5: PhysioNet
// eegmmidb S001R03, C3, Cz, O1 at 160 Hz, 30 s).
//
// Oracles: the reviewed marks given as files must act exactly as the same marks written into the
// recording (`annotations import`, the path that existed before): the ICA fitted with
// --bad-segments is bit-identical to the ICA of the marked copy run without it; a bad channel
// named in a channels.tsv is left out as a channel flagged in the file is. Bad input (a missing
// file, wrong columns, a segment beyond the recording, an unknown channel) exits 2 naming the
// file and the line, and writes nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/json_value.h"
#include "engine/io/hdf5_ica.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kRec = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_3ch_30s.h5";

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The parameter `name` of run.json's first step ("" when absent).
std::string stepParameter(const JsonValue& run, const std::string& name) {
  for (const JsonValue& p : run.find("steps")->asArray().at(0).find("parameters")->asArray())
    if (p.find("name")->asString() == name) return p.find("value")->asString();
  return "";
}

class CliRunMarksTest : public cli_support::TempDirTest {
 protected:
  CliRunMarksTest() : TempDirTest("modescope-cli-run-marks") {}
  void SetUp() override {
    TempDirTest::SetUp();
    write(
        "p.json",
        R"({"modescope_pipeline": 1, "steps": [{"step": "ica", "params": {"maxSteps": 40, "seed": 3}}]})");
    // BIDS events.tsv: a task event (ignored) and two bad segments, 3.5 s in all.
    write("marks.tsv", "onset\tduration\ttrial_type\n1\t0\tT0\n5\t2\tBAD_muscle\n20\t1.5\tbad\n");
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  RunResult run(const std::string& input, const std::string& out,
                const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run",     path("p.json"), "--input", input, "-o",
                                     path(out), "--backend",    "cpu",     "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runCli(args);
  }
};

TEST_F(CliRunMarksTest, BadSegmentsActAsTheSameMarksImportedIntoTheRecording) {
  RunResult r = run(kRec, "with", {"--bad-segments", path("marks.tsv")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  // The old path: the marks imported into a copy of the recording, run without the option.
  r = runCli({"annotations", "import", kRec, path("marks.tsv"), "-o", path("marked.h5"), "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  r = run(path("marked.h5"), "imported", {});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  r = run(kRec, "without", {});
  ASSERT_EQ(r.exitCode, 0) << describe(r);

  const IcaFile with = readIcaFile(path("with/01-ica.h5"));
  const IcaFile imported = readIcaFile(path("imported/01-ica.h5"));
  const IcaFile without = readIcaFile(path("without/01-ica.h5"));
  const auto& a = with.result.unmixing.values;
  const auto& b = imported.result.unmixing.values;
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])), 0)
      << "the fit with --bad-segments differs from the fit of the marked copy";
  EXPECT_NE(without.result.unmixing.values, a) << "the segments changed nothing";

  const JsonValue summary = parseJson(readText(path("with/run.json")), "run.json");
  EXPECT_EQ(stepParameter(summary, "badSegments"),
            "2 in the range (3.5 s), skipped (their samples left out)");
  EXPECT_NE(summary.find("reviewed_marks")->asString().find("2 bad segment(s) (3.5 s)"),
            std::string::npos);
  EXPECT_EQ(stepParameter(parseJson(readText(path("without/run.json")), "run.json"), "badSegments"),
            "");
}

TEST_F(CliRunMarksTest, BadChannelsFromAChannelsTsvAreLeftOut) {
  write("channels.tsv", "name\ttype\tunits\tstatus\nC3\tEEG\tuV\tgood\nCz\tEEG\tuV\tbad\n");
  const RunResult r = run(kRec, "out", {"--bad-channels", path("channels.tsv")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const JsonValue summary = parseJson(readText(path("out/run.json")), "run.json");
  const JsonValue& step = summary.find("steps")->asArray().at(0);
  EXPECT_EQ(step.find("channels")->asInt64(), 2);
  EXPECT_EQ(stepParameter(summary, "badChannels"), "left out: Cz");
  EXPECT_EQ(readIcaFile(path("out/01-ica.h5")).result.components, 2);
}

TEST_F(CliRunMarksTest, BadInputExitsTwoNamingFileAndLineAndWritesNothing) {
  struct Case {
    std::string option, file, text, expected;
  };
  const std::vector<Case> cases = {
      {"--bad-segments", "missing.tsv", "", "missing.tsv"},
      {"--bad-segments", "wrong.csv", "start,length,label\n1,2,bad\n", "line 1"},
      {"--bad-segments", "beyond.tsv", "onset\tduration\ttrial_type\n5\t2\tBAD_x\n29\t1.5\tbad\n",
       "line 3"},
      {"--bad-segments", "number.csv", "onset,duration,description\n5,soon,bad\n", "line 2"},
      {"--bad-channels", "unknown.tsv", "name\tstatus\nXYZ\tbad\n", "'XYZ'"},
  };
  for (const Case& c : cases) {
    const std::string file = c.text.empty() ? path(c.file) : write(c.file, c.text);
    const std::string out = "out-" + c.file;
    const RunResult r = run(kRec, out, {c.option, file});
    EXPECT_EQ(r.exitCode, 2) << c.file << "\n" << describe(r);
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path(out))) << c.file << ": the output folder was created";
  }
}

}  // namespace
}  // namespace modescope
