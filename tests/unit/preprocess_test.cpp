// Preprocessing: reference plans and identities, pure-tone behaviour of the designed filters run
// through the CPU backend, and the preprocess() pipeline.
#include "engine/dsp/preprocess.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "engine/core/error.h"

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;

// An in-memory recording: name/type per channel, `seconds` of Gaussian noise at `rate`.
std::shared_ptr<Recording> makeRecording(
    const std::vector<std::pair<std::string, ChannelType>>& chans, double rate, double seconds,
    unsigned seed = 7) {
  auto rec = std::make_shared<Recording>();
  rec->info.format = "synthetic";
  const auto n = static_cast<int64_t>(std::llround(rate * seconds));
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 20.0f);
  std::vector<std::vector<float>> data;
  for (const auto& [name, type] : chans) {
    ChannelInfo c;
    c.label = "EEG " + name + "-REF";
    c.name = name;
    c.type = type;
    c.unit = "uV";
    c.sampleRate = rate;
    c.sampleCount = n;
    rec->channels.push_back(c);
    std::vector<float> x(static_cast<std::size_t>(n));
    const float offset = dist(rng);
    for (auto& v : x) v = offset + dist(rng);
    data.push_back(std::move(x));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

std::vector<std::size_t> allChannels(const Recording& r) {
  std::vector<std::size_t> v(r.channelCount());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

using CT = ChannelType;

// ---- reference plans
// -----------------------------------------------------------------------------

TEST(PlanReference, AverageUsesAllEegRowsOfTheBlock) {
  auto rec =
      makeRecording({{"Fp1", CT::EEG}, {"ECG", CT::ECG}, {"Cz", CT::EEG}, {"Pz", CT::EEG}}, 100, 1);
  const auto p = planReference(*rec, {3, 1, 0}, parseReferenceSpec("average"));
  // Block rows: 0 -> Pz, 1 -> ECG, 2 -> Fp1. Cz is not selected, ECG is not EEG.
  EXPECT_EQ(p.sources, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(p.targets, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(p.weights, (std::vector<double>{0.5, 0.5}));
  EXPECT_TRUE(planReference(*rec, {0, 1}, parseReferenceSpec("none")).targets.empty());
}

TEST(PlanReference, LinkedMastoidsPreferM1M2ThenA1A2ThenTp9Tp10) {
  auto a = makeRecording(
      {{"Cz", CT::EEG}, {"A2", CT::EEG}, {"A1", CT::EEG}, {"TP9", CT::EEG}, {"TP10", CT::EEG}}, 100,
      1);
  auto p = planReference(*a, allChannels(*a), parseReferenceSpec("mastoids"));
  EXPECT_EQ(p.sources, (std::vector<std::size_t>{2, 1}));  // A1, A2 beat TP9/TP10
  EXPECT_EQ(p.weights, (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(p.targets.size(), 5u);
  // Only TP9/TP10 selected: A1/A2 exist but are outside the block -> TP9/TP10 are used.
  p = planReference(*a, {0, 3, 4}, parseReferenceSpec("mastoids"));
  EXPECT_EQ(p.sources, (std::vector<std::size_t>{1, 2}));

  auto m =
      makeRecording({{"M2", CT::EEG}, {"M1", CT::EEG}, {"A1", CT::EEG}, {"A2", CT::EEG}}, 100, 1);
  p = planReference(*m, allChannels(*m), parseReferenceSpec("mastoids"));
  EXPECT_EQ(p.sources, (std::vector<std::size_t>{1, 0}));
}

TEST(PlanReference, ErrorsNameWhatIsMissing) {
  auto rec = makeRecording(
      {{"Fp1", CT::EEG}, {"Cz", CT::EEG}, {"M1", CT::EEG}, {"M2", CT::EEG}, {"ECG", CT::ECG}}, 100,
      1);
  try {
    planReference(*rec, {0, 1, 2}, parseReferenceSpec("mastoids"));
    ADD_FAILURE() << "expected an error";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("M1 and M2"), std::string::npos) << e.what();
  }
  auto none = makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}}, 100, 1);
  try {
    planReference(*none, {0, 1}, parseReferenceSpec("mastoids"));
    ADD_FAILURE() << "expected an error";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("TP9/TP10"), std::string::npos) << e.what();
  }
  try {
    planReference(*rec, {0, 2}, parseReferenceSpec("channel:Cz"));
    ADD_FAILURE() << "expected an error";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("outside the selection"), std::string::npos) << e.what();
  }
  try {
    planReference(*rec, {0, 1}, parseReferenceSpec("channel:Oz"));
    ADD_FAILURE() << "expected an error";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("'Oz'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(planReference(*rec, {4}, parseReferenceSpec("average")), InvalidParameterError);
}

TEST(PlanReference, ChannelFoundByLabelToo) {
  auto rec = makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}}, 100, 1);
  const auto p = planReference(*rec, {0, 1}, parseReferenceSpec("channel:EEG Cz-REF"));
  EXPECT_EQ(p.sources, (std::vector<std::size_t>{1}));
  EXPECT_EQ(p.weights, (std::vector<double>{1.0}));
}

// ---- reference identities (CPU backend)
// ------------------------------------------------------------

TEST(ReferenceIdentities, AverageMakesTheEegMeanZeroAtEverySample) {
  auto rec = makeRecording({{"Fp1", CT::EEG},
                            {"Fp2", CT::EEG},
                            {"ECG", CT::ECG},
                            {"Cz", CT::EEG},
                            {"Pz", CT::EEG},
                            {"O1", CT::EEG}},
                           250, 4);
  SignalBlock b = extractBlock(*rec, allChannels(*rec), 0, -1);
  const SignalBlock in = b;
  JobContext ctx;
  makeCpuBackend(2)->applyReference(
      b, planReference(*rec, b.channels, parseReferenceSpec("average")), ctx);
  const std::vector<std::size_t> eeg = {0, 1, 3, 4, 5};
  for (int64_t t = 0; t < b.samples; ++t) {
    double mean = 0.0, scale = 0.0;
    for (auto r : eeg) {
      mean += b.channel(r)[t];
      scale = std::max(scale, std::abs(double(b.channel(r)[t])));
    }
    mean /= static_cast<double>(eeg.size());
    // Each output is rounded to float32 once (6e-8 relative): the mean of the roundings is bounded
    // by the largest one.
    ASSERT_LE(std::abs(mean), 6e-8 * scale + 1e-30) << "sample " << t;
    ASSERT_EQ(b.channel(2)[t], in.channel(2)[t]) << "ECG must stay as recorded";
  }
}

TEST(ReferenceIdentities, SingleChannelReferenceZeroesThatChannel) {
  auto rec =
      makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}, {"EOG", CT::EOG}, {"Pz", CT::EEG}}, 250, 2);
  SignalBlock b = extractBlock(*rec, allChannels(*rec), 0, -1);
  const SignalBlock in = b;
  JobContext ctx;
  makeCpuBackend(1)->applyReference(
      b, planReference(*rec, b.channels, parseReferenceSpec("channel:Cz")), ctx);
  for (int64_t t = 0; t < b.samples; ++t) {
    ASSERT_EQ(b.channel(1)[t], 0.0f);  // x - x is exact
    ASSERT_EQ(b.channel(0)[t], static_cast<float>(double(in.channel(0)[t]) - in.channel(1)[t]));
    ASSERT_EQ(b.channel(2)[t], in.channel(2)[t]);
  }
}

TEST(ReferenceIdentities, LinkedMastoidsMakeTheMastoidsOpposite) {
  auto rec = makeRecording({{"Cz", CT::EEG}, {"M1", CT::EEG}, {"M2", CT::EEG}}, 250, 2);
  SignalBlock b = extractBlock(*rec, allChannels(*rec), 0, -1);
  const SignalBlock in = b;
  JobContext ctx;
  makeCpuBackend(1)->applyReference(
      b, planReference(*rec, b.channels, parseReferenceSpec("mastoids")), ctx);
  for (int64_t t = 0; t < b.samples; ++t) {
    // M1 - (M1 + M2) / 2 = -(M2 - (M1 + M2) / 2), both computed exactly in double then rounded.
    ASSERT_EQ(b.channel(1)[t], -b.channel(2)[t]);
    const double ref = 0.5 * in.channel(1)[t] + 0.5 * in.channel(2)[t];
    ASSERT_EQ(b.channel(0)[t], static_cast<float>(in.channel(0)[t] - ref));
  }
}

// ---- pure tones through the designed filters
// -------------------------------------------------------

struct Fit {
  double amplitude, phase;
};

// Least-squares fit of a sin(w t) + b cos(w t) over [first, last) (closed form on whole periods
// is not needed: solve the 2x2 normal equations).
Fit fitTone(const std::vector<float>& y, double freq, double rate, std::size_t first,
            std::size_t last) {
  double ss = 0, cc = 0, sc = 0, ys = 0, yc = 0;
  for (std::size_t t = first; t < last; ++t) {
    const double w = 2 * kPi * freq * static_cast<double>(t) / rate;
    const double s = std::sin(w), c = std::cos(w);
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += y[t] * s;
    yc += y[t] * c;
  }
  const double det = ss * cc - sc * sc;
  const double a = (ys * cc - yc * sc) / det;
  const double b = (yc * ss - ys * sc) / det;
  return {std::hypot(a, b), std::atan2(b, a)};
}

std::vector<float> filtered(const std::vector<float>& x, double rate, const std::string& filter) {
  SignalBlock b;
  b.channels = {0};
  b.sampleRate = rate;
  b.samples = static_cast<int64_t>(x.size());
  b.data = x;
  JobContext ctx;
  makeCpuBackend(1)->applyFir(b, designFir(parseFilterSpec(filter), rate), ctx);
  return b.data;
}

std::vector<float> tone(double freq, double amplitude, double rate, std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t t = 0; t < n; ++t) {
    x[t] = static_cast<float>(amplitude * std::sin(2 * kPi * freq * static_cast<double>(t) / rate));
  }
  return x;
}

TEST(FilterTones, PassBandToneKeepsAmplitudeAndPhase) {
  const double rate = 250.0;
  const std::size_t n = 20 * 250;
  const auto x = tone(10.0, 50.0, rate, n);
  const auto y = filtered(x, rate, "bandpass:1-40");
  const std::size_t edge = 825;  // the filter length: beyond it no padding reaches the output
  const Fit f = fitTone(y, 10.0, rate, edge, n - edge);
  // Hamming pass-band ripple is 0.2 %; 1 % is the contract.
  EXPECT_NEAR(f.amplitude, 50.0, 0.5);
  EXPECT_NEAR(f.phase, 0.0, 1e-3) << "zero phase: no shift";
  // Zero phase seen as the lag of the cross-correlation peak within +-half a period.
  int bestLag = 99;
  double best = -INFINITY;
  for (int lag = -12; lag <= 12; ++lag) {
    double c = 0;
    for (std::size_t t = edge; t < n - edge; ++t) c += double(x[t]) * y[t + lag];
    if (c > best) {
      best = c;
      bestLag = lag;
    }
  }
  EXPECT_EQ(bestLag, 0);
}

TEST(FilterTones, StopBandToneIsAttenuatedMoreThan40dB) {
  const double rate = 250.0;
  const std::size_t n = 20 * 250;
  const auto y = filtered(tone(60.0, 50.0, rate, n), rate, "bandpass:1-40");
  const Fit f = fitTone(y, 60.0, rate, 825, n - 825);
  EXPECT_LT(f.amplitude, 50.0 * 0.01);  // -40 dB (Hamming gives about -53 dB)
  // High-pass 10 Hz: automatic transition 2.5 Hz, so the stop band ends at 7.5 Hz.
  const auto low = filtered(tone(3.0, 50.0, rate, n), rate, "highpass:10");
  EXPECT_LT(fitTone(low, 3.0, rate, 331, n - 331).amplitude, 50.0 * 0.01);
}

TEST(FilterTones, NotchRemoves50100And150HzAndKeeps30Hz) {
  const double rate = 1000.0;
  const std::size_t n = 20 * 1000;
  std::vector<float> x(n);
  const auto a = tone(50, 30, rate, n), b = tone(100, 20, rate, n), c = tone(150, 10, rate, n),
             d = tone(30, 40, rate, n);
  for (std::size_t t = 0; t < n; ++t) x[t] = a[t] + b[t] + c[t] + d[t];
  const auto y = filtered(x, rate, "notch:50");
  const std::size_t edge = 3301;
  EXPECT_LT(fitTone(y, 50, rate, edge, n - edge).amplitude, 30 * 0.01);
  EXPECT_LT(fitTone(y, 100, rate, edge, n - edge).amplitude, 20 * 0.01);
  EXPECT_LT(fitTone(y, 150, rate, edge, n - edge).amplitude, 10 * 0.01);
  const Fit keep = fitTone(y, 30, rate, edge, n - edge);
  EXPECT_NEAR(keep.amplitude, 40.0, 0.4);
  EXPECT_NEAR(keep.phase, 0.0, 1e-3);
}

// ---- preprocess()
// ---------------------------------------------------------------------------------------

TEST(Preprocess, CutsReferencesFiltersAndRecordsProvenance) {
  auto rec = makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}, {"Pz", CT::EEG}, {"ECG", CT::ECG}},
                           250, 12);
  rec->sourcePath = "/data/x.edf";
  rec->annotations = {{1.0, 0.0, "before"}, {5.0, 1.0, "inside"}, {11.0, 0.0, "after"}};
  PreprocessSpec spec;
  spec.reference = parseReferenceSpec("average");
  spec.filters = {parseFilterSpec("bandpass:1-40"), parseFilterSpec("notch:50")};
  auto backend = makeCpuBackend(2);
  std::vector<double> progress;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) { progress.push_back(f); });
  Provenance prov;
  const std::vector<std::size_t> sel = {0, 1, 2, 3};
  auto out = preprocess(*rec, sel, 2.0, 8.0, spec, *backend, ctx, &prov);

  ASSERT_EQ(out->channelCount(), 4u);
  EXPECT_EQ(out->channels[0].sampleCount, 2000);
  ASSERT_EQ(out->annotations.size(), 1u);
  EXPECT_DOUBLE_EQ(out->annotations[0].onset, 3.0);
  EXPECT_TRUE(out->diagnostics.empty());

  // The same steps by hand give the same samples.
  SignalBlock b = extractBlock(*rec, sel, 2.0, 8.0);
  JobContext plain;
  backend->applyReference(b, planReference(*rec, b.channels, spec.reference), plain);
  for (const auto& f : spec.filters) backend->applyFir(b, designFir(f, 250), plain);
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_EQ(out->readChannel(r, 0, 2000), std::vector<float>(b.channel(r), b.channel(r) + 2000));

  EXPECT_EQ(prov.method, "preprocess");
  EXPECT_EQ(prov.backend, "CPU, 2 threads");
  EXPECT_EQ(prov.inputFile, "/data/x.edf");
  ASSERT_EQ(prov.parameters.size(), 3u);
  EXPECT_EQ(prov.parameters[0].second, "average reference");
  EXPECT_EQ(prov.parameters[1].second, "band-pass 1-40 Hz, 825 taps, Hamming");
  EXPECT_EQ(prov.selection, "channels Fp1,Cz,Pz,ECG; 2-10 s");
  ASSERT_FALSE(progress.empty());
  EXPECT_DOUBLE_EQ(progress.back(), 1.0);
}

TEST(Preprocess, WarnsWhenTheFilterIsLongerThanTheSelection) {
  auto rec = makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}}, 250, 4);
  PreprocessSpec spec;
  spec.filters = {parseFilterSpec("highpass:1")};  // 825 taps > 500 samples
  JobContext ctx;
  auto out = preprocess(*rec, {0, 1}, 0.0, 2.0, spec, *makeCpuBackend(1), ctx);
  ASSERT_EQ(out->diagnostics.size(), 1u);
  EXPECT_EQ(out->diagnostics[0].code, "preprocess.filterLongerThanSignal");
  EXPECT_EQ(out->diagnostics[0].severity, Severity::Warning);
}

TEST(Preprocess, BadParametersFailBeforeAnyWork) {
  auto rec = makeRecording({{"Fp1", CT::EEG}, {"Cz", CT::EEG}}, 100, 2);
  PreprocessSpec spec;
  spec.filters = {parseFilterSpec("lowpass:60")};  // above Nyquist at 100 Hz
  JobContext ctx;
  EXPECT_THROW(preprocess(*rec, {0, 1}, 0.0, -1, spec, *makeCpuBackend(1), ctx),
               InvalidParameterError);
  spec.filters.clear();
  spec.reference = parseReferenceSpec("channel:Oz");
  EXPECT_THROW(preprocess(*rec, {0, 1}, 0.0, -1, spec, *makeCpuBackend(1), ctx),
               InvalidParameterError);
}

}  // namespace
}  // namespace modescope
