// AR result files (engine/io/hdf5_ar.h, docs/ar.md "HDF5 file"): every value written comes back
// bit for bit through readArFile; an independent reader (h5py, through
// tests/tools/h5py_reads_ar_schema.py) finds it where the documentation says, recomputes r^2 and
// the class means from the stored trial features with numpy, and runs the documentation's Python
// example; failures and cancels leave no file; inconsistent results, foreign, newer and wrongly
// shaped files are refused with a message naming the file.
#include "engine/io/hdf5_ar.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/ar/event_features.h"
#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_util.h"
#include "engine/spatial/spatial_filter.h"
#include "tests/unit/hdf5_file_test_support.h"
#include "tests/unit/shell_json_support.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr double kRate = 160.0;

using test_support::CommandResult;
using test_support::jsonFloat;
using test_support::jsonString;
using test_support::list;
using test_support::messageOf;
using test_support::numd;
using test_support::provenanceJson;
using test_support::runCommand;
using test_support::shellQuote;

std::vector<ChannelInfo> montage() {
  std::vector<ChannelInfo> v;
  const std::vector<std::pair<const char*, std::optional<Position3>>> sites = {
      {"C3", Position3{-0.72, 0.0, 0.69}},
      {"Cz", Position3{0.0, 0.0, 1.0}},
      {"C4", Position3{0.72, 0.0, 0.69}},
      {"X9", std::nullopt}};
  for (const auto& [name, pos] : sites) {
    ChannelInfo c;
    c.label = std::string("EEG ") + name;
    c.name = name;
    c.type = ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = kRate;
    c.position = pos;
    v.push_back(c);
  }
  return v;
}

ClassFeatures randomClass(const std::string& label, std::size_t trials, std::size_t rows,
                          std::size_t bins, double shift, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.5, 2.0);
  ClassFeatures c;
  c.label = label;
  c.channelCount = rows;
  c.binCount = bins;
  for (std::size_t t = 0; t < trials; ++t) {
    const double onset = 4.25 * static_cast<double>(t + 1) + shift;
    c.trials.push_back({2 * t + 1, onset, static_cast<int64_t>(std::lround(onset * kRate)), 656});
    c.windowsPerTrial.push_back(static_cast<int64_t>(52 + t % 2));
    for (std::size_t k = 0; k < rows * bins; ++k) c.values.push_back(u(rng) + shift);
  }
  return c;
}

// Every field away from its default, and the event maps consistent with the trial features
// (computed with the engine's pointBiserialR) so that the h5py checker's recomputation applies.
ArFile makeFile() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uf(0.0f, 40.0f);
  const std::vector<ChannelInfo> chans = montage();
  ArFile f;
  f.inputFile = "/data/S001 R03.edf";
  f.presetName = "wilson2009";
  f.signalUnit = "uV";
  const std::vector<std::size_t> selection = {2, 0, 1};
  Recording rec;
  rec.channels = chans;
  f.channels = icaFileChannels(rec, selection);
  f.channels.push_back({3, "X9", "EEG X9", "EEG", "uV", std::nullopt});
  f.spatialFilter = commonAverageReference(chans, {0, 1, 2, 3});
  f.spatialFilterSpec = "car";
  f.rowNames = f.spatialFilter->outputNames;

  ArSpectrumResult& s = f.spectra;
  s.params = burgArPreset("wilson2009");
  s.params.order = 12;
  s.params.window = {96, ArLengthUnit::Samples};
  s.params.step = {0.0625, ArLengthUnit::Seconds};
  s.params.detrend = ArDetrend::Linear;
  s.params.binGrid = ArBinGrid::Midpoints;
  s.params.firstBinCenter = 1.0;
  s.params.lastBinCenter = 9.0;
  s.params.binWidth = 2.0;
  s.params.evaluationsPerBin = 7;
  s.params.output = ArOutput::Amplitude;
  s.sampleRate = kRate;
  s.windowSamples = 96;
  s.stepSamples = 10;
  s.firstSample = 320;
  s.channels = {0, 1, 2, 3};
  s.windowStarts = {0, 10, 20, 30, 40};
  s.binCenters = {1, 3, 5, 7, 9};
  const std::size_t rows = 4, windows = 5, bins = 5;
  for (std::size_t i = 0; i < rows * windows * bins; ++i) s.values.push_back(uf(rng));
  for (std::size_t i = 0; i < rows * windows; ++i) s.noiseVariance.push_back(uf(rng));

  EventR2Result e;
  e.classA = "T1";
  e.classB = "T2";
  e.channels = {2, 0, 1, 3};
  e.rowNames = f.rowNames;
  e.binCenters = s.binCenters;
  e.sampleRate = kRate;
  e.output = ArOutput::Amplitude;
  e.featuresA = randomClass("T1", 4, rows, bins, 0.25, rng);
  e.featuresB = randomClass("T2", 3, rows, bins, 0.0, rng);
  e.trialsA = 4;
  e.trialsB = 3;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < bins; ++k) {
      std::vector<double> a, b;
      for (std::size_t t = 0; t < e.trialsA; ++t) a.push_back(e.featuresA.at(t, r, k));
      for (std::size_t t = 0; t < e.trialsB; ++t) b.push_back(e.featuresB.at(t, r, k));
      double ma = 0, mb = 0;
      for (double v : a) ma += v / static_cast<double>(a.size());
      for (double v : b) mb += v / static_cast<double>(b.size());
      const double rr = pointBiserialR(a.data(), a.size(), b.data(), b.size());
      e.meanA.push_back(ma);
      e.meanB.push_back(mb);
      e.r2.push_back(rr * rr);
      e.signedR2.push_back(rr < 0 ? -rr * rr : rr * rr);
    }
  }
  f.events = e;
  f.trialOffsetSeconds = -0.5;
  f.trialLengthSeconds = 4.1;
  f.diagnostics = {{Severity::Warning, "ar.flatWindows", "X9: 5 of 5 windows are flat"},
                   {Severity::Info, "events.trialOutsideRange", "2 trial(s) left out"}};
  Provenance& pr = f.provenance;
  pr.method = "ar";
  pr.parameters = {
      {"preset", "wilson2009"}, {"order", "12"}, {"command_line", "modescope-cli ar x"}};
  pr.backend = "CPU, 2 threads";
  pr.softwareVersion = softwareVersion();
  pr.inputFile = f.inputFile;
  pr.selection = "channels C4, C3, Cz, X9; 2-30 s";
  pr.createdAt = "2026-11-22T18:00:00Z";
  pr.wallSeconds = 1.375;
  return f;
}

// A file of coefficients without a filter or events.
ArFile makeCoefficientFile() {
  ArFile f = makeFile();
  f.spatialFilter.reset();
  f.spatialFilterSpec.clear();
  f.events.reset();
  f.presetName = "";
  f.rowNames = {"C4", "C3", "Cz", "X9"};
  ArSpectrumResult& s = f.spectra;
  s.params.output = ArOutput::Coefficients;
  s.channels = {2, 0, 1, 3};
  s.binCenters.clear();
  s.values.clear();
  std::mt19937 rng(9);
  std::normal_distribution<float> g(0.0f, 0.5f);
  for (std::size_t i = 0; i < 4 * 5 * 12; ++i) s.values.push_back(g(rng));
  f.diagnostics.clear();
  return f;
}

void expectSameClass(const ClassFeatures& a, const ClassFeatures& b) {
  EXPECT_EQ(a.label, b.label);
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (std::size_t i = 0; i < a.trials.size(); ++i) {
    EXPECT_EQ(a.trials[i].annotationIndex, b.trials[i].annotationIndex);
    EXPECT_EQ(a.trials[i].onsetSeconds, b.trials[i].onsetSeconds);
    EXPECT_EQ(a.trials[i].firstSample, b.trials[i].firstSample);
    EXPECT_EQ(a.trials[i].samples, b.trials[i].samples);
  }
  EXPECT_EQ(a.windowsPerTrial, b.windowsPerTrial);
  EXPECT_EQ(a.channelCount, b.channelCount);
  EXPECT_EQ(a.binCount, b.binCount);
  EXPECT_EQ(a.values, b.values);
}

void expectSameFile(const ArFile& a, const ArFile& b) {
  EXPECT_EQ(a.inputFile, b.inputFile);
  ASSERT_EQ(a.channels.size(), b.channels.size());
  for (std::size_t i = 0; i < a.channels.size(); ++i) {
    EXPECT_EQ(a.channels[i].recordingIndex, b.channels[i].recordingIndex);
    EXPECT_EQ(a.channels[i].name, b.channels[i].name);
    EXPECT_EQ(a.channels[i].label, b.channels[i].label);
    EXPECT_EQ(a.channels[i].type, b.channels[i].type);
    EXPECT_EQ(a.channels[i].unit, b.channels[i].unit);
    ASSERT_EQ(a.channels[i].position.has_value(), b.channels[i].position.has_value());
    if (a.channels[i].position) {
      EXPECT_EQ(a.channels[i].position->x, b.channels[i].position->x);
      EXPECT_EQ(a.channels[i].position->z, b.channels[i].position->z);
    }
  }
  EXPECT_EQ(a.signalUnit, b.signalUnit);
  EXPECT_EQ(a.presetName, b.presetName);
  EXPECT_EQ(a.rowNames, b.rowNames);
  const ArSpectrumResult &s = a.spectra, &t = b.spectra;
  EXPECT_EQ(s.params.order, t.params.order);
  EXPECT_EQ(s.params.window.value, t.params.window.value);
  EXPECT_EQ(s.params.window.unit, t.params.window.unit);
  EXPECT_EQ(s.params.step.value, t.params.step.value);
  EXPECT_EQ(s.params.step.unit, t.params.step.unit);
  EXPECT_EQ(s.params.detrend, t.params.detrend);
  EXPECT_EQ(s.params.firstBinCenter, t.params.firstBinCenter);
  EXPECT_EQ(s.params.lastBinCenter, t.params.lastBinCenter);
  EXPECT_EQ(s.params.binWidth, t.params.binWidth);
  EXPECT_EQ(s.params.evaluationsPerBin, t.params.evaluationsPerBin);
  EXPECT_EQ(s.params.binGrid, t.params.binGrid);
  EXPECT_EQ(s.params.output, t.params.output);
  EXPECT_EQ(s.sampleRate, t.sampleRate);
  EXPECT_EQ(s.windowSamples, t.windowSamples);
  EXPECT_EQ(s.stepSamples, t.stepSamples);
  EXPECT_EQ(s.firstSample, t.firstSample);
  EXPECT_EQ(s.channels, t.channels);
  EXPECT_EQ(s.windowStarts, t.windowStarts);
  EXPECT_EQ(s.binCenters, t.binCenters);
  EXPECT_EQ(s.values, t.values);
  EXPECT_EQ(s.noiseVariance, t.noiseVariance);
  ASSERT_EQ(a.spatialFilter.has_value(), b.spatialFilter.has_value());
  if (a.spatialFilter) {
    EXPECT_EQ(a.spatialFilter->matrix, b.spatialFilter->matrix);
    EXPECT_EQ(a.spatialFilter->inputNames, b.spatialFilter->inputNames);
    EXPECT_EQ(a.spatialFilter->outputNames, b.spatialFilter->outputNames);
    EXPECT_EQ(a.spatialFilter->inputChannels, b.spatialFilter->inputChannels);
    EXPECT_EQ(a.spatialFilter->description, b.spatialFilter->description);
    EXPECT_EQ(a.spatialFilterSpec, b.spatialFilterSpec);
  }
  ASSERT_EQ(a.events.has_value(), b.events.has_value());
  if (a.events) {
    const EventR2Result &e = *a.events, &g = *b.events;
    EXPECT_EQ(e.classA, g.classA);
    EXPECT_EQ(e.classB, g.classB);
    EXPECT_EQ(e.channels, g.channels);
    EXPECT_EQ(e.rowNames, g.rowNames);
    EXPECT_EQ(e.binCenters, g.binCenters);
    EXPECT_EQ(e.sampleRate, g.sampleRate);
    EXPECT_EQ(e.output, g.output);
    EXPECT_EQ(e.trialsA, g.trialsA);
    EXPECT_EQ(e.trialsB, g.trialsB);
    EXPECT_EQ(e.meanA, g.meanA);
    EXPECT_EQ(e.meanB, g.meanB);
    EXPECT_EQ(e.r2, g.r2);
    EXPECT_EQ(e.signedR2, g.signedR2);
    expectSameClass(e.featuresA, g.featuresA);
    expectSameClass(e.featuresB, g.featuresB);
    EXPECT_EQ(a.trialOffsetSeconds, b.trialOffsetSeconds);
    EXPECT_EQ(a.trialLengthSeconds, b.trialLengthSeconds);
  }
  ASSERT_EQ(a.diagnostics.size(), b.diagnostics.size());
  for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
    EXPECT_EQ(a.diagnostics[i].severity, b.diagnostics[i].severity);
    EXPECT_EQ(a.diagnostics[i].code, b.diagnostics[i].code);
    EXPECT_EQ(a.diagnostics[i].message, b.diagnostics[i].message);
  }
  const Provenance &x = a.provenance, &y = b.provenance;
  EXPECT_EQ(x.method, y.method);
  EXPECT_EQ(x.parameters, y.parameters);
  EXPECT_EQ(x.backend, y.backend);
  EXPECT_EQ(x.inputFile, y.inputFile);
  EXPECT_EQ(x.selection, y.selection);
  EXPECT_EQ(x.createdAt, y.createdAt);
  EXPECT_EQ(x.wallSeconds, y.wallSeconds);
}

class Hdf5ArTest : public test_support::TempDirTest {
 protected:
  Hdf5ArTest() : TempDirTest("modescope-hdf5-ar") {}
};

TEST_F(Hdf5ArTest, RoundTripKeepsEveryValue) {
  const ArFile f = makeFile();
  JobContext ctx;
  writeArFile(path("ar.h5"), f, ctx);
  EXPECT_TRUE(isArFile(path("ar.h5")));
  expectSameFile(f, readArFile(path("ar.h5")));
  EXPECT_EQ(listDir(), std::vector<std::string>{"ar.h5"}) << "no temporary file may remain";
}

TEST_F(Hdf5ArTest, RoundTripOfCoefficientsWithoutFilterOrEvents) {
  const ArFile f = makeCoefficientFile();
  JobContext ctx;
  writeArFile(path("c.h5"), f, ctx);
  const ArFile g = readArFile(path("c.h5"));
  expectSameFile(f, g);
  EXPECT_FALSE(g.spatialFilter.has_value());
  EXPECT_FALSE(g.events.has_value());
  EXPECT_EQ(g.spectra.valuesPerWindow(), 12u);
}

std::string floats(const std::vector<float>& v) { return list(v, jsonFloat); }
std::string doubles(const std::vector<double>& v) { return list(v, numd); }
template <typename T>
std::string ints(const std::vector<T>& v) {
  return list(v, [](T x) { return std::to_string(x); });
}
std::string strs(const std::vector<std::string>& v) { return list(v, jsonString); }

std::string classJson(const ClassFeatures& c) {
  std::vector<double> onset;
  std::vector<int64_t> first, samples, ann;
  for (const TrialSegment& t : c.trials) {
    onset.push_back(t.onsetSeconds);
    first.push_back(t.firstSample);
    samples.push_back(t.samples);
    ann.push_back(static_cast<int64_t>(t.annotationIndex));
  }
  return "{\"label\":" + jsonString(c.label) + ",\"onset_seconds\":" + doubles(onset) +
         ",\"first_sample\":" + ints(first) + ",\"samples\":" + ints(samples) +
         ",\"annotation_index\":" + ints(ann) + ",\"windows\":" + ints(c.windowsPerTrial) +
         ",\"features\":" + doubles(c.values) + "}";
}

// What the h5py checker must find, from the values given to the writer (not from the file).
std::string expectedJson(const ArFile& f) {
  const ArSpectrumResult& s = f.spectra;
  std::string j = "{\"input_file\":" + jsonString(f.inputFile) +
                  ",\"channels\":" + list(f.channels, [](const ArFileChannel& c) {
                    return "{\"recording_index\":" + std::to_string(c.recordingIndex) +
                           ",\"name\":" + jsonString(c.name) + ",\"label\":" + jsonString(c.label) +
                           ",\"type\":" + jsonString(c.type) + ",\"unit\":" + jsonString(c.unit) +
                           ",\"position\":" +
                           (c.position ? "[" + numd(c.position->x) + "," + numd(c.position->y) +
                                             "," + numd(c.position->z) + "]"
                                       : std::string("null")) +
                           "}";
                  });
  j += ",\"ar\":{\"sample_rate\":" + numd(s.sampleRate) +
       ",\"first_sample\":" + std::to_string(s.firstSample) +
       ",\"window_samples\":" + std::to_string(s.windowSamples) +
       ",\"step_samples\":" + std::to_string(s.stepSamples) +
       ",\"order\":" + std::to_string(s.params.order) +
       ",\"detrend\":" + jsonString(arDetrendName(s.params.detrend)) +
       ",\"bin_grid\":" + jsonString(arBinGridName(s.params.binGrid)) +
       ",\"output\":" + jsonString(arOutputName(s.params.output)) +
       ",\"first_bin_center_hz\":" + numd(s.params.firstBinCenter) +
       ",\"last_bin_center_hz\":" + numd(s.params.lastBinCenter) +
       ",\"bin_width_hz\":" + numd(s.params.binWidth) +
       ",\"evaluations_per_bin\":" + std::to_string(s.params.evaluationsPerBin) +
       ",\"window_requested\":" + numd(s.params.window.value) + ",\"window_requested_unit\":" +
       jsonString(s.params.window.unit == ArLengthUnit::Samples ? "samples" : "s") +
       ",\"preset\":" + jsonString(f.presetName) + ",\"signal_unit\":" + jsonString(f.signalUnit) +
       ",\"units\":" + jsonString(arValueUnit(s.params.output, f.signalUnit)) + "}";
  j += ",\"spectra\":" + floats(s.values) + ",\"noise_variance\":" + floats(s.noiseVariance) +
       ",\"bin_centers\":" + doubles(s.binCenters) +
       ",\"window_start_samples\":" + ints(s.windowStarts) + ",\"row_names\":" + strs(f.rowNames) +
       ",\"row_channels\":" + ints(s.channels);
  if (f.spatialFilter) {
    const SpatialFilter& b = *f.spatialFilter;
    std::string rows = "[";
    for (std::size_t r = 0; r < b.outputCount(); ++r) {
      rows += r ? ",[" : "[";
      for (std::size_t c = 0; c < b.inputCount(); ++c)
        rows += (c ? "," : "") + numd(b.weight(r, c));
      rows += "]";
    }
    j += ",\"spatial_filter\":{\"attrs\":{\"description\":" + jsonString(b.description) +
         ",\"spec\":" + jsonString(f.spatialFilterSpec) + "},\"matrix\":" + rows +
         "],\"input_names\":" + strs(b.inputNames) + ",\"output_names\":" + strs(b.outputNames) +
         ",\"input_channels\":" + ints(b.inputChannels) + "}";
  }
  if (f.events) {
    const EventR2Result& e = *f.events;
    j += ",\"events\":{\"attrs\":{\"class_a\":" + jsonString(e.classA) +
         ",\"class_b\":" + jsonString(e.classB) + ",\"trials_a\":" + std::to_string(e.trialsA) +
         ",\"trials_b\":" + std::to_string(e.trialsB) +
         ",\"output\":" + jsonString(arOutputName(e.output)) +
         ",\"sample_rate\":" + numd(e.sampleRate) +
         ",\"trial_offset_s\":" + numd(f.trialOffsetSeconds) +
         ",\"trial_length_s\":" + numd(f.trialLengthSeconds) + "},\"r2\":" + doubles(e.r2) +
         ",\"signed_r2\":" + doubles(e.signedR2) + ",\"mean_a\":" + doubles(e.meanA) +
         ",\"mean_b\":" + doubles(e.meanB) + ",\"bin_centers\":" + doubles(e.binCenters) +
         ",\"channels\":" + ints(e.channels) + ",\"row_names\":" + strs(e.rowNames) +
         ",\"class_a\":" + classJson(e.featuresA) + ",\"class_b\":" + classJson(e.featuresB) + "}";
  }
  j += ",\"diagnostics\":" + list(f.diagnostics, [](const Diagnostic& d) {
         return "[" + jsonString(severityName(d.severity)) + "," + jsonString(d.code) + "," +
                jsonString(d.message) + "]";
       });
  j += ",\"provenance\":" + provenanceJson(f.provenance) + "}";
  return j;
}

class H5pyReadsAr : public Hdf5ArTest {
 protected:
  CommandResult check(const std::string& h5, const std::string& expected) {
    const std::string exp = path("expected.json");
    std::ofstream(exp) << expected;
    const std::string src = MODESCOPE_SOURCE_DIR;
    return runCommand(
        std::string(kPython) + " " + shellQuote(src + "/tests/tools/h5py_reads_ar_schema.py") +
        " " + shellQuote(h5) + " " + shellQuote(exp) + " " + shellQuote(src + "/docs/ar.md"));
  }
};

TEST_F(H5pyReadsAr, LayoutMatchesTheDocumentation) {
  for (const ArFile& f : {makeFile(), makeCoefficientFile()}) {
    JobContext ctx;
    writeArFile(path("ar.h5"), f, ctx);
    const CommandResult r = check(path("ar.h5"), expectedJson(f));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
  }
}

// The checker must be able to fail: a changed expected spectrum value and attribute are caught,
// and so is an r^2 map that no longer follows from the stored trial features.
TEST_F(H5pyReadsAr, CheckerDetectsWrongValues) {
  ArFile f = makeFile();
  JobContext ctx;
  writeArFile(path("ar.h5"), f, ctx);
  ArFile altered = f;
  altered.spectra.values[7] += 0.5f;
  altered.spectra.params.order = 13;
  CommandResult r = check(path("ar.h5"), expectedJson(altered));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("/ar/spectra"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/ar@order"), std::string::npos) << r.output;

  f.events->r2[3] = std::min(1.0, f.events->r2[3] + 0.01);
  writeArFile(path("bad.h5"), f, ctx);
  r = check(path("bad.h5"), expectedJson(f));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Pearson r^2"), std::string::npos) << r.output;
}

TEST_F(Hdf5ArTest, CancelLeavesNoFile) {
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(writeArFile(path("ar.h5"), makeFile(), ctx), Cancelled);
  EXPECT_TRUE(listDir().empty()) << "no output and no temporary file may remain";
}

TEST_F(Hdf5ArTest, UnwritableTargetsGiveOutputErrorAndLeaveNothing) {
  JobContext ctx;
  EXPECT_THROW(writeArFile(path("no/such/dir/ar.h5"), makeFile(), ctx), OutputError);
  fs::create_directory(path("folder.h5"));
  EXPECT_THROW(writeArFile(path("folder.h5"), makeFile(), ctx), OutputError);
  EXPECT_EQ(listDir(), std::vector<std::string>{"folder.h5"});
}

TEST_F(Hdf5ArTest, InconsistentResultsAreRefusedBeforeWriting) {
  JobContext ctx;
  ArFile f = makeFile();
  f.spectra.values.pop_back();
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.rowNames.pop_back();
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.spectra.noiseVariance.push_back(1.0f);
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.spatialFilter->matrix.pop_back();
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.events->r2.pop_back();
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.events->featuresB.values.pop_back();
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  f = makeFile();
  f.events->trialsA = 5;
  EXPECT_THROW(writeArFile(path("ar.h5"), f, ctx), InvalidParameterError);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(Hdf5ArTest, ForeignNewerAndWronglyShapedFilesAreRefusedNamingTheFile) {
  JobContext ctx;
  // An ICA-schema-less HDF5 file of another program.
  {
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File f(path("other.h5"), H5F_ACC_TRUNC);
    const hsize_t n = 3;
    f.createDataSet("data", H5::PredType::IEEE_F64LE, H5::DataSpace(1, &n));
  }
  EXPECT_FALSE(isArFile(path("other.h5")));
  std::string msg = messageOf([&] { readArFile(path("other.h5")); });
  EXPECT_NE(msg.find("other.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("modescope_schema"), std::string::npos) << msg;
  msg = messageOf([&] { readArFile(path("missing.h5")); });
  EXPECT_NE(msg.find("missing.h5"), std::string::npos) << msg;

  writeArFile(path("new.h5"), makeFile(), ctx);
  test_support::replaceAttribute(path("new.h5"), "/", "modescope_schema", "modescope-ar/2");
  EXPECT_TRUE(isArFile(path("new.h5")));
  msg = messageOf([&] { readArFile(path("new.h5")); });
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;

  // The spectra with one window too few: the reader names the dataset and both shapes.
  writeArFile(path("shape.h5"), makeFile(), ctx);
  test_support::replaceDataset(path("shape.h5"), "/ar", "spectra", H5::PredType::IEEE_F32LE,
                               {4, 4, 5});
  msg = messageOf([&] { readArFile(path("shape.h5")); });
  EXPECT_NE(msg.find("shape.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/ar/spectra"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 x 4 x 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 x 5 x 5"), std::string::npos) << msg;

  // An unknown enum name.
  writeArFile(path("enum.h5"), makeFile(), ctx);
  test_support::replaceAttribute(path("enum.h5"), "/ar", "detrend", "quadratic");
  msg = messageOf([&] { readArFile(path("enum.h5")); });
  EXPECT_NE(msg.find("/ar/@detrend"), std::string::npos) << msg;
  EXPECT_NE(msg.find("quadratic"), std::string::npos) << msg;
}

}  // namespace
}  // namespace modescope
