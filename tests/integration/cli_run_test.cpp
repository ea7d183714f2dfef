// `modescope-cli run PIPELINE --input REC -o OUTDIR` end to end (docs/pipelines.md): the binary at
// MODESCOPE_CLI replays pipeline files on recordings made with `modescope-cli synth`, and the
// oracle is the single commands run by hand with the same options: with --backend cpu every
// result dataset must be bit-identical (read back with the engine's readers, and every dataset
// of the files compared with h5py when /usr/bin/python3 has it). Also run.json, the refusals
// (exit 2 for a bad file, 1 for a selection the recording cannot satisfy) that leave the output
// folder untouched, --overwrite, and Ctrl-C.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/json_value.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_emd.h"
#include "engine/io/hdf5_entropy.h"
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

const std::string kPython = "/usr/bin/python3";
const std::string kSource = MODESCOPE_SOURCE_DIR;

// Every dataset of two HDF5 files outside /provenance (which holds times and paths): the same
// names, types, shapes and bytes. Prints "OK <count>" or the differences.
const char* kSameDatasets = R"PY(
import sys
import h5py, numpy as np
a, b = sys.argv[1], sys.argv[2]
def datasets(f):
    out = {}
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and "provenance" not in name.split("/"):
            out[name] = obj
    f.visititems(visit)
    return out
bad = []
with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
    da, db = datasets(fa), datasets(fb)
    if sorted(da) != sorted(db):
        bad.append("datasets only in one file: %s / %s" % (sorted(set(da) - set(db)), sorted(set(db) - set(da))))
    n = 0
    for name in sorted(set(da) & set(db)):
        x, y = da[name], db[name]
        if x.dtype != y.dtype or x.shape != y.shape:
            bad.append("%s: %s %s vs %s %s" % (name, x.dtype, x.shape, y.dtype, y.shape))
            continue
        vx, vy = x[()], y[()]
        if isinstance(vx, np.ndarray):
            same = list(vx.ravel()) == list(vy.ravel()) if vx.dtype.kind == "O" else vx.tobytes() == vy.tobytes()
        else:
            same = vx == vy
        if not same:
            bad.append(name + ": values differ")
        n += 1
print(("OK %d" % n) if not bad else "\n".join(bad))
)PY";

bool havePythonH5py(std::string* why) {
  if (access(kPython.c_str(), X_OK) != 0) {
    *why = "no " + kPython;
    return false;
  }
  const RunResult r = Child({"-c", "import h5py, numpy"}, kPython).finish();
  if (r.exitCode != 0) *why = "python3-h5py/numpy missing: " + r.err;
  return r.exitCode == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool sameBytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

bool sameBytes(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

class CliRunTest : public cli_support::TempDirTest {
 protected:
  CliRunTest() : TempDirTest("modescope-cli-run") {}

  // A synthetic recording (19 channels: the 10-20 set, C3 and C4 included; 256 Hz).
  std::string synth(const std::string& name, int channels = 19, int seconds = 20) {
    const RunResult r = runCli({"synth", "-o", path(name), "--channels", std::to_string(channels),
                                "--duration", std::to_string(seconds), "--seed", "5", "-q"});
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    return path(name);
  }
  std::string pipeline(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  // Runs the h5py comparison when h5py is there; says so loudly when it is not.
  void expectSameDatasets(const std::string& a, const std::string& b) {
    std::string why;
    if (!havePythonH5py(&why)) {
      std::fprintf(stderr, "NOTE: h5py comparison of %s skipped: %s\n", a.c_str(), why.c_str());
      return;
    }
    const std::string script = path("same.py");
    std::ofstream(script) << kSameDatasets;
    const RunResult r = Child({script, a, b}, kPython).finish();
    fs::remove(script);
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.out.rfind("OK ", 0), 0u) << a << " vs " << b << ":\n" << r.out;
  }
};

TEST_F(CliRunTest, EmdStepGivesTheDatasetsOfTheEmdCommandBitForBit) {
  const std::string in = synth("in.h5");
  const std::string p = pipeline("p.json", R"({
    "modescope_pipeline": 1,
    "description": "ICEEMDAN of C3 and C4",
    "steps": [
      {"step": "emd", "preset": "iceemdan-colominas", "channels": ["C3", "C4"], "start": 2,
       "duration": 4, "params": {"ensembleSize": 10, "seed": 7, "stop.kind": "fixed",
       "stop.fixedSifts": 10}}
    ]})");
  const RunResult r = runCli({"run", p, "--input", in, "-o", path("out"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("wrote"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("run: step 1/1 emd"), std::string::npos) << "progress lines: " << r.err;
  std::vector<std::string> outputs;
  for (const auto& e : fs::directory_iterator(path("out"))) outputs.push_back(e.path().filename());
  std::sort(outputs.begin(), outputs.end());
  EXPECT_EQ(outputs, (std::vector<std::string>{"01-emd.h5", "run.json"}));

  const RunResult hand = runCli({"emd",        in,
                                 "-o",         path("hand.h5"),
                                 "--preset",   "iceemdan-colominas",
                                 "--channels", "C3,C4",
                                 "--start",    "2",
                                 "--duration", "4",
                                 "--ensemble", "10",
                                 "--seed",     "7",
                                 "--stop",     "fixed",
                                 "--sifts",    "10",
                                 "--backend",  "cpu",
                                 "-q"});
  ASSERT_EQ(hand.exitCode, 0) << describe(hand);

  const EmdFile a = readEmdFile(path("out/01-emd.h5"));
  const EmdFile b = readEmdFile(path("hand.h5"));
  ASSERT_EQ(a.modes.channels.size(), 2u);
  ASSERT_EQ(b.modes.channels.size(), 2u);
  EXPECT_EQ(a.modes.firstSample, b.modes.firstSample);
  EXPECT_EQ(a.modes.samples, 4 * 256);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.channels[i].name, b.channels[i].name);
    EXPECT_EQ(a.modes.channels[i].rows, b.modes.channels[i].rows);
    EXPECT_TRUE(sameBytes(a.modes.channels[i].data, b.modes.channels[i].data)) << "channel " << i;
    EXPECT_EQ(a.modes.channels[i].sifts, b.modes.channels[i].sifts);
  }
  EXPECT_EQ(a.channels[0].name, "C3");
  ASSERT_TRUE(a.hht.has_value()) << "the Hilbert-Huang transform, as the emd command's default";
  ASSERT_TRUE(b.hht.has_value());
  EXPECT_EQ(a.modes.provenance.parameters, b.modes.provenance.parameters);
  EXPECT_EQ(a.modes.provenance.seed, "7");
  expectSameDatasets(path("out/01-emd.h5"), path("hand.h5"));
}

// The entropy step reads what an earlier filter step wrote, and gives the matrices the two
// commands give by hand.
TEST_F(CliRunTest, FilterThenXapenMatchesFilterAndXapenByHand) {
  const std::string in = synth("in.h5", 8, 20);
  const std::string p = pipeline("p.json", R"({
    "modescope_pipeline": 1,
    "steps": [
      {"step": "filter", "filters": ["bandpass:1-40"]},
      {"step": "xapen", "duration": 12, "params": {"measure": "sampen", "m": 2, "epoch": 1024}}
    ]})");
  const RunResult r = runCli({"run", p, "--input", in, "-o", path("out"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);

  ASSERT_EQ(runCli({"filter", in, "-o", path("f.h5"), "--filter", "bandpass:1-40", "--backend",
                    "cpu", "-q"})
                .exitCode,
            0);
  const RunResult hand =
      runCli({"xapen", path("f.h5"), "-o", path("hand.h5"), "--measure", "sampen", "--m", "2",
              "--epoch", "1024samples", "--duration", "12", "--backend", "cpu", "-q"});
  ASSERT_EQ(hand.exitCode, 0) << describe(hand);

  const EntropyFile a = readEntropyFile(path("out/02-xapen.h5"));
  const EntropyFile b = readEntropyFile(path("hand.h5"));
  ASSERT_EQ(a.recordings.size(), 1u);
  ASSERT_EQ(b.recordings.size(), 1u);
  const EntropyMatrixResult& x = a.recordings[0].result;
  const EntropyMatrixResult& y = b.recordings[0].result;
  EXPECT_EQ(x.channelCount(), 8u);
  EXPECT_EQ(x.epochCount(), 3u) << "12 s at 256 Hz in epochs of 1024 samples";
  EXPECT_EQ(x.params.measure, EntropyMeasure::SampleEntropy);
  EXPECT_EQ(x.channelNames, y.channelNames);
  EXPECT_TRUE(sameBytes(x.epochValues, y.epochValues));
  EXPECT_TRUE(sameBytes(x.average, y.average));
  EXPECT_EQ(a.recordings[0].provenance.parameters, b.recordings[0].provenance.parameters);

  const JsonValue run = parseJson(readFile(path("out/run.json")), "run.json");
  const JsonValue& step = run.find("steps")->asArray().at(1);
  EXPECT_EQ(step.find("kind")->asString(), "xapen");
  EXPECT_EQ(step.find("measure")->asString(), "sampen");
  EXPECT_EQ(step.find("epochs")->asDouble(), 3.0);
}

// The same datasets, value for value, in two time-frequency files (h5py: the image, the grid,
// the entropy, the ridges and their modes, the reconstruction, the provenance's parameters).
const char* const kSameTfFiles = R"(
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = ["magnitude", "frequencies", "times", "renyi_entropy", "ridge_rows", "ridge_modes",
         "reconstruction", "channels/name"]
for n in names:
    if (n in a) != (n in b): sys.exit("only one file has " + n)
    if n in a and not np.array_equal(a[n][...], b[n][...]): sys.exit(n + " differs")
for n in ["magnitude", "ridge_rows", "ridge_modes", "reconstruction"]:
    if n not in a: sys.exit("no " + n)
if dict(a["parameters"].attrs) != dict(b["parameters"].attrs): sys.exit("parameters differ")
print(a["magnitude"].shape)
)";

TEST_F(CliRunTest, FilterThenTfrMatchesFilterAndTfrByHand) {
  const std::string in = synth("in.h5", 8, 20);
  const std::string p = pipeline("p.json", R"({
    "modescope_pipeline": 1,
    "steps": [
      {"step": "filter", "filters": ["bandpass:1-40"]},
      {"step": "tfr", "channels": ["Fz", "T7"], "start": 2, "duration": 6,
       "params": {"order": "2", "windowLength": 128, "fftLength": 256, "maxFrequency": 45},
       "readout": {"ridges": 2, "ridgePenalty": 0.5, "reconstruct": true}}
    ]})");
  const RunResult r = runCli({"run", p, "--input", in, "-o", path("out"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("step 2/2 tfr: order 2 image of 2 channels x 6 s"), std::string::npos)
      << r.out;

  ASSERT_EQ(runCli({"filter", in, "-o", path("f.h5"), "--filter", "bandpass:1-40", "--backend",
                    "cpu", "-q"})
                .exitCode,
            0);
  const RunResult hand = runCli({"tfr",
                                 path("f.h5"),
                                 "-o",
                                 path("hand.h5"),
                                 "--channels",
                                 "Fz,T7",
                                 "--start",
                                 "2",
                                 "--duration",
                                 "6",
                                 "--order",
                                 "2",
                                 "--window-length",
                                 "128",
                                 "--fft",
                                 "256",
                                 "--fmax",
                                 "45",
                                 "--ridges",
                                 "2",
                                 "--ridge-penalty",
                                 "0.5",
                                 "--reconstruct",
                                 "--backend",
                                 "cpu",
                                 "-q"});
  ASSERT_EQ(hand.exitCode, 0) << describe(hand);
  const RunResult same =
      cli_support::Child({"-c", kSameTfFiles, path("out/02-tfr.h5"), path("hand.h5")},
                         "/usr/bin/python3")
          .finish();
  EXPECT_EQ(same.exitCode, 0) << describe(same);

  const JsonValue run = parseJson(readFile(path("out/run.json")), "run.json");
  const JsonValue& step = run.find("steps")->asArray().at(1);
  EXPECT_EQ(step.find("kind")->asString(), "tfr");
  EXPECT_EQ(step.find("order")->asString(), "2");
  EXPECT_EQ(step.find("columns")->asDouble(), 6.0 * 256);
}

TEST_F(CliRunTest, FilterThenIcaMatchesFilterAndIcaByHandAndRunJsonDescribesIt) {
  const std::string in = synth("in.h5", 8, 20);
  const std::string p = pipeline("p.json", R"({
    "modescope_pipeline": 1,
    "steps": [
      {"step": "filter", "filters": ["highpass:1", "notch:50"], "reference": "average"},
      {"step": "ica", "start": 1, "duration": 15, "params": {"maxSteps": 60, "seed": 3}}
    ]})");
  const RunResult r =
      runCli({"run", p, "--input", in, "-o", path("out/nested"), "--backend", "cpu", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);

  // By hand: the filter command, then ica on its output with the step's selection.
  ASSERT_EQ(runCli({"filter", in, "-o", path("f.h5"), "--filter", "highpass:1", "--filter",
                    "notch:50", "--reference", "average", "--backend", "cpu", "-q"})
                .exitCode,
            0);
  const RunResult ica =
      runCli({"ica", path("f.h5"), "-o", path("ica.h5"), "--start", "1", "--duration", "15",
              "--max-steps", "60", "--seed", "3", "--backend", "cpu", "-q"});
  ASSERT_EQ(ica.exitCode, 0) << describe(ica);

  // The filtered recordings: every sample.
  const auto fa = openRecording(path("out/nested/01-filter.h5"));
  const auto fb = openRecording(path("f.h5"));
  ASSERT_EQ(fa->channelCount(), fb->channelCount());
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < fa->channelCount(); ++i) all.push_back(i);
  const SignalBlock ba = extractBlock(*fa, all, 0.0, -1.0);
  const SignalBlock bb = extractBlock(*fb, all, 0.0, -1.0);
  EXPECT_EQ(ba.samples, bb.samples);
  EXPECT_TRUE(sameBytes(ba.data, bb.data)) << "filtered samples";

  // The decompositions: every matrix.
  const IcaFile ia = readIcaFile(path("out/nested/02-ica.h5"));
  const IcaFile ib = readIcaFile(path("ica.h5"));
  EXPECT_EQ(ia.firstSample, ib.firstSample);
  EXPECT_EQ(ia.samples, 15 * 256);
  EXPECT_EQ(ia.result.components, ib.result.components);
  EXPECT_EQ(ia.result.steps, ib.result.steps);
  EXPECT_TRUE(sameBytes(ia.result.unmixing.values, ib.result.unmixing.values));
  EXPECT_TRUE(sameBytes(ia.result.mixing.values, ib.result.mixing.values));
  EXPECT_TRUE(sameBytes(ia.result.sphere.values, ib.result.sphere.values));
  EXPECT_TRUE(sameBytes(ia.result.weights.values, ib.result.weights.values));
  EXPECT_TRUE(sameBytes(ia.result.mean, ib.result.mean));
  EXPECT_EQ(ia.inputFile, path("out/nested/01-filter.h5")) << "the ICA read the filter's output";
  expectSameDatasets(path("out/nested/01-filter.h5"), path("f.h5"));
  expectSameDatasets(path("out/nested/02-ica.h5"), path("ica.h5"));

  // run.json: the summary, also printed by --json.
  const std::string summary = readFile(path("out/nested/run.json"));
  EXPECT_EQ(r.out, summary);
  const JsonValue s = parseJson(summary, "run.json");
  EXPECT_EQ(s.find("pipeline")->asString(), p);
  EXPECT_EQ(s.find("input")->asString(), in);
  EXPECT_EQ(s.find("backend_option")->asString(), "cpu");
  EXPECT_GE(s.find("wall_s")->asDouble(), 0.0);
  const auto& steps = s.find("steps")->asArray();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].find("kind")->asString(), "filter");
  EXPECT_EQ(steps[0].find("file")->asString(), "01-filter.h5");
  EXPECT_EQ(steps[0].find("input")->asString(), in);
  EXPECT_EQ(steps[1].find("kind")->asString(), "ica");
  EXPECT_EQ(steps[1].find("file")->asString(), "02-ica.h5");
  EXPECT_EQ(steps[1].find("input")->asString(), path("out/nested/01-filter.h5"));
  EXPECT_EQ(steps[1].find("backend")->find("kind")->asString(), "cpu");
  EXPECT_EQ(steps[1].find("components")->asInt64(), ia.result.components);
  for (const JsonValue& st : steps) {
    EXPECT_GE(st.find("wall_s")->asDouble(), 0.0);
    EXPECT_FALSE(st.find("parameters")->asArray().empty());
  }
}

TEST_F(CliRunTest, TheExamplesRun) {
  const std::string in = synth("in.h5", 19, 32);
  for (const char* name : {"iceemdan-c3.json", "filter-ica.json", "filter-memd.json",
                           "filter-ica-iceemdan-xapen.json"}) {
    SCOPED_TRACE(name);
    const std::string out = path(std::string("out-") + name);
    const RunResult r = runCli({"run", kSource + "/examples/pipelines/" + name, "--input", in, "-o",
                                out, "--backend", "cpu", "-q"});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(r.err, "") << "--quiet";
    EXPECT_TRUE(fs::exists(out + "/run.json"));
  }
  EXPECT_TRUE(fs::exists(path("out-iceemdan-c3.json/01-emd.h5")));
  EXPECT_TRUE(fs::exists(path("out-filter-ica.json/01-filter.h5")));
  EXPECT_TRUE(fs::exists(path("out-filter-ica.json/02-ica.h5")));
  EXPECT_TRUE(fs::exists(path("out-filter-memd.json/02-memd.h5")));
  EXPECT_TRUE(fs::exists(path("out-filter-ica-iceemdan-xapen.json/04-xapen.h5")));
}

struct BadCase {
  const char* what;
  std::string text;  // the pipeline file ("" = no file)
  int exitCode;
  std::string message;  // a part of stderr
};

TEST_F(CliRunTest, BadPipelinesExitWithOneOrTwoAndLeaveNoOutputFolder) {
  const std::string in = synth("in.h5");
  const std::string emdOk = R"({"step": "emd", "channels": ["C3"], "duration": 2, "hht": false,)"
                            R"( "params": {"method": "emd"}})";
  auto file = [](const std::string& steps) {
    return R"({"modescope_pipeline": 1, "steps": [)" + steps + "]}";
  };
  const std::vector<BadCase> cases = {
      {"malformed JSON", "{\"modescope_pipeline\": 1,\n \"steps\": [}", 2, "line 2"},
      {"newer version", R"({"modescope_pipeline": 2, "steps": []})", 2,
       "field modescope_pipeline: found 2, expected version 1"},
      {"unknown step kind", file(emdOk + R"(, {"step": "pca"})"), 2,
       "step 2, field step: found 'pca'"},
      {"unknown field", file(R"({"step": "ica", "hht": false})"), 2,
       "step 1 (ica), field hht: found an unknown field"},
      {"unknown parameter", file(R"({"step": "emd", "params": {"ensemble": 50}})"), 2,
       "step 1 (emd), field params.ensemble: found an unknown parameter"},
      {"out of range", file(emdOk + R"(, {"step": "emd", "params": {"ensembleSize": 0}})"), 2,
       "step 2 (emd), field params.ensembleSize: found 0, expected an integer from 1 to 1048576"},
      {"wrong type", file(R"({"step": "ica", "params": {"seed": "7"}})"), 2,
       "step 1 (ica), field params.seed: found the string '7'"},
      {"missing step kind", file(R"({"channels": ["C3"]})"), 2,
       "step 1, field step: found nothing"},
      // Found once the recording is open, still before anything is written: exit 1.
      {"channel not in the recording", file(R"({"step": "emd", "channels": ["C3", "Nope"]})"), 1,
       "step 1 (emd): parameter 'channels'"},
      {"channel not in the filtered recording",
       file(R"({"step": "filter", "filters": ["lowpass:40"], "channels": ["C3", "C4"]},)"
            R"( {"step": "emd", "channels": ["Cz"]})"),
       1, "step 2 (emd): parameter 'channels'"},
      {"filter above Nyquist", file(R"({"step": "filter", "filters": ["lowpass:200"]})"), 1,
       "step 1 (filter)"},
      {"range beyond the end", file(emdOk + R"(, {"step": "ica", "start": 500})"), 1,
       "step 2 (ica): parameter 'start'"},
      {"ICA of one channel", file(R"({"step": "ica", "channels": ["C3"]})"), 1, "step 1 (ica)"},
  };
  int n = 0;
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string p = pipeline("bad" + std::to_string(n) + ".json", c.text);
    const std::string out = path("out" + std::to_string(n));
    ++n;
    const RunResult r = runCli({"run", p, "--input", in, "-o", out, "--backend", "cpu"});
    EXPECT_EQ(r.exitCode, c.exitCode) << describe(r);
    EXPECT_NE(r.err.find("'" + p + "'"), std::string::npos) << "names the file: " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "the output folder was created";
  }
  // A missing pipeline file, and a bad file with an existing output folder: untouched.
  RunResult r = runCli({"run", path("missing.json"), "--input", in, "-o", path("outm")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_FALSE(fs::exists(path("outm")));
  fs::create_directory(path("existing"));
  std::ofstream(path("existing/01-emd.h5")) << "an older result";
  r = runCli({"run", pipeline("v2.json", R"({"modescope_pipeline": 2, "steps": []})"), "--input",
              in, "-o", path("existing"), "--overwrite"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_EQ(readFile(path("existing/01-emd.h5")), "an older result");
  EXPECT_EQ(std::distance(fs::directory_iterator(path("existing")), fs::directory_iterator()), 1);
  // Usage.
  r = runCli({"run", pipeline("ok.json", file(emdOk)), "-o", path("outu")});
  EXPECT_EQ(r.exitCode, 1) << "no --input: " << describe(r);
  r = runCli({"run", path("ok.json"), "--input", in});
  EXPECT_EQ(r.exitCode, 1) << "no -o: " << describe(r);
  EXPECT_FALSE(fs::exists(path("outu")));
}

TEST_F(CliRunTest, ExistingOutputsNeedOverwriteAndAFileIsNoFolder) {
  const std::string in = synth("in.h5");
  const std::string p = pipeline(
      "p.json", R"({"modescope_pipeline": 1, "steps": [{"step": "emd", "channels": ["C3"],)"
                R"( "duration": 2, "hht": false, "params": {"method": "emd"}}]})");
  ASSERT_EQ(runCli({"run", p, "--input", in, "-o", path("out"), "-q"}).exitCode, 0);
  const auto firstTime = fs::last_write_time(path("out/01-emd.h5"));
  RunResult r = runCli({"run", p, "--input", in, "-o", path("out")});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_NE(r.err.find("--overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(fs::last_write_time(path("out/01-emd.h5")), firstTime) << "refused before writing";
  r = runCli({"run", p, "--input", in, "-o", path("out"), "--overwrite", "-q"});
  EXPECT_EQ(r.exitCode, 0) << describe(r);
  r = runCli({"run", p, "--input", in, "-o", in});
  EXPECT_EQ(r.exitCode, 2) << "the output is a file: " << describe(r);
}

TEST_F(CliRunTest, InterruptKeepsCompletedStepsAndLeavesNoPartialFile) {
  // A quick filter, then ICEEMDAN with 200 members of 8 channels x 120 s: minutes of work, so
  // the signal arrives while the second step runs.
  const std::string in = synth("in.h5", 8, 120);
  const std::string p = pipeline("p.json", R"({"modescope_pipeline": 1, "steps": [
      {"step": "filter", "filters": ["lowpass:40"]},
      {"step": "emd", "params": {"ensembleSize": 200}}]})");
  Child child({"run", p, "--input", in, "-o", path("out"), "--backend", "cpu"});
  ASSERT_TRUE(child.waitForStderr("step 2/2 emd", std::chrono::seconds(120)))
      << "no progress line of step 2: " << child.stderrSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  ASSERT_NE(r.exitCode, 0) << "finished before the interrupt arrived; make the job longer";
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  EXPECT_NE(r.err.find("cancelled"), std::string::npos) << r.err;
  EXPECT_LT(stopSeconds, 10.0);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(path("out"))) left.push_back(e.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"01-filter.h5"})
      << "the completed step stays; no partial file, no run.json";
}

TEST_F(CliRunTest, HelpDescribesTheCommand) {
  const RunResult r = runCli({"run", "--help"});
  EXPECT_EQ(r.exitCode, 0) << describe(r);
  for (const char* o : {"--input", "--output", "--overwrite", "--backend", "--json", "run.json",
                        "docs/pipelines.md"}) {
    EXPECT_NE(r.out.find(o), std::string::npos) << o;
  }
  const RunResult main = runCli({"--help"});
  EXPECT_NE(main.out.find("  run"), std::string::npos) << main.out;
}

}  // namespace
}  // namespace modescope
