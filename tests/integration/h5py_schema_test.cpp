// An independent reader checks the HDF5 schema: h5py (from /usr/bin/python3) reads files
// ModeScope wrote, using only docs/hdf5-schema.md (tests/tools/h5py_reads_schema.py), and
// compares every value with what the writer was given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/io/recording_io.h"
#include "engine/io/session.h"
#include "tests/unit/shell_json_support.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

using test_support::CommandResult;
using test_support::jsonDouble;
using test_support::jsonFloat;
using test_support::jsonString;
using test_support::runCommand;
using test_support::shellQuote;

std::shared_ptr<Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/sub-01/ses-1/eeg run.bdf";
  rec->info.format = "BDF+";
  rec->info.reader = "EDFlib";
  rec->info.patient = "Jürgen \"JJ\" Ölsen";
  rec->info.patientCode = "sub-01";
  rec->info.sex = "M";
  rec->info.birthdate = "1975-12-31";
  rec->info.recordingId = "ses-1";
  rec->info.technician = "T";
  rec->info.equipment = "ActiveTwo";
  rec->info.adminCode = "";
  rec->info.startDateTime = "2019-06-01T09:30:00";
  std::mt19937 rng(21);
  std::normal_distribution<float> noise(0.0f, 40.0f);
  struct S {
    const char* label;
    const char* name;
    ChannelType type;
    const char* unit;
    double rate;
    double seconds;
  };
  const S specs[] = {{"Fp1", "Fp1", ChannelType::EEG, "µV", 512.0, 3.0},
                     {"EXG1", "EXG1", ChannelType::EOG, "uV", 512.0, 3.0},
                     {"Temp", "Temp", ChannelType::MISC, "degC", 0.5, 3.0},
                     {"Status", "Status", ChannelType::STIM, "", 1000.0 / 3.0, 2.9}};
  std::vector<std::vector<float>> data;
  int k = 0;
  for (const S& s : specs) {
    ChannelInfo c;
    c.label = s.label;
    c.name = s.name;
    c.type = s.type;
    c.unit = s.unit;
    c.sampleRate = s.rate;
    c.sampleCount = static_cast<int64_t>(std::floor(s.rate * s.seconds));
    c.physicalMin = -262144;
    c.physicalMax = 262143;
    c.digitalMin = -8388608;
    c.digitalMax = 8388607;
    if (k == 0) c.position = Position3{-0.30901699437494745, 0.95105651629515353, 0.0};
    std::vector<float> v(static_cast<std::size_t>(c.sampleCount));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = noise(rng) + static_cast<float>(k) * 1e3f;
    data.push_back(std::move(v));
    rec->channels.push_back(c);
    ++k;
  }
  rec->annotations = {
      {0.25, 0.0, "Stimulus/S  1"}, {1.5, 0.75, "Blinzeln — Ä"}, {2.0, 0.0, "睡眠"}};
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

Provenance makeProvenance() {
  Provenance p;
  p.method = "convert";
  p.parameters = {{"format", "HDF5"}, {"highpass", "0.1 Hz"}};
  p.seed = "";
  p.backend = "CPU, 2 threads";
  p.softwareVersion = softwareVersion();
  p.inputFile = "/data/sub-01/ses-1/eeg run.bdf";
  p.selection = "all channels, whole recording";
  p.createdAt = "2026-11-22T11:20:03Z";
  p.wallSeconds = 0.125;
  return p;
}

std::string expectedJson(const Recording& rec, const Provenance& p, const std::string& session) {
  std::ostringstream o;
  const RecordingInfo& i = rec.info;
  o << "{\"attrs\":{\"source_path\":" << jsonString(rec.sourcePath)
    << ",\"source_format\":" << jsonString(i.format)
    << ",\"source_reader\":" << jsonString(i.reader) << ",\"patient\":" << jsonString(i.patient)
    << ",\"patient_code\":" << jsonString(i.patientCode) << ",\"sex\":" << jsonString(i.sex)
    << ",\"birthdate\":" << jsonString(i.birthdate)
    << ",\"recording_id\":" << jsonString(i.recordingId)
    << ",\"technician\":" << jsonString(i.technician)
    << ",\"equipment\":" << jsonString(i.equipment) << ",\"admin_code\":" << jsonString(i.adminCode)
    << ",\"start_datetime\":" << jsonString(i.startDateTime) << "},\"channels\":[";
  const auto& src = dynamic_cast<const InMemorySource&>(*rec.source);
  for (std::size_t c = 0; c < rec.channels.size(); ++c) {
    const ChannelInfo& ch = rec.channels[c];
    o << (c ? "," : "") << "{\"label\":" << jsonString(ch.label)
      << ",\"name\":" << jsonString(ch.name) << ",\"type\":" << jsonString(channelTypeName(ch.type))
      << ",\"unit\":" << jsonString(ch.unit) << ",\"sample_rate\":" << jsonDouble(ch.sampleRate)
      << ",\"last_time\":" << jsonDouble(static_cast<double>(ch.sampleCount - 1) / ch.sampleRate)
      << ",\"position\":";
    if (ch.position) {
      o << "[" << jsonDouble(ch.position->x) << "," << jsonDouble(ch.position->y) << ","
        << jsonDouble(ch.position->z) << "]";
    } else {
      o << "null";
    }
    o << ",\"samples\":[";
    const auto& v = src.channel(c);
    for (std::size_t k = 0; k < v.size(); ++k) o << (k ? "," : "") << jsonFloat(v[k]);
    o << "]}";
  }
  o << "],\"annotations\":[";
  for (std::size_t k = 0; k < rec.annotations.size(); ++k) {
    const Annotation& a = rec.annotations[k];
    o << (k ? "," : "") << "{\"onset\":" << jsonDouble(a.onset)
      << ",\"duration\":" << jsonDouble(a.duration) << ",\"text\":" << jsonString(a.text) << "}";
  }
  o << "],\"provenance\":{\"attrs\":{\"method\":" << jsonString(p.method)
    << ",\"seed\":" << jsonString(p.seed) << ",\"backend\":" << jsonString(p.backend)
    << ",\"software_version\":" << jsonString(p.softwareVersion)
    << ",\"input_file\":" << jsonString(p.inputFile) << ",\"selection\":" << jsonString(p.selection)
    << ",\"created_at\":" << jsonString(p.createdAt)
    << "},\"wall_seconds\":" << jsonDouble(p.wallSeconds) << ",\"parameters\":[";
  for (std::size_t k = 0; k < p.parameters.size(); ++k) {
    o << (k ? "," : "") << "[" << jsonString(p.parameters[k].first) << ","
      << jsonString(p.parameters[k].second) << "]";
  }
  o << "]}";
  if (!session.empty()) o << ",\"session\":{\"recording_path\":" << jsonString(session) << "}";
  o << "}";
  return o.str();
}

class H5pyReadsSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    const CommandResult probe = runCommand(std::string(kPython) + " -c 'import h5py, numpy'");
    if (probe.status != 0) {
      GTEST_SKIP() << "SKIPPED LOUDLY: " << kPython
                   << " cannot import h5py/numpy, so the HDF5 schema is not checked by an "
                      "independent reader here (install python3-h5py). Output: "
                   << probe.output;
    }
    std::string tmpl = (fs::temp_directory_path() / "modescope-h5py-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  CommandResult check(const std::string& h5, const std::string& expected, const std::string& group,
                      bool runDocExample = false) {
    const std::string exp = (dir_ / "expected.json").string();
    std::ofstream(exp) << expected;
    const std::string script =
        std::string(MODESCOPE_SOURCE_DIR) + "/tests/tools/h5py_reads_schema.py";
    const std::string doc = std::string(MODESCOPE_SOURCE_DIR) + "/docs/hdf5-schema.md";
    return runCommand(std::string(kPython) + " " + shellQuote(script) + " " + shellQuote(h5) + " " +
                      shellQuote(exp) + " " + shellQuote(group) +
                      (runDocExample ? " " + shellQuote(doc) : std::string()));
  }
  fs::path dir_;
};

TEST_F(H5pyReadsSchema, RecordingFileMatchesTheDocumentation) {
  auto rec = makeRecording();
  const Provenance p = makeProvenance();
  const std::string path = (dir_ / "rec.h5").string();
  JobContext ctx;
  writeRecording(*rec, path, OutputFormat::Hdf5, p, ctx);
  // Also runs the documentation's own Python example on the file.
  const CommandResult r = check(path, expectedJson(*rec, p, ""), "/", true);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}

TEST_F(H5pyReadsSchema, SessionJobResultMatchesTheDocumentation) {
  auto rec = makeRecording();
  Session s;
  s.recordingPath = "/data/sub-01/ses-1/eeg run.bdf";
  JobRecord j;
  j.title = "Convert";
  j.state = "done";
  j.provenance = makeProvenance();
  j.resultRecording = rec;
  s.jobs.push_back(j);
  const std::string path = (dir_ / "session.h5").string();
  saveSession(s, path);
  const CommandResult r =
      check(path, expectedJson(*rec, j.provenance, s.recordingPath), "/jobs/0/result");
  EXPECT_EQ(r.status, 0) << r.output;
}

// The checker itself must be able to fail: a changed sample is caught.
TEST_F(H5pyReadsSchema, CheckerDetectsAWrongValue) {
  auto rec = makeRecording();
  const Provenance p = makeProvenance();
  const std::string path = (dir_ / "rec.h5").string();
  JobContext ctx;
  writeRecording(*rec, path, OutputFormat::Hdf5, p, ctx);
  auto altered = makeRecording();
  auto data = dynamic_cast<const InMemorySource&>(*altered->source);
  std::vector<std::vector<float>> channels;
  for (std::size_t c = 0; c < altered->channels.size(); ++c) channels.push_back(data.channel(c));
  channels[1][17] += 0.5f;
  altered->source = std::make_shared<InMemorySource>(std::move(channels));
  const CommandResult r = check(path, expectedJson(*altered, p, ""), "/");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("channel 1 samples differ"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace modescope
