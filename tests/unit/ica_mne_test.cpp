// Our extended Infomax against an independent implementation, MNE-Python's
// mne.preprocessing.infomax, on a real recording: the PhysioNet EEG Motor Movement/Imagery run
// S001R03 (64 EEG channels, 160 Hz, 125 s; tests/data), 1 Hz high-passed through
// engine/dsp/preprocess. Both sides use runica's settings (tests/tools/mne_infomax_runica.py); on
// this recording runica.m (run in GNU Octave) and MNE then agree
// at mean |correlation| 0.9994, every component above 0.99, and two runica runs from different
// random states at 0.999. The random permutations differ between the two implementations, so
// components are compared by the correlation of their activations, never element-wise.
//
// The recording is read from its HDF5 copy (tests/data/physionet_S001R03_64ch.h5, made by
// modescope-cli convert from the EDF file): EDFlib refuses the EDF file and the BioSig fallback
// needs the CLI's child process, which the unit tests do not build.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/dsp/preprocess.h"
#include "engine/ica/infomax.h"
#include "engine/io/recording_io.h"
#include "ica_test_support.h"
#include "shell_json_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
constexpr const char* kPython = "/usr/bin/python3";
// The first 60 s (9600 samples, 2.3 x 64^2). The whole 125 s takes about 30 s here and 60 s in
// MNE (2-core machine), over the minute a unit test may take; at 30 s (4800 samples, 1.2 x 64^2)
// the weakest components fall to |corr| 0.81, near the statistical floor of so short a
// recording, while 60 s gives 0.999 for every component in about 20 s (both sides run in
// parallel). MODESCOPE_ICA_MNE_SECONDS=125 runs the whole recording.
constexpr double kExcerptSeconds = 60.0;

// The recording as converted to HDF5 by modescope-cli convert (tests/data, same samples): the unit
// tests read it without EDFlib or BioSig, which refuse or need a child process for the EDF file.
std::shared_ptr<const Recording> readPhysionet() {
  return openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
}

TEST(IcaMne, ComponentsMatchMneInfomaxWithRunicaSettingsOnRealEeg) {
  if (test_support::runCommand(std::string(kPython) + " -c 'import mne'").status != 0)
    GTEST_SKIP() << "MNE-Python is not importable by /usr/bin/python3 (install python3-mne): the "
                    "comparison with MNE's infomax did NOT run";

  const auto raw = readPhysionet();
  ASSERT_TRUE(raw);
  ASSERT_EQ(raw->channelCount(), 64u);
  std::vector<std::size_t> channels(64);
  for (std::size_t i = 0; i < 64; ++i) channels[i] = i;
  PreprocessSpec spec;
  spec.filters.push_back(parseFilterSpec("highpass:1"));
  JobContext ctx;
  auto backend = makeCpuBackend(2);
  const auto filtered = preprocess(*raw, channels, 0.0, -1.0, spec, *backend, ctx);
  const char* env = std::getenv("MODESCOPE_ICA_MNE_SECONDS");
  const double seconds = env ? std::atof(env) : kExcerptSeconds;
  const SignalBlock block = extractBlock(*filtered, channels, 0.0, seconds);
  ASSERT_EQ(block.samples, static_cast<int64_t>(std::min(seconds, 125.0) * 160));

  // The same samples to MNE, which runs in a child process while ours computes.
  const fs::path dir =
      fs::temp_directory_path() / ("modescope-ica-mne-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path data = dir / "data.f32", out = dir / "unmixing.txt";
  {
    std::ofstream f(data, std::ios::binary);
    f.write(reinterpret_cast<const char*>(block.data.data()),
            static_cast<std::streamsize>(block.data.size() * sizeof(float)));
  }
  // Our rank decides the component count on both sides; this recording has full rank 64.
  const int components = 64;
  auto mneRun = std::async(std::launch::async, [&] {
    return test_support::runCommand(
        std::string(kPython) + " " + MODESCOPE_SOURCE_DIR + "/tests/tools/mne_infomax_runica.py " +
        test_support::shellQuote(data.string()) + " 64 " + std::to_string(block.samples) + " " +
        std::to_string(components) + " 5 " + test_support::shellQuote(out.string()));
  });

  IcaParams p = icaPreset("eeglab-runica");
  p.seed = 3;
  const IcaResult ours = runInfomaxCpu(block, p, 2, ctx);
  std::printf("ours: %d components (rank %d), %d steps, %s, %.1f s\n", ours.components,
              ours.detectedRank, ours.steps, ours.stopReason.c_str(), ours.seconds);
  const auto r = mneRun.get();
  ASSERT_EQ(ours.components, components);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream f(out);
  int mneSteps = 0;
  double mneSeconds = 0;
  f >> mneSteps >> mneSeconds;
  const int rr = ours.components;
  IcaMatrix mne(rr, 64);
  for (double& v : mne.values) f >> v;
  ASSERT_TRUE(f) << "could not read " << out;
  fs::remove_all(dir);
  std::printf("MNE infomax: %d steps, %.1f s\n", mneSteps, mneSeconds);
  EXPECT_GT(mneSteps, 2);

  IcaResult mneResult = ours;
  mneResult.unmixing = mne;
  const std::vector<float> a = icaActivations(ours, block);
  const std::vector<float> b = icaActivations(mneResult, block);
  const int64_t n = block.samples;
  std::vector<double> best(rr, 0.0);
  std::vector<int> match(rr, -1);
  for (int i = 0; i < rr; ++i)
    for (int j = 0; j < rr; ++j) {
      const double c = std::abs(ica_test::correlation(a.data() + i * n, b.data() + j * n, n));
      if (c > best[i]) {
        best[i] = c;
        match[i] = j;
      }
    }
  double mean = 0, low = 1;
  for (int i = 0; i < rr; ++i) {
    mean += best[i] / rr;
    low = std::min(low, best[i]);
  }
  std::printf("best |corr| per component: mean %.4f, min %.4f\n", mean, low);
  // All components, as a whole: runica.m vs MNE gave 0.9994 on the full recording.
  EXPECT_GE(mean, 0.97);

  // The components carrying most variance: the top 20 by our back-projected variance (together
  // they hold most of the data's power on this recording; printed below). Each must have its own
  // MNE partner with |corr| >= 0.95.
  const int top = std::min(20, rr);
  double share = 0;
  for (int i = 0; i < top; ++i) share += ours.varianceFraction[i];
  std::printf("top %d components: back-projected share %.2f\n", top, share);
  std::vector<int> used;
  for (int i = 0; i < top; ++i) {
    EXPECT_GE(best[i], 0.95) << "component " << i << " (variance share " << ours.varianceFraction[i]
                             << ")";
    EXPECT_EQ(std::count(used.begin(), used.end(), match[i]), 0)
        << "component " << i << " matches MNE component " << match[i] << " twice";
    used.push_back(match[i]);
  }
}

}  // namespace
}  // namespace modescope
