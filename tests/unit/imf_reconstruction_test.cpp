// Cleaning by IMF rejection (app/core/imf_reconstruction.h): the GUI's per-channel marks and the
// CLI's IMF numbers (--drop-imfs). The modes are made by hand as pure tones and a linear trend,
// so the expected cleaned samples come from the closed form of the kept tones, not from the code
// under test; samples outside the decomposed channels and range must come back bit for bit.
#include "app/core/imf_reconstruction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace modescope {
namespace {

constexpr double kRate = 200.0;  // Hz
constexpr int64_t kSamples = 400;
constexpr int64_t kFirst = 100;  // the decomposed range starts 0.5 s into the recording
// Tones (Hz, amplitude uV) as IMF 1..3 (fastest first, as EMD orders them); the residue is a
// ramp.
constexpr double kFreq[] = {40.0, 10.0, 2.0};
constexpr double kAmp[] = {5.0, 20.0, 50.0};

double tone(int k, int64_t n) {
  return kAmp[k] * std::sin(2.0 * std::numbers::pi * kFreq[k] * static_cast<double>(n) / kRate);
}
double ramp(int64_t n) { return 3.0 + 0.01 * static_cast<double>(n); }

// Row values at block sample n: tones 0..2, then the ramp.
double rowValue(int r, int64_t n) { return r < 3 ? tone(r, n) : ramp(n); }

EmdChannelModes modesFor(std::size_t channel) {
  EmdChannelModes m;
  m.channel = channel;
  m.rows = 4;
  m.data.resize(4 * kSamples);
  for (int r = 0; r < 4; ++r)
    for (int64_t n = 0; n < kSamples; ++n)
      m.row(r, kSamples)[n] = static_cast<float>(rowValue(r, n));
  m.sifts = {10, 10, 10, 0};
  return m;
}

// Three channels of 1000 samples at kRate, channel c's sample i = 1000 c + i (an unmistakable
// value for "read from the base"); channel 1 is decomposed over [kFirst, kFirst + kSamples).
std::shared_ptr<const Recording> baseRecording() {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data(3);
  const char* names[] = {"Fp1", "Cz", "O1"};
  for (int c = 0; c < 3; ++c) {
    ChannelInfo info;
    info.name = info.label = names[c];
    info.type = ChannelType::EEG;
    info.sampleRate = kRate;
    info.sampleCount = 1000;
    rec->channels.push_back(info);
    for (int i = 0; i < 1000; ++i) data[c].push_back(static_cast<float>(1000 * c + i));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  rec->annotations = {{1.0, 0.0, "stim"}};
  return rec;
}

EmdResult resultFor(std::vector<std::size_t> channels) {
  EmdResult r;
  r.params.method = EmdMethod::Iceemdan;
  r.sampleRate = kRate;
  r.firstSample = kFirst;
  r.samples = kSamples;
  for (std::size_t c : channels) r.channels.push_back(modesFor(c));
  return r;
}

// Tolerance: the closed form is evaluated in double and the rows are stored in float, so each
// kept row contributes at most half an ulp of its value (|v| <= 54 -> 2^-18 ~ 4e-6) and the
// float output one more; 1e-4 uV leaves room for four rows and is far below any tone (>= 5 uV).
constexpr double kTol = 1e-4;

TEST(ImfReconstruction, KeepingEveryRowGivesTheSumOfAllRows) {
  const EmdChannelModes m = modesFor(0);
  const std::vector<float> x = reconstructKeptRows(m, kSamples, {});
  ASSERT_EQ(x.size(), static_cast<std::size_t>(kSamples));
  for (int64_t n = 0; n < kSamples; ++n) {
    const double expected = tone(0, n) + tone(1, n) + tone(2, n) + ramp(n);
    ASSERT_NEAR(x[n], expected, kTol) << "sample " << n;
  }
}

TEST(ImfReconstruction, DroppedRowsAreLeftOut) {
  const EmdChannelModes m = modesFor(0);
  // Drop the fastest IMF and the residue: the 10 Hz and 2 Hz tones remain.
  const std::vector<float> x = reconstructKeptRows(m, kSamples, {0, 3});
  for (int64_t n = 0; n < kSamples; ++n) {
    ASSERT_NEAR(x[n], tone(1, n) + tone(2, n), kTol) << "sample " << n;
  }
  // Rows that do not exist are ignored rather than crashing.
  const std::vector<float> y = reconstructKeptRows(m, kSamples, {-1, 7, 1, 2});
  for (int64_t n = 0; n < kSamples; ++n) ASSERT_NEAR(y[n], tone(0, n) + ramp(n), kTol);
  // Everything dropped: zero.
  const std::vector<float> z = reconstructKeptRows(m, kSamples, {0, 1, 2, 3});
  for (float v : z) ASSERT_EQ(v, 0.0f);
}

TEST(ImfReconstruction, RefusesModesOfTheWrongSize) {
  EmdChannelModes m = modesFor(0);
  m.data.pop_back();
  EXPECT_THROW(reconstructKeptRows(m, kSamples, {}), InvalidParameterError);
}

TEST(ImfReconstruction, CleanedRecordingReplacesOnlyTheDecomposedRange) {
  const auto base = baseRecording();
  const EmdResult result = resultFor({1});
  const DroppedRows dropped{{1, {0}}};  // drop IMF 1 (40 Hz) of Cz
  const auto clean = cleanedRecording(base, result, dropped);
  ASSERT_EQ(clean->channelCount(), base->channelCount());
  EXPECT_EQ(clean->annotations.size(), base->annotations.size());
  EXPECT_EQ(clean->channels[1].sampleCount, 1000);
  // The untouched channels read as the base.
  for (std::size_t c : {0u, 2u}) {
    const auto v = clean->readChannel(c, 0, 1000);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(v[i], static_cast<float>(1000 * c + i));
  }
  // Cz: base outside the range, the kept rows (10 Hz + 2 Hz + ramp) inside.
  const auto cz = clean->readChannel(1, 0, 1000);
  for (int64_t i = 0; i < 1000; ++i) {
    if (i < kFirst || i >= kFirst + kSamples) {
      ASSERT_EQ(cz[i], static_cast<float>(1000 + i)) << "sample " << i;
    } else {
      const int64_t n = i - kFirst;
      ASSERT_NEAR(cz[i], tone(1, n) + tone(2, n) + ramp(n), kTol) << "sample " << i;
    }
  }
  // A read that straddles the start of the range sees both parts in the right places.
  const auto part = clean->readChannel(1, kFirst - 2, 4);
  EXPECT_EQ(part[0], 1000.0f + static_cast<float>(kFirst - 2));
  EXPECT_EQ(part[1], 1000.0f + static_cast<float>(kFirst - 1));
  EXPECT_NEAR(part[2], tone(1, 0) + tone(2, 0) + ramp(0), kTol);
  EXPECT_NEAR(part[3], tone(1, 1) + tone(2, 1) + ramp(1), kTol);
}

TEST(ImfReconstruction, ChannelsWithoutMarksKeepEveryRow) {
  const auto base = baseRecording();
  const auto clean = cleanedRecording(base, resultFor({0, 2}), DroppedRows{{2, {3}}});
  const auto fp1 = clean->readChannel(0, kFirst, kSamples);
  const auto o1 = clean->readChannel(2, kFirst, kSamples);
  for (int64_t n = 0; n < kSamples; ++n) {
    ASSERT_NEAR(fp1[n], tone(0, n) + tone(1, n) + tone(2, n) + ramp(n), kTol);
    ASSERT_NEAR(o1[n], tone(0, n) + tone(1, n) + tone(2, n), kTol);  // residue dropped
  }
}

TEST(ImfReconstruction, RefusesAResultThatDoesNotFitTheRecording) {
  const auto base = baseRecording();
  EXPECT_THROW(cleanedRecording(base, resultFor({5}), {}), InvalidParameterError);
  EmdResult late = resultFor({0});
  late.firstSample = 700;  // 700 + 400 > 1000
  EXPECT_THROW(cleanedRecording(base, late, {}), InvalidParameterError);
  EmdResult rate = resultFor({0});
  rate.sampleRate = 100.0;
  EXPECT_THROW(cleanedRecording(base, rate, {}), InvalidParameterError);
  EXPECT_THROW(cleanedRecording(nullptr, resultFor({0}), {}), InvalidParameterError);
}

TEST(ImfReconstruction, DescribesTheDroppedRows) {
  const auto base = baseRecording();
  EmdResult result = resultFor({0, 1});
  EXPECT_EQ(describeDroppedRows(*base, result, {}), "none");
  EXPECT_EQ(describeDroppedRows(*base, result, {{0, {1, 0}}, {1, {3}}}),
            "Fp1: IMF 1, IMF 2; Cz: residue");
  // The cleaned recording's provenance: what was dropped, then the decomposition's own record.
  result.provenance.parameters = {{"method", "iceemdan"}, {"ensemble_size", "100 members"}};
  result.provenance.seed = "7";
  result.provenance.backend = "CPU, 2 threads";
  result.provenance.inputFile = "in.edf";
  const Provenance p = cleaningProvenance(*base, result, {{1, {3}}});
  EXPECT_EQ(p.method, "emd-cleaning");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"dropped", "Cz: residue"}, {"decomposition", "iceemdan"}, {"ensemble_size", "100 members"}};
  EXPECT_EQ(p.parameters, expected);
  EXPECT_EQ(p.seed, "7");
  EXPECT_EQ(p.backend, "CPU, 2 threads");
  EXPECT_EQ(p.inputFile, "in.edf");
  EXPECT_FALSE(p.createdAt.empty());
  // Modes another method made (MEMD's, carried as an EmdResult) are named by their provenance.
  result.provenance.method = "memd";
  EXPECT_EQ(cleaningProvenance(*base, result, {{1, {3}}}).parameters[1],
            (std::pair<std::string, std::string>{"decomposition", "memd"}));
}

// The CLI's form: IMF numbers for every decomposed channel.
TEST(ImfReconstruction, ImfNumbersDropTheSameRowsOnEveryChannel) {
  const auto base = baseRecording();
  const EmdResult result = resultFor({0, 1});
  EmdCleaning c;
  c.dropImfs = {1};
  c.dropResidue = true;
  std::vector<std::string> notes;
  const DroppedRows dropped = droppedRowsFor(*base, result, c, &notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(dropped, (DroppedRows{{0, {0, 3}}, {1, {0, 3}}}));
  const auto clean = cleanedRecording(base, result, dropped);
  for (std::size_t ch : {0u, 1u}) {
    const auto x = clean->readChannel(ch, kFirst, kSamples);
    for (int64_t n = 0; n < kSamples; ++n)
      ASSERT_NEAR(x[n], tone(1, n) + tone(2, n), kTol) << "channel " << ch << " sample " << n;
  }
  // A read that straddles the end of the range sees both parts; O1 is untouched.
  const auto tail = clean->readChannel(1, kFirst + kSamples - 2, 4);
  EXPECT_NEAR(tail[1], tone(1, kSamples - 1) + tone(2, kSamples - 1), kTol);
  EXPECT_EQ(tail[2], 1000.0f + static_cast<float>(kFirst + kSamples));
  EXPECT_EQ(clean->readChannel(2, 0, 1000), base->readChannel(2, 0, 1000));
  // What was done is said, in the recording's own diagnostics.
  std::string said;
  for (const auto& d : clean->diagnostics)
    if (d.code == "emd.cleaned") said = d.message;
  EXPECT_NE(said.find("Fp1: IMF 1, residue; Cz: IMF 1, residue"), std::string::npos) << said;
  EXPECT_NE(said.find("0.5-2.5 s"), std::string::npos) << said;  // samples 100..500 at 200 Hz
}

TEST(ImfReconstruction, ImfNumbersBeyondAChannelsCountAreSkippedWithANote) {
  const auto base = baseRecording();
  EmdResult result = resultFor({0, 1});
  // Fp1 has only two IMFs (automatic counts differ between channels): rows IMF 1, IMF 2, residue.
  result.channels[0].rows = 3;
  result.channels[0].data.resize(3 * kSamples);
  EmdCleaning c;
  c.dropImfs = {1, 3};
  std::vector<std::string> notes;
  const DroppedRows dropped = droppedRowsFor(*base, result, c, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("Fp1"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("IMF 3"), std::string::npos) << notes[0];
  EXPECT_EQ(dropped.at(0), std::vector<int>{0});
  EXPECT_EQ(dropped.at(1), (std::vector<int>{0, 2}));
  // Without a place for notes the rows are the same.
  EXPECT_EQ(droppedRowsFor(*base, result, c), dropped);
}

TEST(ImfReconstruction, ImfNumbersRefuseNothingToDropAndImfZero) {
  const auto base = baseRecording();
  const EmdResult result = resultFor({1});
  EXPECT_THROW(droppedRowsFor(*base, result, EmdCleaning{}), InvalidParameterError);
  EmdCleaning c;
  c.dropImfs = {0};
  EXPECT_THROW(droppedRowsFor(*base, result, c), InvalidParameterError);
}

TEST(ImfReconstruction, DescribesTheCleaning) {
  EmdCleaning c;
  EXPECT_EQ(describeCleaning(c), "nothing");
  c.dropResidue = true;
  EXPECT_EQ(describeCleaning(c), "the residue");
  c.dropImfs = {2, 1, 2};
  EXPECT_EQ(describeCleaning(c), "IMF 1, IMF 2 and the residue");
  c.dropResidue = false;
  c.dropImfs = {4};
  EXPECT_EQ(describeCleaning(c), "IMF 4");
}

}  // namespace
}  // namespace modescope
