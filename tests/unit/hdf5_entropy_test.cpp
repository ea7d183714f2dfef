// Entropy result files (engine/io/hdf5_entropy.h, docs/entropy.md "File schema"): every value
// written comes back bit for bit through readEntropyFile (NaN entries included), group means are
// the NaN-skipping means computed here by hand, the CSV export has the documented layout, a
// cancel leaves no file, and foreign or inconsistent input is refused with a clear message.
// (h5py reading the layout is tested end to end in tests/integration/cli_xapen_test.cpp.)
#include "engine/io/hdf5_entropy.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/entropy/entropy_cpu.h"
#include "engine/entropy/entropy_csv.h"
#include "engine/io/hdf5_util.h"
#include "tests/unit/hdf5_file_test_support.h"

namespace modescope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

EntropyFileRecording makeRecording(uint64_t seed, const std::string& group, bool flatEpoch) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  SignalBlock b;
  b.sampleRate = 128.0;
  b.firstSample = 256;
  b.samples = 200;
  b.channels = {4, 1, 7};
  for (std::size_t c = 0; c < 3; ++c)
    for (int k = 0; k < 200; ++k)
      b.data.push_back(flatEpoch && c == 2 && k >= 64 && k < 128 ? 1.5f
                                                                 : static_cast<float>(normal(rng)));
  EntropyParams p;
  p.epochSamples = 64;
  p.bias = ApEnBias::Zero;
  JobContext ctx;
  EntropyFileRecording rec;
  rec.result = computeEntropyCpu(b, p, 2, ctx);
  rec.inputFile = "/data/rec" + std::to_string(seed) + ".edf";
  rec.group = group;
  rec.selectionSamples = b.samples;
  const char* names[] = {"Fz", "Cz", "Pz"};
  for (std::size_t c = 0; c < 3; ++c) {
    rec.channels.push_back({b.channels[c], names[c], std::string("EEG ") + names[c], "EEG", "uV"});
    rec.result.channelNames.push_back(names[c]);
  }
  rec.provenance.method = "xapen";
  rec.provenance.parameters = {{"m", "1"}, {"r", "0.2 SD"}};
  rec.provenance.backend = "CPU, 2 threads";
  rec.provenance.inputFile = rec.inputFile;
  rec.provenance.createdAt = "2026-11-22T18:00:00Z";
  rec.provenance.wallSeconds = 0.25;
  return rec;
}

bool sameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

class Hdf5EntropyTest : public test_support::TempDirTest {
 protected:
  Hdf5EntropyTest() : TempDirTest("modescope-entropy") {}
};

TEST_F(Hdf5EntropyTest, RoundTripKeepsEveryValue) {
  EntropyFile f;
  f.recordings = {makeRecording(1, "young", true), makeRecording(2, "young", false),
                  makeRecording(3, "old", false)};
  f.groups = entropyGroupMeans(f.recordings);
  JobContext ctx;
  writeEntropyFile(path("e.h5"), f, ctx);
  ASSERT_TRUE(isEntropyFile(path("e.h5")));
  const EntropyFile g = readEntropyFile(path("e.h5"));
  ASSERT_EQ(g.recordings.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const EntropyMatrixResult& a = f.recordings[k].result;
    const EntropyMatrixResult& b = g.recordings[k].result;
    EXPECT_EQ(g.recordings[k].inputFile, f.recordings[k].inputFile);
    EXPECT_EQ(g.recordings[k].group, f.recordings[k].group);
    EXPECT_EQ(g.recordings[k].selectionSamples, 200);
    EXPECT_EQ(b.params.measure, a.params.measure);
    EXPECT_EQ(b.params.bias, ApEnBias::Zero);
    EXPECT_EQ(b.params.m, a.params.m);
    EXPECT_EQ(b.params.r, a.params.r);
    EXPECT_EQ(b.params.epochSamples, 64);
    EXPECT_EQ(b.sampleRate, a.sampleRate);
    EXPECT_EQ(b.firstSample, a.firstSample);
    EXPECT_EQ(b.epochSamples, a.epochSamples);
    EXPECT_EQ(b.epochStarts, a.epochStarts);
    EXPECT_EQ(b.channels, a.channels);
    EXPECT_EQ(b.channelNames, a.channelNames);
    EXPECT_EQ(b.averageEpochs, a.averageEpochs);
    EXPECT_EQ(b.constantEpochs, a.constantEpochs);
    ASSERT_EQ(b.epochValues.size(), a.epochValues.size());
    for (std::size_t i = 0; i < a.epochValues.size(); ++i)
      EXPECT_TRUE(sameDouble(a.epochValues[i], b.epochValues[i])) << i;
    for (std::size_t i = 0; i < a.average.size(); ++i)
      EXPECT_TRUE(sameDouble(a.average[i], b.average[i])) << i;
    ASSERT_EQ(b.diagnostics.size(), a.diagnostics.size());
    EXPECT_EQ(g.recordings[k].provenance.method, "xapen");
    EXPECT_EQ(g.recordings[k].provenance.parameters, f.recordings[k].provenance.parameters);
    EXPECT_EQ(g.recordings[k].channels[0].label, "EEG Fz");
  }
  // The flat epoch of recording 1 (epoch 2, channel Pz) is NaN and left out of its average.
  EXPECT_TRUE(std::isnan(g.recordings[0].result.at(1, 0, 2)));
  EXPECT_EQ(g.recordings[0].result.averageEpochs[0 * 3 + 2], 2);
  // Groups: "young" = recordings 0 and 1, "old" = 2; means by hand.
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[0].label, "young");
  EXPECT_EQ(g.groups[0].members, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(g.groups[1].members, (std::vector<std::size_t>{2}));
  EXPECT_EQ(g.groups[0].channelNames, (std::vector<std::string>{"Fz", "Cz", "Pz"}));
  for (std::size_t i = 0; i < 9; ++i) {
    const double expected =
        (f.recordings[0].result.average[i] + f.recordings[1].result.average[i]) / 2;
    EXPECT_NEAR(g.groups[0].mean[i], expected, 1e-15);
    EXPECT_EQ(g.groups[0].count[i], 2);
    EXPECT_EQ(g.groups[1].mean[i], f.recordings[2].result.average[i]);
  }
}

TEST_F(Hdf5EntropyTest, GroupMeansSkipNaN) {
  std::vector<EntropyFileRecording> recs = {makeRecording(4, "g", false),
                                            makeRecording(5, "g", false)};
  recs[0].result.average[1] = kNaN;
  const auto groups = entropyGroupMeans(recs);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].count[1], 1);
  EXPECT_EQ(groups[0].mean[1], recs[1].result.average[1]);
  // Different channels in one group: refused, naming the group and the remedy.
  recs[1].channels[2].name = "Oz";
  try {
    entropyGroupMeans(recs);
    ADD_FAILURE() << "expected InvalidParameterError";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("group 'g'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--channels"), std::string::npos) << e.what();
  }
}

TEST_F(Hdf5EntropyTest, CancelLeavesNoFile) {
  EntropyFile f;
  f.recordings = {makeRecording(6, "", false)};
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(writeEntropyFile(path("c.h5"), f, ctx), Cancelled);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(Hdf5EntropyTest, InconsistentInputIsRefusedBeforeWriting) {
  EntropyFile f;
  JobContext ctx;
  EXPECT_THROW(writeEntropyFile(path("x.h5"), f, ctx), InvalidParameterError);  // no recordings
  f.recordings = {makeRecording(7, "", false), makeRecording(8, "", false)};
  f.recordings[1].result.params.r = 0.3;
  EXPECT_THROW(writeEntropyFile(path("x.h5"), f, ctx), InvalidParameterError);
  f.recordings[1].result.params.r = f.recordings[0].result.params.r;
  f.recordings[1].result.average.pop_back();
  EXPECT_THROW(writeEntropyFile(path("x.h5"), f, ctx), InvalidParameterError);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(Hdf5EntropyTest, ForeignFilesAreRefusedNamingTheFile) {
  {
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File file(path("plain.h5"), H5F_ACC_TRUNC);
  }
  EXPECT_FALSE(isEntropyFile(path("plain.h5")));
  const std::string msg = test_support::messageOf([&] { readEntropyFile(path("plain.h5")); });
  EXPECT_NE(msg.find("plain.h5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("xapen"), std::string::npos) << msg;
  const std::string missing = test_support::messageOf([&] { readEntropyFile(path("none.h5")); });
  EXPECT_NE(missing.find("none.h5"), std::string::npos) << missing;
}

TEST(EntropyCsv, LayoutAndQuoting) {
  const std::string csv = entropyMatrixCsv({"Fz", "C,z"}, {1.0, 0.25, kNaN, -0.5});
  EXPECT_EQ(csv,
            "template\\target,Fz,\"C,z\"\n"
            "Fz,1,0.25\n"
            "\"C,z\",NaN,-0.5\n");
  EXPECT_THROW(entropyMatrixCsv({"a"}, {1.0, 2.0}), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
