// The synthetic EEG generator: determinism, ground truth, artifacts where and when the
// annotations say, spectra from a DFT computed here, parameter validation, cancel and progress.
#include "engine/synth/synthetic_eeg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <numbers>
#include <set>
#include <stop_token>

#include "engine/core/error.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

// Everything off but what a test switches on.
SynthParams quiet() {
  SynthParams p;
  p.channels = 19;
  p.sampleRate = 256.0;
  p.duration = 10.0;
  p.sources = 0;
  p.blinkRatePerMinute = 0;
  p.lineNoiseHz = 0;
  p.muscleBurstsPerMinute = 0;
  p.backgroundMicrovolts = 0;
  return p;
}

SyntheticEeg generate(const SynthParams& p) {
  JobContext ctx;
  return generateSyntheticEeg(p, ctx);
}

std::vector<float> channelData(const SyntheticEeg& s, std::size_t ch) {
  const auto& rec = *s.recording;
  return rec.readChannel(ch, 0, rec.channels[ch].sampleCount);
}

std::size_t channelIndex(const SyntheticEeg& s, const std::string& name) {
  const int i = s.recording->findChannel(name);
  EXPECT_GE(i, 0) << name;
  return static_cast<std::size_t>(std::max(i, 0));
}

// Amplitude of the component at f (Hz) in x[first, first + count): 2 |DFT| / count, exact for a
// sinusoid with a whole number of periods in the window.
double dftAmplitude(const std::vector<float>& x, double fs, double f, std::size_t first = 0,
                    std::size_t count = 0) {
  if (count == 0) count = x.size() - first;
  std::complex<double> acc = 0;
  for (std::size_t n = 0; n < count; ++n) {
    acc += static_cast<double>(x[first + n]) *
           std::polar(1.0, -2.0 * std::numbers::pi * f * static_cast<double>(n) / fs);
  }
  return 2.0 * std::abs(acc) / static_cast<double>(count);
}

TEST(SyntheticEeg, SameSeedSameRecordingOtherSeedDifferent) {
  SynthParams p;  // defaults: every component on
  p.channels = 19;
  p.duration = 20.0;
  p.seed = 7;
  const auto a = generate(p), b = generate(p);
  p.seed = 8;
  const auto c = generate(p);
  ASSERT_EQ(a.recording->channelCount(), 19u);
  bool differs = false;
  for (std::size_t i = 0; i < 19; ++i) {
    const auto da = channelData(a, i), db = channelData(b, i), dc = channelData(c, i);
    EXPECT_EQ(da, db) << "channel " << i;
    differs = differs || da != dc;
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(a.blinkOnsets, b.blinkOnsets);
  EXPECT_EQ(a.muscleBurstOnsets, b.muscleBurstOnsets);
  EXPECT_EQ(a.mixing, b.mixing);
  EXPECT_NE(a.blinkOnsets, c.blinkOnsets);
}

TEST(SyntheticEeg, RecordingMetadata) {
  SynthParams p = quiet();
  p.channels = 32;
  p.sampleRate = 200.0;
  p.duration = 3.5;
  const auto s = generate(p);
  const auto& rec = *s.recording;
  EXPECT_EQ(rec.info.format, "synthetic");
  EXPECT_EQ(rec.info.reader, "ModeScope generator");
  EXPECT_EQ(rec.sourcePath, "");
  ASSERT_EQ(rec.channelCount(), 32u);
  EXPECT_DOUBLE_EQ(rec.duration(), 3.5);
  std::set<std::string> names;
  for (const auto& ch : rec.channels) {
    EXPECT_EQ(ch.unit, "uV");
    EXPECT_EQ(ch.sampleRate, 200.0);
    EXPECT_EQ(ch.sampleCount, 700);
    EXPECT_EQ(ch.type, ChannelType::EEG);
    EXPECT_TRUE(ch.position.has_value()) << ch.name;
    EXPECT_EQ(ch.name, ch.label);
    EXPECT_LT(ch.physicalMin, ch.physicalMax);
    names.insert(ch.name);
  }
  EXPECT_EQ(names.size(), 32u);
}

TEST(SyntheticEeg, ChannelSetsAreTheStandardOnes) {
  // 19: the 10-20 system, written out here independently.
  const std::set<std::string> tenTwenty = {"Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8",
                                           "T7",  "C3",  "Cz", "C4", "T8", "P7", "P3",
                                           "Pz",  "P4",  "P8", "O1", "O2"};
  SynthParams p = quiet();
  p.duration = 1.0;
  // (The generated object is kept in a variable: a range-for over a member of a temporary would
  // read freed memory.)
  std::set<std::string> got;
  const auto s19 = generate(p);
  for (const auto& ch : s19.recording->channels) got.insert(ch.name);
  EXPECT_EQ(got, tenTwenty);

  // 64: exactly the sites of the PhysioNet/BCI2000 cap, taken from the real file's header.
  std::ifstream in(std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf",
                   std::ios::binary);
  ASSERT_TRUE(in);
  std::string header(256 + 65 * 16, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header.size()));
  std::set<std::string> physionet;
  for (int i = 0; i < 64; ++i) {
    physionet.insert(normaliseChannelLabel(header.substr(256 + i * 16, 16)).name);
  }
  p.channels = 64;
  got.clear();
  const auto s64 = generate(p);
  for (const auto& ch : s64.recording->channels) got.insert(ch.name);
  EXPECT_EQ(got, physionet);

  // 128: distinct 10-05 sites, all positioned; every count in between works too.
  for (int n : {1, 20, 75, 100, 128}) {
    p.channels = n;
    got.clear();
    const auto sn = generate(p);
    for (const auto& ch : sn.recording->channels) {
      EXPECT_TRUE(standardPosition(ch.name).has_value()) << ch.name;
      got.insert(ch.name);
    }
    EXPECT_EQ(got.size(), static_cast<std::size_t>(n));
  }
}

// With no artifacts and no background, every channel is the mixture of the returned sources by
// the returned mixing matrix. The generator rounds a double sum to float once: relative error
// <= 2^-24, plus ~1e-15 for a different double summation order here; 1e-6 relative leaves room.
void expectDataIsMixtureOfSources(MixingModel model) {
  SynthParams p = quiet();
  p.channels = 32;
  p.sources = 6;
  p.mixing = model;
  const auto s = generate(p);
  ASSERT_EQ(s.sources.size(), 6u);
  ASSERT_EQ(s.mixing.size(), 32u);
  ASSERT_EQ(s.sourceFrequencies.size(), 6u);
  for (std::size_t i = 0; i < 32; ++i) {
    ASSERT_EQ(s.mixing[i].size(), 6u);
    const auto d = channelData(s, i);
    ASSERT_EQ(d.size(), s.sources[0].size());
    double worst = 0.0;
    for (std::size_t n = 0; n < d.size(); ++n) {
      double ref = 0.0;
      for (std::size_t j = 0; j < 6; ++j) ref += s.mixing[i][j] * s.sources[j][n];
      worst = std::max(worst, std::abs(d[n] - ref) / std::max(1.0, std::abs(ref)));
    }
    EXPECT_LT(worst, 1e-6) << "channel " << i;
  }
}

TEST(SyntheticEeg, HeadModelDataIsMixingTimesSources) {
  expectDataIsMixtureOfSources(MixingModel::HeadModel);
}

TEST(SyntheticEeg, RandomMatrixDataIsMixingTimesSources) {
  expectDataIsMixtureOfSources(MixingModel::RandomMatrix);
}

TEST(SyntheticEeg, SourcesOscillateAtTheirFrequenciesWhereExpected) {
  SynthParams p = quiet();
  p.channels = 64;
  p.sources = 4;
  p.duration = 20.0;
  const auto s = generate(p);
  // Alpha 9-11 Hz, beta 18-22 Hz, theta 5-7 Hz, beta 18-22 Hz (the header's description).
  EXPECT_GE(s.sourceFrequencies[0], 9.0);
  EXPECT_LE(s.sourceFrequencies[0], 11.0);
  EXPECT_GE(s.sourceFrequencies[1], 18.0);
  EXPECT_LE(s.sourceFrequencies[1], 22.0);
  EXPECT_GE(s.sourceFrequencies[2], 5.0);
  EXPECT_LE(s.sourceFrequencies[2], 7.0);
  for (std::size_t j = 0; j < 4; ++j) {
    // The amplitude-modulated sinusoid has its energy within +-0.3 Hz of f (the modulation is
    // slower than 0.3 Hz); 2 Hz away the DFT sees only leakage.
    const double f = s.sourceFrequencies[j];
    const double at = dftAmplitude(s.sources[j], p.sampleRate, f);
    EXPECT_GT(at, 10.0 * dftAmplitude(s.sources[j], p.sampleRate, f + 2.0)) << j;
    EXPECT_GT(at, 10.0 * dftAmplitude(s.sources[j], p.sampleRate, f - 2.0)) << j;
  }
  // Head model: alpha is largest at the back, theta at the front, left beta on the left.
  auto gain = [&](const char* ch, std::size_t j) { return s.mixing[channelIndex(s, ch)][j]; };
  EXPECT_GT(gain("Oz", 0), 5.0 * gain("Fpz", 0));
  EXPECT_GT(gain("Fz", 2), 5.0 * gain("Oz", 2));
  EXPECT_GT(gain("C3", 1), 5.0 * gain("C4", 1));
  EXPECT_GT(gain("C4", 3), 5.0 * gain("C3", 3));
}

TEST(SyntheticEeg, LineNoisePeakAtTheMainsFrequency) {
  for (double mains : {50.0, 60.0}) {
    SynthParams p = quiet();
    p.backgroundMicrovolts = 5.0;  // with the usual background under it
    p.lineNoiseHz = mains;
    p.lineNoiseMicrovolts = 5.0;
    const auto s = generate(p);
    const auto d = channelData(s, channelIndex(s, "Cz"));
    // 10 s at 256 Hz: 50 and 60 Hz fall on DFT bins, so the amplitude reads directly: 0.5-1.5 x
    // 5 uV by construction, the background's share of one 0.1 Hz bin is ~0.1 uV.
    const double peak = dftAmplitude(d, p.sampleRate, mains);
    EXPECT_GT(peak, 2.3);
    EXPECT_LT(peak, 7.7);
    for (double off : {-5.0, -2.0, 2.0, 5.0}) {
      EXPECT_GT(peak, 10.0 * dftAmplitude(d, p.sampleRate, mains + off)) << mains << off;
    }
    const double other = mains == 50.0 ? 60.0 : 50.0;
    EXPECT_GT(peak, 10.0 * dftAmplitude(d, p.sampleRate, other));
  }
}

TEST(SyntheticEeg, BlinksAreAnnotatedAndFrontal) {
  SynthParams p = quiet();
  p.duration = 300.0;
  p.blinkRatePerMinute = 12.0;
  const auto s = generate(p);
  const auto& rec = *s.recording;
  std::vector<const Annotation*> blinks;
  for (const auto& a : rec.annotations) {
    if (a.text == "blink") blinks.push_back(&a);
  }
  ASSERT_EQ(blinks.size(), s.blinkOnsets.size());
  // 12 per minute for 5 minutes with intervals uniform in [2.5, 7.5] s: 60 +- a few.
  EXPECT_GE(blinks.size(), 50u);
  EXPECT_LE(blinks.size(), 70u);
  const auto fp1 = channelData(s, channelIndex(s, "Fp1"));
  const auto fz = channelData(s, channelIndex(s, "Fz"));
  const auto cz = channelData(s, channelIndex(s, "Cz"));
  std::vector<bool> inside(fp1.size(), false);
  for (std::size_t k = 0; k < blinks.size(); ++k) {
    const Annotation& a = *blinks[k];
    EXPECT_EQ(a.onset, s.blinkOnsets[k]);
    EXPECT_GE(a.duration, 0.2);
    EXPECT_LE(a.duration, 0.4);
    EXPECT_LE(a.onset + a.duration, p.duration);
    if (k > 0) {
      EXPECT_GT(a.onset, blinks[k - 1]->onset + blinks[k - 1]->duration);
    }
    const auto first = static_cast<std::size_t>(std::ceil(a.onset * p.sampleRate));
    const auto last = static_cast<std::size_t>(std::floor((a.onset + a.duration) * p.sampleRate));
    float peakFp1 = 0, peakFz = 0, peakCz = 0;
    for (std::size_t n = first; n <= last && n < fp1.size(); ++n) {
      inside[n] = true;
      peakFp1 = std::max(peakFp1, fp1[n]);
      peakFz = std::max(peakFz, fz[n]);
      peakCz = std::max(peakCz, cz[n]);
    }
    // 100-200 uV at Fp1; sampling the 80-160 ms rise at 256 Hz misses the crest by < 1 %.
    EXPECT_GE(peakFp1, 99.0f) << "blink at " << a.onset;
    EXPECT_LE(peakFp1, 200.0f) << "blink at " << a.onset;
    EXPECT_LT(peakFz, peakFp1);
    EXPECT_LT(peakCz, 0.05f * peakFp1);
  }
  // Nothing but blinks was switched on: Fp1 is exactly zero outside the annotated intervals.
  for (std::size_t n = 0; n < fp1.size(); ++n) {
    if (!inside[n]) {
      ASSERT_EQ(fp1[n], 0.0f) << "sample " << n;
    }
  }
}

TEST(SyntheticEeg, MuscleBurstsAreAnnotatedTemporalAndHighFrequency) {
  SynthParams p = quiet();
  p.sampleRate = 512.0;
  p.duration = 120.0;
  p.muscleBurstsPerMinute = 6.0;
  const auto s = generate(p);
  const auto& rec = *s.recording;
  std::vector<const Annotation*> bursts;
  for (const auto& a : rec.annotations) {
    if (a.text == "muscle") bursts.push_back(&a);
  }
  ASSERT_EQ(bursts.size(), s.muscleBurstOnsets.size());
  ASSERT_GE(bursts.size(), 5u);
  const auto t7 = channelData(s, channelIndex(s, "T7"));
  const auto t8 = channelData(s, channelIndex(s, "T8"));
  const auto cz = channelData(s, channelIndex(s, "Cz"));
  std::vector<bool> inside(t7.size(), false);
  double energyTemporal = 0, energyCz = 0;
  for (std::size_t k = 0; k < bursts.size(); ++k) {
    const Annotation& a = *bursts[k];
    EXPECT_EQ(a.onset, s.muscleBurstOnsets[k]);
    EXPECT_GE(a.duration, 0.5);
    EXPECT_LE(a.duration, 2.0);
    const auto first = static_cast<std::size_t>(std::ceil(a.onset * p.sampleRate));
    const auto last = static_cast<std::size_t>(std::floor((a.onset + a.duration) * p.sampleRate));
    for (std::size_t n = first; n <= last && n < t7.size(); ++n) {
      inside[n] = true;
      energyTemporal += t7[n] * t7[n] + t8[n] * t8[n];
      energyCz += cz[n] * cz[n];
    }
    // The burst's spectrum lies in 20-100 Hz: compare the mean amplitude over 25-90 Hz with
    // that over 2-10 Hz on whichever temporal channel carries it (1 Hz steps; 0.5 s of a
    // burst already resolves 2 Hz).
    const auto& x = std::abs(t7[(first + last) / 2]) > 0 ? t7 : t8;
    const std::size_t count = last - first + 1;
    double band = 0, low = 0;
    for (int f = 25; f <= 90; ++f) band += dftAmplitude(x, p.sampleRate, f, first, count) / 66.0;
    for (int f = 2; f <= 10; ++f) low += dftAmplitude(x, p.sampleRate, f, first, count) / 9.0;
    EXPECT_GT(band, 5.0 * low) << "burst at " << a.onset;
  }
  // Temporal, not central: Cz is 87 deg from the muscles (gain ~ e^-9); its share is nil.
  EXPECT_GT(energyTemporal, 0.0);
  EXPECT_LT(energyCz, 1e-3 * energyTemporal);
  for (std::size_t n = 0; n < t7.size(); ++n) {
    if (!inside[n]) {
      ASSERT_EQ(t7[n], 0.0f) << "sample " << n;
    }
  }
}

// Pink background: RMS as asked, power spectral density ~ 1/f. The log-log slope of a Welch
// estimate (1 s Hann-less segments, 300 averages: each bin's scatter ~ 6 %) over 2-32 Hz must be
// -1; the sum of Lorentzians ripples by a few % per octave, so +-0.15 is ample yet excludes white
// (0) and brown (-2) noise.
TEST(SyntheticEeg, BackgroundIsPinkWithTheRequestedRms) {
  SynthParams p = quiet();
  p.channels = 1;
  p.duration = 300.0;
  p.backgroundMicrovolts = 5.0;
  const auto s = generate(p);
  const auto x = channelData(s, 0);
  double ss = 0;
  for (float v : x) ss += static_cast<double>(v) * v;
  // The slowest component (0.25 Hz corner) decorrelates in ~0.6 s: ~500 independent stretches
  // in 300 s, so the RMS scatters by a few %; 15 % is far outside that.
  EXPECT_NEAR(std::sqrt(ss / x.size()), 5.0, 0.75);

  const std::size_t seg = 256;
  std::vector<double> freqs, logPower;
  for (int f = 2; f <= 32; f *= 2) {
    double pw = 0;
    int segments = 0;
    for (std::size_t first = 0; first + seg <= x.size(); first += seg, ++segments) {
      const double a = dftAmplitude(x, p.sampleRate, f, first, seg);
      pw += a * a;
    }
    freqs.push_back(std::log(static_cast<double>(f)));
    logPower.push_back(std::log(pw / segments));
  }
  const double mx = [&] {
    double m = 0;
    for (double v : freqs) m += v;
    return m / freqs.size();
  }();
  const double my = [&] {
    double m = 0;
    for (double v : logPower) m += v;
    return m / logPower.size();
  }();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < freqs.size(); ++i) {
    sxy += (freqs[i] - mx) * (logPower[i] - my);
    sxx += (freqs[i] - mx) * (freqs[i] - mx);
  }
  EXPECT_NEAR(sxy / sxx, -1.0, 0.15);
}

TEST(SyntheticEeg, InvalidParametersThrowNamingTheParameter) {
  auto expectInvalid = [](SynthParams p, const std::string& parameter) {
    try {
      generate(p);
      ADD_FAILURE() << "no exception for " << parameter;
    } catch (const InvalidParameterError& e) {
      EXPECT_EQ(e.parameter(), parameter) << e.what();
    }
  };
  SynthParams p;
  p.channels = 0;
  expectInvalid(p, "channels");
  p.channels = 129;
  expectInvalid(p, "channels");
  p = SynthParams{};
  for (double fs : {0.0, -256.0, 100001.0, std::nan("")}) {
    p.sampleRate = fs;
    expectInvalid(p, "sampleRate");
  }
  p = SynthParams{};
  for (double d : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e-4}) {
    p.duration = d;
    expectInvalid(p, "duration");
  }
  p = SynthParams{};
  p.channels = 128;
  p.sampleRate = 100000.0;
  p.duration = 3600.0;  // 128 ch x 3.6e8 samples: ~190 GB
  expectInvalid(p, "duration");
  p = SynthParams{};
  p.sources = -1;
  expectInvalid(p, "sources");
  p.sources = 65;
  expectInvalid(p, "sources");
  p = SynthParams{};
  p.lineNoiseHz = 150.0;  // above Nyquist at 256 Hz
  expectInvalid(p, "lineNoiseHz");
  p.lineNoiseHz = -50.0;
  expectInvalid(p, "lineNoiseHz");
  p = SynthParams{};
  p.blinkRatePerMinute = -1;
  expectInvalid(p, "blinkRatePerMinute");
  p = SynthParams{};
  p.muscleBurstsPerMinute = std::nan("");
  expectInvalid(p, "muscleBurstsPerMinute");
  p = SynthParams{};
  p.backgroundMicrovolts = -5;
  expectInvalid(p, "backgroundMicrovolts");
  p = SynthParams{};
  p.lineNoiseMicrovolts = std::numeric_limits<double>::infinity();
  expectInvalid(p, "lineNoiseMicrovolts");
}

TEST(SyntheticEeg, LowSampleRatesStayBelowNyquist) {
  SynthParams p;  // every component on
  p.sampleRate = 32.0;
  p.lineNoiseHz = 0;
  p.duration = 30.0;
  const auto s = generate(p);
  for (double f : s.sourceFrequencies) EXPECT_LT(f, 16.0);
  for (std::size_t i = 0; i < s.recording->channelCount(); ++i) {
    for (float v : channelData(s, i)) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST(SyntheticEeg, ProgressReachesOneAndCancelStops) {
  SynthParams p;
  p.channels = 64;
  p.duration = 5.0;
  std::vector<double> fractions;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) { fractions.push_back(f); });
  generateSyntheticEeg(p, ctx);
  ASSERT_GE(fractions.size(), 8u);  // at least one report per chunk of channels
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);

  std::stop_source stop;
  int reports = 0;
  JobContext cancelling(stop.get_token(), [&](double, std::string_view) {
    if (++reports == 3) stop.request_stop();  // cancel in the middle of the channel chunks
  });
  EXPECT_THROW(generateSyntheticEeg(p, cancelling), Cancelled);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

TEST(SyntheticEeg, HeartbeatsSaccadesAndExgChannels) {
  SynthParams p = quiet();
  p.duration = 30.0;
  p.heartRatePerMinute = 60.0;
  p.saccadesPerMinute = 20.0;
  p.exgChannels = true;
  const auto s = generate(p);
  // 60 beats per minute +-5 %: 28 to 31 R peaks in 30 s, each a local maximum of the ECG.
  EXPECT_GE(s.heartbeatTimes.size(), 28u);
  EXPECT_LE(s.heartbeatTimes.size(), 31u);
  const auto& rec = *s.recording;
  ASSERT_EQ(rec.channelCount(), static_cast<std::size_t>(p.channels) + 3);
  const std::size_t ecg = channelIndex(s, "ECG"), heog = channelIndex(s, "HEOG");
  EXPECT_EQ(rec.channels[ecg].type, ChannelType::ECG);
  EXPECT_EQ(rec.channels[heog].type, ChannelType::EOG);
  EXPECT_EQ(rec.channels[channelIndex(s, "VEOG")].type, ChannelType::EOG);
  const auto ecgData = channelData(s, ecg);
  for (double beat : s.heartbeatTimes) {
    const auto n = static_cast<std::size_t>(std::llround(beat * p.sampleRate));
    if (n < 3 || n + 3 >= ecgData.size()) continue;
    EXPECT_GT(ecgData[n], 800.0f) << "R peak at " << beat;  // 1 mV R wave, 2 uV noise
  }
  // Saccades: annotated, and F7 and F8 see the gaze with opposite signs.
  std::size_t annotated = 0;
  for (const Annotation& a : rec.annotations) annotated += a.text == "saccade";
  EXPECT_EQ(annotated, s.saccadeOnsets.size());
  EXPECT_GE(annotated, 5u);
  const auto f7 = channelData(s, channelIndex(s, "F7")), f8 = channelData(s, channelIndex(s, "F8"));
  double c7 = 0.0, c8 = 0.0;
  for (std::size_t n = 0; n < f7.size(); ++n) {
    c7 += f7[n] * s.gazeSource[n];
    c8 += f8[n] * s.gazeSource[n];
  }
  EXPECT_LT(c7, 0.0);
  EXPECT_GT(c8, 0.0);
  // Off by default: no cardiac source, no extra channels.
  SynthParams plain = quiet();
  plain.duration = 30.0;
  EXPECT_TRUE(generate(plain).heartSource.empty());
  EXPECT_EQ(generate(plain).recording->channelCount(), static_cast<std::size_t>(p.channels));
}

}  // namespace
}  // namespace modescope
