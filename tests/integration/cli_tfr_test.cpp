// End-to-end tests of `modescope-cli tfr` (docs/time-frequency.md, "Command line" and "File
// schema"): the file read back by h5py with only the documented schema
// (tests/tools/h5py_reads_tf_schema.py): grid, image, entropy recomputed, reconstruction equal to
// the column sums and to the source samples; the refusals of bad input with their exit codes and
// no file left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kH5 = std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5";
const std::string kChecker =
    std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/h5py_reads_tf_schema.py";

class CliTfrTest : public cli_support::TempDirTest {
 protected:
  CliTfrTest() : TempDirTest("modescope-cli-tfr") {}
  RunResult check(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {kChecker};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli_support::Child(args, "/usr/bin/python3").finish();
  }
};

TEST_F(CliTfrTest, ComplexImageReconstructsTheSource) {
  const RunResult r = runCli({"tfr",
                              kH5,
                              "-o",
                              path("t.h5"),
                              "--channels",
                              "Cz,Oz",
                              "--duration",
                              "8",
                              "--order",
                              "3",
                              "--window-length",
                              "64",
                              "--fft",
                              "128",
                              "--complex",
                              "--reconstruct",
                              "--ridges",
                              "2",
                              "--backend",
                              "cpu",
                              "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"storage\": \"complex\""), std::string::npos) << r.out;
  // Real EEG (1/f, noise): 39 dB for EVSS1 here (docs/time-frequency.md, "Squeezing").
  const RunResult c = check({path("t.h5"), "--source", kH5, "--min-rqf", "35"});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
}

TEST_F(CliTfrTest, SpectrogramMagnitudesWithHop) {
  const RunResult r =
      runCli({"tfr",       kH5,   "-o",       path("s.h5"), "--channels",      "C3",
              "--order",   "0",   "--window", "hann",       "--window-length", "160",
              "--fft",     "256", "--hop",    "16",         "--fmax",          "40",
              "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("order 0, hann window"), std::string::npos) << r.out;
  const RunResult c = check({path("s.h5")});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
}

TEST_F(CliTfrTest, BadInputIsRefusedWithoutAFile) {
  struct Case {
    std::vector<std::string> extra;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--fmax", "100"}, 1, "needs at least 200 Hz"},
      {{"--window-length", "512", "--fft", "256"}, 1, "at least the window length"},
      {{"--order", "2", "--window", "hann"}, 1, "Gaussian"},
      {{"--window-length", "4096", "--fft", "4096", "--duration", "10"}, 1, "shorten the window"},
      {{"--hop", "4", "--reconstruct"}, 1, "--reconstruct"},
      // Held for its ridges: the in-memory bound (without readouts the image is streamed to the
      // file; checkTfFileFits bounds it by the free disk, tests/unit/tf_tiles_test.cpp).
      {{"--fft", "65536", "--window-length", "1024", "--ridges", "1"}, 1, "GiB"},
  };
  for (const Case& k : cases) {
    std::vector<std::string> args = {"tfr", kH5, "-o", path("bad.h5"), "--backend", "cpu"};
    args.insert(args.end(), k.extra.begin(), k.extra.end());
    const RunResult r = runCli(args);
    EXPECT_EQ(r.exitCode, k.code) << describe(r);
    EXPECT_NE(r.err.find(k.says), std::string::npos) << describe(r);
    EXPECT_FALSE(fs::exists(path("bad.h5"))) << k.says;
  }
}

}  // namespace
}  // namespace modescope
