// Bad channels and segments as the engine and the jobs see them (engine/core/bad_marks.h): which
// annotations are bad segments, the good ranges between them, dropping their samples; the flag
// kept by HDF5 and by the BIDS channels.tsv beside an EDF+ export; default selections leaving bad
// channels out and saying so; the provenance stamp naming both.
#include "engine/core/bad_marks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "app/core/channel_selection.h"
#include "app/core/ica_job.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/io/bids_channels.h"
#include "engine/io/recording_io.h"
#include "error_message_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<Recording> smallRecording() {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> samples;
  for (const char* name : {"Fz", "Cz", "Pz", "Oz"}) {
    ChannelInfo c;
    c.label = c.name = name;
    c.type = ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = 100.0;
    c.sampleCount = 1000;
    c.physicalMin = -500, c.physicalMax = 500;
    c.digitalMin = -32768, c.digitalMax = 32767;
    rec->channels.push_back(c);
    std::vector<float> x(1000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.01 * i) * 50);
    samples.push_back(x);
  }
  rec->source = std::make_shared<InMemorySource>(samples);
  rec->annotations = {{1.0, 0.0, "stimulus"}, {2.0, 0.5, "BAD_muscle"}, {6.0, 1.0, "bad segment"}};
  return rec;
}

class BadMarksFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/modescope-badmarks-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  std::string dir_;
};

TEST(BadMarks, BadSegmentsAreAnnotationsBeginningWithBad) {
  const auto rec = smallRecording();
  const auto bad = badSegments(rec->annotations);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].text, "BAD_muscle");
  EXPECT_FALSE(isBadSegment({0, 0, "stimulus bad"}));
  EXPECT_TRUE(isBadSegment({0, 0, " bad"}));
  double covered = 0;
  const auto good = goodRanges(bad, 0.0, 10.0, &covered);
  ASSERT_EQ(good.size(), 3u);
  EXPECT_DOUBLE_EQ(good[0].end, 2.0);
  EXPECT_DOUBLE_EQ(good[1].start, 2.5);
  EXPECT_DOUBLE_EQ(good[2].start, 7.0);
  EXPECT_DOUBLE_EQ(covered, 1.5);
  // Overlapping segments count once.
  goodRanges({{1, 2, "bad"}, {2, 2, "bad"}}, 0, 10, &covered);
  EXPECT_DOUBLE_EQ(covered, 3.0);
}

TEST(BadMarks, WithBadMarksFlagsChannelsAndAddsSegments) {
  auto rec = smallRecording();
  rec->channels[0].bad = true;  // the file's flag: the marks replace it
  const auto marked =
      withBadMarks(*rec, {"cz", "PZ"}, {{0.5, 1.0, "BAD_segment"}, {3.0, 0.0, "note"}});
  EXPECT_EQ(badChannelIndices(*marked), (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(marked->annotations.size(), 4u);  // the note is not a bad segment
  EXPECT_EQ(marked->annotations[0].text, "BAD_segment");
  EXPECT_EQ(marked->source, rec->source);  // the samples are shared, not copied
  EXPECT_EQ(badChannelIndices(*rec), std::vector<std::size_t>{0});
}

TEST(BadMarks, DroppingBadSamplesJoinsTheRest) {
  SignalBlock b;
  b.channels = {0, 1};
  b.sampleRate = 10.0;
  b.firstSample = 10;  // the block starts at 1 s
  b.samples = 20;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 20; ++i) b.data.push_back(static_cast<float>(100 * c + i));
  // 1.5-2.0 s are samples 5..9 of the block.
  EXPECT_EQ(dropBadSamples(b, {{1.5, 0.5, "BAD_x"}}), 5);
  ASSERT_EQ(b.samples, 15);
  EXPECT_EQ(b.channel(0)[4], 4.0f);
  EXPECT_EQ(b.channel(0)[5], 10.0f);
  EXPECT_EQ(b.channel(1)[5], 110.0f);
}

TEST(BadMarks, DefaultSelectionLeavesBadChannelsOutAndSaysSo) {
  auto rec = smallRecording();
  rec->channels[1].bad = true;
  std::string note;
  EXPECT_EQ(defaultMethodChannels(*rec, &note), (std::vector<std::size_t>{0, 2, 3}));
  EXPECT_NE(note.find("left out the bad channels Cz"), std::string::npos) << note;
  EXPECT_EQ(defaultMethodChannels(*rec, &note, BadChannels::Keep).size(), 4u);
}

TEST(BadMarks, ProvenanceNamesBadChannelsAndSegments) {
  auto rec = smallRecording();
  rec->channels[1].bad = true;
  rec->channels[3].bad = true;
  Provenance p;
  stampJobProvenance(p, "CPU", "x.edf", *rec, {0, 2, 3}, 0.0, -1.0, 1.0);
  std::map<std::string, std::string> v(p.parameters.begin(), p.parameters.end());
  EXPECT_EQ(v["badChannels"], "left out: Cz; used although marked bad: Oz");
  EXPECT_EQ(v["badSegments"], "2 in the range (1.5 s), kept: the method needs contiguous samples");
  Provenance q;
  stampJobProvenance(q, "CPU", "x.edf", *rec, {0, 2}, 5.0, 5.0, 1.0, BadSegmentUse::Skipped);
  std::map<std::string, std::string> w(q.parameters.begin(), q.parameters.end());
  EXPECT_EQ(w["badSegments"], "1 in the range (1 s), skipped (their samples left out)");
  // Nothing marked: nothing said.
  Provenance none;
  stampJobProvenance(none, "CPU", "x.edf", *smallRecording(), {0}, 3.0, 1.0, 1.0);
  EXPECT_TRUE(none.parameters.empty());
}

// ICA leaves bad segments out of the fit: the unmixing equals that of the good samples joined
// (same seed, one thread), however large the artefact inside the segments, and the provenance
// says so; the file still covers the whole range.
TEST(BadMarks, IcaSkipsBadSegments) {
  const int64_t n = 1000;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::vector<float>> sources(3, std::vector<float>(n));
  for (auto& s : sources)
    for (auto& x : s) x = static_cast<float>(std::pow(u(rng), 3) * 40.0);  // super-Gaussian
  const double mixing[3][3] = {{1.0, 0.5, 0.2}, {0.3, 1.0, 0.4}, {0.6, 0.1, 1.0}};
  std::vector<std::vector<float>> marked(3, std::vector<float>(n));
  for (int c = 0; c < 3; ++c)
    for (int64_t t = 0; t < n; ++t)
      for (int k = 0; k < 3; ++k) marked[c][t] += static_cast<float>(mixing[c][k] * sources[k][t]);
  auto makeRec = [](std::vector<std::vector<float>> samples) {
    auto rec = std::make_shared<Recording>();
    for (int c = 0; c < 3; ++c) {
      ChannelInfo info;
      info.name = info.label = "E" + std::to_string(c + 1);
      info.type = ChannelType::EEG;
      info.sampleRate = 100.0;
      info.sampleCount = static_cast<int64_t>(samples[0].size());
      rec->channels.push_back(info);
    }
    rec->source = std::make_shared<InMemorySource>(std::move(samples));
    return rec;
  };
  // The good samples joined, before the artefact goes in.
  std::vector<std::vector<float>> good(3);
  for (int c = 0; c < 3; ++c)
    for (int64_t t = 0; t < n; ++t)
      if (!(t >= 200 && t < 250)) good[c].push_back(marked[c][t]);
  for (int c = 0; c < 3; ++c)
    for (int64_t t = 200; t < 250; ++t) marked[c][t] = 1e4f * static_cast<float>(c + 1);
  auto withBad = makeRec(marked);
  withBad->annotations = {{2.0, 0.5, "BAD_artefact"}};
  const auto joined = makeRec(good);

  IcaJobSpec spec;
  spec.channels = {0, 1, 2};
  spec.params.maxSteps = 50;
  spec.params.seed = 3;
  auto backend = makeCpuBackend(1);
  JobContext ctx;
  const IcaJobResult a = runIcaJob(*withBad, spec, *backend, ctx);
  const IcaJobResult b = runIcaJob(*joined, spec, *backend, ctx);
  EXPECT_EQ(a.file->result.unmixing.values, b.file->result.unmixing.values);
  EXPECT_EQ(a.file->samples, n);
  std::map<std::string, std::string> v(a.file->provenance.parameters.begin(),
                                       a.file->provenance.parameters.end());
  EXPECT_EQ(v["badSegments"], "1 in the range (0.5 s), skipped (their samples left out)");
}

TEST_F(BadMarksFiles, Hdf5KeepsTheFlag) {
  auto rec = smallRecording();
  rec->channels[2].bad = true;
  JobContext ctx;
  writeRecording(*rec, path("r.h5"), OutputFormat::Hdf5, Provenance{}, ctx);
  const auto back = openRecording(path("r.h5"));
  EXPECT_EQ(badChannelIndices(*back), std::vector<std::size_t>{2});
}

TEST_F(BadMarksFiles, EdfExportWritesTheBidsSidecarAndReadsItBack) {
  auto rec = smallRecording();
  JobContext ctx;
  writeRecording(*rec, path("clean_eeg.edf"), OutputFormat::EdfPlus, Provenance{}, ctx);
  EXPECT_FALSE(fs::exists(path("clean_channels.tsv")));  // nothing bad: no sidecar
  rec->channels[0].bad = true;
  writeRecording(*rec, path("sub-01_eeg.edf"), OutputFormat::EdfPlus, Provenance{}, ctx);
  ASSERT_TRUE(fs::exists(path("sub-01_channels.tsv")));
  std::ifstream in(path("sub-01_channels.tsv"));
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header,
            "name\ttype\tunits\tsampling_frequency\tlow_cutoff\thigh_cutoff\tstatus\t"
            "status_description");
  EXPECT_EQ(first, "Fz\tEEG\tuV\t100\tn/a\tn/a\tbad\tmarked bad in ModeScope");
  const auto back = openRecording(path("sub-01_eeg.edf"));
  EXPECT_EQ(badChannelIndices(*back), std::vector<std::size_t>{0});
  // The bad segments are EDF+ annotations and come back as such.
  EXPECT_EQ(badSegments(back->annotations).size(), 2u);
  bool noted = false;
  for (const auto& d : back->diagnostics) noted |= d.code == "bids.channelStatus";
  EXPECT_TRUE(noted);
}

TEST_F(BadMarksFiles, BidsTableRefusalsNameTheFile) {
  EXPECT_EQ(bidsChannelsPathFor("/a/sub-01_task-rest_ieeg.bdf"),
            "/a/sub-01_task-rest_channels.tsv");
  EXPECT_EQ(bidsChannelsPathFor("rec.edf"), "rec_channels.tsv");
  { std::ofstream(path("x.tsv")) << "label\tstatus\nCz\tbad\n"; }
  const std::string m =
      test_support::messageOf<InvalidInputError>([&] { readBidsBadChannels(path("x.tsv")); });
  EXPECT_NE(m.find("x.tsv"), std::string::npos) << m;
  EXPECT_NE(m.find("\"name\""), std::string::npos) << m;
  { std::ofstream(path("y.tsv")) << "name\ttype\tstatus\nCz\tEEG\tBAD\nPz\tEEG\tgood\n"; }
  EXPECT_EQ(readBidsBadChannels(path("y.tsv")), std::vector<std::string>{"Cz"});
}

}  // namespace
}  // namespace modescope
