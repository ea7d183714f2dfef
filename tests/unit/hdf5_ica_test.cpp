// ICA result files (engine/io/hdf5_ica.h, docs/hdf5-schema.md "ICA result files"): every value
// written comes back bit for bit through readIcaFile, and an independent reader (h5py, through
// tests/tools/h5py_reads_ica_schema.py) finds it where the documentation says, with the
// documented types and units, and the documentation's Python example runs on it; failures and
// cancels leave no file; foreign, damaged, newer and wrongly shaped files are refused with a
// message naming the file.
#include "engine/io/hdf5_ica.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/io/hdf5_util.h"
#include "engine/io/recording_io.h"
#include "tests/unit/hdf5_file_test_support.h"
#include "tests/unit/shell_json_support.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr int kChannels = 4;
constexpr int kComponents = 3;  // < kChannels: a PCA-reduced model, so no shape is square by luck
constexpr double kRate = 250.0;

using test_support::CommandResult;
using test_support::jsonString;
using test_support::list;
using test_support::messageOf;
using test_support::numd;
using test_support::provenanceJson;
using test_support::runCommand;
using test_support::shellQuote;

std::string doubles(const std::vector<double>& v) { return list(v, numd); }
std::string rows(const IcaMatrix& m) {
  std::string s = "[";
  for (int r = 0; r < m.rows; ++r) {
    s += r ? ",[" : "[";
    for (int c = 0; c < m.cols; ++c) s += (c ? "," : "") + numd(m(r, c));
    s += "]";
  }
  return s + "]";
}

IcaMatrix randomMatrix(int r, int c, std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  IcaMatrix m(r, c);
  for (double& v : m.values) v = g(rng);
  return m;
}

// Values need not be a consistent ICA model: the file stores what it is given. Every field is
// away from its default so that a field the writer or reader forgot shows up.
IcaFile makeFile() {
  IcaFile f;
  f.inputFile = "/data/sub-02/ses 1/eeg.edf";
  f.sampleRate = kRate;
  f.firstSample = 1250;
  f.samples = 7500;
  f.channels = {{5, "Fp1", "EEG Fp1-REF", "EEG", "uV", Position3{-0.31, 0.95, -0.03}},
                {0, "Cz", "EEG Cz-REF", "EEG", "uV", Position3{0.0, 0.0, 1.0}},
                {7, "VEOG", "EOG up", "EOG", "µV", std::nullopt},
                {2, "C3/C4", "bipolar", "EEG", "uV", Position3{-0.7, 0.0, 0.71}}};
  IcaResult& r = f.result;
  for (const IcaFileChannel& c : f.channels) r.channels.push_back(c.recordingIndex);
  r.components = kComponents;
  r.detectedRank = 4;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  r.eigenvalues = {812.5, 90.25, 3.0625, 1.5e-9};
  r.mean = {-3.25, 0.125, 12.0, -0.0078125};
  r.sphere = randomMatrix(kComponents, kChannels, rng);
  r.weights = randomMatrix(kComponents, kComponents, rng);
  r.unmixing = randomMatrix(kComponents, kChannels, rng);
  r.mixing = randomMatrix(kChannels, kComponents, rng);
  r.bias = {0.01, -0.2, 3e-5};
  r.signs = {1, -1, 1};
  r.backProjectedVariance = {400.0 * u(rng), 20.0 * u(rng), u(rng)};
  r.varianceFraction = {0.7, 0.25, 0.0625};
  IcaParams& p = r.params;
  p.extended = false;
  p.rules = IcaRules::Mne;
  p.learningRate = 0.0015;
  p.blockSize = 77;
  p.annealDegrees = 55.5;
  p.annealFactor = 0.85;
  p.stopTolerance = 2.5e-7;
  p.maxSteps = 333;
  p.pcaRank = kComponents;
  p.rankTolerance = 3e-9;
  p.sphering = IcaSphering::PcaUnit;
  p.bias = false;
  p.seed = 18446744073709551557ull;  // above INT64_MAX: the attribute must be unsigned
  p.ext.extBlocks = -2;
  p.ext.subGaussian = 3;
  p.ext.kurtosisSamples = 4321;
  p.ext.kurtosisMomentum = 0.375;
  p.ext.signsBias = 0.03;
  p.ext.signCountThreshold = 19;
  p.ext.signCountStep = 1.5;
  p.ext.centredKurtosis = true;
  p.maxWeight = 2e7;
  p.restartFactor = 0.85;
  p.blowupChange = 1e4;
  p.blowupFactor = 0.5;
  p.minLearningRate = 1e-10;
  p.maxSmallAngleSteps = 20;
  r.resolved = {0.0012, 60, 0.9, 1e-12, kComponents};
  // Two starts: the first blew up after its step 2 and restarted at step 1.
  r.history = {{1, 0.5, 0.0, 0.0015, false, 0},
               {2, 0.25, 0.0, 0.0015, true, 1},
               {1, 0.125, 0.0, 0.00135, false, 2},
               {2, 0.0625, 0.0, 0.00135, false, 2},
               {3, 1.5e-13, 61.25, 0.0011475, false, 1}};
  r.steps = 3;
  r.restarts = 1;
  r.converged = true;
  r.stopReason = "small-angle rule";
  r.finalLearningRate = 0.0011475;
  r.samples = f.samples;
  r.seconds = 4.75;
  r.diagnostics = {{Severity::Warning, "ica.restart", "weights blew up at step 3; restarted"},
                   {Severity::Info, "ica.rankReduced", "rank 4 of 4, forced to 3 components"}};
  Provenance& pr = f.provenance;
  pr.method = "ica";
  pr.parameters = {{"preset", "mne-infomax"}, {"learning_rate", "0.0015 per sample"}};
  pr.seed = "18446744073709551557";
  pr.backend = "CPU, 2 threads";
  pr.softwareVersion = softwareVersion();
  pr.inputFile = f.inputFile;
  pr.selection = "channels Fp1, Cz, VEOG, C3/C4; 5-35 s";
  pr.createdAt = "2026-11-23T08:00:00Z";
  pr.wallSeconds = 5.5;
  return f;
}

// What the documentation says the file holds for makeFile(), written from the input values.
std::string expectedJson(const IcaFile& f) {
  const IcaResult& r = f.result;
  const IcaParams& p = r.params;
  std::ostringstream o;
  o << "{\"input_file\":" << jsonString(f.inputFile) << ",\"channels\":[";
  for (std::size_t i = 0; i < f.channels.size(); ++i) {
    const IcaFileChannel& c = f.channels[i];
    o << (i ? "," : "") << "{\"recording_index\":" << c.recordingIndex
      << ",\"name\":" << jsonString(c.name) << ",\"label\":" << jsonString(c.label)
      << ",\"type\":" << jsonString(c.type) << ",\"unit\":" << jsonString(c.unit)
      << ",\"position\":"
      << (c.position ? "[" + numd(c.position->x) + "," + numd(c.position->y) + "," +
                           numd(c.position->z) + "]"
                     : std::string("null"))
      << "}";
  }
  o << "],\"ica\":{\"components\":3,\"detected_rank\":4,\"rank_choice\":\"forced by pca_rank\""
    << ",\"sample_rate\":" << numd(kRate) << ",\"first_sample\":1250,\"samples\":7500"
    << ",\"start_s\":" << numd(1250.0 / kRate) << ",\"duration_s\":" << numd(7500.0 / kRate)
    << ",\"converged\":1,\"stop_reason\":\"small-angle rule\",\"steps\":3,\"restarts\":1"
    << ",\"final_learning_rate\":" << numd(0.0011475) << ",\"seconds\":" << numd(4.75) << "}"
    << ",\"float64\":{\"mean\":" << doubles(r.mean) << ",\"eigenvalues\":" << doubles(r.eigenvalues)
    << ",\"bias\":" << doubles(r.bias)
    << ",\"back_projected_variance\":" << doubles(r.backProjectedVariance)
    << ",\"variance_fraction\":" << doubles(r.varianceFraction)
    << "}"
    // The first channel's unit.
    << ",\"units\":{\"mean\":\"uV\",\"eigenvalues\":\"uV^2\",\"back_projected_variance\":\"uV^2\""
    << ",\"variance_fraction\":\"fraction of total power\"}"
    << ",\"matrices\":{\"sphere\":" << rows(r.sphere) << ",\"weights\":" << rows(r.weights)
    << ",\"unmixing\":" << rows(r.unmixing) << ",\"mixing\":" << rows(r.mixing) << "}"
    << ",\"signs\":[1,-1,1],\"parameters\":{\"extended\":0,\"rules\":\"mne\","
    << "\"sphering\":\"pca-unit\",\"bias\":0,\"learning_rate\":" << numd(p.learningRate)
    << ",\"block_size\":77,\"anneal_deg\":" << numd(55.5) << ",\"anneal_factor\":" << numd(0.85)
    << ",\"stop_tolerance\":" << numd(2.5e-7) << ",\"max_steps\":333,\"pca_rank\":3"
    << ",\"rank_tolerance\":" << numd(3e-9) << ",\"seed\":18446744073709551557"
    << ",\"ext_blocks\":-2,\"ext_sub_gaussian\":3,\"ext_kurtosis_samples\":4321"
    << ",\"ext_kurtosis_momentum\":" << numd(0.375) << ",\"ext_signs_bias\":" << numd(0.03)
    << ",\"ext_sign_count_threshold\":19,\"ext_sign_count_step\":" << numd(1.5)
    << ",\"ext_centred_kurtosis\":1,\"max_weight\":" << numd(2e7)
    << ",\"restart_factor\":" << numd(0.85) << ",\"blowup_change\":" << numd(1e4)
    << ",\"blowup_factor\":" << numd(0.5) << ",\"min_learning_rate\":" << numd(1e-10)
    << ",\"max_small_angle_steps\":20,\"resolved_learning_rate\":" << numd(0.0012)
    << ",\"resolved_block_size\":60,\"resolved_anneal_factor\":" << numd(0.9)
    << ",\"resolved_stop_tolerance\":" << numd(1e-12) << ",\"resolved_components\":3}"
    << ",\"history\":{\"step\":[1,2,1,2,3],\"change\":"
    << list(r.history, [](const IcaStep& s) { return numd(s.change); })
    << ",\"angle_deg\":" << list(r.history, [](const IcaStep& s) { return numd(s.angleDegrees); })
    << ",\"learning_rate\":"
    << list(r.history, [](const IcaStep& s) { return numd(s.learningRate); })
    << ",\"restarted_after\":[0,1,0,0,0],\"sub_gaussian\":[0,1,2,2,1]}"
    << ",\"diagnostics\":["
    << "[\"warning\",\"ica.restart\",\"weights blew up at step 3; restarted\"],"
    << "[\"info\",\"ica.rankReduced\",\"rank 4 of 4, forced to 3 components\"]]";
  o << ",\"provenance\":" << provenanceJson(f.provenance) << "}";
  return o.str();
}

class Hdf5IcaTest : public test_support::TempDirTest {
 protected:
  Hdf5IcaTest() : TempDirTest("modescope-ica-h5") {}
};

void expectSameMatrix(const IcaMatrix& a, const IcaMatrix& b, const char* what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.values, b.values) << what;
}

void expectSameFile(const IcaFile& a, const IcaFile& b) {
  EXPECT_EQ(a.inputFile, b.inputFile);
  EXPECT_EQ(a.sampleRate, b.sampleRate);
  EXPECT_EQ(a.firstSample, b.firstSample);
  EXPECT_EQ(a.samples, b.samples);
  ASSERT_EQ(a.channels.size(), b.channels.size());
  for (std::size_t i = 0; i < a.channels.size(); ++i) {
    const IcaFileChannel &x = a.channels[i], &y = b.channels[i];
    EXPECT_EQ(x.recordingIndex, y.recordingIndex) << i;
    EXPECT_EQ(x.name, y.name) << i;
    EXPECT_EQ(x.label, y.label) << i;
    EXPECT_EQ(x.type, y.type) << i;
    EXPECT_EQ(x.unit, y.unit) << i;
    ASSERT_EQ(x.position.has_value(), y.position.has_value()) << i;
    if (x.position) {
      EXPECT_EQ(x.position->x, y.position->x) << i;
      EXPECT_EQ(x.position->y, y.position->y) << i;
      EXPECT_EQ(x.position->z, y.position->z) << i;
    }
  }
  const IcaResult &r = a.result, &s = b.result;
  EXPECT_EQ(r.channels, s.channels);
  EXPECT_EQ(r.components, s.components);
  EXPECT_EQ(r.detectedRank, s.detectedRank);
  EXPECT_EQ(r.eigenvalues, s.eigenvalues);
  EXPECT_EQ(r.mean, s.mean);
  expectSameMatrix(r.sphere, s.sphere, "sphere");
  expectSameMatrix(r.weights, s.weights, "weights");
  expectSameMatrix(r.unmixing, s.unmixing, "unmixing");
  expectSameMatrix(r.mixing, s.mixing, "mixing");
  EXPECT_EQ(r.bias, s.bias);
  EXPECT_EQ(r.signs, s.signs);
  EXPECT_EQ(r.backProjectedVariance, s.backProjectedVariance);
  EXPECT_EQ(r.varianceFraction, s.varianceFraction);
  const IcaParams &p = r.params, &q = s.params;
  EXPECT_EQ(p.extended, q.extended);
  EXPECT_EQ(p.rules, q.rules);
  EXPECT_EQ(p.learningRate, q.learningRate);
  EXPECT_EQ(p.blockSize, q.blockSize);
  EXPECT_EQ(p.annealDegrees, q.annealDegrees);
  EXPECT_EQ(p.annealFactor, q.annealFactor);
  EXPECT_EQ(p.stopTolerance, q.stopTolerance);
  EXPECT_EQ(p.maxSteps, q.maxSteps);
  EXPECT_EQ(p.pcaRank, q.pcaRank);
  EXPECT_EQ(p.rankTolerance, q.rankTolerance);
  EXPECT_EQ(p.sphering, q.sphering);
  EXPECT_EQ(p.bias, q.bias);
  EXPECT_EQ(p.seed, q.seed);
  EXPECT_EQ(p.ext.extBlocks, q.ext.extBlocks);
  EXPECT_EQ(p.ext.subGaussian, q.ext.subGaussian);
  EXPECT_EQ(p.ext.kurtosisSamples, q.ext.kurtosisSamples);
  EXPECT_EQ(p.ext.kurtosisMomentum, q.ext.kurtosisMomentum);
  EXPECT_EQ(p.ext.signsBias, q.ext.signsBias);
  EXPECT_EQ(p.ext.signCountThreshold, q.ext.signCountThreshold);
  EXPECT_EQ(p.ext.signCountStep, q.ext.signCountStep);
  EXPECT_EQ(p.ext.centredKurtosis, q.ext.centredKurtosis);
  EXPECT_EQ(p.maxWeight, q.maxWeight);
  EXPECT_EQ(p.restartFactor, q.restartFactor);
  EXPECT_EQ(p.blowupChange, q.blowupChange);
  EXPECT_EQ(p.blowupFactor, q.blowupFactor);
  EXPECT_EQ(p.minLearningRate, q.minLearningRate);
  EXPECT_EQ(p.maxSmallAngleSteps, q.maxSmallAngleSteps);
  EXPECT_EQ(r.resolved.learningRate, s.resolved.learningRate);
  EXPECT_EQ(r.resolved.blockSize, s.resolved.blockSize);
  EXPECT_EQ(r.resolved.annealFactor, s.resolved.annealFactor);
  EXPECT_EQ(r.resolved.stopTolerance, s.resolved.stopTolerance);
  EXPECT_EQ(r.resolved.components, s.resolved.components);
  ASSERT_EQ(r.history.size(), s.history.size());
  for (std::size_t i = 0; i < r.history.size(); ++i) {
    EXPECT_EQ(r.history[i].step, s.history[i].step) << i;
    EXPECT_EQ(r.history[i].change, s.history[i].change) << i;
    EXPECT_EQ(r.history[i].angleDegrees, s.history[i].angleDegrees) << i;
    EXPECT_EQ(r.history[i].learningRate, s.history[i].learningRate) << i;
    EXPECT_EQ(r.history[i].restartedAfter, s.history[i].restartedAfter) << i;
    EXPECT_EQ(r.history[i].subGaussian, s.history[i].subGaussian) << i;
  }
  EXPECT_EQ(r.steps, s.steps);
  EXPECT_EQ(r.restarts, s.restarts);
  EXPECT_EQ(r.converged, s.converged);
  EXPECT_EQ(r.stopReason, s.stopReason);
  EXPECT_EQ(r.finalLearningRate, s.finalLearningRate);
  EXPECT_EQ(r.samples, s.samples);
  EXPECT_EQ(r.seconds, s.seconds);
  ASSERT_EQ(r.diagnostics.size(), s.diagnostics.size());
  for (std::size_t i = 0; i < r.diagnostics.size(); ++i) {
    EXPECT_EQ(r.diagnostics[i].severity, s.diagnostics[i].severity) << i;
    EXPECT_EQ(r.diagnostics[i].code, s.diagnostics[i].code) << i;
    EXPECT_EQ(r.diagnostics[i].message, s.diagnostics[i].message) << i;
  }
  const Provenance &x = a.provenance, &y = b.provenance;
  EXPECT_EQ(x.method, y.method);
  EXPECT_EQ(x.parameters, y.parameters);
  EXPECT_EQ(x.seed, y.seed);
  EXPECT_EQ(x.backend, y.backend);
  EXPECT_EQ(x.softwareVersion, y.softwareVersion);
  EXPECT_EQ(x.inputFile, y.inputFile);
  EXPECT_EQ(x.selection, y.selection);
  EXPECT_EQ(x.createdAt, y.createdAt);
  EXPECT_EQ(x.wallSeconds, y.wallSeconds);
}

TEST_F(Hdf5IcaTest, RoundTripKeepsEveryValue) {
  const IcaFile f = makeFile();
  JobContext ctx;
  writeIcaFile(path("ica.h5"), f, ctx);
  EXPECT_TRUE(isIcaFile(path("ica.h5")));
  const IcaFile g = readIcaFile(path("ica.h5"));
  expectSameFile(f, g);
  EXPECT_DOUBLE_EQ(g.startSeconds(), 5.0);
  EXPECT_EQ(listDir(), std::vector<std::string>{"ica.h5"}) << "no temporary file may remain";
}

// Logistic mode with no diagnostics and the defaults: the empty tables round-trip too.
TEST_F(Hdf5IcaTest, RoundTripWithDefaultsAndEmptyTables) {
  IcaFile f = makeFile();
  f.result.params = IcaParams{};
  f.result.diagnostics.clear();
  f.result.history.clear();
  JobContext ctx;
  writeIcaFile(path("ica.h5"), f, ctx);
  expectSameFile(f, readIcaFile(path("ica.h5")));
}

class H5pyReadsIca : public Hdf5IcaTest {
 protected:
  CommandResult check(const std::string& h5, const std::string& expected, bool docExample) {
    const std::string exp = path("expected.json");
    std::ofstream(exp) << expected;
    const std::string src = MODESCOPE_SOURCE_DIR;
    return runCommand(
        std::string(kPython) + " " + shellQuote(src + "/tests/tools/h5py_reads_ica_schema.py") +
        " " + shellQuote(h5) + " " + shellQuote(exp) +
        (docExample ? " " + shellQuote(src + "/docs/hdf5-schema.md") : std::string()));
  }
};

TEST_F(H5pyReadsIca, LayoutMatchesTheDocumentation) {
  const IcaFile f = makeFile();
  JobContext ctx;
  writeIcaFile(path("ica.h5"), f, ctx);
  // Also runs the documentation's own Python example on the file.
  const CommandResult r = check(path("ica.h5"), expectedJson(f), true);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}

// The checker must be able to fail: one changed matrix entry and one changed attribute are caught.
TEST_F(H5pyReadsIca, CheckerDetectsWrongValues) {
  const IcaFile f = makeFile();
  JobContext ctx;
  writeIcaFile(path("ica.h5"), f, ctx);
  IcaFile altered = f;
  altered.result.mixing(2, 1) += 1e-9;
  std::string expected = expectedJson(altered);
  const auto at = expected.find("\"max_steps\":333");
  ASSERT_NE(at, std::string::npos);
  expected.replace(at, 15, "\"max_steps\":334");
  const CommandResult r = check(path("ica.h5"), expected, true);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("/ica/mixing"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/ica/parameters@max_steps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("doc example: mixing"), std::string::npos) << r.output;
}

TEST_F(Hdf5IcaTest, CancelLeavesNoFile) {
  const IcaFile f = makeFile();
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(writeIcaFile(path("ica.h5"), f, ctx), Cancelled);
  EXPECT_TRUE(listDir().empty()) << "no output and no temporary file may remain";
}

TEST_F(Hdf5IcaTest, UnwritableTargetsGiveOutputErrorAndLeaveNothing) {
  const IcaFile f = makeFile();
  JobContext ctx;
  EXPECT_THROW(writeIcaFile(path("no/such/dir/ica.h5"), f, ctx), OutputError);
  fs::create_directory(path("folder.h5"));
  EXPECT_THROW(writeIcaFile(path("folder.h5"), f, ctx), OutputError);
  EXPECT_EQ(listDir(), std::vector<std::string>{"folder.h5"});
}

TEST_F(Hdf5IcaTest, InconsistentResultsAreRefusedBeforeWriting) {
  JobContext ctx;
  IcaFile f = makeFile();
  f.result.mixing = IcaMatrix(kComponents, kChannels);  // transposed: must be C x r
  EXPECT_THROW(writeIcaFile(path("ica.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.result.weights.values.pop_back();
  EXPECT_THROW(writeIcaFile(path("ica.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.channels.pop_back();  // the table no longer matches the result's channels
  EXPECT_THROW(writeIcaFile(path("ica.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.result.signs.pop_back();
  EXPECT_THROW(writeIcaFile(path("ica.h5"), f, ctx), InvalidParameterError);
  EXPECT_TRUE(listDir().empty());
}

std::shared_ptr<Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/x.edf";
  std::vector<std::vector<float>> data;
  for (const char* n : {"Fp1", "Cz"}) {
    ChannelInfo c;
    c.label = c.name = n;
    c.unit = "uV";
    c.type = ChannelType::EEG;
    c.sampleRate = kRate;
    c.sampleCount = 100;
    rec->channels.push_back(c);
    data.emplace_back(100, 2.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

TEST_F(Hdf5IcaTest, ForeignFilesAreRefusedNamingTheFile) {
  JobContext ctx;
  // A ModeScope recording is not an ICA result.
  writeRecording(*makeRecording(), path("rec.h5"), OutputFormat::Hdf5, Provenance{}, ctx);
  EXPECT_FALSE(isIcaFile(path("rec.h5")));
  std::string msg = messageOf([&] { readIcaFile(path("rec.h5")); });
  EXPECT_NE(msg.find("rec.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("modescope-recording/1"), std::string::npos) << msg;
  // Another program's HDF5 file: no schema attribute at all.
  {
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File f(path("other.h5"), H5F_ACC_TRUNC);
    const hsize_t n = 3;
    f.createDataSet("data", H5::PredType::IEEE_F64LE, H5::DataSpace(1, &n));
  }
  EXPECT_FALSE(isIcaFile(path("other.h5")));
  msg = messageOf([&] { readIcaFile(path("other.h5")); });
  EXPECT_NE(msg.find("other.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("modescope_schema"), std::string::npos) << msg;
  // Missing and non-HDF5 files.
  msg = messageOf([&] { readIcaFile(path("missing.h5")); });
  EXPECT_NE(msg.find("missing.h5"), std::string::npos) << msg;
  std::ofstream(path("text.h5")) << "not HDF5";
  EXPECT_FALSE(isIcaFile(path("text.h5")));
  msg = messageOf([&] { readIcaFile(path("text.h5")); });
  EXPECT_NE(msg.find("text.h5"), std::string::npos) << msg;
}

TEST_F(Hdf5IcaTest, DamagedAndNewerFilesAreRefusedNamingTheFile) {
  JobContext ctx;
  writeIcaFile(path("ica.h5"), makeFile(), ctx);
  // Truncated to half: HDF5's metadata checksums or the end-of-file check must catch it.
  fs::copy_file(path("ica.h5"), path("cut.h5"));
  fs::resize_file(path("cut.h5"), fs::file_size(path("ica.h5")) / 2);
  std::string msg = messageOf([&] { readIcaFile(path("cut.h5")); });
  EXPECT_NE(msg.find("cut.h5"), std::string::npos) << msg;
  // A newer schema version.
  test_support::replaceAttribute(path("ica.h5"), "/", "modescope_schema", "modescope-ica/2");
  EXPECT_TRUE(isIcaFile(path("ica.h5")));
  msg = messageOf([&] { readIcaFile(path("ica.h5")); });
  EXPECT_NE(msg.find("ica.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
}

TEST_F(Hdf5IcaTest, MatricesOfTheWrongShapeAreRefused) {
  JobContext ctx;
  writeIcaFile(path("ica.h5"), makeFile(), ctx);
  // mixing replaced by its transpose's shape (components x channels).
  test_support::replaceDataset(path("ica.h5"), "/ica", "mixing", H5::PredType::IEEE_F64LE,
                               {kComponents, kChannels});
  std::string msg = messageOf([&] { readIcaFile(path("ica.h5")); });
  EXPECT_NE(msg.find("ica.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/ica/mixing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 x 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 x 3"), std::string::npos) << msg;

  // components disagreeing with the stored matrices: sphere is read as 2 x 4 and found 3 x 4.
  writeIcaFile(path("k.h5"), makeFile(), ctx);
  test_support::replaceAttribute(path("k.h5"), "/ica", "components", int64_t{2});
  msg = messageOf([&] { readIcaFile(path("k.h5")); });
  EXPECT_NE(msg.find("/ica/"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 x 4"), std::string::npos) << msg;
}

}  // namespace
}  // namespace modescope
