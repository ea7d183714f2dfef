// End-to-end tests of `modescope-cli ar` (docs/ar.md, "Command line" and "HDF5 file"): the
// PhysioNet motor-task recording with T1 vs T2 and a common average reference, checked by an
// independent reader (h5py through tests/tools/h5py_reads_ar_schema.py, which also recomputes r^2
// from the stored trial features with numpy) and against the engine's own computeEventR2 and
// filteredArSpectra on the recording read here; bad inputs and their exit codes; Ctrl-C.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/ar/event_features.h"
#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_ar.h"
#include "engine/io/recording_io.h"
#include "engine/spatial/spatial_filter.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kPhysioNet = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";

class CliArTest : public cli_support::TempDirTest {
 protected:
  CliArTest() : TempDirTest("modescope-cli-ar") {}
  std::string synth(const std::string& name) {
    const RunResult r = runCli(
        {"synth", "-o", path(name), "--channels", "8", "--duration", "20", "--seed", "3", "-q"});
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    return path(name);
  }
  // /usr/bin/python3 (the one with h5py) on the checker; returns its exit status and output.
  RunResult h5pyCheck(const std::string& h5) {
    const std::string src = MODESCOPE_SOURCE_DIR;
    return cli_support::Child(
               {src + "/tests/tools/h5py_reads_ar_schema.py", h5, "-", src + "/docs/ar.md"},
               "/usr/bin/python3")
        .finish();
  }
};

std::vector<std::size_t> allChannelsOf(const Recording& rec) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < rec.channelCount(); ++i) v.push_back(i);
  return v;
}

TEST_F(CliArTest, PhysioNetT1VersusT2WithCarMatchesTheEngineAndTheIndependentReader) {
  const RunResult r = runCli({"ar", kPhysioNet, "-o", path("ar.h5"), "--classes", "T1,T2",
                              "--spatial", "car", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"best_r2\""), std::string::npos) << r.out;
  EXPECT_EQ(listDir(), std::vector<std::string>{"ar.h5"}) << "no temporary file may remain";

  // The independent reader: layout, types, units, r^2 recomputed from the trial features, the
  // CAR matrix, the documentation's Python example.
  const RunResult py = h5pyCheck(path("ar.h5"));
  EXPECT_EQ(py.exitCode, 0) << describe(py);
  EXPECT_NE(py.out.find("OK"), std::string::npos) << describe(py);

  const ArFile f = readArFile(path("ar.h5"));
  ASSERT_TRUE(f.events.has_value());
  ASSERT_TRUE(f.spatialFilter.has_value());
  const EventR2Result& e = *f.events;
  for (double v : e.r2) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
  }

  // The same computation by the engine on the recording read here: the 64 EEG channels (the
  // file has no trigger channel, so the default selection is all of them), CAR over them, the
  // bci2000 preset, every T1 and T2 annotation.
  OpenOptions open;
  open.helperExecutable = MODESCOPE_CLI;  // EDFlib refuses this file; BioSig reads it
  const auto rec = openRecording(kPhysioNet, open);
  const std::vector<std::size_t> channels = allChannelsOf(*rec);
  ASSERT_EQ(channels.size(), 64u);
  ASSERT_EQ(f.channels.size(), channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i)
    EXPECT_EQ(f.channels[i].recordingIndex, channels[i]);
  const BurgArParams params = burgArPreset("bci2000");
  EventFeatureOptions options;
  options.spatialFilter =
      std::make_shared<const SpatialFilter>(commonAverageReference(rec->channels, channels));
  auto cpu = makeCpuBackend(1);
  JobContext ctx;
  const EventR2Result ref = computeEventR2(*rec, channels, "T1", "T2", params, options, *cpu, ctx);
  std::size_t t1 = 0, t2 = 0;
  for (const Annotation& a : rec->annotations) t1 += a.text == "T1", t2 += a.text == "T2";
  EXPECT_EQ(e.trialsA, ref.trialsA);
  EXPECT_EQ(e.trialsB, ref.trialsB);
  EXPECT_LE(e.trialsA, t1);
  EXPECT_LE(e.trialsB, t2);
  EXPECT_GE(e.trialsA + e.trialsB, 10u) << "the recording has 15 T1/T2 trials";
  ASSERT_EQ(e.rowNames, ref.rowNames);
  ASSERT_EQ(e.binCenters, ref.binCenters);
  ASSERT_EQ(e.r2.size(), ref.r2.size());
  // Both are the CPU's double computation on the same float samples; threads take whole
  // channels and every window is computed in one fixed order (docs/ar.md), so the values agree
  // to the last bits: 1e-12 absolute on r^2 in [0, 1] leaves room only for summation order.
  double largest = 0;
  for (std::size_t i = 0; i < e.r2.size(); ++i) {
    EXPECT_NEAR(e.r2[i], ref.r2[i], 1e-12)
        << e.rowNames[i / e.binCount()] << " bin " << i % e.binCount();
    EXPECT_NEAR(e.signedR2[i], ref.signedR2[i], 1e-12);
    EXPECT_NEAR(e.meanA[i], ref.meanA[i], 1e-9 * std::fabs(ref.meanA[i]) + 1e-300);
    largest = std::max(largest, e.r2[i]);
  }
  EXPECT_GT(largest, 0.0);

  // The spectra of the whole recording: the engine's filteredArSpectra of the block read here
  // (floats stored from the same double computation: equal).
  const SignalBlock block = extractBlock(*rec, channels, 0.0, -1.0);
  const ArSpectrumResult spectra =
      cpu->filteredArSpectra(options.spatialFilter.get(), block, params, ctx);
  EXPECT_EQ(f.spectra.windowCount(), spectra.windowCount());
  EXPECT_EQ(f.spectra.windowSamples, 80);
  EXPECT_EQ(f.spectra.stepSamples, 8);
  EXPECT_EQ(f.spectra.binCenters, spectra.binCenters);
  ASSERT_EQ(f.spectra.values.size(), spectra.values.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < spectra.values.size(); ++i)
    differ += f.spectra.values[i] != spectra.values[i];
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(f.provenance.method, "ar");
  EXPECT_NE(f.provenance.backend.find("CPU"), std::string::npos);
}

TEST_F(CliArTest, OrderAndWindowLimitsAreRefusedBeforeAnyFile) {
  RunResult r = runCli({"ar", kPhysioNet, "-o", path("o.h5"), "--order", "65"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--order"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 to 64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("limit"), std::string::npos) << r.err;
  // 0.05 s at 160 Hz is 8 samples; order 16 needs 17.
  r = runCli({"ar", kPhysioNet, "-o", path("o.h5"), "--window", "0.05"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("window"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("17"), std::string::npos) << r.err;
  r = runCli({"ar", kPhysioNet, "-o", path("o.h5"), "--window", "16samples"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("17"), std::string::npos) << r.err;
  for (const auto& [opt, val] :
       std::vector<std::pair<std::string, std::string>>{{"--window", "half"},
                                                        {"--bins", "0:30"},
                                                        {"--detrend", "cubic"},
                                                        {"--values", "phase"},
                                                        {"--spatial", "no-such-filter.csv"},
                                                        {"--classes", "T1"},
                                                        {"--evaluations", "5000"},
                                                        {"--preset", "bci3000"}}) {
    r = runCli({"ar", kPhysioNet, "-o", path("o.h5"), opt, val});
    EXPECT_EQ(r.exitCode, 1) << opt << " " << describe(r);
  }
  EXPECT_TRUE(listDir().empty()) << "no output, no temporary file";
}

TEST_F(CliArTest, UnknownClassListsTheClassesPresent) {
  const RunResult r =
      runCli({"ar", kPhysioNet, "-o", path("o.h5"), "--classes", "T1,T9", "--channels", "C3,C4"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("T9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("T0"), std::string::npos) << "the texts present: " << r.err;
  EXPECT_NE(r.err.find("T2"), std::string::npos) << r.err;
  EXPECT_TRUE(listDir().empty());
}

TEST_F(CliArTest, AFlatChannelIsADiagnosticNotACrash) {
  const std::string in = synth("s.h5");
  {
    const auto rec = openRecording(in);
    SignalBlock all = extractBlock(*rec, allChannelsOf(*rec), 0.0, -1.0);
    std::fill(all.channel(1), all.channel(1) + all.samples, 5.0f);
    JobContext ctx;
    writeRecording(*recordingFromBlock(*rec, all), path("flat.h5"), OutputFormat::Hdf5,
                   Provenance{}, ctx);
  }
  const auto rec = openRecording(path("flat.h5"));
  const std::string flatName = rec->channels[1].name;
  const RunResult r = runCli({"ar", path("flat.h5"), "-o", path("ar.h5"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find("flat"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(flatName), std::string::npos) << r.err;
  const ArFile f = readArFile(path("ar.h5"));
  bool found = false;
  for (const Diagnostic& d : f.diagnostics)
    found |= d.code == "ar.flatWindows" && d.message.find(flatName) != std::string::npos;
  EXPECT_TRUE(found) << "an ar.flatWindows diagnostic naming " << flatName;
  std::size_t row = f.rowNames.size();
  for (std::size_t i = 0; i < f.rowNames.size(); ++i)
    if (f.rowNames[i] == flatName) row = i;
  ASSERT_LT(row, f.rowNames.size());
  for (std::size_t w = 0; w < f.spectra.windowCount(); ++w) {
    const float* v = f.spectra.row(row, w);
    for (std::size_t k = 0; k < f.spectra.valuesPerWindow(); ++k) ASSERT_EQ(v[k], 0.0f);
  }
  const RunResult py = h5pyCheck(path("ar.h5"));
  EXPECT_EQ(py.exitCode, 0) << describe(py);
}

TEST_F(CliArTest, LaplacianWithMissingPositionsNamesThem) {
  const std::string in = synth("s.h5");
  std::string renamed;
  {
    const auto rec = openRecording(in);
    SignalBlock all = extractBlock(*rec, allChannelsOf(*rec), 0.0, -1.0);
    auto copy = std::make_shared<Recording>(*recordingFromBlock(*rec, all));
    copy->channels[2].name = copy->channels[2].label = "Xq7";
    copy->channels[2].position.reset();
    JobContext ctx;
    writeRecording(*copy, path("nopos.h5"), OutputFormat::Hdf5, Provenance{}, ctx);
  }
  const RunResult r =
      runCli({"ar", path("nopos.h5"), "-o", path("ar.h5"), "--spatial", "small-laplacian"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("Xq7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("position"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("ar.h5")));
  // Leaving the channel out makes the same Laplacian work.
  const RunResult ok = runCli({"ar", path("nopos.h5"), "-o", path("ar.h5"), "--spatial",
                               "small-laplacian", "--channels", "1,2,4-8", "-q"});
  EXPECT_EQ(ok.exitCode, 0) << describe(ok);
  EXPECT_TRUE(fs::exists(path("ar.h5")));
}

TEST_F(CliArTest, NanSamplesAndAMissingGpuLeaveNoFile) {
  const std::string in = synth("s.h5");
  {
    const auto rec = openRecording(in);
    SignalBlock all = extractBlock(*rec, allChannelsOf(*rec), 0.0, -1.0);
    all.data[2 * all.samples + 300] = std::numeric_limits<float>::quiet_NaN();
    JobContext ctx;
    writeRecording(*recordingFromBlock(*rec, all), path("nan.h5"), OutputFormat::Hdf5, Provenance{},
                   ctx);
  }
  RunResult r = runCli({"ar", path("nan.h5"), "-o", path("ar.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("sample"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("ar.h5")));
  // --backend cuda on a machine without a usable GPU: the selection's error, exit 3, no file.
  const RunResult b = runCli({"backends", "--json"});
  const auto cuda = b.out.find("\"cuda\"");
  if (cuda != std::string::npos && b.out.find("\"available\": true", cuda) == std::string::npos) {
    r = runCli({"ar", in, "-o", path("ar.h5"), "--backend", "cuda"});
    EXPECT_EQ(r.exitCode, 3) << describe(r);
    EXPECT_FALSE(fs::exists(path("ar.h5")));
  }
}

TEST_F(CliArTest, InterruptExitsWith130AndLeavesNoOutput) {
  // Order 64 on 1 s windows moved by one sample: about 1.3 million Burg fits, minutes on 2 cores.
  Child child({"ar", kPhysioNet, "-o", path("out.h5"), "--order", "64", "--window", "1", "--step",
               "1samples", "--backend", "cpu"});
  ASSERT_TRUE(child.waitForStderr("AR spectra")) << "no progress line: " << child.stderrSoFar();
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  // A cancel takes effect after the current window; 10 s leaves room for a loaded CI machine.
  EXPECT_LT(stopSeconds, 10.0);
  EXPECT_TRUE(listDir().empty()) << "no output, no temporary file";
}

}  // namespace
}  // namespace modescope
