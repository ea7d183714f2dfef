// ICA decompositions and their marks in session files (engine/io/session.h, /ica_results): saved
// and read back equal, and sessions written before the group existed still open.
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_util.h"
#include "engine/io/session.h"
#include "tests/unit/hdf5_file_test_support.h"

namespace modescope {
namespace {

class IcaSessionTest : public test_support::TempDirTest {
 protected:
  IcaSessionTest() : TempDirTest("modescope-ica-session") {}
  std::string file(const std::string& n) const { return path(n); }
};

// A small but complete decomposition (shapes as writeIcaFile checks them); values chosen away
// from defaults so a field lost on the way shows up.
std::shared_ptr<IcaFile> makeFile(int channels, double scale) {
  auto f = std::make_shared<IcaFile>();
  f->inputFile = "/data/run 1.edf";
  f->sampleRate = 160.0;
  f->firstSample = 320;
  f->samples = 4800;
  for (int c = 0; c < channels; ++c) {
    const std::string name = "E" + std::to_string(c + 1);
    f->channels.push_back({static_cast<std::size_t>(c + 2), name, "EEG " + name, "EEG", "uV",
                           Position3{0.1 * c, 0.5, 0.8}});
  }
  IcaResult& r = f->result;
  const int k = channels;
  r.components = k;
  r.detectedRank = k;
  for (const auto& c : f->channels) r.channels.push_back(c.recordingIndex);
  r.sphere = IcaMatrix(k, channels);
  r.weights = IcaMatrix(k, k);
  r.unmixing = IcaMatrix(k, channels);
  r.mixing = IcaMatrix(channels, k);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < channels; ++j) {
      r.sphere(i, j) = scale * (i == j ? 2.0 : 0.125);
      r.unmixing(i, j) = scale * (i + 1) * 0.25 - j;
      r.mixing(j, i) = scale * (i * channels + j + 0.5);
    }
  for (int i = 0; i < k; ++i) r.weights(i, i) = 1.5;
  r.mean.assign(static_cast<std::size_t>(channels), -2.5 * scale);
  r.eigenvalues.assign(static_cast<std::size_t>(channels), 3.0);
  r.bias.assign(static_cast<std::size_t>(k), 0.01);
  r.signs.assign(static_cast<std::size_t>(k), 1);
  r.signs[0] = -1;
  r.backProjectedVariance.assign(static_cast<std::size_t>(k), 7.0);
  r.varianceFraction.assign(static_cast<std::size_t>(k), 1.0 / k);
  r.steps = 77;
  r.converged = true;
  r.stopReason = "tolerance";
  r.history = {{1, 0.5, 0.0, 0.001, false, 1}};
  f->provenance.method = "ica";
  f->provenance.seed = "42";
  return f;
}

TEST_F(IcaSessionTest, DecompositionsAndMarksRoundTrip) {
  Session s;
  s.recordingPath = "/data/run 1.edf";
  s.icaResults.push_back({"ICA of 4 channels", makeFile(4, 1.0), {0, 2}, "/tmp/a ica.h5"});
  s.icaResults.push_back({"ICA again", makeFile(3, -2.0), {}, ""});
  saveSession(s, file("s.h5"));
  const Session t = loadSession(file("s.h5"));
  ASSERT_EQ(t.icaResults.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const IcaSessionEntry& a = s.icaResults[i];
    const IcaSessionEntry& b = t.icaResults[i];
    EXPECT_EQ(b.title, a.title);
    EXPECT_EQ(b.rejected, a.rejected);
    EXPECT_EQ(b.icaPath, a.icaPath);
    ASSERT_TRUE(b.file);
    EXPECT_EQ(b.file->inputFile, a.file->inputFile);
    EXPECT_EQ(b.file->firstSample, a.file->firstSample);
    EXPECT_EQ(b.file->samples, a.file->samples);
    EXPECT_EQ(b.file->channels.size(), a.file->channels.size());
    EXPECT_EQ(b.file->channels.back().recordingIndex, a.file->channels.back().recordingIndex);
    EXPECT_EQ(b.file->result.mixing.values, a.file->result.mixing.values);  // doubles, exact
    EXPECT_EQ(b.file->result.unmixing.values, a.file->result.unmixing.values);
    EXPECT_EQ(b.file->result.mean, a.file->result.mean);
    EXPECT_EQ(b.file->result.signs, a.file->result.signs);
    EXPECT_EQ(b.file->provenance.seed, "42");
  }
}

TEST_F(IcaSessionTest, SessionsWithoutTheGroupStillOpen) {
  Session s;
  s.recordingPath = "/data/x.edf";
  s.icaResults.push_back({"one", makeFile(2, 1.0), {1}, ""});
  saveSession(s, file("old.h5"));
  {
    // What a session written before /ica_results existed looks like.
    h5::Lock lock(h5::hdf5Mutex());
    H5::H5File f(file("old.h5"), H5F_ACC_RDWR);
    f.unlink("ica_results");
  }
  const Session t = loadSession(file("old.h5"));
  EXPECT_TRUE(t.icaResults.empty());
  EXPECT_EQ(t.recordingPath, "/data/x.edf");
}

TEST_F(IcaSessionTest, OutOfRangeMarksAreRefusedNamingTheDataset) {
  Session s;
  s.icaResults.push_back({"bad", makeFile(2, 1.0), {5}, ""});
  saveSession(s, file("bad.h5"));
  try {
    loadSession(file("bad.h5"));
    FAIL() << "a mark of component 6 of 2 was accepted";
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find("rejected_components"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace modescope
