// The CPU Hilbert-Huang transform against closed forms: tones, AM tones and chirps whose analytic
// signal is known, spectra whose only non-zero cell is known, the grid's formulas, edges,
// parameter errors, threads and cancel. The modes are built here directly (sums of tones), not by
// the EMD, so these tests depend on nothing but hht.h.
#include "engine/hht/hht.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/hht/hht_cpu.h"

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;

// Modes of one channel: the given IMF rows plus a zero residue row.
EmdChannelModes channelModes(std::size_t channel, const std::vector<std::vector<double>>& imfs,
                             int64_t n) {
  EmdChannelModes m;
  m.channel = channel;
  m.rows = static_cast<int>(imfs.size()) + 1;
  m.data.assign(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(n), 0.0f);
  for (std::size_t r = 0; r < imfs.size(); ++r) {
    for (int64_t t = 0; t < n; ++t)
      m.row(static_cast<int>(r), n)[t] = static_cast<float>(imfs[r][t]);
  }
  m.sifts.assign(imfs.size(), 1);
  return m;
}

EmdResult modesOf(double fs, int64_t n,
                  const std::vector<std::vector<std::vector<double>>>& chans) {
  EmdResult r;
  r.sampleRate = fs;
  r.samples = n;
  r.firstSample = 100;
  for (std::size_t c = 0; c < chans.size(); ++c) r.channels.push_back(channelModes(c, chans[c], n));
  return r;
}

std::vector<double> tone(int64_t n, double fs, double amplitude, double hz, double phase) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (int64_t t = 0; t < n; ++t) x[t] = amplitude * std::cos(2 * kPi * hz * t / fs + phase);
  return x;
}

HhtResult runCpu(const EmdResult& modes, const HhtParams& p, int threads = 2) {
  JobContext ctx;
  return hilbertHuangCpu(modes, p, threads, ctx);
}

// The bin whose edges bracket f, found from the returned edges (not from the backend's formula).
int bracketingBin(const std::vector<double>& edges, double f) {
  for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
    if (edges[k] <= f && f < edges[k + 1]) return static_cast<int>(k);
  }
  return -1;
}

// ---- instantaneous amplitude and frequency ---------------------------------------------------

// A tone with a whole number of cycles in the block is periodic for the DFT: its analytic signal
// is exactly A e^{i(wt + phi)}, so amplitude and frequency are exact at every sample, ends
// included. The only error is the float32 storage of the IMF: each sample moves by at most
// 2^-24 A = 6e-8 A, and the discrete Hilbert transform's gain on a bounded sequence grows like
// (2/pi) ln N (~4.4 for N = 1000): |dz| <= ~3e-7 A. Hence 1e-6 A for the amplitude, and for the
// frequency fs / (2 pi) * 2 |dz| / A = 2.4e-5 Hz at fs = 250 Hz: 1e-4 Hz.
TEST(HhtInstantaneous, PeriodicToneIsExactAtEverySample) {
  const double fs = 250.0, amplitude = 3.0;
  for (int64_t n : {1000, 999}) {
    // 10.25 Hz (41 cycles at N = 1000) and, above fs/4, ~100 Hz: the estimator must cover
    // (0, fs/2), not only (0, fs/4) as a single arg(z[n+1] conj z[n-1]) / 2 would.
    for (int cycles : {41, 400}) {
      const double hz = cycles * fs / static_cast<double>(n);
      const auto modes = modesOf(fs, n, {{tone(n, fs, amplitude, hz, 0.7)}});
      const auto r = runCpu(modes, {});
      ASSERT_EQ(r.channels.size(), 1u);
      ASSERT_EQ(r.channels[0].imfs.size(), 1u);
      const auto& imf = r.channels[0].imfs[0];
      ASSERT_EQ(imf.amplitude.size(), static_cast<std::size_t>(n));
      ASSERT_EQ(imf.frequencyHz.size(), static_cast<std::size_t>(n));
      for (int64_t t = 0; t < n; ++t) {
        ASSERT_NEAR(imf.amplitude[t], amplitude, 1e-6 * amplitude) << "n " << n << " t " << t;
        ASSERT_NEAR(imf.frequencyHz[t], hz, 1e-4) << "n " << n << " t " << t;
      }
      EXPECT_NEAR(imf.meanFrequencyHz, hz, 1e-4);
    }
  }
}

// A tone cut off at the block's ends (non-whole number of cycles): the FFT's analytic signal is
// wrong near the cuts. Integrating the Hilbert kernel by parts over the missing part of the tone,
// the error at distance d samples from a cut is ~ A / (pi * 2 pi nu d), nu = f / fs in cycles per
// sample; the discrete analytic filter jumps at 0 and at Nyquist, so nu becomes
// nu_eff = min(nu, 1/2 - nu). Two ends, each at least `edge` samples away: relative amplitude and
// frequency errors <= 2 / (2 pi^2 nu_eff edge) = 1 / (pi^2 nu_eff edge) on the included samples
// (measured: 1/4 to 2/3 of that bound on these cases).
TEST(HhtInstantaneous, TruncatedToneWithinTheEdgeBound) {
  const double fs = 250.0, amplitude = 2.5;
  const int64_t n = 2000;
  for (double hz : {3.3, 10.3, 41.7, 100.3}) {
    for (double edgeSeconds : {0.2, 0.5, 1.0}) {
      const auto modes = modesOf(fs, n, {{tone(n, fs, amplitude, hz, 0.3)}});
      HhtParams p;
      p.edgeSeconds = edgeSeconds;
      const auto r = runCpu(modes, p);
      const auto& imf = r.channels[0].imfs[0];
      const int64_t edge = std::llround(edgeSeconds * fs);
      const double nu = hz / fs;
      const double bound = 1.0 / (kPi * kPi * std::min(nu, 0.5 - nu) * static_cast<double>(edge));
      double worstA = 0.0, worstF = 0.0;
      for (int64_t t = edge; t < n - edge; ++t) {
        worstA = std::max(worstA, std::abs(imf.amplitude[t] - amplitude) / amplitude);
        worstF = std::max(worstF, std::abs(imf.frequencyHz[t] - hz) / hz);
      }
      EXPECT_LE(worstA, bound) << hz << " Hz, edge " << edgeSeconds << " s";
      EXPECT_LE(worstF, bound) << hz << " Hz, edge " << edgeSeconds << " s";
      // The summary is energy-weighted over the included samples, so inside the same bound.
      EXPECT_NEAR(imf.meanFrequencyHz, hz, bound * hz);
    }
  }
}

// AM tone A (1 + m cos(w_m t + psi)) cos(w_c t + phi) with whole cycles of both and its spectrum
// (w_c - w_m .. w_c + w_m) inside (0, Nyquist): Bedrosian's theorem holds exactly in the DFT, so
// the amplitude is the envelope and the frequency the carrier's. Tolerances as for the periodic
// tone, the frequency's divided by the smallest envelope A (1 - m).
TEST(HhtInstantaneous, AmToneGivesEnvelopeAndCarrier) {
  const double fs = 200.0, amplitude = 1.5, depth = 0.6;
  const int64_t n = 1024;
  const double carrier = 150 * fs / n, modulation = 7 * fs / n;  // 29.3 Hz, 1.37 Hz
  std::vector<double> x(n), envelope(n);
  for (int64_t t = 0; t < n; ++t) {
    envelope[t] = amplitude * (1.0 + depth * std::cos(2 * kPi * modulation * t / fs + 0.4));
    x[t] = envelope[t] * std::cos(2 * kPi * carrier * t / fs + 1.9);
  }
  const auto r = runCpu(modesOf(fs, n, {{x}}), {});
  const auto& imf = r.channels[0].imfs[0];
  for (int64_t t = 0; t < n; ++t) {
    ASSERT_NEAR(imf.amplitude[t], envelope[t], 1e-6 * amplitude) << t;
    ASSERT_NEAR(imf.frequencyHz[t], carrier, 1e-4 / (1.0 - depth)) << t;
  }
}

// Linear chirp f(t) = f0 + k t: the estimator (mean of two phase steps) is exact for a quadratic
// phase, so the error is the analytic signal's: the edge bound above with nu_eff of the lowest
// frequency at a cut (20 Hz), applied relative to f(t).
TEST(HhtInstantaneous, LinearChirpFollowsItsFrequency) {
  const double fs = 250.0, f0 = 20.0, f1 = 60.0;
  const int64_t n = 2000;
  const double duration = n / fs, rate = (f1 - f0) / duration;
  std::vector<double> x(n);
  for (int64_t t = 0; t < n; ++t) {
    const double s = t / fs;
    x[t] = 0.8 * std::cos(2 * kPi * (f0 * s + 0.5 * rate * s * s));
  }
  HhtParams p;
  p.edgeSeconds = 0.5;
  const auto r = runCpu(modesOf(fs, n, {{x}}), p);
  const auto& imf = r.channels[0].imfs[0];
  const int64_t edge = 125;
  const double bound = 1.0 / (kPi * kPi * (f0 / fs) * edge);
  for (int64_t t = edge; t < n - edge; ++t) {
    const double expected = f0 + rate * t / fs;
    ASSERT_NEAR(imf.frequencyHz[t], expected, bound * expected) << t;
    ASSERT_NEAR(imf.amplitude[t], 0.8, bound * 0.8) << t;
  }
  // A wrong sign or scale in the estimator would fail far outside this: the frequency must rise.
  EXPECT_GT(imf.frequencyHz[n - edge - 1], imf.frequencyHz[edge] + 0.9 * (f1 - f0) * 0.875);
}

// ---- the spectrum, the marginal and the summaries --------------------------------------------

// Two periodic tones in two IMFs: every included sample of IMF k falls in the bin of its tone
// (the edges bracket it), so the spectrum is A_k in that row of every column and 0 elsewhere,
// the marginal is A_k * N / fs there (the integral of a constant amplitude), the energy is
// sum x^2 / fs = A^2 N / (2 fs) (whole cycles). Tolerance 1e-6 relative: float storage as above.
TEST(HhtSpectrum, TonesLandInTheirBins) {
  const double fs = 250.0;
  const int64_t n = 1000;
  const double hzLow = 41 * fs / n, hzHigh = 161 * fs / n;  // 10.25 Hz, 40.25 Hz
  const double aLow = 3.0, aHigh = 1.0;
  const auto modes =
      modesOf(fs, n, {{tone(n, fs, aHigh, hzHigh, 0.2), tone(n, fs, aLow, hzLow, 2.0)}});
  for (auto quantity : {HhtQuantity::Amplitude, HhtQuantity::Energy}) {
    HhtParams p;
    p.frequencyBins = 250;  // 0.5 Hz bins over 0 .. 125 Hz
    p.timeBins = 40;
    p.quantity = quantity;
    const auto r = runCpu(modes, p);
    EXPECT_EQ(r.params.fMax, fs / 2);
    ASSERT_EQ(r.frequencyEdges.size(), 251u);
    for (std::size_t k = 0; k < r.frequencyEdges.size(); ++k) {
      EXPECT_NEAR(r.frequencyEdges[k], 0.5 * static_cast<double>(k), 1e-12);
    }
    const int binLow = bracketingBin(r.frequencyEdges, hzLow);
    const int binHigh = bracketingBin(r.frequencyEdges, hzHigh);
    ASSERT_EQ(binLow, 20);
    ASSERT_EQ(binHigh, 80);
    const bool energy = quantity == HhtQuantity::Energy;
    const double vLow = energy ? aLow * aLow : aLow, vHigh = energy ? aHigh * aHigh : aHigh;
    const auto& ch = r.channels[0];
    ASSERT_EQ(ch.spectrum.size(), 250u * 40u);
    for (int k = 0; k < 250; ++k) {
      const double expected = k == binLow ? vLow : k == binHigh ? vHigh : 0.0;
      for (int j = 0; j < 40; ++j) {
        ASSERT_NEAR(ch.spectrum[k * 40 + j], expected, 1e-6 * vLow) << "bin " << k << " col " << j;
      }
      EXPECT_NEAR(ch.marginal[k], expected * n / fs, 1e-6 * vLow * n / fs) << "bin " << k;
    }
    // The marginal's peak is the bin of the strongest tone.
    EXPECT_EQ(std::max_element(ch.marginal.begin(), ch.marginal.end()) - ch.marginal.begin(),
              binLow);
    ASSERT_EQ(ch.imfs.size(), 2u);
    EXPECT_EQ(ch.imfs[0].row, 0);
    EXPECT_EQ(ch.imfs[1].row, 1);
    EXPECT_NEAR(ch.imfs[0].meanFrequencyHz, hzHigh, 1e-4);
    EXPECT_NEAR(ch.imfs[1].meanFrequencyHz, hzLow, 1e-4);
    // Energy is of the IMF itself (sum x^2 / fs), whatever the spectrum's quantity.
    EXPECT_NEAR(ch.imfs[0].energy, aHigh * aHigh * n / (2 * fs), 1e-6 * aHigh * aHigh * n / fs);
    EXPECT_NEAR(ch.imfs[1].energy, aLow * aLow * n / (2 * fs), 1e-6 * aLow * aLow * n / fs);
  }
}

// Logarithmic bins: edges with a constant ratio (fMax / fMin)^(1/B) from fMin to fMax, the tone in
// the bin they bracket; the same tone lands in a different bin index on the linear grid.
TEST(HhtSpectrum, LogarithmicAndLinearBins) {
  const double fs = 250.0;
  const int64_t n = 1000;
  const double hz = 41 * fs / n;  // 10.25 Hz
  const auto modes = modesOf(fs, n, {{tone(n, fs, 2.0, hz, 0.0)}});
  HhtParams p;
  p.fMin = 1.0;
  p.fMax = 100.0;
  p.frequencyBins = 40;
  p.timeBins = 10;
  p.logFrequency = true;
  const auto logR = runCpu(modes, p);
  const auto& e = logR.frequencyEdges;
  ASSERT_EQ(e.size(), 41u);
  EXPECT_EQ(e.front(), 1.0);
  EXPECT_EQ(e.back(), 100.0);
  const double ratio = std::pow(100.0, 1.0 / 40);
  for (std::size_t k = 0; k + 1 < e.size(); ++k) EXPECT_NEAR(e[k + 1] / e[k], ratio, 1e-12);
  p.logFrequency = false;
  const auto linR = runCpu(modes, p);
  for (std::size_t k = 0; k + 1 < linR.frequencyEdges.size(); ++k) {
    EXPECT_NEAR(linR.frequencyEdges[k + 1] - linR.frequencyEdges[k], 99.0 / 40, 1e-12);
  }
  const int logBin = bracketingBin(e, hz), linBin = bracketingBin(linR.frequencyEdges, hz);
  ASSERT_EQ(logBin, 20);  // 40 * log10(10.25) / 2 = 20.2
  ASSERT_EQ(linBin, 3);   // (10.25 - 1) / 2.475 = 3.7
  for (const auto* r : {&logR, &linR}) {
    const int bin = r == &logR ? logBin : linBin;
    const auto& s = r->channels[0].spectrum;
    for (int k = 0; k < 40; ++k) {
      for (int j = 0; j < 10; ++j) {
        ASSERT_NEAR(s[k * 10 + j], k == bin ? 2.0 : 0.0, 2e-6) << "bin " << k;
      }
    }
  }
}

// Frequencies outside [fMin, fMax] fall in no bin: a 40 Hz tone with fMax = 30 Hz leaves the
// spectrum and marginal empty, but its summaries are still computed.
TEST(HhtSpectrum, FrequenciesOutsideTheRangeAreLeftOut) {
  const double fs = 250.0;
  const int64_t n = 1000;
  const auto modes = modesOf(fs, n, {{tone(n, fs, 1.0, 161 * fs / n, 0.0)}});
  HhtParams p;
  p.fMax = 30.0;
  p.frequencyBins = 30;
  const auto r = runCpu(modes, p);
  for (float v : r.channels[0].spectrum) ASSERT_EQ(v, 0.0f);
  for (double v : r.channels[0].marginal) ASSERT_EQ(v, 0.0);
  EXPECT_NEAR(r.channels[0].imfs[0].meanFrequencyHz, 40.25, 1e-4);
}

// Edges: E = round(edgeSeconds * fs) samples at each end leave the spectrum, marginal and
// summaries but not the per-sample series. With a periodic tone the included samples all hold
// amplitude A: a column wholly inside an edge is 0, every other column (straddling ones too)
// holds A (a mean over its included samples), the marginal is A (N - 2E) / fs, and the energy
// A^2 (N - 2E) / (2 fs) when the included part is whole cycles (here 36 cycles of 25 samples).
TEST(HhtSpectrum, EdgesAreLeftOut) {
  const double fs = 250.0, a = 2.0;
  const int64_t n = 1000;
  const double hz = 10.0;  // 25 samples per cycle
  const auto modes = modesOf(fs, n, {{tone(n, fs, a, hz, 0.5)}});
  HhtParams p;
  p.edgeSeconds = 0.2;    // 50 samples
  p.timeBins = 100;       // 10 samples per column: columns 0..4 and 95..99 lie in the edges
  p.frequencyBins = 110;  // 1.14 Hz bins: 10 Hz is 8.8 bins up, well inside bin 8
  const auto r = runCpu(modes, p);
  const int64_t e = hhtEdgeSamples(0.2, fs);
  ASSERT_EQ(e, 50);
  const auto& ch = r.channels[0];
  EXPECT_EQ(ch.imfs[0].amplitude.size(), static_cast<std::size_t>(n));
  const int bin = bracketingBin(r.frequencyEdges, hz);
  ASSERT_EQ(bin, 8);
  for (int j = 0; j < 100; ++j) {
    double column = 0.0;
    for (int k = 0; k < 110; ++k) column += ch.spectrum[k * 100 + j];
    const bool inEdge = (j + 1) * 10 <= e || j * 10 >= n - e;
    EXPECT_NEAR(column, inEdge ? 0.0 : a, 1e-6 * a) << "column " << j;
  }
  double total = 0.0;
  for (double v : ch.marginal) total += v;
  EXPECT_NEAR(total, a * (n - 2 * e) / fs, 1e-6 * a * n / fs);
  EXPECT_NEAR(ch.marginal[bin], a * (n - 2 * e) / fs, 1e-6 * a * n / fs);
  EXPECT_NEAR(ch.imfs[0].energy, a * a * (n - 2 * e) / (2 * fs), 1e-6 * a * a * n / fs);

  // Columns that straddle an edge: 7 samples per column puts the cut inside column 7.
  p.timeBins = 142;
  const auto r2 = runCpu(modes, p);
  for (int j = 0; j < 142; ++j) {
    const int64_t s0 = r2.timeEdges[j], s1 = r2.timeEdges[j + 1];
    double column = 0.0;
    for (int k = 0; k < 110; ++k) column += r2.channels[0].spectrum[k * 142 + j];
    const bool inEdge = s1 <= e || s0 >= n - e;
    EXPECT_NEAR(column, inEdge ? 0.0 : a, 1e-6 * a) << "column " << j;
  }
}

TEST(HhtGrid, TimeEdgesAreEqualColumns) {
  EmdResult modes = modesOf(100.0, 1001, {{tone(1001, 100.0, 1, 5, 0)}});
  HhtParams p;
  for (int bins : {1, 3, 7, 1000, 1001}) {
    p.timeBins = bins;
    const auto e = hhtTimeEdges(resolveHhtParams(p, modes), 1001);
    ASSERT_EQ(e.size(), static_cast<std::size_t>(bins) + 1);
    EXPECT_EQ(e.front(), 0);
    EXPECT_EQ(e.back(), 1001);
    for (int j = 0; j < bins; ++j) {
      const int64_t width = e[j + 1] - e[j];
      EXPECT_TRUE(width == 1001 / bins || width == 1001 / bins + 1) << bins << " " << j;
      EXPECT_EQ(e[j], static_cast<int64_t>(j) * 1001 / bins);
    }
  }
  p.timeBins = 0;
  EXPECT_EQ(resolveHhtParams(p, modes).timeBins, 1001);
  EXPECT_EQ(resolveHhtParams(p, modesOf(100.0, 5000, {})).timeBins, 2048);
  EXPECT_EQ(resolveHhtParams(p, modes).fMax, 50.0);
  EXPECT_EQ(hhtEdgeSamples(0.2, 250.0), 50);
  EXPECT_EQ(hhtEdgeSamples(0.0, 250.0), 0);
}

// ---- rows, threads, parameters, cancel -------------------------------------------------------

TEST(HhtRows, SelectedRowsAndChannelsWithFewerImfs) {
  const double fs = 250.0;
  const int64_t n = 500;
  const auto modes = modesOf(fs, n,
                             {{tone(n, fs, 1, 50, 0), tone(n, fs, 1, 20, 0), tone(n, fs, 1, 5, 0)},
                              {tone(n, fs, 1, 30, 0)}});
  HhtParams p;
  p.imfs = {2, 0};
  p.keepInstantaneous = false;
  const auto r = runCpu(modes, p);
  ASSERT_EQ(r.channels.size(), 2u);
  ASSERT_EQ(r.channels[0].imfs.size(), 2u);
  EXPECT_EQ(r.channels[0].imfs[0].row, 0);
  EXPECT_EQ(r.channels[0].imfs[1].row, 2);
  EXPECT_NEAR(r.channels[0].imfs[1].meanFrequencyHz, 5.0, 1e-4);
  EXPECT_TRUE(r.channels[0].imfs[0].amplitude.empty());
  EXPECT_TRUE(r.channels[0].imfs[0].frequencyHz.empty());
  ASSERT_EQ(r.channels[1].imfs.size(), 1u);  // row 2 does not exist there
  EXPECT_EQ(r.channels[1].channel, 1u);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "hht.rowsSkipped");
  EXPECT_EQ(r.firstSample, 100);
  EXPECT_EQ(r.samples, n);
}

// Every cell is summed in a fixed order, so the result does not depend on the thread count.
TEST(HhtThreads, ResultDoesNotDependOnThreads) {
  const double fs = 256.0;
  const int64_t n = 3001;
  std::vector<std::vector<std::vector<double>>> chans;
  for (int c = 0; c < 5; ++c) {
    chans.push_back({tone(n, fs, 1 + c, 40.3 + c, c), tone(n, fs, 2, 12.1 + 0.3 * c, 0.1 * c),
                     tone(n, fs, 0.5, 3.3, 0)});
  }
  const auto modes = modesOf(fs, n, chans);
  HhtParams p;
  p.edgeSeconds = 0.3;
  p.timeBins = 37;
  const auto one = runCpu(modes, p, 1);
  const auto many = runCpu(modes, p, 3);
  ASSERT_EQ(one.channels.size(), many.channels.size());
  for (std::size_t c = 0; c < one.channels.size(); ++c) {
    EXPECT_EQ(one.channels[c].spectrum, many.channels[c].spectrum);
    EXPECT_EQ(one.channels[c].marginal, many.channels[c].marginal);
    for (std::size_t i = 0; i < one.channels[c].imfs.size(); ++i) {
      EXPECT_EQ(one.channels[c].imfs[i].amplitude, many.channels[c].imfs[i].amplitude);
      EXPECT_EQ(one.channels[c].imfs[i].frequencyHz, many.channels[c].imfs[i].frequencyHz);
      EXPECT_EQ(one.channels[c].imfs[i].meanFrequencyHz, many.channels[c].imfs[i].meanFrequencyHz);
      EXPECT_EQ(one.channels[c].imfs[i].energy, many.channels[c].imfs[i].energy);
    }
  }
}

void expectParameterError(const HhtParams& p, const EmdResult& modes, const std::string& name) {
  try {
    validateHhtParams(p, modes);
    ADD_FAILURE() << "no error for " << name;
  } catch (const InvalidParameterError& e) {
    EXPECT_EQ(e.parameter(), name) << e.what();
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
  JobContext ctx;
  EXPECT_THROW(hilbertHuangCpu(modes, p, 1, ctx), InvalidParameterError) << name;
}

TEST(HhtValidate, EachBadParameterIsNamed) {
  const double fs = 100.0;
  const int64_t n = 200;
  const auto modes = modesOf(fs, n, {{tone(n, fs, 1, 5, 0), tone(n, fs, 1, 2, 0)}});
  EXPECT_NO_THROW(validateHhtParams({}, modes));
  auto with = [](auto change) {
    HhtParams p;
    change(p);
    return p;
  };
  expectParameterError(with([](HhtParams& p) { p.frequencyBins = 0; }), modes, "frequencyBins");
  expectParameterError(with([](HhtParams& p) { p.frequencyBins = 70000; }), modes, "frequencyBins");
  expectParameterError(with([](HhtParams& p) { p.timeBins = -1; }), modes, "timeBins");
  expectParameterError(with([](HhtParams& p) { p.timeBins = 201; }), modes, "timeBins");
  expectParameterError(with([](HhtParams& p) { p.fMin = -1; }), modes, "fMin");
  expectParameterError(with([](HhtParams& p) { p.fMin = NAN; }), modes, "fMin");
  expectParameterError(with([](HhtParams& p) { p.logFrequency = true; }), modes, "fMin");
  expectParameterError(with([](HhtParams& p) { p.fMax = 51; }), modes, "fMax");
  expectParameterError(with([](HhtParams& p) { p.fMin = 20, p.fMax = 10; }), modes, "fMin");
  expectParameterError(with([](HhtParams& p) { p.fMin = 50; }), modes, "fMin");   // = Nyquist
  expectParameterError(with([](HhtParams& p) { p.imfs = {2}; }), modes, "imfs");  // residue
  expectParameterError(with([](HhtParams& p) { p.imfs = {-1}; }), modes, "imfs");
  expectParameterError(with([](HhtParams& p) { p.imfs = {1, 1}; }), modes, "imfs");
  expectParameterError(with([](HhtParams& p) { p.edgeSeconds = -0.1; }), modes, "edgeSeconds");
  expectParameterError(with([](HhtParams& p) { p.edgeSeconds = 1.0; }), modes, "edgeSeconds");
  EXPECT_NO_THROW(validateHhtParams(with([](HhtParams& p) { p.edgeSeconds = 0.99; }), modes));

  EmdResult bad = modes;
  bad.sampleRate = 0;
  expectParameterError({}, bad, "modes");
  bad = modes;
  bad.channels[0].data.pop_back();
  expectParameterError({}, bad, "modes");
  bad = modes;
  bad.channels[0].data[17] = INFINITY;
  expectParameterError({}, bad, "modes");
}

EmdResult largeModes() {
  const double fs = 500.0;
  const int64_t n = 20000;
  std::vector<std::vector<std::vector<double>>> chans(
      8, {tone(n, fs, 1, 60.3, 0), tone(n, fs, 1, 20.1, 0), tone(n, fs, 1, 5.7, 0)});
  return modesOf(fs, n, chans);
}

TEST(HhtCancel, StopBeforeTheStartThrowsCancelled) {
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), nullptr);
  EXPECT_THROW(hilbertHuangCpu(largeModes(), {}, 2, ctx), Cancelled);
}

TEST(HhtCancel, StopDuringTheRunThrowsCancelled) {
  const auto modes = largeModes();
  std::stop_source stop;
  int calls = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++calls == 1) stop.request_stop();
  });
  EXPECT_THROW(hilbertHuangCpu(modes, {}, 2, ctx), Cancelled);
}

TEST(HhtProgress, ReportsUpToOne) {
  const auto modes = largeModes();
  double last = -1.0;
  bool monotonic = true;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) {
    if (f < last) monotonic = false;
    last = f;
  });
  hilbertHuangCpu(modes, {}, 2, ctx);
  EXPECT_TRUE(monotonic);
  EXPECT_EQ(last, 1.0);
}

}  // namespace
}  // namespace modescope
