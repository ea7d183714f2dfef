// CUDA Hilbert-Huang transform against the CPU backend (the reference, double inside): sizes tiny,
// odd, 2^k + 1 and long, several channels and IMFs, amplitude and energy, linear and logarithmic
// bins, edges, the shared-memory and the global-scratch spectrum paths, several batches, fresh
// random inputs, device buffers and host outputs poisoned with NaN, named tolerances; out of
// memory, cancel. The modes are built here (sums of tones, AM tones, chirps), not by the EMD. Skips
// loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/hht/hht.h"
#include "tests/gpu/gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace modescope {
namespace {

constexpr double kPi = std::numbers::pi;

// ---- named tolerances ------------------------------------------------------------------------

// Amplitude, as a fraction of the IMF row's RMS. The GPU computes the analytic signal with two
// float32 complex FFTs (cuFFT; Bluestein for lengths like 2^k + 1 that are prime or have large
// factors, which adds a third pass and the chirp products). The round-off of one float FFT of
// length M is ~u sqrt(log2 M) of the RMS per element (u = 6e-8), its maximum over N elements
// ~5 times that: for M up to 2^20 (Bluestein of ~300k samples), three passes each way, about
// 6e-8 x sqrt(20) x 5 x sqrt(6) = 3.3e-6 of the RMS. 2e-5 leaves 6x margin.
constexpr double kAmplitudeRelativeRms = 2e-5;
// Frequency, per sample: each one-sided phase step arg(z1 conj z0) moves by at most
// |dz1| / a1 + |dz0| / a0, and f = fs / (4 pi) x (two steps), so
// |df| <= fs / pi x |dz| / a_min with a_min the smallest CPU amplitude of the three samples and
// |dz| <= kAmplitudeRelativeRms x RMS. Compared only where a_min >= kPhaseAmplitudeFloor x RMS:
// below that the phase (and the frequency on either backend) is dominated by round-off.
constexpr double kPhaseAmplitudeFloor = 0.05;
// Mean frequency, as a fraction of fs: the a^2-weighted mean of the per-sample error bound above,
// fs / pi x kAmplitudeRelativeRms x RMS x sum(a) / sum(a^2) <= fs / pi x 2e-5 x 1.3 ~ 8e-6 fs for
// these rows (sum(a) RMS / sum(a^2) <= 1.3 for tones, AM tones and broadband sums of tones); 2e-5
// fs leaves 2.5x. Samples near f = 0 that change sign between backends weigh a^2 f ~ 0.
constexpr double kMeanFrequencyRelativeFs = 2e-5;
// Energy (sum x^2 / fs): both backends square the same float32 samples exactly in double and
// differ only in the order of the additions: n u_double ~ 3e5 x 1.1e-16 = 3e-11; 1e-9 is margin.
constexpr double kEnergyRelative = 1e-9;
// Spectrum cell by cell when no sample lies near a bin edge (whole-cycle tones placed inside
// their bins): a cell is a mean of amplitudes, so its error is the amplitude's (energy: twice
// the relative error of a^2), measured against the largest cell.
constexpr double kCellRelativeMax = 2 * kAmplitudeRelativeRms;
// Spectrum and marginal in general (relative L1 distance): a sample whose frequency lies within
// |df| of a bin edge may land in the neighbouring bin on the other backend, moving its value
// (counted twice in L1). With typical |df| ~ 1e-7 fs on these rows and bins >= fs / 256 wide,
// about 2 x 2 x 1e-7 x 256 ~ 1e-4 of the mass moves; the float32 rounding of each cell adds
// 6e-8. 2e-3 leaves 20x for the low-amplitude samples of broadband rows, whose |df| is larger.
constexpr double kSpectrumRelativeL1 = 2e-3;
// On a spectrum of few rows, though, one constant-frequency tone near a bin edge can put a large
// share of the mass on those samples (seed 125610048 of SeveralBatchesAndUnevenChannels: 1.025 x
// kSpectrumRelativeL1 on "rows 1 and 4", two rows per channel). So the samples that land in
// different bins on the two backends, by their per-sample frequencies, are allowed for on top
// (binMoves); a spectrum off in any other way still fails.

// ---- helpers -----------------------------------------------------------------------------------

using gpu_test::gpuBackend;

// maxResidentSamples here: IMF samples resident on the device at once.
void setHooks(bool poison, std::int64_t maxBatchSamples, std::int64_t maxResidentSamples = 0) {
  gpu_test::setHooks(poison, maxBatchSamples, 0, maxResidentSamples);
}

#ifdef MODESCOPE_HAVE_CUDA
CudaMemoryInfo memoryInfo() { return cudaMemoryInfo(); }
#endif

class GpuHht : public gpu_test::ParityTest {
 protected:
  // The base poisons device buffers; the HHT backend also poisons its host outputs then.
  void SetUp() override {
    ParityTest::SetUp();
    rng_.seed(seed_);
  }

  HhtResult runCpu(const EmdResult& m, const HhtParams& p) {
    JobContext ctx;
    return cpu_->hilbertHuang(m, p, ctx);
  }
  HhtResult runGpu(const EmdResult& m, const HhtParams& p) {
    JobContext ctx;
    return gpu_->hilbertHuang(m, p, ctx);
  }

  std::mt19937 rng_;
};

EmdResult emptyModes(double fs, int64_t n) {
  EmdResult r;
  r.sampleRate = fs;
  r.samples = n;
  r.firstSample = 7;
  return r;
}

// Appends a channel whose IMF rows are `rows` (plus a zero residue).
void addChannel(EmdResult& m, const std::vector<std::vector<float>>& rows) {
  EmdChannelModes c;
  c.channel = m.channels.size() * 3 + 1;  // recording indices need not be 0..C-1
  c.rows = static_cast<int>(rows.size()) + 1;
  c.data.assign(static_cast<std::size_t>(c.rows) * static_cast<std::size_t>(m.samples), 0.0f);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::copy(rows[r].begin(), rows[r].end(), c.row(static_cast<int>(r), m.samples));
  }
  c.sifts.assign(rows.size(), 10);
  m.channels.push_back(std::move(c));
}

// A (1 + m cos(2 pi fm t + psi)) cos(2 pi f t + phi).
std::vector<float> amTone(int64_t n, double fs, double a, double hz, double depth, double hzMod,
                          double phase) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const double s = t / fs;
    x[t] = static_cast<float>(a * (1 + depth * std::cos(2 * kPi * hzMod * s + 0.3 * phase)) *
                              std::cos(2 * kPi * hz * s + phase));
  }
  return x;
}

// General rows (not periodic in the block): a broadband sum of tones, truncated AM tones, chirps.
std::vector<std::vector<float>> generalRows(int64_t n, double fs, int imfs, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::vector<float>> rows;
  for (int k = 0; k < imfs; ++k) {
    // IMF k roughly in the octave below fs / 2^(k+2), as EMD's dyadic filter bank.
    const double top = fs / std::pow(2.0, k + 1);
    const double hz = top * (0.55 + 0.35 * u(rng));
    const double a = 1.0 + 40.0 * u(rng);
    if (k == 0) {
      // Broadband like a first IMF: 20 tones of random frequency in 0.2 .. 0.45 fs. Kept away
      // from Nyquist so that no sample of weight sits where f wraps from +fs/2 to -fs/2 (a
      // sample flipping there on one backend would move the mean frequency by a^2 fs / 2 / sum).
      std::vector<double> x(static_cast<std::size_t>(n), 0.0);
      for (int tone = 0; tone < 20; ++tone) {
        const double f = fs * (0.2 + 0.25 * u(rng)), ph = 2 * kPi * u(rng), amp = a * u(rng);
        for (int64_t t = 0; t < n; ++t) x[t] += amp * std::cos(2 * kPi * f * t / fs + ph);
      }
      rows.emplace_back(x.begin(), x.end());
    } else if (k % 2 == 1) {
      rows.push_back(amTone(n, fs, a, hz, 0.7 * u(rng), hz / 20, 2 * kPi * u(rng)));
    } else {
      std::vector<float> x(static_cast<std::size_t>(n));
      const double f0 = 0.6 * hz, f1 = hz, rate = (f1 - f0) / (n / fs);
      for (int64_t t = 0; t < n; ++t) {
        const double s = t / fs;
        x[t] = static_cast<float>(a * std::cos(2 * kPi * (f0 * s + 0.5 * rate * s * s)));
      }
      rows.push_back(std::move(x));
    }
  }
  return rows;
}

// Whole-cycle (AM) tones whose constant frequency lies at least 0.3 bin widths from every edge of
// a linear grid over 0 .. fs/2 with `bins` bins, so no sample can change bin between backends.
std::vector<std::vector<float>> periodicRows(int64_t n, double fs, int bins, int imfs,
                                             std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::vector<float>> rows;
  const double width = fs / 2 / bins;
  for (int k = 0; k < imfs; ++k) {
    int64_t cycles = 0;
    for (int attempt = 0; attempt < 1000 && cycles == 0; ++attempt) {
      const int64_t c = 1 + static_cast<int64_t>(u(rng) * (n / 2 - 2));
      const double hz = c * fs / n;
      const double position = hz / width - std::floor(hz / width);
      if (position > 0.3 && position < 0.7) cycles = c;
    }
    EXPECT_GT(cycles, 0) << "no whole-cycle tone inside a bin for n " << n << ", " << bins
                         << " bins";
    const double hz = cycles * fs / n;
    // Whole-cycle modulation below the carrier, so the AM tone stays inside (0, fs/2).
    const int64_t modCycles = std::max<int64_t>(1, std::min<int64_t>(cycles - 1, 3));
    const double depth = cycles > 1 && cycles + modCycles < n / 2 ? 0.5 * u(rng) : 0.0;
    rows.push_back(
        amTone(n, fs, 1.0 + 10.0 * u(rng), hz, depth, modCycles * fs / n, 2 * kPi * u(rng)));
  }
  return rows;
}

double rms(const float* x, int64_t n) {
  double s = 0.0;
  for (int64_t t = 0; t < n; ++t) s += static_cast<double>(x[t]) * x[t];
  return std::sqrt(s / n);
}

// sum |a| (a spectrum's or a marginal's mass), in double.
template <class T>
double l1Mass(const std::vector<T>& a) {
  double s = 0.0;
  for (const T v : a) s += std::abs(static_cast<double>(v));
  return s;
}
// sum |a - b| / sum |a| (the plain sum where a is all zero).
template <class T>
double relativeL1(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    d += std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
  const double s = l1Mass(a);
  return s > 0 ? d / s : d;
}

bool allFinite(const HhtResult& r) {
  for (const auto& ch : r.channels) {
    for (float v : ch.spectrum)
      if (!std::isfinite(v)) return false;
    for (double v : ch.marginal)
      if (!std::isfinite(v)) return false;
    for (const auto& imf : ch.imfs) {
      if (!std::isfinite(imf.meanFrequencyHz) || !std::isfinite(imf.energy)) return false;
      for (float v : imf.amplitude)
        if (!std::isfinite(v)) return false;
      for (float v : imf.frequencyHz)
        if (!std::isfinite(v)) return false;
    }
  }
  return true;
}

// The bin of frequency f on the result's grid (-1 outside it), by its edges; fMax is in the last.
int binOnGrid(const std::vector<double>& edges, double f) {
  if (!(f >= edges.front() && f <= edges.back())) return -1;
  const auto above = std::upper_bound(edges.begin(), edges.end(), f);
  return std::min(static_cast<int>(above - edges.begin()) - 1, static_cast<int>(edges.size()) - 2);
}

// The relative L1 distances between channel c's spectra (and marginals) that come from samples
// the two backends may put in different bins: each such sample's value leaves one cell and enters
// another, weighted as the spectrum weighs it (over its column's samples; / fs in the marginal),
// over the CPU's totals. From results with per-sample series (keepInstantaneous) for the rows
// compared; 0 where there are none.
struct BinMoves {
  double spectrum = 0, marginal = 0;
};
BinMoves binMoves(const EmdResult& modes, const HhtResult& cpuSeries, const HhtResult& gpuSeries,
                  std::size_t c) {
  const double fs = modes.sampleRate;
  const int64_t n = modes.samples;
  const int64_t edge = hhtEdgeSamples(cpuSeries.params.edgeSeconds, fs);
  const bool energy = cpuSeries.params.quantity == HhtQuantity::Energy;
  const auto& edges = cpuSeries.frequencyEdges;
  const auto& cc = cpuSeries.channels[c];
  const auto& gc = gpuSeries.channels[c];
  double spectrumMoved = 0, marginalMoved = 0;
  for (std::size_t i = 0; i < cc.imfs.size(); ++i) {
    const auto& ci = cc.imfs[i];
    const auto& gi = gc.imfs[i];
    if (ci.amplitude.empty() || gi.amplitude.empty()) continue;
    for (std::size_t j = 0; j + 1 < cpuSeries.timeEdges.size(); ++j) {
      const int64_t s0 = std::max(cpuSeries.timeEdges[j], edge);
      const int64_t s1 = std::min(cpuSeries.timeEdges[j + 1], n - edge);
      for (int64_t t = s0; t < s1; ++t) {
        const auto u = static_cast<std::size_t>(t);
        // Each backend bins its own value, the CPU its double (the series holds it rounded to
        // float), the GPU its float by the grid's formula, not by the edges: within a float ulp of
        // an edge either side may have been taken (GeneralRowsMatchOnAllSizes, seed 3500926955:
        // one such sample, 2.004e-3 of an "odd" channel whose columns are one sample wide).
        const double fc = ci.frequencyHz[u], fg = gi.frequencyHz[u];
        const double slack = std::max(std::abs(fc), std::abs(fg)) * 0x1p-23;
        if (binOnGrid(edges, std::min(fc, fg) - slack) ==
            binOnGrid(edges, std::max(fc, fg) + slack))
          continue;
        const double a = ci.amplitude[u], b = gi.amplitude[u];
        const double values = energy ? a * a + b * b : a + b;
        spectrumMoved += values / static_cast<double>(s1 - s0);
        marginalMoved += values / fs;
      }
    }
  }
  const double spectrum = l1Mass(cc.spectrum), marginal = l1Mass(cc.marginal);
  return {spectrum > 0 ? spectrumMoved / spectrum : 0, marginal > 0 ? marginalMoved / marginal : 0};
}

// Compares everything; `exactBins`: no sample lies near a bin edge, so the spectrum is compared
// cell by cell too. cpuSeries, gpuSeries: the backends' results with per-sample series for the
// same rows, where cpu and gpu were computed without them (binMoves). Prints the worst errors so a
// GPU run documents its margins.
void expectParity(const EmdResult& modes, const HhtResult& cpu, const HhtResult& gpu,
                  bool exactBins, const std::string& what, const HhtResult* cpuSeries = nullptr,
                  const HhtResult* gpuSeries = nullptr) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(allFinite(gpu)) << "a GPU output kept its NaN poison";
  EXPECT_EQ(gpu.params.fMax, cpu.params.fMax);
  EXPECT_EQ(gpu.params.timeBins, cpu.params.timeBins);
  EXPECT_EQ(gpu.frequencyEdges, cpu.frequencyEdges);
  EXPECT_EQ(gpu.timeEdges, cpu.timeEdges);
  EXPECT_EQ(gpu.samples, cpu.samples);
  EXPECT_EQ(gpu.firstSample, cpu.firstSample);
  EXPECT_EQ(gpu.sampleRate, cpu.sampleRate);
  ASSERT_EQ(gpu.channels.size(), cpu.channels.size());
  const double fs = modes.sampleRate;
  const int64_t n = modes.samples;
  double worstA = 0, worstF = 0, worstMean = 0, worstEnergy = 0, worstCell = 0, worstL1 = 0,
         worstMarginal = 0, worstMoves = 0;
  for (std::size_t c = 0; c < cpu.channels.size(); ++c) {
    const auto& cc = cpu.channels[c];
    const auto& gc = gpu.channels[c];
    EXPECT_EQ(gc.channel, cc.channel);
    ASSERT_EQ(gc.imfs.size(), cc.imfs.size());
    for (std::size_t i = 0; i < cc.imfs.size(); ++i) {
      const auto& ci = cc.imfs[i];
      const auto& gi = gc.imfs[i];
      ASSERT_EQ(gi.row, ci.row);
      ASSERT_EQ(gi.amplitude.size(), ci.amplitude.size());
      ASSERT_EQ(gi.frequencyHz.size(), ci.frequencyHz.size());
      const double r = rms(modes.channels[c].row(ci.row, n), n);
      for (std::size_t t = 0; t < ci.amplitude.size(); ++t) {
        const double ea = std::abs(gi.amplitude[t] - ci.amplitude[t]) / r;
        worstA = std::max(worstA, ea / kAmplitudeRelativeRms);
        ASSERT_LE(ea, kAmplitudeRelativeRms) << "channel " << c << " imf " << i << " t " << t;
        double aMin = ci.amplitude[t];
        if (t > 0) aMin = std::min<double>(aMin, ci.amplitude[t - 1]);
        if (t + 1 < ci.amplitude.size()) aMin = std::min<double>(aMin, ci.amplitude[t + 1]);
        if (aMin < kPhaseAmplitudeFloor * r) continue;
        // A phase step of +-pi (the Nyquist frequency) is ambiguous in any precision: rounding
        // flips the sign of arg(), and the two-sided mean of steps (pi, -pi) reads 0 instead of
        // fs/2. Samples whose estimate or neighbours are above 0.4 fs are that case.
        double fNear = std::max(std::abs(ci.frequencyHz[t]), std::abs(gi.frequencyHz[t]));
        if (t > 0) fNear = std::max<double>(fNear, std::abs(ci.frequencyHz[t - 1]));
        if (t + 1 < ci.frequencyHz.size())
          fNear = std::max<double>(fNear, std::abs(ci.frequencyHz[t + 1]));
        if (fNear > 0.4 * fs) continue;
        const double bound = fs / kPi * kAmplitudeRelativeRms * r / aMin;
        const double ef = std::abs(gi.frequencyHz[t] - ci.frequencyHz[t]);
        worstF = std::max(worstF, ef / bound);
        ASSERT_LE(ef, bound) << "channel " << c << " imf " << i << " t " << t;
      }
      const double em = std::abs(gi.meanFrequencyHz - ci.meanFrequencyHz) / fs;
      worstMean = std::max(worstMean, em / kMeanFrequencyRelativeFs);
      EXPECT_LE(em, kMeanFrequencyRelativeFs) << "channel " << c << " imf " << i;
      const double ee = std::abs(gi.energy - ci.energy) / ci.energy;
      worstEnergy = std::max(worstEnergy, ee / kEnergyRelative);
      EXPECT_LE(ee, kEnergyRelative) << "channel " << c << " imf " << i;
    }
    ASSERT_EQ(gc.spectrum.size(), cc.spectrum.size());
    ASSERT_EQ(gc.marginal.size(), cc.marginal.size());
    const BinMoves moves =
        binMoves(modes, cpuSeries ? *cpuSeries : cpu, gpuSeries ? *gpuSeries : gpu, c);
    const double l1Tolerance = kSpectrumRelativeL1 + moves.spectrum;
    const double marginalTolerance = kSpectrumRelativeL1 + moves.marginal;
    const double l1 = relativeL1(cc.spectrum, gc.spectrum);
    worstL1 = std::max(worstL1, l1 / l1Tolerance);
    worstMoves = std::max(worstMoves, moves.spectrum);
    EXPECT_LE(l1, l1Tolerance) << "channel " << c << ", samples in other bins " << moves.spectrum;
    const double ml1 = relativeL1(cc.marginal, gc.marginal);
    worstMarginal = std::max(worstMarginal, ml1 / marginalTolerance);
    EXPECT_LE(ml1, marginalTolerance) << "channel " << c;
    if (exactBins) {
      const float peak = *std::max_element(cc.spectrum.begin(), cc.spectrum.end());
      const double tol =
          kCellRelativeMax * (gpu.params.quantity == HhtQuantity::Energy ? 2.0 : 1.0);
      for (std::size_t k = 0; k < cc.spectrum.size(); ++k) {
        const double e = std::abs(gc.spectrum[k] - cc.spectrum[k]) / peak;
        worstCell = std::max(worstCell, e / tol);
        ASSERT_LE(e, tol) << "channel " << c << " cell " << k;
      }
    }
  }
  std::cout << "[ margins  ] " << what << ": worst error / tolerance: amplitude " << worstA
            << ", frequency " << worstF << ", mean frequency " << worstMean << ", energy "
            << worstEnergy << ", spectrum L1 " << worstL1 << " (samples in other bins "
            << worstMoves << "), marginal L1 " << worstMarginal
            << (exactBins ? ", cell " + std::to_string(worstCell) : std::string()) << "\n";
}

struct Size {
  const char* name;
  int64_t n;
  int channels;
  int imfs;
};
// tiny, odd, 2^k + 1 (65537 is prime: cuFFT's Bluestein path), long (2^18 + 1 = 5 x 52429).
const Size kSizes[] = {
    {"tiny", 40, 2, 2}, {"odd", 1001, 3, 4}, {"2^16+1", 65537, 2, 6}, {"long", 262145, 2, 8}};

// ---- parity ------------------------------------------------------------------------------------

TEST_F(GpuHht, PeriodicTonesMatchCellByCellOnAllSizes) {
  const double fs = 250.0;
  for (const auto& s : kSizes) {
    const int bins = s.n < 100 ? 8 : 128;
    EmdResult m = emptyModes(fs, s.n);
    for (int c = 0; c < s.channels; ++c) addChannel(m, periodicRows(s.n, fs, bins, s.imfs, rng_));
    for (auto quantity : {HhtQuantity::Amplitude, HhtQuantity::Energy}) {
      HhtParams p;
      p.frequencyBins = bins;
      p.quantity = quantity;
      p.timeBins = static_cast<int>(std::min<int64_t>(s.n, 333));
      p.edgeSeconds = s.n / fs / 10;
      expectParity(m, runCpu(m, p), runGpu(m, p), true,
                   std::string(s.name) + (quantity == HhtQuantity::Energy ? " energy" : " amp"));
    }
  }
}

TEST_F(GpuHht, GeneralRowsMatchOnAllSizes) {
  const double fs = 500.0;
  for (const auto& s : kSizes) {
    EmdResult m = emptyModes(fs, s.n);
    for (int c = 0; c < s.channels; ++c) addChannel(m, generalRows(s.n, fs, s.imfs, rng_));
    HhtParams p;  // defaults: 256 linear bins, min(N, 2048) columns, no edges
    expectParity(m, runCpu(m, p), runGpu(m, p), false, std::string(s.name) + " defaults");
    p.logFrequency = true;
    p.fMin = 0.5;
    p.fMax = 200.0;
    p.frequencyBins = 100;
    p.timeBins = static_cast<int>(std::min<int64_t>(s.n, 97));
    p.edgeSeconds = s.n / fs / 8;
    p.quantity = HhtQuantity::Energy;
    p.imfs = {s.imfs - 1, 0};
    expectParity(m, runCpu(m, p), runGpu(m, p), false, std::string(s.name) + " log energy");
  }
}

// 40000 bins need 320 KB of histogram, above the shared memory of any current GPU (227 KB on
// H100/H200): the global-scratch path.
TEST_F(GpuHht, ManyBinsUseTheGlobalScratchPath) {
  const double fs = 1000.0;
  const int64_t n = 20001;
  EmdResult m = emptyModes(fs, n);
  for (int c = 0; c < 3; ++c) addChannel(m, periodicRows(n, fs, 40000, 3, rng_));
  HhtParams p;
  p.frequencyBins = 40000;
  p.timeBins = 9;
  p.edgeSeconds = 0.5;
  expectParity(m, runCpu(m, p), runGpu(m, p), true, "40000 bins");
}

// One channel per batch (the sample budget is smaller than any channel), channels with
// different IMF counts, rows selected, per-sample series not kept.
TEST_F(GpuHht, SeveralBatchesAndUnevenChannels) {
  const double fs = 256.0;
  const int64_t n = 4097;
  EmdResult m = emptyModes(fs, n);
  for (int c = 0; c < 5; ++c) addChannel(m, generalRows(n, fs, 2 + c, rng_));
  setHooks(true, 1);
  HhtParams p;
  p.edgeSeconds = 1.0;
  p.timeBins = 50;
  expectParity(m, runCpu(m, p), runGpu(m, p), false, "one channel per batch");
  p.imfs = {1, 4};
  p.keepInstantaneous = false;
  const auto cpu = runCpu(m, p), gpu = runGpu(m, p);
  HhtParams withSeries = p;
  withSeries.keepInstantaneous = true;
  const auto cpuSeries = runCpu(m, withSeries), gpuSeries = runGpu(m, withSeries);
  expectParity(m, cpu, gpu, false, "rows 1 and 4", &cpuSeries, &gpuSeries);
  ASSERT_EQ(gpu.diagnostics.size(), cpu.diagnostics.size());
  for (const auto& ch : gpu.channels) {
    for (const auto& imf : ch.imfs) {
      EXPECT_TRUE(imf.amplitude.empty());
      EXPECT_TRUE(imf.frequencyHz.empty());
    }
  }
  setHooks(true, 3 * n);  // about two channels per batch
  p.imfs.clear();
  expectParity(m, runCpu(m, p), runGpu(m, p), false, "two channels per batch");
}

// ---- errors, memory, cancel ------------------------------------------------------------------

TEST_F(GpuHht, RejectsWhatTheCpuRejects) {
  EmdResult m = emptyModes(100.0, 200);
  addChannel(m, generalRows(200, 100.0, 2, rng_));
  HhtParams p;
  p.fMax = 60.0;  // above Nyquist
  JobContext ctx;
  EXPECT_THROW(gpu_->hilbertHuang(m, p, ctx), InvalidParameterError);
}

TEST_F(GpuHht, ChannelTooLargeForTheDeviceIsOutOfMemory) {
  const int64_t n = 10000;
  EmdResult m = emptyModes(500.0, n);
  addChannel(m, generalRows(n, 500.0, 4, rng_));
  setHooks(true, 0, 2 * n);  // as if the device held 2 IMF rows: one channel needs 4
  JobContext ctx;
  try {
    gpu_->hilbertHuang(m, {}, ctx);
    ADD_FAILURE() << "no OutOfDeviceMemoryError";
  } catch (const OutOfDeviceMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("channel"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--backend cpu"), std::string::npos) << e.what();
  }
}

#ifdef MODESCOPE_HAVE_CUDA
TEST_F(GpuHht, CancelBetweenBatchesFreesDeviceMemory) {
  // One batch holds 8 IMFs x 400000 samples x 20 bytes (rows, analytic signal, amplitude,
  // frequency) = 64 MB plus the cuFFT workspace: a leaked batch would exceed the 64 MiB margin.
  const int64_t n = 400000;
  EmdResult m = emptyModes(500.0, n);
  for (int c = 0; c < 4; ++c) addChannel(m, generalRows(n, 500.0, 8, rng_));
  setHooks(false, 1);  // one channel per batch: a checkpoint after each
  {
    JobContext warm;  // loads the kernels and cuFFT's modules, which stay resident
    gpu_->hilbertHuang(m, {}, warm);
  }
  const auto before = memoryInfo();
  std::stop_source stop;
  JobContext ctx(stop.get_token(), [&](double f, std::string_view) {
    if (f > 0.0) stop.request_stop();  // after the first batch
  });
  EXPECT_THROW(gpu_->hilbertHuang(m, {}, ctx), Cancelled);
  std::stop_source early;
  early.request_stop();
  JobContext stopped(early.get_token(), nullptr);
  EXPECT_THROW(gpu_->hilbertHuang(m, {}, stopped), Cancelled);
  const auto after = memoryInfo();
  // 64 MiB absorbs the driver's pool granularity.
  const double leakedMiB =
      (static_cast<double>(before.freeBytes) - static_cast<double>(after.freeBytes)) / 1048576.0;
  EXPECT_LT(leakedMiB, 64.0);
  // The backend still works.
  setHooks(true, 0);
  EmdResult small = emptyModes(500.0, 3001);
  addChannel(small, generalRows(3001, 500.0, 3, rng_));
  expectParity(small, runCpu(small, {}), runGpu(small, {}), false, "after cancel");
}
#endif

}  // namespace
}  // namespace modescope
