// End-to-end tests of `modescope-cli xapen` (docs/entropy.md, "Command line" and "File schema"):
// the HDF5 file and the CSV export on the PhysioNet 64-channel recording, read back by h5py with
// values recomputed there by numpy from the source samples
// (tests/tools/h5py_reads_entropy_schema.py); a study of two recordings with group labels; the
// refusals of bad input with their exit codes; Ctrl-C leaving no file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_entropy.h"
#include "engine/io/recording_io.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kH5 = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5";
const std::string kEdf = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";
const std::string kChecker =
    std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/h5py_reads_entropy_schema.py";

class CliXapenTest : public cli_support::TempDirTest {
 protected:
  CliXapenTest() : TempDirTest("modescope-cli-xapen") {}
  RunResult check(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {kChecker};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli_support::Child(args, "/usr/bin/python3").finish();
  }
  // The PhysioNet copy with one channel changed by `edit` (row 3 = "FC1"), as HDF5.
  std::string edited(const std::string& name, float value, int64_t from, int64_t count) {
    const auto rec = openRecording(kH5);
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < rec->channelCount(); ++i) all.push_back(i);
    SignalBlock b = extractBlock(*rec, all, 0.0, -1.0);
    for (int64_t k = from; k < from + count; ++k) b.data[2 * b.samples + k] = value;
    const auto out = recordingFromBlock(*rec, b);
    JobContext ctx;
    writeRecording(*out, path(name), OutputFormat::Hdf5, Provenance{}, ctx);
    return path(name);
  }
};

TEST_F(CliXapenTest, Hdf5AndCsvMatchAnIndependentRecomputation) {
  const RunResult r = runCli({"xapen", kH5, "-o", path("x.h5"), "--range", "0:6", "--epoch",
                              "320samples", "--bias", "zero", "--csv", path("x.csv")});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("64 channels x 3 epochs of 320 samples"), std::string::npos) << r.out;
  const RunResult c =
      check({path("x.h5"), "--source", kH5, "--csv", path("x.csv"), "--recordings", "1"});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
  const EntropyFile f = readEntropyFile(path("x.h5"));
  ASSERT_EQ(f.recordings.size(), 1u);
  const EntropyMatrixResult& m = f.recordings[0].result;
  ASSERT_EQ(m.channelCount(), 64u);
  EXPECT_EQ(m.channelNames.front(), "FC5");
  EXPECT_EQ(m.params.bias, ApEnBias::Zero);
  // The ordered matrix is not symmetric on real EEG (Cross-ApEn(v||u) != Cross-ApEn(u||v): never
  // mirror half of it).
  double largest = 0;
  for (std::size_t u = 0; u < 64; ++u)
    for (std::size_t v = 0; v < 64; ++v)
      largest = std::max(largest, std::abs(m.averageAt(u, v) - m.averageAt(v, u)));
  EXPECT_GT(largest, 0.01);
  EXPECT_TRUE(f.groups.empty());
}

TEST_F(CliXapenTest, CheckerDetectsAWrongValue) {
  ASSERT_EQ(runCli({"xapen", kH5, "-o", path("x.h5"), "--range", "0:4", "--epoch", "2",
                    "--channels", "Fc5,C3,Cz,C4", "-q"})
                .exitCode,
            0);
  const RunResult tamper =
      cli_support::Child(
          {"-c", "import h5py; f = h5py.File('" + path("x.h5") +
                     "', 'r+'); d = f['recordings/0000/epoch_matrices']; d[0, 0, 1] += 1e-6"},
          "/usr/bin/python3")
          .finish();
  ASSERT_EQ(tamper.exitCode, 0) << describe(tamper);
  const RunResult c = check({path("x.h5"), "--source", kH5});
  EXPECT_EQ(c.exitCode, 1) << describe(c);
  EXPECT_NE(c.out.find("MISMATCH"), std::string::npos) << c.out;
}

TEST_F(CliXapenTest, StudyOfTwoRecordingsWithGroups) {
  // The EDF and its HDF5 copy hold the same samples: two readers, one matrix.
  std::ofstream(path("study.txt")) << "# subjects\n"
                                   << kH5 << "\tcopy\n\n"
                                   << kEdf << "\toriginal\n";
  RunResult r = runCli({"xapen", "--study", path("study.txt"), "-o", path("s.h5"), "--range", "0:4",
                        "--epoch", "2", "--channels", "Fc5,C3,Cz,C4,Pz", "--measure", "sampen",
                        "-m", "2", "-r", "0.25", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"label\": \"copy\""), std::string::npos) << r.out;
  RunResult c =
      check({path("s.h5"), "--source", kH5, "--groups", "copy=1,original=1", "--recordings", "2"});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
  const EntropyFile f = readEntropyFile(path("s.h5"));
  ASSERT_EQ(f.recordings.size(), 2u);
  EXPECT_EQ(f.recordings[0].result.epochValues, f.recordings[1].result.epochValues);
  EXPECT_EQ(f.recordings[0].result.params.measure, EntropyMeasure::SampleEntropy);
  // Both on the command line in one group: the group mean is their (equal) average.
  r = runCli({"xapen", "all=" + kH5, "all=" + kEdf, "-o", path("t.h5"), "--range", "0:4", "--epoch",
              "2", "--channels", "Fc5,C3,Cz,C4,Pz", "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  c = check({path("t.h5"), "--groups", "all=2"});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
  const EntropyFile t = readEntropyFile(path("t.h5"));
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].mean, t.recordings[0].result.average);
  // --csv is for one recording.
  r = runCli({"xapen", kH5, kEdf, "-o", path("u.h5"), "--csv", path("u.csv")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
}

TEST_F(CliXapenTest, BadInputIsRefusedWithClearMessages) {
  struct Case {
    std::vector<std::string> extra;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"-r", "0"}, 1, "r"},
      {{"-r", "-0.2"}, 1, "r"},
      {{"-r", "nan"}, 1, "-r"},
      {{"--epoch", "2samples"}, 1, "m + 2 = 3"},
      {{"-m", "0"}, 1, "-m"},
      {{"--measure", "fuzzy"}, 1, "apen or sampen"},
      {{"--bias", "min"}, 1, "zero or max"},
      {{"--epoch", "100"}, 1, "epoch"},  // longer than the 4 s range
  };
  for (const Case& k : cases) {
    std::vector<std::string> args = {"xapen", kH5, "-o", path("o.h5"), "--range", "0:4"};
    args.insert(args.end(), k.extra.begin(), k.extra.end());
    const RunResult r = runCli(args);
    EXPECT_EQ(r.exitCode, k.code) << k.extra[0] << " " << k.extra[1] << "\n" << describe(r);
    EXPECT_NE(r.err.find(k.says), std::string::npos) << r.err;
  }
  // A constant channel: refused by name; a NaN: refused naming channel and sample (exit 2).
  const std::string flat = edited("flat.h5", 3.0f, 0, 20000);
  RunResult r = runCli({"xapen", flat, "-o", path("o.h5"), "--range", "0:4"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("channel FC1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("constant"), std::string::npos) << r.err;
  const std::string nan = edited("nan.h5", std::numeric_limits<float>::quiet_NaN(), 170, 1);
  r = runCli({"xapen", nan, "-o", path("o.h5"), "--range", "0:4"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("FC1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NaN at sample 170"), std::string::npos) << r.err;
  // Constant in one epoch only: computed, with NaN there and a warning.
  const std::string part = edited("part.h5", 3.0f, 320, 320);
  r = runCli({"xapen", part, "-o", path("p.h5"), "--range", "0:6", "--epoch", "2", "--channels",
              "Fc5,Fc3,Fc1"});
  EXPECT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find("constant (SD = 0) in epoch(s) 2"), std::string::npos) << r.err;
  const EntropyFile f = readEntropyFile(path("p.h5"));
  EXPECT_TRUE(std::isnan(f.recordings[0].result.at(1, 0, 2)));
  EXPECT_EQ(f.recordings[0].result.averageEpochs[0 * 3 + 2], 2);
  EXPECT_FALSE(fs::exists(path("o.h5")));
}

TEST_F(CliXapenTest, InterruptExitsWith130AndLeavesNoOutput) {
  // All 64 channels over the whole 125 s as one epoch: ~1.6e12 distance checks, hours on 2 cores.
  Child child(
      {"xapen", kH5, "-o", path("out.h5"), "--csv", path("out.csv"), "--epoch", "20000samples"});
  ASSERT_TRUE(child.waitForStderr("entropy matrices")) << child.stderrSoFar();
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  // Workers stop after their current pair (20000^2 checks, well under a second each); 10 s leaves
  // room for a loaded CI machine.
  EXPECT_LT(stopSeconds, 10.0);
  EXPECT_TRUE(listDir().empty()) << "no output, no temporary file";
}

}  // namespace
}  // namespace modescope
