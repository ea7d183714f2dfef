// `modescope-cli emd` end to end: the binary at MODESCOPE_CLI decomposes small recordings that
// the test writes itself (so the input is known exactly), and h5py (/usr/bin/python3) reads the
// result using only docs/hdf5-schema.md. Oracles nobody here computed:
//   - completeness: the rows of every channel sum to the input samples;
//   - closed forms: a pure 10 Hz sine of amplitude A has one dominant IMF with mean frequency
//     10 Hz and energy A^2 / 2 * T (T: seconds summed, edges left out);
//   - the thesis's signal (sin(2 pi 0.065 n) plus a burst sin(2 pi 0.255 n) on samples 501-750)
//     has IMF 1 at 0.255 cycles per sample (the burst; the tone is the residue, as iceemdan.m);
//   - the exit codes and behaviour promised in docs/cli.md.
// These run the real decomposition on the CPU with small parameters (tens of members, 1000
// samples), so they take seconds.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/recording_io.h"
#include "tests/integration/cli_support.h"

namespace {

namespace fs = std::filesystem;
using namespace modescope;

using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;

const std::string kPython = "/usr/bin/python3";
const std::string kSource = MODESCOPE_SOURCE_DIR;
constexpr double kRate = 1000.0;

bool havePythonH5py(std::string* why) {
  if (access(kPython.c_str(), X_OK) != 0) {
    *why = "no " + kPython;
    return false;
  }
  const RunResult r = Child({"-c", "import h5py, numpy"}, kPython).finish();
  if (r.exitCode != 0) *why = "python3-h5py/numpy missing: " + r.err;
  return r.exitCode == 0;
}

#define REQUIRE_H5PY()                                                                   \
  do {                                                                                   \
    std::string why_;                                                                    \
    if (!havePythonH5py(&why_))                                                          \
      GTEST_SKIP() << "SKIPPED LOUDLY: the EMD output is not checked by h5py: " << why_; \
  } while (0)

// Writes one channel per entry of `channels` (name, samples) at kRate into an HDF5 recording.
void writeInput(const std::string& path,
                const std::vector<std::pair<std::string, std::vector<float>>>& channels) {
  Recording rec;
  rec.info.format = "synthetic";
  std::vector<std::vector<float>> data;
  for (const auto& [name, samples] : channels) {
    ChannelInfo c;
    c.label = c.name = name;
    c.type = ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = kRate;
    c.sampleCount = static_cast<int64_t>(samples.size());
    c.physicalMin = -1000;
    c.physicalMax = 1000;
    rec.channels.push_back(c);
    data.push_back(samples);
  }
  rec.source = std::make_shared<InMemorySource>(std::move(data));
  JobContext ctx;
  writeRecording(rec, path, OutputFormat::Hdf5, Provenance{}, ctx);
}

// The thesis's test signal (seed 000, section 3.3.2): 1000 samples of sin(2 pi 0.065 n) plus
// sin(2 pi 0.255 n) on samples 501-750 (1-based).
std::vector<float> thesisSignal() {
  std::vector<float> x(1000);
  for (int n = 1; n <= 1000; ++n) {
    double v = std::sin(2 * std::numbers::pi * 0.065 * n);
    if (n >= 501 && n <= 750) v += std::sin(2 * std::numbers::pi * 0.255 * n);
    x[static_cast<std::size_t>(n - 1)] = static_cast<float>(v);
  }
  return x;
}

std::vector<float> sine(double hz, double amplitude, int samples) {
  std::vector<float> x(static_cast<std::size_t>(samples));
  for (int n = 0; n < samples; ++n) {
    x[static_cast<std::size_t>(n)] =
        static_cast<float>(amplitude * std::sin(2 * std::numbers::pi * hz * n / kRate));
  }
  return x;
}

// Deterministic broadband noise (a linear congruential generator: no library's stream needed).
std::vector<float> noise(int samples, uint32_t seed) {
  std::vector<float> x(static_cast<std::size_t>(samples));
  uint32_t s = seed;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<double>(s) / 4294967296.0 - 0.5) * 40.0f;
  }
  return x;
}

class CliEmdTest : public cli_support::TempDirTest {
 protected:
  CliEmdTest() : TempDirTest("modescope-cli-emd") {}
  // Runs a Python check script (written to the folder) with arguments; it prints OK or the
  // problems.
  RunResult python(const std::string& script, const std::vector<std::string>& args) {
    const std::string file = path("check.py");
    std::ofstream(file) << script;
    std::vector<std::string> argv = {file};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = Child(argv, kPython).finish();
    fs::remove(file);
    return r;
  }
  // The input: the thesis signal, a 10 Hz sine of amplitude 50 uV, and noise, 1000 samples each.
  std::string standardInput() {
    const std::string in = path("in.h5");
    writeInput(
        in,
        {{"thesis", thesisSignal()}, {"alpha", sine(10.0, 50.0, 1000)}, {"noise", noise(1000, 7)}});
    return in;
  }
};

// Checks an EMD output against its input recording and the --json summary, with h5py only.
// Tolerances: the rows are float32 and sum to the input to float rounding: a relative error of
// 1e-5 leaves room for a dozen rows of rounding (each ~6e-8 relative) and catches any lost or
// doubled mode (errors of order 1). The sine's dominant IMF: sifting leaves a few percent at the
// ends, and --edge 0.1 keeps those out of the summaries, so 2 % on its frequency and 5 % on its
// energy catch a wrong unit, a missing 1/fs or a wrong mode while allowing the estimator's
// small ripple.
const char* kCheckOutput = R"PY(
import json, sys
import h5py, numpy as np
out_h5, summary, rec_h5 = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.loads(open(summary).read())
bad = []
def check(c, what):
    if not c: bad.append(what)
with h5py.File(rec_h5, "r") as r, h5py.File(out_h5, "r") as f:
    check(f.attrs["modescope_schema"].decode() == "modescope-emd/1", "schema")
    names = list(f["channels/name"].asstr()[...])
    groups = list(f["channels/group"].asstr()[...])
    index = f["channels/recording_index"][...]
    e = f["emd"]
    first, n, rate = int(e.attrs["first_sample"]), int(e.attrs["samples"]), float(e.attrs["sample_rate"])
    check(rate == 1000.0, "sample_rate")
    check(abs(float(e.attrs["start_s"]) - first / rate) < 1e-12, "start_s")
    check(e.attrs["method"].decode() == s["method"], "method in file and summary")
    check(len(s["channels"]) == len(names), "channel count in the summary")
    rec_names = list(r["channels/name"].asstr()[...])
    for i, name in enumerate(names):
        x = r["signals/%d" % index[i]][first:first + n].astype(np.float64)
        check(rec_names[index[i]] == name, "recording_index of " + name)
        g = e[groups[i]]
        modes = g["modes"][...].astype(np.float64)
        check(modes.shape[1] == n, name + " modes have the range's samples")
        rel = np.linalg.norm(modes.sum(axis=0) - x) / np.linalg.norm(x)
        check(rel < 1e-5, "%s: rows do not sum to the input (relative error %g)" % (name, rel))
        rows = list(g["row_names"].asstr()[...])
        check(rows[-1] == "residue" and rows[0] == ("IMF 1" if len(rows) > 1 else "residue"), name + " row names")
        c = s["channels"][i]
        check(c["name"] == name and c["index"] == index[i] + 1, name + " summary name/index")
        check(c["imf_count"] == modes.shape[0] - 1, name + " summary imf_count")
        check([m["sifts"] for m in c["imfs"]] == list(g["sifts"][...]), name + " summary sifts")
        if "hht" in f:
            h = f["hht"][groups[i]]
            mf = h["mean_frequency"][...]
            en = h["energy"][...]
            rows_h = list(h["imf_rows"][...])
            by_row = {m["imf"] - 1: m for m in c["imfs"]}
            for k, row in enumerate(rows_h):
                check(abs(by_row[row]["mean_frequency_hz"] - mf[k]) <= 1e-9 * max(1, abs(mf[k])), name + " summary mean frequency")
                check(abs(by_row[row]["energy"] - en[k]) <= 1e-9 * max(1, abs(en[k])), name + " summary energy")
            if name == "alpha" and s["method"] == "emd":
                k = int(np.argmax(en))
                edge = float(f["hht"].attrs["edge_s"])
                seconds = n / rate - 2 * edge
                check(abs(mf[k] - 10.0) < 0.2, "alpha: dominant IMF at %g Hz, expected 10" % mf[k])
                want = 50.0 ** 2 / 2 * seconds
                check(abs(en[k] - want) < 0.05 * want, "alpha: energy %g, expected %g" % (en[k], want))
            if name == "thesis" and s["method"] == "iceemdan":
                # iceemdan.m returns [burst; residue] on this signal (reference-behaviour.md): the
                # 65 Hz tone is the residue, which the spectrum leaves out, so IMF 1 is the burst.
                k = rows_h.index(0)
                check(abs(mf[k] - 255.0) < 0.05 * 255.0, "thesis: IMF 1 at %g Hz, expected the 255 Hz burst" % mf[k])
            spec = h["spectrum"]
            check(spec.shape == (int(f["hht"].attrs["frequency_bins"]), int(f["hht"].attrs["time_bins"])), name + " spectrum shape")
            check(bool(np.all(np.isfinite(spec[...]))) and float(spec[...].max()) > 0, name + " spectrum finite, not all zero")
    p = f["provenance"]
    check(p.attrs["method"].decode() == s["method"], "provenance method")
    check(p.attrs["backend"].decode() == s["backend"]["description"], "provenance backend")
    check(p.attrs["input_file"].decode() == s["input"], "provenance input_file")
    params = dict(zip(p["parameter_name"].asstr()[...], p["parameter_value"].asstr()[...]))
    check(params == s["parameters"], "provenance parameters and summary")
for b in bad: print("MISMATCH:", b)
print("CHECK OK" if not bad else "%d problem(s)" % len(bad))
)PY";

TEST_F(CliEmdTest, DecomposesWritesSpectraAndASummaryThatMatchesTheFile) {
  REQUIRE_H5PY();
  const std::string in = standardInput();
  const RunResult r = runCli({"emd", in, "-o", path("out.h5"), "--method", "iceemdan", "--ensemble",
                              "50", "--seed", "3", "--edge", "0.1", "--fmax", "200", "--freq-bins",
                              "100", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::ofstream(path("summary.json")) << r.out;
  const RunResult c = python(kCheckOutput, {path("out.h5"), path("summary.json"), in});
  EXPECT_EQ(c.exitCode, 0) << describe(c);
  EXPECT_NE(c.out.find("CHECK OK"), std::string::npos) << c.out;
  EXPECT_NE(r.out.find("\"kind\": \"cpu\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"seed\": 3"), std::string::npos) << r.out;
}

TEST_F(CliEmdTest, EmdOfAPureSineGivesItsFrequencyAndEnergy) {
  REQUIRE_H5PY();
  const std::string in = standardInput();
  const RunResult r = runCli({"emd", in, "-o", path("out.h5"), "--method", "emd", "--channels",
                              "alpha", "--edge", "0.1", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::ofstream(path("summary.json")) << r.out;
  const RunResult c = python(kCheckOutput, {path("out.h5"), path("summary.json"), in});
  EXPECT_NE(c.out.find("CHECK OK"), std::string::npos) << describe(c);
}

TEST_F(CliEmdTest, SelectionAndDeterministicEmdWithoutHht) {
  REQUIRE_H5PY();
  const std::string in = standardInput();
  const RunResult r =
      runCli({"emd", in, "-o", path("out.h5"), "--method", "emd", "--channels", "noise,2",
              "--start", "0.2", "--duration", "0.5", "--no-hht", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::ofstream(path("summary.json")) << r.out;
  const RunResult c = python(std::string(kCheckOutput) + R"PY(
with h5py.File(out_h5, "r") as f:
    ok = list(f["channels/name"].asstr()[...]) == ["noise", "alpha"] and "hht" not in f
    ok = ok and int(f["emd"].attrs["first_sample"]) == 200 and int(f["emd"].attrs["samples"]) == 500
    ok = ok and f["provenance"].attrs["seed"].decode() == "" and s["seed"] is None
    ok = ok and all(m["mean_frequency_hz"] is None for m in s["channels"][0]["imfs"])
    print("SELECTION OK" if ok else "SELECTION WRONG")
)PY",
                             {path("out.h5"), path("summary.json"), in});
  EXPECT_NE(c.out.find("CHECK OK"), std::string::npos) << describe(c);
  EXPECT_NE(c.out.find("SELECTION OK"), std::string::npos) << c.out;
  // EMD draws no noise: a second run gives the same file contents.
  ASSERT_EQ(runCli({"emd", in, "-o", path("again.h5"), "--method", "emd", "--channels", "noise,2",
                    "--start", "0.2", "--duration", "0.5", "--no-hht", "--backend", "cpu", "-q"})
                .exitCode,
            0);
  const RunResult same = python(R"PY(
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    print("SAME" if np.array_equal(a["emd/noise/modes"][...], b["emd/noise/modes"][...]) else "DIFFERENT")
)PY",
                                {path("out.h5"), path("again.h5")});
  EXPECT_NE(same.out.find("SAME"), std::string::npos) << describe(same);
}

TEST_F(CliEmdTest, OptionsOverrideThePresetWhereverTheyStand) {
  REQUIRE_H5PY();
  const std::string in = standardInput();
  // --sifts comes before --preset on the line and still wins; what it does not set stays the
  // preset's (emd.m's Rilling thresholds 0.05/0.5/0.05).
  const RunResult r =
      runCli({"emd", in, "-o", path("out.h5"), "--sifts", "7", "--preset", "emd-rilling",
              "--max-imfs", "3", "--channels", "noise", "--no-hht", "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("\"preset\": \"emd-rilling\""), std::string::npos) << r.out;
  const RunResult c = python(R"PY(
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    e = f["emd"]
    got = (e.attrs["method"].decode(), e.attrs["stop_rule"].decode(), int(e.attrs["stop_fixed_sifts"]),
           int(e.attrs["max_imfs"]), float(e.attrs["stop_threshold1"]), float(e.attrs["stop_threshold2"]),
           float(e.attrs["stop_tolerance"]))
    sifts = list(f["emd/noise/sifts"][...])
    imfs = int(f["emd/noise"].attrs["imf_count"])
    names = list(f["provenance/parameter_name"].asstr()[...])
    values = list(f["provenance/parameter_value"].asstr()[...])
    ok = got == ("emd", "fixed", 7, 3, 0.05, 0.5, 0.05) and imfs == 3 and sifts == [7, 7, 7]
    ok = ok and names[0] == "preset" and values[0] == "emd-rilling"
    print("PRESET OK" if ok else "PRESET WRONG %r %r %r %r" % (got, sifts, imfs, names))
)PY",
                             {path("out.h5")});
  EXPECT_NE(c.out.find("PRESET OK"), std::string::npos) << describe(c);
}

TEST_F(CliEmdTest, BadParametersExitWithOneNamingTheParameterAndWriteNothing) {
  const std::string in = standardInput();
  struct Case {
    std::vector<std::string> args;
    std::string named;  // must appear in the error message
  };
  const std::vector<Case> cases = {
      {{"--ensemble", "0"}, "--ensemble"},
      {{"--noise", "-0.1"}, "--noise"},
      {{"--noise", "lots"}, "--noise"},
      {{"--method", "wavelet"}, "wavelet"},
      {{"--preset", "no-such-preset"}, "no-such-preset"},
      {{"--thresholds", "0.5,0.05,0.05"}, "--thresholds"},
      {{"--thresholds", "0.05,0.5"}, "--thresholds"},
      {{"--stop", "magic"}, "--stop"},
      {{"--sifts", "0"}, "--sifts"},
      {{"--max-imfs", "-2"}, "--max-imfs"},
      {{"--seed", "-1"}, "--seed"},
      {{"--precision", "half"}, "--precision"},
      {{"--noise-scaling", "random"}, "--noise-scaling"},
      {{"--freq-bins", "0"}, "--freq-bins"},
      {{"--log-freq"}, "--fmin"},
      {{"--fmin", "50", "--fmax", "20"}, "--fmin"},
      {{"--edge", "-1"}, "--edge"},
      {{"--fmax", "800"}, "fMax"},            // above Nyquist (500 Hz), found once the file is open
      {{"--edge", "0.5"}, "edgeSeconds"},     // nothing left of the 1 s range
      {{"--duration", "0.005"}, "duration"},  // 5 samples
      {{"--channels", "nosuch"}, "nosuch"},
      {{"--no-hht", "--fmax", "30"}, "--fmax"},
      {{"--drop-imfs", "1"}, "--cleaned"},
      {{"--drop-imfs", "0", "--cleaned", "c.h5"}, "--drop-imfs"},
      {{"--max-imfs", "2", "--drop-imfs", "3", "--cleaned", "c.h5"}, "--drop-imfs"},
      {{"--method", "eemd", "--paired-noise", "--ensemble", "11"}, "11"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"emd", in, "-o", path("out.h5"), "--backend", "cpu"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    for (auto& a : args) {
      if (a == "c.h5") a = path("c.h5");
    }
    const RunResult r = runCli(args);
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    EXPECT_EQ(r.exitCode, 1) << line << describe(r);
    EXPECT_NE(r.err.find("modescope-cli: error: "), std::string::npos) << line << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << line << ": should name " << c.named << "\n"
                                                      << r.err;
  }
  // The modes go to HDF5 only.
  const RunResult edf = runCli({"emd", in, "-o", path("out.edf")});
  EXPECT_EQ(edf.exitCode, 1) << describe(edf);
  EXPECT_NE(edf.err.find("--output"), std::string::npos) << edf.err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"in.h5"});
}

TEST_F(CliEmdTest, BadInputExitsWithTwoAndWritesNothing) {
  std::vector<float> withNan = noise(1000, 3);
  withNan[417] = std::numeric_limits<float>::quiet_NaN();
  writeInput(path("nan.h5"), {{"Fz", noise(1000, 1)}, {"Cz", withNan}});
  RunResult r = runCli({"emd", path("nan.h5"), "-o", path("out.h5"), "--backend", "cpu"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  // emd.h: the message names the first bad sample (the engine sees block rows, not names).
  EXPECT_NE(r.err.find("417"), std::string::npos) << "names the sample: " << r.err;

  writeInput(path("flat.h5"), {{"Pz", std::vector<float>(1000, 12.5f)}});
  r = runCli({"emd", path("flat.h5"), "-o", path("out.h5"), "--backend", "cpu"});
  EXPECT_EQ(r.exitCode, 2) << "a constant channel has nothing to decompose: " << describe(r);

  std::ofstream(path("garbage.edf")) << "this is not an EDF file at all";
  r = runCli({"emd", path("garbage.edf"), "-o", path("out.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  r = runCli({"emd", path("missing.edf"), "-o", path("out.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("missing.edf"), std::string::npos) << r.err;
  // An output folder that does not exist: refused before any work.
  r = runCli({"emd", path("nan.h5"), "-o", path("no/such/out.h5")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_EQ(listDir(), (std::vector<std::string>{"flat.h5", "garbage.edf", "nan.h5"}));
}

TEST_F(CliEmdTest, CudaBackendWithoutGpuExitsWithThree) {
  const RunResult b = runCli({"backends", "--json"});
  ASSERT_EQ(b.exitCode, 0) << describe(b);
  // The cuda entry comes second in `backends --json` (docs/cli.md).
  const auto cuda = b.out.find("\"cuda\"");
  ASSERT_NE(cuda, std::string::npos) << b.out;
  if (b.out.find("\"available\": true", cuda) != std::string::npos) {
    GTEST_SKIP() << "this machine has a usable CUDA device";
  }
  const std::string in = standardInput();
  const RunResult r = runCli({"emd", in, "-o", path("out.h5"), "--backend", "cuda"});
  EXPECT_EQ(r.exitCode, 3) << describe(r);
  EXPECT_NE(r.err.find("modescope-cli: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"in.h5"});
}

TEST_F(CliEmdTest, CleanedRecordingRemovesTheDroppedModesOnlyWhereDecomposed) {
  REQUIRE_H5PY();
  const std::string in = standardInput();
  const RunResult r = runCli({"emd", in, "-o", path("out.h5"), "--method", "emd", "--channels",
                              "thesis", "--start", "0.1", "--duration", "0.6", "--drop-imfs", "1",
                              "--cleaned", path("clean.h5"), "--no-hht", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  // Inside the range the cleaned channel is the input minus IMF 1 (float rows summed: 1e-5 of
  // the signal's scale); outside it, and on every other channel, the samples are the input's,
  // bit for bit.
  const RunResult c = python(R"PY(
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as r, h5py.File(sys.argv[2], "r") as m, h5py.File(sys.argv[3], "r") as c:
    ok = True
    first, n = int(m["emd"].attrs["first_sample"]), int(m["emd"].attrs["samples"])
    ok = ok and (first, n) == (100, 600)
    for i in range(3):
        x, y = r["signals/%d" % i][...], c["signals/%d" % i][...]
        if i == 0:
            imf1 = m["emd/thesis/modes"][0].astype(np.float64)
            want = x[first:first + n].astype(np.float64) - imf1
            ok = ok and np.max(np.abs(y[first:first + n] - want)) < 1e-5 * np.max(np.abs(x))
            ok = ok and np.array_equal(x[:first], y[:first]) and np.array_equal(x[first + n:], y[first + n:])
            ok = ok and np.max(np.abs(imf1)) > 0.1
        else:
            ok = ok and np.array_equal(x, y)
    ok = ok and c["provenance"].attrs["method"].decode() == "emd-cleaning"
    print("CLEAN OK" if ok else "CLEAN WRONG")
)PY",
                             {in, path("out.h5"), path("clean.h5")});
  EXPECT_NE(c.out.find("CLEAN OK"), std::string::npos) << describe(c);
  // Both outputs or neither: a cleaned path in a missing folder stops the run before any work.
  const RunResult bad = runCli({"emd", in, "-o", path("out2.h5"), "--drop-imfs", "1", "--cleaned",
                                path("none/clean.h5"), "--method", "emd"});
  EXPECT_EQ(bad.exitCode, 2) << describe(bad);
  EXPECT_EQ(listDir(), (std::vector<std::string>{"clean.h5", "in.h5", "out.h5"}));
}

TEST_F(CliEmdTest, ProgressLinesOnAPipeAndNothingWithQuiet) {
  const std::string in = standardInput();
  RunResult r = runCli({"emd", in, "-o", path("a.h5"), "--method", "emd", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.err.find("emd:"), std::string::npos) << "progress lines: " << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no carriage returns in logs";
  EXPECT_NE(r.out.find("wrote"), std::string::npos) << r.out;
  r = runCli({"emd", in, "-o", path("b.h5"), "--method", "emd", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_EQ(r.err, "");
}

TEST_F(CliEmdTest, InterruptExitsWith130AndLeavesNoOutput) {
  // 8 channels x 60 s at 1000 Hz with 200-member ICEEMDAN: minutes of work on 2 cores, so the
  // signal arrives while the decomposition runs.
  std::vector<std::pair<std::string, std::vector<float>>> channels;
  for (int c = 0; c < 8; ++c)
    channels.emplace_back("E" + std::to_string(c + 1), noise(60000, c + 1));
  writeInput(path("long.h5"), channels);
  Child child({"emd", path("long.h5"), "-o", path("out.h5"), "--ensemble", "200", "--backend",
               "cpu", "--drop-imfs", "1", "--cleaned", path("clean.h5")});
  ASSERT_TRUE(child.waitForStderr("emd:")) << "no progress line: " << child.stderrSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  ASSERT_NE(r.exitCode, 0) << "finished before the interrupt arrived; make the job longer";
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  EXPECT_NE(r.err.find("cancelled"), std::string::npos) << r.err;
  // Checkpoints come between sifting iterations; 10 s leaves room for a loaded CI machine.
  EXPECT_LT(stopSeconds, 10.0);
  EXPECT_EQ(listDir(), std::vector<std::string>{"long.h5"}) << "no output, no temporary file";
}

TEST_F(CliEmdTest, HelpDescribesTheCommand) {
  const RunResult r = runCli({"emd", "--help"});
  EXPECT_EQ(r.exitCode, 0) << describe(r);
  for (const char* o :
       {"--method", "--preset", "--ensemble", "--noise", "--stop", "--sifts", "--thresholds",
        "--max-imfs", "--seed", "--no-hht", "--fmax", "--drop-imfs", "--cleaned", "--json"}) {
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
  }
  const RunResult main = runCli({"--help"});
  EXPECT_NE(main.out.find("  emd"), std::string::npos) << main.out;
}

}  // namespace
