// EMD result files (engine/io/hdf5_emd.h, docs/hdf5-schema.md "EMD result files"): every value
// written comes back bit for bit through readEmdFile, and an independent reader (h5py, through
// tests/tools/h5py_reads_emd_schema.py) finds it where the documentation says, with the
// documented types and units; failures and cancels leave no file; damaged and foreign files are
// refused with a message naming the file.
#include "engine/io/hdf5_emd.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
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
constexpr int64_t kSamples = 50;
constexpr double kRate = 200.0;

using test_support::CommandResult;
using test_support::jsonFloat;
using test_support::jsonString;
using test_support::list;
using test_support::messageOf;
using test_support::numd;
using test_support::provenanceJson;
using test_support::runCommand;
using test_support::shellQuote;

std::string rowsJson(const float* data, int rows, int64_t cols) {
  std::string s = "[";
  for (int r = 0; r < rows; ++r) {
    s += r ? ",[" : "[";
    for (int64_t i = 0; i < cols; ++i) s += (i ? "," : "") + jsonFloat(data[r * cols + i]);
    s += "]";
  }
  return s + "]";
}

// Channel names chosen to exercise the group naming rules: a '/', a name equal to a grid dataset
// under /hht, and two channels that share a name.
std::shared_ptr<Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/sub-01/eeg run.bdf";
  struct S {
    const char* label;
    const char* name;
    const char* unit;
  };
  const S specs[] = {{"EEG Cz-REF", "Cz", "uV"},
                     {"X1", "frequency_edges", "µV"},
                     {"bipolar", "C3/C4", "uV"},
                     {"EEG Cz-LE", "Cz", "mV"}};
  std::vector<std::vector<float>> data;
  for (const S& s : specs) {
    ChannelInfo c;
    c.label = s.label;
    c.name = s.name;
    c.unit = s.unit;
    c.type = ChannelType::EEG;
    c.sampleRate = kRate;
    c.sampleCount = 400;
    rec->channels.push_back(c);
    data.emplace_back(400, 1.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

// Decomposition order 2, 0, 3, 1 (not the recording's), 3 or 4 rows each, random values.
EmdResult makeModes() {
  EmdResult m;
  m.params.method = EmdMethod::Ceemdan;
  m.params.stop.kind = StopRuleKind::SNumber;
  m.params.stop.threshold1 = 0.04;
  m.params.stop.threshold2 = 0.45;
  m.params.stop.tolerance = 0.06;
  m.params.stop.maxSifts = 321;
  m.params.stop.fixedSifts = 12;
  m.params.stop.sNumber = 5;
  m.params.noiseStop.kind = StopRuleKind::FixedSifts;
  m.params.noiseStop.fixedSifts = 9;
  m.params.maxImfs = 7;
  m.params.ensembleSize = 250;
  m.params.noiseStd = 0.15;
  m.params.seed = 18446744073709551557ull;  // above INT64_MAX: the attribute must be unsigned
  m.params.noiseScaling = NoiseScaling::Constant;
  m.params.pairedNoise = true;
  m.params.gpuPrecision = GpuPrecision::Float64;
  m.sampleRate = kRate;
  m.firstSample = 123;
  m.samples = kSamples;
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 30.0f);
  for (std::size_t ch : {2u, 0u, 3u, 1u}) {
    EmdChannelModes c;
    c.channel = ch;
    c.rows = 3 + static_cast<int>(ch % 2);
    c.data.resize(static_cast<std::size_t>(c.rows * kSamples));
    for (float& v : c.data) v = g(rng);
    for (int k = 0; k < c.imfCount(); ++k) c.sifts.push_back(4 + 3 * k + static_cast<int>(ch));
    c.degenerateMembers = static_cast<int64_t>(ch) * 11;
    m.channels.push_back(std::move(c));
  }
  m.diagnostics = {{Severity::Warning, "emd.siftCap", "IMF 3 of Cz reached 321 sifts"}};
  m.provenance.method = "ceemdan";
  m.provenance.parameters = {{"method", "ceemdan"}, {"noise_std", "0.15 x std(x)"}};
  m.provenance.seed = "18446744073709551557";
  m.provenance.backend = "CPU, 2 threads";
  m.provenance.softwareVersion = softwareVersion();
  m.provenance.inputFile = "/data/sub-01/eeg run.bdf";
  m.provenance.selection = "channels C3/C4, Cz, Cz, frequency_edges; 0.615-0.865 s";
  m.provenance.createdAt = "2026-11-22T11:20:03Z";
  m.provenance.wallSeconds = 1.25;
  return m;
}

HhtResult makeHht(const EmdResult& m, bool instantaneous) {
  HhtResult h;
  h.params.fMin = 1.0;
  h.params.fMax = 90.0;
  h.params.frequencyBins = 5;
  h.params.logFrequency = true;
  h.params.timeBins = 4;
  h.params.quantity = HhtQuantity::Energy;
  h.params.edgeSeconds = 0.02;
  h.params.imfs = {0, 1};
  h.params.keepInstantaneous = instantaneous;
  h.sampleRate = m.sampleRate;
  h.firstSample = m.firstSample;
  h.samples = m.samples;
  h.frequencyEdges = {1.0, 2.4595, 6.0492, 14.878, 36.593, 90.0};
  h.timeEdges = {0, 12, 25, 37, 50};
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 5.0f);
  for (const EmdChannelModes& c : m.channels) {
    HhtChannel hc;
    hc.channel = c.channel;
    hc.spectrum.resize(5 * 4);
    for (float& v : hc.spectrum) v = u(rng);
    for (int b = 0; b < 5; ++b) hc.marginal.push_back(u(rng) * 1.5);
    for (int k = 0; k < 2; ++k) {
      HhtImf imf;
      imf.row = k;
      imf.meanFrequencyHz = 40.0 / (k + 1) + c.channel;
      imf.energy = 1e3 * u(rng);
      if (instantaneous) {
        for (int64_t i = 0; i < m.samples; ++i) {
          imf.amplitude.push_back(u(rng));
          imf.frequencyHz.push_back(u(rng) * 10.0f);
        }
      }
      hc.imfs.push_back(std::move(imf));
    }
    h.channels.push_back(std::move(hc));
  }
  h.diagnostics = {{Severity::Info, "hht.negativeFrequency", "3 % of IMF 2 samples"}};
  return h;
}

// The group names the documentation's rules give for makeRecording()/makeModes(), by hand.
const std::vector<std::string> kGroups = {"C3_C4", "Cz", "Cz_2", "frequency_edges_2"};

std::string expectedJson(const Recording& rec, const EmdResult& m, const HhtResult* h) {
  std::ostringstream o;
  const EmdParams& p = m.params;
  o << "{\"input_file\":" << jsonString(m.provenance.inputFile) << ",\"emd\":{"
    << "\"method\":\"ceemdan\",\"stop_rule\":\"s-number\",\"stop_threshold1\":"
    << numd(p.stop.threshold1) << ",\"stop_threshold2\":" << numd(p.stop.threshold2)
    << ",\"stop_tolerance\":" << numd(p.stop.tolerance) << ",\"stop_max_sifts\":321"
    << ",\"stop_fixed_sifts\":12,\"stop_s_number\":5,\"noise_stop_rule\":\"fixed\""
    << ",\"noise_stop_fixed_sifts\":9,\"max_imfs\":7,\"ensemble_size\":250,\"noise_std\":"
    << numd(0.15) << ",\"seed\":18446744073709551557,\"noise_scaling\":\"constant\""
    << ",\"paired_noise\":1,\"gpu_precision\":\"float64\",\"sample_rate\":" << numd(kRate)
    << ",\"first_sample\":123,\"start_s\":" << numd(123.0 / kRate) << ",\"samples\":" << kSamples
    << ",\"channel_count\":4},\"channels\":[";
  for (std::size_t i = 0; i < m.channels.size(); ++i) {
    const EmdChannelModes& c = m.channels[i];
    const ChannelInfo& info = rec.channels[c.channel];
    o << (i ? "," : "") << "{\"name\":" << jsonString(info.name)
      << ",\"label\":" << jsonString(info.label) << ",\"unit\":" << jsonString(info.unit)
      << ",\"type\":\"EEG\",\"recording_index\":" << c.channel
      << ",\"group\":" << jsonString(kGroups[i])
      << ",\"modes\":" << rowsJson(c.data.data(), c.rows, kSamples)
      << ",\"sifts\":" << list(c.sifts, [](int v) { return std::to_string(v); })
      << ",\"degenerate_members\":" << c.degenerateMembers << "}";
  }
  o << "],\"hht\":";
  if (!h) {
    o << "null";
  } else {
    o << "{\"attrs\":{\"quantity\":\"energy\",\"f_min_hz\":1.0,\"f_max_hz\":90.0,"
      << "\"frequency_bins\":5,\"time_bins\":4,\"log_frequency\":1,\"edge_s\":" << numd(0.02)
      << ",\"keep_instantaneous\":" << (h->params.keepInstantaneous ? 1 : 0)
      << ",\"sample_rate\":" << numd(kRate) << ",\"first_sample\":123,\"samples\":" << kSamples
      << "},\"frequency_edges\":" << list(h->frequencyEdges, numd)
      << ",\"time_edges\":" << list(h->timeEdges, [](int64_t v) { return std::to_string(v); })
      << ",\"time_edges_s\":"
      << list(h->timeEdges, [](int64_t v) { return numd((123.0 + v) / kRate); })
      << ",\"imf_selection\":[0,1],\"channels\":[";
    for (std::size_t i = 0; i < h->channels.size(); ++i) {
      const HhtChannel& c = h->channels[i];
      std::vector<float> amp, fr;
      for (const HhtImf& x : c.imfs) {
        amp.insert(amp.end(), x.amplitude.begin(), x.amplitude.end());
        fr.insert(fr.end(), x.frequencyHz.begin(), x.frequencyHz.end());
      }
      const int m2 = static_cast<int>(c.imfs.size());
      o << (i ? "," : "") << "{\"spectrum\":" << rowsJson(c.spectrum.data(), 5, 4)
        << ",\"marginal\":" << list(c.marginal, numd)
        << ",\"imf_rows\":" << list(c.imfs, [](const HhtImf& x) { return std::to_string(x.row); })
        << ",\"mean_frequency\":"
        << list(c.imfs, [](const HhtImf& x) { return numd(x.meanFrequencyHz); })
        << ",\"energy\":" << list(c.imfs, [](const HhtImf& x) { return numd(x.energy); })
        << ",\"instantaneous_amplitude\":"
        << (h->params.keepInstantaneous ? rowsJson(amp.data(), m2, kSamples) : "null")
        << ",\"instantaneous_frequency\":"
        << (h->params.keepInstantaneous ? rowsJson(fr.data(), m2, kSamples) : "null") << "}";
    }
    o << "]}";
  }
  o << ",\"diagnostics\":[[\"emd\",\"warning\",\"emd.siftCap\",\"IMF 3 of Cz reached 321 sifts\"]";
  if (h) o << ",[\"hht\",\"info\",\"hht.negativeFrequency\",\"3 % of IMF 2 samples\"]";
  o << "],\"provenance\":" << provenanceJson(m.provenance) << "}";
  return o.str();
}

class Hdf5EmdTest : public test_support::TempDirTest {
 protected:
  Hdf5EmdTest() : TempDirTest("modescope-emd-h5") {}
};

void expectSameModes(const EmdResult& a, const EmdResult& b) {
  EXPECT_EQ(a.params.method, b.params.method);
  EXPECT_EQ(a.params.stop.kind, b.params.stop.kind);
  EXPECT_EQ(a.params.stop.threshold1, b.params.stop.threshold1);
  EXPECT_EQ(a.params.stop.threshold2, b.params.stop.threshold2);
  EXPECT_EQ(a.params.stop.tolerance, b.params.stop.tolerance);
  EXPECT_EQ(a.params.stop.maxSifts, b.params.stop.maxSifts);
  EXPECT_EQ(a.params.stop.fixedSifts, b.params.stop.fixedSifts);
  EXPECT_EQ(a.params.stop.sNumber, b.params.stop.sNumber);
  EXPECT_EQ(a.params.noiseStop.kind, b.params.noiseStop.kind);
  EXPECT_EQ(a.params.noiseStop.fixedSifts, b.params.noiseStop.fixedSifts);
  EXPECT_EQ(a.params.maxImfs, b.params.maxImfs);
  EXPECT_EQ(a.params.ensembleSize, b.params.ensembleSize);
  EXPECT_EQ(a.params.noiseStd, b.params.noiseStd);
  EXPECT_EQ(a.params.seed, b.params.seed);
  EXPECT_EQ(a.params.noiseScaling, b.params.noiseScaling);
  EXPECT_EQ(a.params.pairedNoise, b.params.pairedNoise);
  EXPECT_EQ(a.params.gpuPrecision, b.params.gpuPrecision);
  EXPECT_EQ(a.sampleRate, b.sampleRate);
  EXPECT_EQ(a.firstSample, b.firstSample);
  EXPECT_EQ(a.samples, b.samples);
  ASSERT_EQ(a.channels.size(), b.channels.size());
  for (std::size_t i = 0; i < a.channels.size(); ++i) {
    EXPECT_EQ(a.channels[i].channel, b.channels[i].channel);
    EXPECT_EQ(a.channels[i].rows, b.channels[i].rows);
    EXPECT_EQ(a.channels[i].data, b.channels[i].data) << "channel " << i;
    EXPECT_EQ(a.channels[i].sifts, b.channels[i].sifts);
    EXPECT_EQ(a.channels[i].degenerateMembers, b.channels[i].degenerateMembers);
  }
  ASSERT_EQ(a.diagnostics.size(), b.diagnostics.size());
  for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
    EXPECT_EQ(a.diagnostics[i].code, b.diagnostics[i].code);
    EXPECT_EQ(a.diagnostics[i].message, b.diagnostics[i].message);
    EXPECT_EQ(a.diagnostics[i].severity, b.diagnostics[i].severity);
  }
  EXPECT_EQ(a.provenance.method, b.provenance.method);
  EXPECT_EQ(a.provenance.parameters, b.provenance.parameters);
  EXPECT_EQ(a.provenance.seed, b.provenance.seed);
  EXPECT_EQ(a.provenance.selection, b.provenance.selection);
  EXPECT_EQ(a.provenance.wallSeconds, b.provenance.wallSeconds);
}

TEST_F(Hdf5EmdTest, RoundTripKeepsEveryValue) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  const HhtResult h = makeHht(m, true);
  JobContext ctx;
  writeEmdFile(path("r.h5"), *rec, m, &h, ctx);
  EXPECT_TRUE(isEmdFile(path("r.h5")));
  const EmdFile f = readEmdFile(path("r.h5"));
  EXPECT_EQ(f.inputFile, "/data/sub-01/eeg run.bdf");
  EXPECT_DOUBLE_EQ(f.startSeconds, 123.0 / kRate);
  ASSERT_EQ(f.channels.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const ChannelInfo& c = rec->channels[m.channels[i].channel];
    EXPECT_EQ(f.channels[i].recordingIndex, m.channels[i].channel);
    EXPECT_EQ(f.channels[i].name, c.name);
    EXPECT_EQ(f.channels[i].label, c.label);
    EXPECT_EQ(f.channels[i].unit, c.unit);
    EXPECT_EQ(f.channels[i].group, kGroups[i]);
  }
  expectSameModes(m, f.modes);
  ASSERT_TRUE(f.hht.has_value());
  const HhtResult& g = *f.hht;
  EXPECT_EQ(g.params.fMin, h.params.fMin);
  EXPECT_EQ(g.params.fMax, h.params.fMax);
  EXPECT_EQ(g.params.frequencyBins, 5);
  EXPECT_EQ(g.params.timeBins, 4);
  EXPECT_TRUE(g.params.logFrequency);
  EXPECT_EQ(g.params.quantity, HhtQuantity::Energy);
  EXPECT_EQ(g.params.edgeSeconds, 0.02);
  EXPECT_EQ(g.params.imfs, h.params.imfs);
  EXPECT_TRUE(g.params.keepInstantaneous);
  EXPECT_EQ(g.frequencyEdges, h.frequencyEdges);
  EXPECT_EQ(g.timeEdges, h.timeEdges);
  EXPECT_EQ(g.firstSample, 123);
  ASSERT_EQ(g.channels.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(g.channels[i].channel, h.channels[i].channel);
    EXPECT_EQ(g.channels[i].spectrum, h.channels[i].spectrum);
    EXPECT_EQ(g.channels[i].marginal, h.channels[i].marginal);
    ASSERT_EQ(g.channels[i].imfs.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      const HhtImf &x = g.channels[i].imfs[k], &y = h.channels[i].imfs[k];
      EXPECT_EQ(x.row, y.row);
      EXPECT_EQ(x.meanFrequencyHz, y.meanFrequencyHz);
      EXPECT_EQ(x.energy, y.energy);
      EXPECT_EQ(x.amplitude, y.amplitude);
      EXPECT_EQ(x.frequencyHz, y.frequencyHz);
    }
  }
  ASSERT_EQ(g.diagnostics.size(), 1u);
  EXPECT_EQ(g.diagnostics[0].code, "hht.negativeFrequency");
}

TEST_F(Hdf5EmdTest, WithoutHhtThereIsNoHhtGroup) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  JobContext ctx;
  writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx);
  const EmdFile f = readEmdFile(path("r.h5"));
  EXPECT_FALSE(f.hht.has_value());
  expectSameModes(m, f.modes);
}

TEST_F(Hdf5EmdTest, InstantaneousSeriesAreOptional) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  const HhtResult h = makeHht(m, false);
  JobContext ctx;
  writeEmdFile(path("r.h5"), *rec, m, &h, ctx);
  const EmdFile f = readEmdFile(path("r.h5"));
  ASSERT_TRUE(f.hht);
  EXPECT_FALSE(f.hht->params.keepInstantaneous);
  EXPECT_TRUE(f.hht->channels[0].imfs[0].amplitude.empty());
  EXPECT_EQ(f.hht->channels[0].imfs[1].meanFrequencyHz, h.channels[0].imfs[1].meanFrequencyHz);
}

class H5pyReadsEmd : public Hdf5EmdTest {
 protected:
  void SetUp() override {
    Hdf5EmdTest::SetUp();
    const CommandResult probe = runCommand(std::string(kPython) + " -c 'import h5py, numpy'");
    if (probe.status != 0) {
      GTEST_SKIP() << "SKIPPED LOUDLY: " << kPython
                   << " cannot import h5py/numpy, so the EMD file layout is not checked by an "
                      "independent reader here (install python3-h5py). Output: "
                   << probe.output;
    }
  }
  CommandResult check(const std::string& h5, const std::string& expected, bool docExample) {
    const std::string exp = path("expected.json");
    std::ofstream(exp) << expected;
    const std::string src = MODESCOPE_SOURCE_DIR;
    return runCommand(
        std::string(kPython) + " " + shellQuote(src + "/tests/tools/h5py_reads_emd_schema.py") +
        " " + shellQuote(h5) + " " + shellQuote(exp) +
        (docExample ? " " + shellQuote(src + "/docs/hdf5-schema.md") : std::string()));
  }
};

TEST_F(H5pyReadsEmd, LayoutMatchesTheDocumentation) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  for (bool instantaneous : {true, false}) {
    const HhtResult h = makeHht(m, instantaneous);
    JobContext ctx;
    writeEmdFile(path("r.h5"), *rec, m, &h, ctx);
    // Also runs the documentation's own Python example on the file.
    const CommandResult r = check(path("r.h5"), expectedJson(*rec, m, &h), true);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
  }
  JobContext ctx;
  writeEmdFile(path("n.h5"), *rec, m, nullptr, ctx);
  const CommandResult r = check(path("n.h5"), expectedJson(*rec, m, nullptr), true);
  EXPECT_EQ(r.status, 0) << r.output;
}

// The checker must be able to fail: one changed mode sample and one changed attribute are caught.
TEST_F(H5pyReadsEmd, CheckerDetectsWrongValues) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  JobContext ctx;
  writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx);
  EmdResult altered = m;
  altered.channels[1].data[17] += 0.5f;
  altered.params.ensembleSize = 251;
  std::string expected = expectedJson(*rec, altered, nullptr);
  const auto at = expected.find("\"ensemble_size\":250");
  ASSERT_NE(at, std::string::npos);
  expected.replace(at, 19, "\"ensemble_size\":251");
  const CommandResult r = check(path("r.h5"), expected, false);
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("channel Cz modes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/emd@ensemble_size"), std::string::npos) << r.output;
}

TEST_F(Hdf5EmdTest, CancelLeavesNoFile) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx), Cancelled);
  EXPECT_TRUE(listDir().empty()) << "no output and no temporary file may remain";
}

TEST_F(Hdf5EmdTest, UnwritableTargetsGiveOutputErrorAndLeaveNothing) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  JobContext ctx;
  EXPECT_THROW(writeEmdFile(path("no/such/dir/r.h5"), *rec, m, nullptr, ctx), OutputError);
  fs::create_directory(path("folder.h5"));
  EXPECT_THROW(writeEmdFile(path("folder.h5"), *rec, m, nullptr, ctx), OutputError);
  EXPECT_EQ(listDir(), std::vector<std::string>{"folder.h5"});
}

TEST_F(Hdf5EmdTest, InconsistentArgumentsAreRefusedBeforeWriting) {
  const auto rec = makeRecording();
  JobContext ctx;
  EmdResult m = makeModes();
  HhtResult h = makeHht(m, false);
  h.channels.pop_back();
  EXPECT_THROW(writeEmdFile(path("r.h5"), *rec, m, &h, ctx), InvalidParameterError);
  m.channels[0].data.pop_back();
  EXPECT_THROW(writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx), InvalidParameterError);
  m = makeModes();
  m.channels[0].channel = 4;  // the recording has 4 channels
  EXPECT_THROW(writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx), InvalidParameterError);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(Hdf5EmdTest, ForeignDamagedAndNewerFilesAreRefusedNamingTheFile) {
  const auto rec = makeRecording();
  JobContext ctx;
  // A ModeScope recording is not an EMD result.
  writeRecording(*rec, path("rec.h5"), OutputFormat::Hdf5, Provenance{}, ctx);
  EXPECT_FALSE(isEmdFile(path("rec.h5")));
  std::string msg = messageOf([&] { readEmdFile(path("rec.h5")); });
  EXPECT_NE(msg.find("rec.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("modescope-recording/1"), std::string::npos) << msg;
  // Missing and non-HDF5 files.
  msg = messageOf([&] { readEmdFile(path("missing.h5")); });
  EXPECT_NE(msg.find("missing.h5"), std::string::npos) << msg;
  std::ofstream(path("text.h5")) << "not HDF5";
  EXPECT_FALSE(isEmdFile(path("text.h5")));
  msg = messageOf([&] { readEmdFile(path("text.h5")); });
  EXPECT_NE(msg.find("text.h5"), std::string::npos) << msg;
  // A truncated EMD file.
  const EmdResult m = makeModes();
  writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx);
  fs::copy_file(path("r.h5"), path("cut.h5"));
  fs::resize_file(path("cut.h5"), fs::file_size(path("r.h5")) / 2);
  msg = messageOf([&] { readEmdFile(path("cut.h5")); });
  EXPECT_NE(msg.find("cut.h5"), std::string::npos) << msg;
  // A newer schema version.
  {
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File f(path("r.h5"), H5F_ACC_RDWR);
    H5::Group root = f.openGroup("/");
    h5::setAttribute(root, "modescope_schema", "modescope-emd/2");
  }
  msg = messageOf([&] { readEmdFile(path("r.h5")); });
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
}

TEST_F(Hdf5EmdTest, ModesOfTheWrongShapeAreRefused) {
  const auto rec = makeRecording();
  const EmdResult m = makeModes();
  JobContext ctx;
  writeEmdFile(path("r.h5"), *rec, m, nullptr, ctx);
  {
    // The file claims more samples than the modes hold.
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File f(path("r.h5"), H5F_ACC_RDWR);
    H5::Group e = f.openGroup("/emd");
    h5::setAttribute(e, "samples", int64_t{kSamples + 1});
  }
  const std::string msg = messageOf([&] { readEmdFile(path("r.h5")); });
  EXPECT_NE(msg.find("/emd/C3_C4/modes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("51"), std::string::npos) << msg;
}

}  // namespace
}  // namespace modescope
