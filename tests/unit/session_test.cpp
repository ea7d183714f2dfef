// Session files: everything saved comes back equal; other files are refused.
#include "engine/io/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/io/recording_io.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

class SessionDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "modescope-session-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& n) const { return (dir_ / n).string(); }
  fs::path dir_;
};

Provenance provenance(const std::string& method, double wall) {
  Provenance p;
  p.method = method;
  p.parameters = {{"band", "1-40 Hz"}, {"order", "4"}};
  p.seed = method == "ica" ? "42" : "";
  p.backend = "CPU, 2 threads";
  p.softwareVersion = softwareVersion();
  p.inputFile = "/data/run-1.edf";
  p.selection = "C3,C4,Cz; 0-10 s";
  p.createdAt = "2026-11-22T11:20:03Z";
  p.wallSeconds = wall;
  return p;
}

std::shared_ptr<const Recording> resultRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/run-1.edf";
  rec->info.format = "EDF+";
  rec->info.reader = "EDFlib";
  rec->info.startDateTime = "2020-01-02T03:04:05";
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0, 10);
  std::vector<std::vector<float>> data;
  const double rates[] = {160.0, 160.0, 50.0};
  const char* names[] = {"C3", "C4", "EOG"};
  for (int i = 0; i < 3; ++i) {
    ChannelInfo c;
    c.label = std::string("EEG ") + names[i];
    c.name = names[i];
    c.type = i == 2 ? ChannelType::EOG : ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = rates[i];
    c.sampleCount = static_cast<int64_t>(rates[i] * 10);
    if (i < 2) c.position = Position3{i == 0 ? -0.7 : 0.7, 0.0, 0.7};
    std::vector<float> v(static_cast<std::size_t>(c.sampleCount));
    for (auto& x : v) x = noise(rng);
    data.push_back(std::move(v));
    rec->channels.push_back(c);
  }
  rec->annotations = {{1.0, 0.5, "T1"}, {4.0, 0.0, "T2 — blink"}};
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

Session makeSession() {
  Session s;
  s.recordingPath = "/data/run-1.edf";
  s.view.pageStart = 12.5;
  s.view.pageLength = 20.0;
  s.view.microvoltsPerDivision = 75.0;
  s.view.firstVisibleChannel = 3;
  s.view.visibleChannelCount = 16;
  s.view.selectedChannels = {"C3", "Cz", "C4"};
  s.view.montage = "ref:Cz";
  s.view.displayFilter = "bandpass 1-40 Hz";
  s.marks.badChannels = {"T7", "Fp1"};
  s.marks.userAnnotations = {{3.25, 1.0, "artefact: Bewegung"}, {8.0, 0.0, "spike ✓"}};
  JobRecord done;
  done.title = "Filter 1-40 Hz";
  done.state = "done";
  done.provenance = provenance("preprocess", 0.75);
  done.resultRecording = resultRecording();
  JobRecord failed;
  failed.title = "ICA";
  failed.state = "failed";
  failed.message = "parameter 'channels': got 1, expected at least 2";
  failed.provenance = provenance("ica", 0.0);
  s.jobs = {done, failed};
  s.provenance = provenance("session", 0.0);
  return s;
}

void expectSameProvenance(const Provenance& a, const Provenance& b) {
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.softwareVersion, b.softwareVersion);
  EXPECT_EQ(a.inputFile, b.inputFile);
  EXPECT_EQ(a.selection, b.selection);
  EXPECT_EQ(a.createdAt, b.createdAt);
  EXPECT_EQ(a.wallSeconds, b.wallSeconds);
}

TEST_F(SessionDir, RoundTripRestoresEverything) {
  const Session s = makeSession();
  const std::string path = file("work.msession.h5");
  saveSession(s, path);
  const Session t = loadSession(path);

  EXPECT_EQ(t.recordingPath, s.recordingPath);
  EXPECT_EQ(t.view.pageStart, s.view.pageStart);
  EXPECT_EQ(t.view.pageLength, s.view.pageLength);
  EXPECT_EQ(t.view.microvoltsPerDivision, s.view.microvoltsPerDivision);
  EXPECT_EQ(t.view.firstVisibleChannel, s.view.firstVisibleChannel);
  EXPECT_EQ(t.view.visibleChannelCount, s.view.visibleChannelCount);
  EXPECT_EQ(t.view.selectedChannels, s.view.selectedChannels);
  EXPECT_EQ(t.view.montage, s.view.montage);
  EXPECT_EQ(t.view.displayFilter, s.view.displayFilter);
  EXPECT_EQ(t.marks.badChannels, s.marks.badChannels);
  ASSERT_EQ(t.marks.userAnnotations.size(), s.marks.userAnnotations.size());
  for (std::size_t i = 0; i < s.marks.userAnnotations.size(); ++i) {
    EXPECT_EQ(t.marks.userAnnotations[i].onset, s.marks.userAnnotations[i].onset);
    EXPECT_EQ(t.marks.userAnnotations[i].duration, s.marks.userAnnotations[i].duration);
    EXPECT_EQ(t.marks.userAnnotations[i].text, s.marks.userAnnotations[i].text);
  }
  expectSameProvenance(t.provenance, s.provenance);

  ASSERT_EQ(t.jobs.size(), 2u);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(t.jobs[j].title, s.jobs[j].title);
    EXPECT_EQ(t.jobs[j].state, s.jobs[j].state);
    EXPECT_EQ(t.jobs[j].message, s.jobs[j].message);
    expectSameProvenance(t.jobs[j].provenance, s.jobs[j].provenance);
  }
  EXPECT_EQ(t.jobs[1].resultRecording, nullptr);
  ASSERT_NE(t.jobs[0].resultRecording, nullptr);
  const Recording& a = *s.jobs[0].resultRecording;
  const Recording& b = *t.jobs[0].resultRecording;
  ASSERT_EQ(b.channels.size(), a.channels.size());
  for (std::size_t i = 0; i < a.channels.size(); ++i) {
    EXPECT_EQ(b.channels[i].label, a.channels[i].label);
    EXPECT_EQ(b.channels[i].name, a.channels[i].name);
    EXPECT_EQ(b.channels[i].type, a.channels[i].type);
    EXPECT_EQ(b.channels[i].sampleRate, a.channels[i].sampleRate);
    EXPECT_EQ(b.channels[i].position.has_value(), a.channels[i].position.has_value());
    EXPECT_EQ(b.readChannel(i, 0, b.channels[i].sampleCount),
              a.readChannel(i, 0, a.channels[i].sampleCount));  // float32 kept bit-exact
  }
  ASSERT_EQ(b.annotations.size(), a.annotations.size());
  EXPECT_EQ(b.annotations[1].text, a.annotations[1].text);
  EXPECT_EQ(b.info.startDateTime, a.info.startDateTime);
  EXPECT_EQ(b.sourcePath, a.sourcePath);
}

TEST_F(SessionDir, EmptySessionRoundTrips) {
  const std::string path = file("empty.h5");
  saveSession(Session{}, path);
  const Session t = loadSession(path);
  const Session d;
  EXPECT_EQ(t.recordingPath, "");
  EXPECT_EQ(t.view.pageLength, d.view.pageLength);
  EXPECT_EQ(t.view.montage, d.view.montage);
  EXPECT_TRUE(t.jobs.empty());
  EXPECT_TRUE(t.marks.badChannels.empty());
  EXPECT_TRUE(t.marks.userAnnotations.empty());
}

// The file's annotations as the user corrected them come back as saved, an emptied list included
// (every row of the file's deleted is a correction, not "as read"); a session without the group
// (all written before ModeScope 0.6, and any with no correction) reads as "as read".
TEST_F(SessionDir, CorrectedFileAnnotationsRoundTripAndAreOptional) {
  const std::string path = file("corrected.h5");
  Session s;
  s.marks.fileAnnotations = std::vector<Annotation>{{0.5, 0.25, "T1"}, {7.75, 2.0, "BAD_arte"}};
  saveSession(s, path);
  const Session t = loadSession(path);
  ASSERT_TRUE(t.marks.fileAnnotations.has_value());
  ASSERT_EQ(t.marks.fileAnnotations->size(), std::size_t{2});
  EXPECT_EQ((*t.marks.fileAnnotations)[1].onset, 7.75);
  EXPECT_EQ((*t.marks.fileAnnotations)[1].duration, 2.0);
  EXPECT_EQ((*t.marks.fileAnnotations)[1].text, "BAD_arte");
  s.marks.fileAnnotations = std::vector<Annotation>{};
  saveSession(s, path);
  ASSERT_TRUE(loadSession(path).marks.fileAnnotations.has_value());
  EXPECT_TRUE(loadSession(path).marks.fileAnnotations->empty());
  saveSession(Session{}, path);
  EXPECT_FALSE(loadSession(path).marks.fileAnnotations.has_value());
}

// The GUI's history travels with the session as pipeline text; sessions without it (written
// before ModeScope 0.5, or with nothing run) read as "".
TEST_F(SessionDir, HistoryPipelineRoundTripsAndIsOptional) {
  const std::string path = file("history.h5");
  Session s;
  s.historyPipeline = "{\n  \"modescope_pipeline\": 1,\n  \"steps\": []\n}\n";
  saveSession(s, path);
  EXPECT_EQ(loadSession(path).historyPipeline, s.historyPipeline);
  saveSession(Session{}, path);
  EXPECT_EQ(loadSession(path).historyPipeline, "");
}

TEST_F(SessionDir, ARecordingFileIsNotASession) {
  const std::string path = file("rec.h5");
  JobContext ctx;
  writeRecording(*resultRecording(), path, OutputFormat::Hdf5, Provenance{}, ctx);
  try {
    loadSession(path);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("modescope-session/1"), std::string::npos) << m;
    EXPECT_NE(m.find("recording"), std::string::npos) << m;
  }
}

TEST_F(SessionDir, OtherFilesAreInvalidInput) {
  const std::string text = file("notes.h5");
  std::ofstream(text) << "plain text";
  EXPECT_THROW(loadSession(text), InvalidInputError);
  EXPECT_THROW(loadSession(file("absent.h5")), InvalidInputError);
  // A session cut short is refused, never half-loaded.
  const std::string good = file("good.h5");
  saveSession(makeSession(), good);
  const std::string cut = file("cut.h5");
  fs::copy_file(good, cut);
  fs::resize_file(cut, fs::file_size(good) / 2);
  EXPECT_THROW(loadSession(cut), InvalidInputError);
}

TEST_F(SessionDir, SavingIntoAMissingFolderIsOutputError) {
  EXPECT_THROW(saveSession(makeSession(), file("nope/s.h5")), OutputError);
  std::ofstream(file("regular")) << "x";
  EXPECT_THROW(saveSession(makeSession(), file("regular") + "/s.h5"), OutputError);
}

TEST_F(SessionDir, SavingAgainReplacesTheFileAndLeavesNoTemporary) {
  const std::string path = file("s.h5");
  Session s = makeSession();
  saveSession(s, path);
  s.view.pageStart = 99.0;
  s.jobs.pop_back();
  saveSession(s, path);
  const Session t = loadSession(path);
  EXPECT_EQ(t.view.pageStart, 99.0);
  EXPECT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), {}), 1);
}

}  // namespace
}  // namespace modescope
