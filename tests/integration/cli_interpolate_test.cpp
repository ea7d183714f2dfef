// End-to-end tests of `modescope-cli interpolate` (docs/bad-channels.md): the interpolated
// channels of the PhysioNet 64-channel recording against MNE-Python's interpolate_bads
// (tests/tools/mne_interpolate_bads.py, /usr/bin/python3, an independent implementation of the
// same spherical splines) on the same electrode positions; every other channel unchanged; the
// suggestions printed with their thresholds; refusals with their exit codes.
//
// Tolerance: ModeScope reads the EDF as float32 and writes float32, MNE computes in float64; the
// interpolation matrices agree to ~1e-10 (both solve the same well-conditioned system), so the
// difference is float32 rounding of values up to a few hundred uV: 1e-3 uV absolute plus 1e-5
// relative of the channel's peak, far below the ~1 uV an error in the method would give.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/io/recording_io.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kEdf = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";
const std::string kMne = std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/mne_interpolate_bads.py";

class CliInterpolateTest : public cli_support::TempDirTest {
 protected:
  CliInterpolateTest() : TempDirTest("modescope-cli-interpolate") {}
};

TEST_F(CliInterpolateTest, AgreesWithMneInterpolateBads) {
  const std::vector<std::string> bads = {"C3", "FCz", "O2"};
  const std::string out = path("fixed.h5");
  const RunResult r = runCli({"interpolate", kEdf, out, "--bad", "C3,FCz,O2", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("interpolated C3, FCz, O2 from 61 channels"), std::string::npos) << r.out;

  OpenOptions open;
  open.helperExecutable = MODESCOPE_CLI;  // EDFlib refuses this file; BioSig reads it
  const auto input = openRecording(kEdf, open);
  const auto fixed = openRecording(out);
  ASSERT_EQ(fixed->channelCount(), input->channelCount());
  {
    std::ofstream positions(path("positions.tsv"));
    positions.precision(17);  // the positions exactly as ModeScope uses them
    for (const ChannelInfo& c : input->channels) {
      ASSERT_TRUE(c.position) << c.label;
      positions << c.name << '\t' << c.label << '\t' << c.position->x << '\t' << c.position->y
                << '\t' << c.position->z << '\n';
    }
  }
  const RunResult py =
      Child({kMne, kEdf, path("positions.tsv"), "C3,FCz,O2", path("mne.f64")}, "/usr/bin/python3")
          .finish();
  ASSERT_EQ(py.exitCode, 0) << describe(py);
  const int64_t n = input->channels[0].sampleCount;
  std::vector<double> reference(bads.size() * static_cast<std::size_t>(n));
  {
    std::ifstream g(path("mne.f64"), std::ios::binary);
    g.read(reinterpret_cast<char*>(reference.data()),
           static_cast<std::streamsize>(reference.size() * sizeof(double)));
    ASSERT_TRUE(g) << "MNE wrote fewer samples than " << reference.size();
  }
  for (std::size_t b = 0; b < bads.size(); ++b) {
    const int idx = fixed->findChannel(bads[b]);
    ASSERT_GE(idx, 0) << bads[b];
    const std::vector<float> ours = fixed->readChannel(static_cast<std::size_t>(idx), 0, n);
    const std::vector<float> before = input->readChannel(static_cast<std::size_t>(idx), 0, n);
    ASSERT_EQ(static_cast<int64_t>(ours.size()), n);
    double peak = 0.0, worst = 0.0, changed = 0.0;
    for (int64_t t = 0; t < n; ++t) peak = std::max(peak, std::abs(reference[b * n + t]));
    for (int64_t t = 0; t < n; ++t) {
      worst = std::max(worst, std::abs(ours[t] - reference[b * n + t]));
      changed = std::max(changed, std::abs(double(ours[t]) - before[t]));
    }
    EXPECT_LE(worst, 1e-3 + 1e-5 * peak) << bads[b] << ": peak " << peak;
    EXPECT_GT(changed, 1.0) << bads[b] << " was not replaced";
  }
  // The good channels are copied as read.
  for (const char* good : {"Cz", "Fp1", "Iz"}) {
    const int idx = input->findChannel(good);
    ASSERT_GE(idx, 0);
    EXPECT_EQ(fixed->readChannel(idx, 0, n), input->readChannel(idx, 0, n)) << good;
  }
}

TEST_F(CliInterpolateTest, PipelineStepWritesWhatTheCommandWrites) {
  const RunResult cmd =
      runCli({"interpolate", kEdf, path("cmd.h5"), "--bad", "C3,C4", "--backend", "cpu"});
  ASSERT_EQ(cmd.exitCode, 0) << describe(cmd);
  {
    std::ofstream p(path("p.json"));
    p << R"({"modescope_pipeline": 1, "steps": [)"
      << R"({"step": "interpolate", "channels": ["C3", "C4"]},)"
      << R"({"step": "filter", "filters": ["highpass:1"]}]})";
  }
  const RunResult run = runCli(
      {"run", path("p.json"), "--input", kEdf, "-o", path("out"), "--backend", "cpu", "--quiet"});
  ASSERT_EQ(run.exitCode, 0) << describe(run);
  const auto a = openRecording(path("cmd.h5"));
  const auto b = openRecording(path("out/01-interpolate.h5"));
  for (const char* name : {"C3", "C4"}) {
    const int i = a->findChannel(name);
    EXPECT_EQ(a->readChannel(i, 0, 2000), b->readChannel(i, 0, 2000)) << name;
  }
  // A start is refused: the step replaces whole channels.
  {
    std::ofstream p(path("bad.json"));
    p << R"({"modescope_pipeline": 1, "steps": [{"step": "interpolate", "start": 3}]})";
  }
  const RunResult refused = runCli({"run", path("bad.json"), "--input", kEdf, "-o", path("o2")});
  EXPECT_EQ(refused.exitCode, 2) << describe(refused);
  EXPECT_NE(refused.err.find("start"), std::string::npos) << refused.err;
}

TEST_F(CliInterpolateTest, ListsSuggestionsWithTheirThresholds) {
  const RunResult r = runCli({"interpolate", kEdf, "--auto-bad", "--list", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("deviation: |robust z of the robust SD| > 5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("low correlation: 98th-percentile |r| < 0.4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("suggested: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FC5"), std::string::npos) << r.out;  // one row per channel
  EXPECT_TRUE(listDir().empty());
  // A threshold from its declaration: the same option, range and message as everywhere.
  const RunResult bad = runCli({"interpolate", kEdf, "--auto-bad", "--list", "--deviation-z", "0"});
  EXPECT_EQ(bad.exitCode, 1) << describe(bad);
  EXPECT_NE(bad.err.find("--deviation-z"), std::string::npos) << bad.err;
}

TEST_F(CliInterpolateTest, RefusesWithClearMessages) {
  RunResult r = runCli({"interpolate", kEdf, path("x.h5")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("no channel given and none marked bad"), std::string::npos) << r.err;
  r = runCli({"interpolate", kEdf, path("x.h5"), "--bad", "Nope"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("Nope"), std::string::npos) << r.err;
  r = runCli({"interpolate", kEdf, "--bad", "C3"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("needs an output file"), std::string::npos) << r.err;
  r = runCli({"interpolate", kEdf, path("x.h5"), "--bad", "C3", "--terms", "0"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--terms"), std::string::npos) << r.err;
  EXPECT_TRUE(listDir().empty());
}

}  // namespace
}  // namespace modescope
