// The component browser's numbers (app/core/ica_metrics.h, engine/dsp/welch.h) and the activation
// recording (app/core/ica_activation_recording.h) against closed forms: the kurtosis of laws
// whose excess kurtosis is known, correlations of constructed pairs, Parseval and the white-noise
// level for the Welch spectrum, and a hand-made decomposition whose unmixing is the exact inverse
// of a known mixing (so its activations are the sources themselves).
#include "app/core/ica_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "app/core/ica_activation_recording.h"
#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/dsp/welch.h"
#include "engine/ica/ica_rank.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

std::vector<float> laplace(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(1e-12, 1.0 - 1e-12);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) {
    const double p = u(rng);
    v = static_cast<float>(p < 0.5 ? std::log(2 * p) : -std::log(2 * (1 - p)));
  }
  return x;
}

TEST(IcaMetrics, KurtosisOfKnownLaws) {
  // Excess kurtosis: Laplace +3, uniform -1.2, a sine -1.5. With 400,000 samples the estimate's
  // standard error is about sqrt(var(x^2 stuff)/n): ~0.03 for the Laplace law (its 8th moment is
  // large), far less for the bounded laws; 0.15 and 0.02 are 5 standard errors.
  const int64_t n = 400000;
  const auto lap = laplace(n, 1);
  EXPECT_NEAR(excessKurtosis(lap.data(), n), 3.0, 0.15);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> uni(n), sine(n);
  for (auto& v : uni) v = u(rng);
  for (int64_t i = 0; i < n; ++i) sine[i] = 5.0f + std::sin(0.01 * static_cast<double>(i));
  EXPECT_NEAR(excessKurtosis(uni.data(), n), -1.2, 0.02);
  EXPECT_NEAR(excessKurtosis(sine.data(), n), -1.5, 0.02);  // the offset 5 is removed
  const std::vector<float> flat(100, 3.0f);
  EXPECT_EQ(excessKurtosis(flat.data(), 100), 0.0);
  EXPECT_EQ(excessKurtosis(flat.data(), 1), 0.0);
}

TEST(IcaMetrics, CorrelationOfConstructedPairs) {
  const int64_t n = 200000;
  const auto a = laplace(n, 3), noise = laplace(n, 4);
  std::vector<float> affine(n), negated(n), mixed(n);
  const double sigma = 0.75;  // noise std relative to a's (both laws have variance 2)
  for (int64_t i = 0; i < n; ++i) {
    affine[i] = 2.0f * a[i] + 7.0f;
    negated[i] = -a[i];
    mixed[i] = a[i] + static_cast<float>(sigma) * noise[i];
  }
  EXPECT_NEAR(pearsonCorrelation(a.data(), affine.data(), n), 1.0, 1e-6);
  EXPECT_NEAR(pearsonCorrelation(a.data(), negated.data(), n), -1.0, 1e-6);
  // rho = 1 / sqrt(1 + sigma^2) for independent equal-variance terms; the sample estimate's
  // standard error is ~(1 - rho^2)/sqrt(n) ~ 1e-3, so 5e-3.
  EXPECT_NEAR(pearsonCorrelation(a.data(), mixed.data(), n), 1.0 / std::sqrt(1 + sigma * sigma),
              5e-3);
  const std::vector<float> flat(n, 1.0f);
  EXPECT_EQ(pearsonCorrelation(a.data(), flat.data(), n), 0.0);
}

TEST(Welch, SineIntegratesToItsPowerAndPeaksAtItsFrequency) {
  const double rate = 200.0, f = 12.5, amp = 3.0;  // 12.5 Hz: a bin centre at 0.5 Hz bins
  const int64_t n = 20000;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(amp * std::sin(2 * std::numbers::pi * f * i / rate + 0.3));
  const auto s = welchSpectra(x.data(), 1, n, rate);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].segmentLength, 512);  // 2 s = 400 samples -> nearest power of two
  EXPECT_DOUBLE_EQ(s[0].binHz, rate / 512);
  ASSERT_EQ(s[0].power.size(), 257u);
  std::size_t peak = 0;
  double total = 0.0;
  for (std::size_t k = 0; k < s[0].power.size(); ++k) {
    total += s[0].power[k] * s[0].binHz;
    if (s[0].power[k] > s[0].power[peak]) peak = k;
  }
  EXPECT_NEAR(peak * s[0].binHz, f, s[0].binHz);
  // Parseval: the density integrates to the variance A^2/2. The Hann window's normalisation by
  // sum w^2 makes that exact up to the segments' edge effects (<0.5 % here).
  EXPECT_NEAR(total, amp * amp / 2, 0.005 * amp * amp / 2);
}

TEST(Welch, WhiteNoiseIsFlatAtTwiceTheVarianceOverTheRate) {
  const double rate = 100.0, sd = 2.0;
  const int64_t n = 100000;
  std::mt19937 rng(9);
  std::normal_distribution<float> g(0.0f, static_cast<float>(sd));
  std::vector<float> x(2 * n);
  for (auto& v : x) v = g(rng);
  const auto s = welchSpectra(x.data(), 2, n, rate, 128);  // two rows share one call
  ASSERT_EQ(s.size(), 2u);
  for (const WelchSpectrum& w : s) {
    EXPECT_EQ(w.segmentLength, 128);
    EXPECT_EQ(w.segments, 1 + (n - 128) / 64);
    // One-sided density of white noise: 2 sigma^2 / fs. The mean over the inner bins averages
    // ~1500 segments x 60 bins; 2 % is many standard errors.
    double mean = 0.0;
    for (std::size_t k = 1; k + 1 < w.power.size(); ++k) mean += w.power[k];
    mean /= static_cast<double>(w.power.size() - 2);
    EXPECT_NEAR(mean, 2 * sd * sd / rate, 0.02 * 2 * sd * sd / rate);
  }
  EXPECT_THROW(welchSpectra(x.data(), 1, 4, rate), InvalidParameterError);
  EXPECT_THROW(welchSpectra(x.data(), 1, n, 0.0), InvalidParameterError);
}

// Channels Fp1, Cz, O1 (EEG) mixing three sources with A = [[1,1,0],[0,1,1],[1,0,1]], plus an EOG
// channel equal to source 2 (the "blink", a spike train) and an ECG channel equal to source 0.
// The hand-made decomposition has unmixing = inv(A), so activation k is source k minus its mean.
struct Mixture {
  std::shared_ptr<const Recording> rec;
  std::shared_ptr<IcaFile> file;
  std::vector<std::vector<float>> sources;
};

constexpr double kRate = 100.0;
constexpr int64_t kLength = 6000;  // 60 s
constexpr int64_t kFirst = 1000, kSamples = 4000;

Mixture makeMixture(bool withEog) {
  Mixture m;
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 1.0f);
  m.sources.assign(3, std::vector<float>(kLength));
  for (int64_t i = 0; i < kLength; ++i) {
    m.sources[0][i] = static_cast<float>(std::sin(2 * std::numbers::pi * 1.3 * i / kRate));
    m.sources[1][i] = g(rng);
    m.sources[2][i] = (i % 400 < 20) ? 8.0f : 0.0f;  // a blink every 4 s, 0.2 s long
  }
  const int a[3][3] = {{1, 1, 0}, {0, 1, 1}, {1, 0, 1}};
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data;
  const char* names[] = {"Fp1", "Cz", "O1", "VEOG", "ECG"};
  for (int c = 0; c < 5; ++c) {
    ChannelInfo info;
    info.label = info.name = names[c];
    info.type = c < 3 ? ChannelType::EEG : (c == 3 ? ChannelType::EOG : ChannelType::ECG);
    if (c >= 3 && !withEog) info.type = ChannelType::MISC;  // no typed references at all
    info.unit = "uV";
    info.sampleRate = kRate;
    info.sampleCount = kLength;
    rec->channels.push_back(info);
    std::vector<float> x(kLength);
    for (int64_t i = 0; i < kLength; ++i) {
      if (c < 3) {
        x[i] = 10.0f + a[c][0] * m.sources[0][i] + a[c][1] * m.sources[1][i] +
               a[c][2] * m.sources[2][i];
      } else {
        x[i] = m.sources[c == 3 ? 2 : 0][i];
      }
    }
    data.push_back(std::move(x));
  }
  rec->annotations = {{12.0, 0.0, "blink"}};
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  m.rec = rec;

  auto f = std::make_shared<IcaFile>();
  f->sampleRate = kRate;
  f->firstSample = kFirst;
  f->samples = kSamples;
  f->channels = icaFileChannels(*rec, {0, 1, 2});
  IcaResult& r = f->result;
  r.channels = {0, 1, 2};
  r.components = 3;
  r.unmixing = IcaMatrix(3, 3);
  const double inv[3][3] = {{0.5, -0.5, 0.5}, {0.5, 0.5, -0.5}, {-0.5, 0.5, 0.5}};
  r.mixing = IcaMatrix(3, 3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      r.unmixing(i, j) = inv[i][j];
      r.mixing(i, j) = a[i][j];
    }
  // The channel means over the decomposed range, as the engine removes them.
  const SignalBlock block = extractBlock(*rec, {0, 1, 2}, kFirst / kRate, kSamples / kRate);
  for (int c = 0; c < 3; ++c) {
    double s = 0;
    for (int64_t i = 0; i < kSamples; ++i) s += block.channel(c)[i];
    r.mean.push_back(s / kSamples);
  }
  r.varianceFraction = {0.5, 0.3, 0.2};
  m.file = f;
  return m;
}

TEST(IcaMetrics, ReferenceChannelsByTypeElseTheFrontalProxy) {
  const Mixture typed = makeMixture(true);
  IcaReferenceChannels refs = icaReferenceChannels(*typed.rec, kRate);
  EXPECT_EQ(refs.eog, std::vector<std::size_t>{3});
  EXPECT_EQ(refs.ecg, std::vector<std::size_t>{4});
  EXPECT_FALSE(refs.eogIsFrontalProxy);
  const Mixture untyped = makeMixture(false);
  refs = icaReferenceChannels(*untyped.rec, kRate);
  EXPECT_EQ(refs.eog, std::vector<std::size_t>{0});  // Fp1
  EXPECT_TRUE(refs.eogIsFrontalProxy);
  EXPECT_TRUE(refs.ecg.empty());
  // Channels at another rate cannot be correlated sample by sample.
  EXPECT_TRUE(icaReferenceChannels(*typed.rec, 2 * kRate).eog.empty());
}

TEST(IcaMetrics, SummaryOfAKnownDecompositionFindsTheBlinkAndTheHeart) {
  const Mixture m = makeMixture(true);
  JobContext ctx;
  const IcaComponentSummary s = summariseIcaComponents(*m.rec, *m.file, ctx);
  ASSERT_EQ(s.components.size(), 3u);
  // Activation k is source k over the range (up to the mean), so its statistics are the
  // source's, computed here directly on the source samples.
  for (int k = 0; k < 3; ++k) {
    const float* src = m.sources[k].data() + kFirst;
    // float32 rounding of 10 + sources and of the activations: 1e-3 absolute on O(1) numbers.
    EXPECT_NEAR(s.components[k].kurtosis, excessKurtosis(src, kSamples), 1e-3) << k;
    EXPECT_NEAR(s.components[k].variancePercent, 100.0 * m.file->result.varianceFraction[k], 1e-9);
  }
  EXPECT_NEAR(s.components[2].eogCorrelation, 1.0, 1e-4);  // the blink source is the EOG channel
  EXPECT_NEAR(s.components[0].ecgCorrelation, 1.0, 1e-4);  // the sine is the ECG channel
  EXPECT_LT(s.components[1].eogCorrelation, 0.1);          // noise: independent of both
  EXPECT_LT(s.components[1].ecgCorrelation, 0.1);
  ASSERT_EQ(s.spectra.size(), 3u);
  // The sine's spectrum peaks at 1.3 Hz (within a bin).
  const WelchSpectrum& w = s.spectra[0];
  std::size_t peak = 0;
  for (std::size_t k = 0; k < w.power.size(); ++k)
    if (w.power[k] > w.power[peak]) peak = k;
  EXPECT_NEAR(peak * w.binHz, 1.3, w.binHz);

  // Without EOG or ECG channels: the proxy (Fp1 = s0 + s1) and no ECG column.
  const Mixture p = makeMixture(false);
  const IcaComponentSummary q = summariseIcaComponents(*p.rec, *p.file, ctx);
  EXPECT_TRUE(q.references.eogIsFrontalProxy);
  EXPECT_LT(q.components[0].ecgCorrelation, 0.0);
  EXPECT_GT(q.components[0].eogCorrelation, 0.3);
}

TEST(IcaActivationRecording, ChannelsAreTheUnmixedSignalsEverywhere) {
  const Mixture m = makeMixture(true);
  const auto act = icaActivationRecording(m.rec, m.file);
  ASSERT_EQ(act->channelCount(), 3u);
  EXPECT_EQ(act->channels[1].name, "IC 2");
  EXPECT_EQ(act->channels[1].sampleCount, kLength);
  EXPECT_EQ(act->channels[1].sampleRate, kRate);
  EXPECT_EQ(act->annotations.size(), 1u);
  // Over the decomposed range: the engine's icaActivations of the same block.
  const SignalBlock block = extractBlock(*m.rec, {0, 1, 2}, kFirst / kRate, kSamples / kRate);
  const std::vector<float> ref = icaActivations(m.file->result, block);
  for (int k = 0; k < 3; ++k) {
    const std::vector<float> x = act->readChannel(k, kFirst, kSamples);
    for (int64_t i = 0; i < kSamples; i += 7)
      EXPECT_NEAR(x[i], ref[k * kSamples + i], 1e-4) << k << " " << i;
  }
  // Before the range (the browser shows the whole recording): source k minus its range mean, by
  // construction of the unmixing. Reading two ranges alternately exercises the page cache.
  for (int k = 0; k < 3; ++k) {
    const std::vector<float> early = act->readChannel(k, 0, 500);
    double mean = 0;
    for (int64_t i = 0; i < kSamples; ++i) mean += m.sources[k][kFirst + i];
    mean /= kSamples;
    for (int64_t i = 0; i < 500; i += 11)
      EXPECT_NEAR(early[i], m.sources[k][i] - mean, 1e-4) << k << " " << i;
  }
  // A recording the decomposition does not fit is refused.
  auto other = std::make_shared<Recording>(*m.rec);
  other->channels[1].label = other->channels[1].name = "Pz";
  EXPECT_THROW(icaActivationRecording(other, m.file), InvalidParameterError);
}

TEST(IcaRank, AverageReferenceRemovesOneDimension) {
  // Six channels of independent noise, then re-referenced to their average: they sum to zero at
  // every sample, so the covariance has rank 5 exactly (up to float rounding, ~1e-15 of the
  // largest eigenvalue, far below the 1e-10 tolerance).
  SignalBlock b;
  b.channels = {0, 1, 2, 3, 4, 5};
  b.sampleRate = 100.0;
  b.samples = 3000;
  b.data.resize(6 * 3000);
  std::mt19937 rng(4);
  std::normal_distribution<float> g(0.0f, 5.0f);
  for (auto& v : b.data) v = g(rng);
  JobContext ctx;
  IcaRankEstimate full = estimateIcaRank(b, 1e-10, ctx);
  EXPECT_EQ(full.detectedRank, 6);
  EXPECT_EQ(full.eigenvalues.size(), 6u);
  for (int64_t t = 0; t < b.samples; ++t) {
    double sum = 0;
    for (std::size_t c = 0; c < 6; ++c) sum += b.channel(c)[t];
    for (std::size_t c = 0; c < 6; ++c) b.channel(c)[t] -= static_cast<float>(sum / 6);
  }
  const IcaRankEstimate avg = estimateIcaRank(b, 1e-10, ctx);
  EXPECT_EQ(avg.detectedRank, 5);
  EXPECT_LT(avg.eigenvalues.back(), 1e-10 * avg.eigenvalues.front());
  b.channels = {0};
  EXPECT_THROW(estimateIcaRank(b, 1e-10, ctx), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
