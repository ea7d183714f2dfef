// End-to-end tests of `modescope-cli ica` and `ica-apply` (docs/cli.md, "ica" and "ica-apply"): the
// file's matrices against their definitions on the selected data, blink removal on a synthetic
// recording whose blinks are annotated (the ground truth), the identity of an empty rejection,
// and the exit codes of docs/cli.md.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/recording_io.h"
#include "tests/integration/cli_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

class CliIcaTest : public cli_support::TempDirTest {
 protected:
  CliIcaTest() : TempDirTest("modescope-cli-ica") {}
  // A synthetic recording with annotated blinks (8 channels, 30 s at 256 Hz).
  std::string synth(const std::string& name, int channels = 8, int seconds = 30) {
    const RunResult r = runCli({"synth", "-o", path(name), "--channels", std::to_string(channels),
                                "--duration", std::to_string(seconds), "--seed", "3", "-q"});
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    return path(name);
  }
};

std::vector<std::size_t> allChannelsOf(const Recording& rec) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < rec.channelCount(); ++i) v.push_back(i);
  return v;
}

std::vector<std::size_t> indicesOf(const IcaFile& f) {
  std::vector<std::size_t> v;
  for (const auto& c : f.channels) v.push_back(c.recordingIndex);
  return v;
}

TEST_F(CliIcaTest, MatricesSatisfyTheirDefinitionsOnTheSelectedData) {
  const std::string in = synth("s.h5");
  const RunResult r = runCli({"ica", in, "-o", path("ica.h5"), "--start", "2", "--duration", "20",
                              "--json", "--max-steps", "300"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"rank\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"variance_percent\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \""), std::string::npos) << "the backend that ran: " << r.out;

  const IcaFile f = readIcaFile(path("ica.h5"));
  const IcaResult& res = f.result;
  const int c = static_cast<int>(f.channels.size()), k = res.components;
  ASSERT_EQ(c, 8);
  ASSERT_EQ(k, 8);
  EXPECT_EQ(f.firstSample, 512);
  EXPECT_EQ(f.samples, 20 * 256);
  // unmixing * mixing = I: mixing is the pseudo-inverse; double arithmetic on a well-conditioned
  // 8 x 8 problem leaves ~1e-13, 1e-9 is far above that and far below any real error.
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      double s = 0;
      for (int m = 0; m < c; ++m) s += res.unmixing(i, m) * res.mixing(m, j);
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-9) << i << "," << j;
    }
  }
  // runica's sphere: sphere * cov * sphere' = 4 I, cov (1/(N-1)) of the selection recomputed here
  // from the recording. The samples are float32, the engine's and this covariance see the same
  // floats, so the two agree to double rounding over 5120 samples: 1e-8 relative.
  const auto rec = openRecording(in);
  const SignalBlock b = extractBlock(*rec, indicesOf(f), f.startSeconds(),
                                     static_cast<double>(f.samples) / f.sampleRate);
  ASSERT_EQ(b.samples, f.samples);
  std::vector<double> mean(static_cast<std::size_t>(c), 0.0);
  for (int i = 0; i < c; ++i) {
    for (int64_t t = 0; t < b.samples; ++t) mean[i] += b.channel(i)[t];
    mean[i] /= static_cast<double>(b.samples);
    EXPECT_NEAR(mean[i], res.mean[i], 1e-9 * (1 + std::fabs(mean[i])));
  }
  std::vector<double> cov(static_cast<std::size_t>(c * c), 0.0);
  for (int i = 0; i < c; ++i)
    for (int j = 0; j < c; ++j) {
      double s = 0;
      for (int64_t t = 0; t < b.samples; ++t)
        s += (b.channel(i)[t] - mean[i]) * (b.channel(j)[t] - mean[j]);
      cov[i * c + j] = s / static_cast<double>(b.samples - 1);
    }
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      double s = 0;
      for (int m = 0; m < c; ++m)
        for (int n = 0; n < c; ++n) s += res.sphere(i, m) * cov[m * c + n] * res.sphere(j, n);
      EXPECT_NEAR(s, i == j ? 4.0 : 0.0, 1e-8) << i << "," << j;
    }
  EXPECT_FALSE(res.history.empty());
  EXPECT_EQ(f.provenance.method, "ica");
}

// Mean square of x over the annotated blinks (minus the channel's mean outside them).
double blinkPower(const Recording& rec, std::size_t channel) {
  const SignalBlock b = extractBlock(rec, {channel}, 0.0, -1.0);
  std::vector<char> inBlink(static_cast<std::size_t>(b.samples), 0);
  for (const Annotation& a : rec.annotations) {
    if (a.text != "blink") continue;
    const auto t0 = static_cast<int64_t>(a.onset * b.sampleRate);
    const auto t1 = static_cast<int64_t>((a.onset + a.duration) * b.sampleRate);
    for (int64_t t = std::max<int64_t>(t0, 0); t < std::min(t1, b.samples); ++t) inBlink[t] = 1;
  }
  double outside = 0, n0 = 0;
  for (int64_t t = 0; t < b.samples; ++t)
    if (!inBlink[t]) outside += b.data[t], n0 += 1;
  outside /= std::max(n0, 1.0);
  double s = 0, n = 0;
  for (int64_t t = 0; t < b.samples; ++t)
    if (inBlink[t]) s += (b.data[t] - outside) * (b.data[t] - outside), n += 1;
  return s / std::max(n, 1.0);
}

TEST_F(CliIcaTest, RejectingTheBlinkComponentRemovesTheBlinksAndNothingReproducesTheInput) {
  const std::string in = synth("s.h5");
  ASSERT_EQ(runCli({"ica", in, "-o", path("ica.h5"), "-q"}).exitCode, 0);
  const auto rec = openRecording(in);
  const IcaFile f = readIcaFile(path("ica.h5"));
  const SignalBlock b = extractBlock(*rec, indicesOf(f), 0.0, -1.0);
  // The blink component, chosen from the ground truth: its activation has the largest share of
  // its power inside the annotated blinks (activations computed here from the file's matrices).
  int blinkComponent = -1;
  double best = -1;
  for (int k = 0; k < f.result.components; ++k) {
    double in = 0, all = 0;
    for (int64_t t = 0; t < b.samples; ++t) {
      double s = 0;
      for (std::size_t m = 0; m < f.channels.size(); ++m)
        s += f.result.unmixing(k, static_cast<int>(m)) * (b.channel(m)[t] - f.result.mean[m]);
      all += s * s;
      const double sec = static_cast<double>(t) / b.sampleRate;
      for (const Annotation& a : rec->annotations)
        if (a.text == "blink" && sec >= a.onset && sec < a.onset + a.duration) in += s * s;
    }
    if (in / all > best) best = in / all, blinkComponent = k;
  }
  ASSERT_GE(blinkComponent, 0);
  // The frontal channel with the most blink power (Fp1/Fp2 in the synthetic head model).
  std::size_t frontal = 0;
  for (std::size_t ch : indicesOf(f))
    if (blinkPower(*rec, ch) > blinkPower(*rec, frontal)) frontal = ch;

  RunResult r = runCli({"ica-apply", in, "--ica", path("ica.h5"), "--reject",
                        std::to_string(blinkComponent + 1), "-o", path("clean.h5"), "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const auto clean = openRecording(path("clean.h5"));
  EXPECT_EQ(clean->annotations.size(), rec->annotations.size()) << "annotations kept";
  const double before = blinkPower(*rec, frontal), after = blinkPower(*clean, frontal);
  // docs/cli.md: removing the blink component lowers the blink power on the most frontal
  // channel at least 10-fold (amplitude ~3x) on this recording; a wrong component leaves it.
  EXPECT_LT(after, before / 10.0) << rec->channels[frontal].name << ": " << before << " -> "
                                  << after;

  r = runCli(
      {"ica-apply", in, "--ica", path("ica.h5"), "--reject", "none", "-o", path("same.h5"), "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const auto same = openRecording(path("same.h5"));
  const SignalBlock a = extractBlock(*rec, allChannelsOf(*rec), 0.0, -1.0);
  const SignalBlock z = extractBlock(*same, allChannelsOf(*same), 0.0, -1.0);
  ASSERT_EQ(a.data.size(), z.data.size());
  // Back-projection in double, stored as float: within a few float ulps of the sample.
  for (std::size_t i = 0; i < a.data.size(); ++i)
    ASSERT_NEAR(z.data[i], a.data[i], 1e-5f * (1.0f + std::fabs(a.data[i]))) << i;

  // A recording the file was not computed on is refused, naming --ica.
  const RunResult s2 = runCli({"synth", "-o", path("other.h5"), "--channels", "8", "--rate", "128",
                               "--duration", "30", "-q"});
  ASSERT_EQ(s2.exitCode, 0);
  r = runCli({"ica-apply", path("other.h5"), "--ica", path("ica.h5"), "--reject", "1", "-o",
              path("bad.h5")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--ica"), std::string::npos) << r.err;
  r = runCli({"ica-apply", in, "--ica", path("ica.h5"), "--reject", "9", "-o", path("bad.h5")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--reject"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("bad.h5")));
}

TEST_F(CliIcaTest, BadParametersBadInputAndAMissingGpu) {
  const std::string in = synth("s.h5");
  for (const auto& [opt, val] :
       std::vector<std::pair<std::string, std::string>>{{"--lrate", "5"},
                                                        {"--block", "-1"},
                                                        {"--max-steps", "0"},
                                                        {"--stop", "-1"},
                                                        {"--anneal-deg", "200"},
                                                        {"--anneal-step", "1.5"},
                                                        {"--rank", "zero"},
                                                        {"--preset", "fastica"}}) {
    const RunResult r = runCli({"ica", in, "-o", path("o.h5"), opt, val});
    EXPECT_EQ(r.exitCode, 1) << opt << " " << describe(r);
    EXPECT_NE(r.err.find(opt == "--preset" ? "preset" : opt), std::string::npos) << r.err;
  }
  RunResult r = runCli({"ica", in, "-o", path("o.h5"), "--gpu-math", "fp16"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("tf32x3, tf32 or fp32"), std::string::npos) << r.err;
  // --backend cuda on a machine without a usable GPU: the selection's error, exit 3, no file.
  const RunResult b = runCli({"backends", "--json"});
  const auto cuda = b.out.find("\"cuda\"");
  if (cuda != std::string::npos && b.out.find("\"available\": true", cuda) == std::string::npos) {
    r = runCli({"ica", in, "-o", path("o.h5"), "--backend", "cuda"});
    EXPECT_EQ(r.exitCode, 3) << describe(r);
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("o.h5")));
  }
  // Too few samples: the engine's message with the count needed (8 components: 64 minimum).
  r = runCli({"ica", in, "-o", path("o.h5"), "--duration", "0.1"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("at least 64"), std::string::npos) << r.err;
  // NaN input -> 2.
  {
    const auto rec = openRecording(in);
    SignalBlock all = extractBlock(*rec, allChannelsOf(*rec), 0.0, -1.0);
    all.data[3 * all.samples + 100] = std::numeric_limits<float>::quiet_NaN();
    const auto nanRec = recordingFromBlock(*rec, all);
    JobContext ctx;
    writeRecording(*nanRec, path("nan.h5"), OutputFormat::Hdf5, Provenance{}, ctx);
  }
  r = runCli({"ica", path("nan.h5"), "-o", path("o.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  std::ofstream(path("garbage.edf")) << "not an EDF file";
  r = runCli({"ica", path("garbage.edf"), "-o", path("o.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  r = runCli({"ica-apply", in, "--ica", path("garbage.edf"), "--reject", "1", "-o", path("c.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_FALSE(fs::exists(path("o.h5")));
  EXPECT_FALSE(fs::exists(path("c.h5")));
}

TEST_F(CliIcaTest, InterruptExitsWith130AndLeavesNoOutput) {
  // 16 channels x 300 s with a tolerance no run reaches: minutes of steps on 2 cores.
  const std::string in = synth("long.h5", 16, 300);
  Child child({"ica", in, "-o", path("out.h5"), "--stop", "1e-300", "--max-steps", "100000"});
  ASSERT_TRUE(child.waitForStderr("step")) << "no progress line: " << child.stderrSoFar();
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  // Checkpoints come between blocks; 10 s leaves room for a loaded CI machine.
  EXPECT_LT(stopSeconds, 10.0);
  EXPECT_EQ(listDir(), std::vector<std::string>{"long.h5"}) << "no output, no temporary file";
}

}  // namespace
}  // namespace modescope
