// Derivation montages (engine/montage/derivations.h) on the real 64-channel PhysioNet recording:
// the double banana's rows are the differences of the recorded channels sample for sample, the
// Laplacian of Cz uses its four 10-10 neighbours, the average reference sums to zero, montage
// files round-trip and bad lines are reported with their line number.
#include "engine/montage/derivations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "engine/core/error.h"
#include "engine/io/montage_file.h"
#include "engine/io/recording_io.h"

namespace modescope {
namespace {

std::shared_ptr<const Recording> physionet() {
  static const auto rec = openRecording(MODESCOPE_TEST_DATA "/physionet_S001R03_64ch.h5");
  return rec;
}

std::vector<float> channelOf(const Recording& rec, const std::string& name) {
  const int c = rec.findChannel(name);
  EXPECT_GE(c, 0) << name;
  return rec.readChannel(static_cast<std::size_t>(c), 0, 800);
}

TEST(Derivations, DoubleBananaIsTheChannelDifferences) {
  const auto base = physionet();
  std::vector<std::string> skipped;
  const auto rec = derivedRecording(base, longitudinalBipolar1020(), &skipped);
  EXPECT_TRUE(skipped.empty()) << skipped.front();
  ASSERT_EQ(rec->channelCount(), 18u);  // 4 chains of 4 pairs and the midline's 2
  EXPECT_EQ(rec->channels[0].name, "Fp1-F7");
  EXPECT_EQ(rec->channels[17].name, "Cz-Pz");
  EXPECT_DOUBLE_EQ(rec->channels[0].sampleRate, base->channels[0].sampleRate);
  const auto fp1 = channelOf(*base, "Fp1");
  const auto f7 = channelOf(*base, "F7");
  const auto row = rec->readChannel(0, 0, 800);
  for (std::size_t i = 0; i < row.size(); ++i) EXPECT_FLOAT_EQ(row[i], fp1[i] - f7[i]);
  // The transverse chains too.
  const auto transverse = derivedRecording(base, transverseBipolar1020(), &skipped);
  EXPECT_EQ(transverse->channelCount(), 18u);
  EXPECT_TRUE(skipped.empty());
}

TEST(Derivations, MissingChannelsAreSkippedAndSaid) {
  DerivationMontage m;
  m.name = "test";
  m.rows = {{"Fp1-F7", {{"Fp1", 1.0}, {"F7", -1.0}}}, {"X-F7", {{"X9", 1.0}, {"F7", -1.0}}}};
  std::vector<std::string> skipped;
  const auto rec = derivedRecording(physionet(), m, &skipped);
  EXPECT_EQ(rec->channelCount(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0], "X-F7: no channel X9");
}

TEST(Derivations, LaplacianOfCzUsesItsFourNeighbours) {
  const auto base = physionet();
  const DerivationMontage lap = laplacianDerivations(*base, 4);
  const auto cz = std::find_if(lap.rows.begin(), lap.rows.end(),
                               [](const Derivation& d) { return d.label == "Cz-Lap"; });
  ASSERT_NE(cz, lap.rows.end());
  ASSERT_EQ(cz->terms.size(), 5u);
  std::set<std::string> neighbours;
  for (std::size_t t = 1; t < cz->terms.size(); ++t) {
    neighbours.insert(cz->terms[t].channel);
    EXPECT_DOUBLE_EQ(cz->terms[t].weight, -0.25);
  }
  EXPECT_EQ(neighbours, (std::set<std::string>{"C1", "C2", "FCz", "CPz"}));
  // Every positioned EEG channel gets a row; weights sum to zero (a constant is removed).
  EXPECT_EQ(lap.rows.size(), 64u);
  for (const Derivation& d : lap.rows) {
    double sum = 0;
    for (const auto& t : d.terms) sum += t.weight;
    EXPECT_NEAR(sum, 0.0, 1e-12);
  }
}

TEST(Derivations, AverageReferenceSumsToZero) {
  const auto base = physionet();
  const auto rec = derivedRecording(base, averageDerivations(*base));
  ASSERT_EQ(rec->channelCount(), 64u);
  std::vector<double> sum(100, 0.0);
  for (std::size_t c = 0; c < rec->channelCount(); ++c) {
    const auto x = rec->readChannel(c, 0, 100);
    for (std::size_t i = 0; i < x.size(); ++i) sum[i] += x[i];
  }
  for (double s : sum) EXPECT_NEAR(s, 0.0, 1e-2);  // float sums of 64 values of ~100 uV
  EXPECT_THROW(linkedMastoidDerivations(*base), InvalidParameterError);  // no M1/M2, A1/A2, TP9/10
}

TEST(Derivations, MontageFilesRoundTrip) {
  DerivationMontage m = longitudinalBipolar1020();
  m.rows.push_back({"C3 Lap", {{"C3", 1.0}, {"F3", -0.25}, {"EEG P3-REF", -0.75}}});
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "modescope_derivations_test.montage";
  writeMontageFile(m, path.string());
  EXPECT_EQ(readMontageFile(path.string()), m);
  std::filesystem::remove(path);
  // Shorthand: a line without ':' is its own label.
  const auto shorthand = parseMontageText("name: x\nFp1 - F7\n", "inline");
  ASSERT_EQ(shorthand.rows.size(), 1u);
  EXPECT_EQ(shorthand.rows[0].label, "Fp1 - F7");
  EXPECT_EQ(shorthand.rows[0].terms, (std::vector<DerivationTerm>{{"Fp1", 1.0}, {"F7", -1.0}}));
}

TEST(Derivations, BadLinesNameTheLine) {
  try {
    parseMontageText("# x\nname: test\nFp1-F7: Fp1 - F7\nbad: Fp1 F7\n", "my.montage");
    FAIL() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.path(), "my.montage");
    EXPECT_EQ(e.field(), "line 4");
  }
  EXPECT_THROW(parseMontageText("name: empty\n", "e.montage"), InvalidInputError);
  EXPECT_THROW(parseMontageText("a: Fp1 - \n", "e.montage"), InvalidInputError);
  EXPECT_THROW(readMontageFile("/nonexistent/x.montage"), InvalidInputError);
}

}  // namespace
}  // namespace modescope
