// CUDA spatial filters and Burg AR spectra (ComputeBackend::spatialFilter / arSpectra /
// filteredArSpectra on the GPU) against the CPU's double-precision code on the same inputs.
//
// Tolerances, and why:
//  - spatial filter: the GPU's SGEMM accumulates C_in float products in float; the error is a few
//    ulps times sqrt(C_in) of the row's magnitude, bounded here by 1e-5 of the largest output;
//  - AR bins: the GPU stores Burg's error sequences as float (sums, coefficients and spectrum in
//    double), so each stage's reflection coefficient carries a relative error near float epsilon
//    times the conditioning of the recursion. On noise-driven AR processes (what EEG is) the bin
//    values then agree to 1e-3 relative (3e-4 where the test sweeps every order and detrending;
//    the largest seen on an H100 was 5e-5); a bin far below the spectrum's peak (60 dB down) is
//    compared against 1e-3 of the row's largest value instead, since its relative error is the
//    peak's absolute error divided by a tiny number;
//  - coefficients a_k: 1e-3 absolute (|a_k| up to ~3 for the order-30 models here; the largest
//    difference seen on an H100 was 3.3e-4, at order 16 with linear detrending).
// Flat windows give exact zeros on both, with the same diagnostics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/ar/ar_spectrum.h"
#include "engine/ar/event_features.h"
#include "engine/core/error.h"
#include "engine/io/recording_io.h"
#include "engine/spatial/spatial_filter.h"
#include "gpu_test_support.h"

namespace modescope {
namespace {

class ArParity : public gpu_test::ParityTest {};

// An AR(4) process with poles at 10 Hz and 22 Hz (fs-relative), driven by white noise, plus a
// per-channel offset and drift so detrending matters.
SignalBlock arBlock(std::size_t channels, int64_t samples, double fs, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  SignalBlock b;
  b.sampleRate = fs;
  b.samples = samples;
  b.data.resize(channels * static_cast<std::size_t>(samples));
  for (std::size_t c = 0; c < channels; ++c) {
    b.channels.push_back(c + 3);  // recording indices need not start at 0
    const double r1 = 0.95, r2 = 0.9 + 0.005 * static_cast<double>(c % 10);
    const double w1 = 2 * std::numbers::pi * 10.0 / fs, w2 = 2 * std::numbers::pi * 22.0 / fs;
    // (1 - 2 r1 cos w1 z^-1 + r1^2 z^-2)(1 - 2 r2 cos w2 z^-1 + r2^2 z^-2)
    const double p1 = 2 * r1 * std::cos(w1), q1 = -r1 * r1;
    const double p2 = 2 * r2 * std::cos(w2), q2 = -r2 * r2;
    const double a1 = p1 + p2, a2 = q1 + q2 - p1 * p2, a3 = -(p1 * q2 + p2 * q1), a4 = -q1 * q2;
    double x1 = 0, x2 = 0, x3 = 0, x4 = 0;
    const double offset = 20.0 * static_cast<double>(c % 7) - 40.0,
                 drift = 0.01 * static_cast<double>(c % 3);
    for (int64_t t = -200; t < samples; ++t) {
      const double x = a1 * x1 + a2 * x2 + a3 * x3 + a4 * x4 + noise(rng);
      x4 = x3;
      x3 = x2;
      x2 = x1;
      x1 = x;
      if (t >= 0)
        b.data[c * static_cast<std::size_t>(samples) + static_cast<std::size_t>(t)] =
            static_cast<float>(x + offset + drift * static_cast<double>(t));
    }
  }
  return b;
}

BurgArParams params(int order, int64_t window, int64_t step, ArDetrend d, ArOutput o) {
  BurgArParams p = burgArPreset("wilson2009");
  p.order = order;
  p.window = {static_cast<double>(window), ArLengthUnit::Samples};
  p.step = {static_cast<double>(step), ArLengthUnit::Samples};
  p.detrend = d;
  p.output = o;
  return p;
}

// Largest relative difference of the bin values, row by row (see the tolerance note above).
void expectSpectraMatch(const ArSpectrumResult& gpu, const ArSpectrumResult& cpu, double rel,
                        const std::string& what) {
  ASSERT_EQ(gpu.values.size(), cpu.values.size()) << what;
  ASSERT_EQ(gpu.windowStarts, cpu.windowStarts) << what;
  const std::size_t per = cpu.valuesPerWindow();
  double worst = 0.0;
  std::size_t worstAt = 0;
  for (std::size_t row = 0; row < cpu.channelCount() * cpu.windowCount(); ++row) {
    const float* g = gpu.values.data() + row * per;
    const float* c = cpu.values.data() + row * per;
    const double peak = std::max(
        1e-30, static_cast<double>(*std::max_element(
                   c, c + per, [](float x, float y) { return std::abs(x) < std::abs(y); })));
    for (std::size_t k = 0; k < per; ++k) {
      const double scale =
          cpu.params.output == ArOutput::Coefficients
              ? 1.0
              : std::max(std::abs(static_cast<double>(c[k])), 1e-3 * std::abs(peak));
      const double d = std::abs(static_cast<double>(g[k]) - c[k]) / scale;
      if (!(d <= worst)) {
        worst = d;
        worstAt = row * per + k;
      }
    }
    const double nv = std::abs(gpu.noiseVariance[row] - cpu.noiseVariance[row]) /
                      std::max(1e-30f, cpu.noiseVariance[row]);
    EXPECT_LE(nv, rel) << what << ": noise variance of row " << row;
  }
  EXPECT_LE(worst, rel) << what << ": value " << worstAt << " GPU " << gpu.values[worstAt]
                        << " CPU " << cpu.values[worstAt];
  std::printf("[ parity   ] %s: largest difference %.3g (bound %.3g)\n", what.c_str(), worst, rel);
}

TEST_F(ArParity, SpatialFiltersMatchTheCpu) {
  const SignalBlock in = arBlock(70, 1500, 512.0, seed_);
  std::vector<ChannelInfo> channels(80);
  for (std::size_t c = 0; c < channels.size(); ++c)
    channels[c].name = channels[c].label = "E" + std::to_string(c);
  std::vector<std::size_t> selection;
  for (std::size_t c = 3; c < 73; ++c) selection.push_back(c);
  // CAR, and a 20 x 70 user matrix of random weights over inputs in a shuffled order.
  SpatialFilter car = commonAverageReference(channels, selection);
  SpatialFilter user;
  std::mt19937 rng(seed_);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  std::vector<std::size_t> shuffled = selection;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (std::size_t c : shuffled) {
    user.inputNames.push_back(channels[c].name);
    user.inputChannels.push_back(c);
  }
  for (int o = 0; o < 20; ++o) user.outputNames.push_back("out" + std::to_string(o));
  for (std::size_t i = 0; i < 20 * shuffled.size(); ++i) user.matrix.push_back(w(rng));
  for (const SpatialFilter* f : {&car, &user}) {
    JobContext ctx;
    const SignalBlock g = gpu_->spatialFilter(*f, in, ctx);
    const SignalBlock c = cpu_->spatialFilter(*f, in, ctx);
    ASSERT_EQ(g.channels, c.channels);
    ASSERT_EQ(g.data.size(), c.data.size());
    float peak = 0, worst = 0;
    for (std::size_t i = 0; i < c.data.size(); ++i) {
      peak = std::max(peak, std::abs(c.data[i]));
      worst = std::max(worst, std::abs(g.data[i] - c.data[i]));
    }
    EXPECT_LE(worst, 1e-5f * peak) << f->description;
  }
}

TEST_F(ArParity, SpectraMatchForEveryOutputDetrendAndOrder) {
  const SignalBlock in = arBlock(24, 4000, 512.0, seed_);
  for (int order : {1, 2, 16, 30, 64}) {
    for (ArDetrend d : {ArDetrend::None, ArDetrend::Mean, ArDetrend::Linear}) {
      for (ArOutput o : {ArOutput::Power, ArOutput::Amplitude, ArOutput::Coefficients}) {
        const BurgArParams p = params(order, order == 64 ? 1200 : 256, 100, d, o);
        JobContext ctx;
        const ArSpectrumResult g = gpu_->arSpectra(in, p, ctx);
        const ArSpectrumResult c = cpu_->arSpectra(in, p, ctx);
        const double bound = o == ArOutput::Coefficients ? 1e-3 : 3e-4;
        expectSpectraMatch(g, c, bound,
                           "order " + std::to_string(order) + ", detrend " + arDetrendName(d) +
                               ", " + arOutputName(o));
        EXPECT_EQ(g.diagnostics.size(), c.diagnostics.size());
      }
    }
  }
}

TEST_F(ArParity, PresetsOnTheSeedsBlockShape) {
  // The seed's shape: 1200-sample windows at 4800 Hz (250 ms), and BCI2000's 0.5 s at 512 Hz.
  for (const char* preset : {"wilson2009", "bci2000"}) {
    const double fs = std::string(preset) == "wilson2009" ? 4800.0 : 512.0;
    const BurgArParams p = burgArPreset(preset);
    const SignalBlock in = arBlock(64, static_cast<int64_t>(fs), fs, seed_ + 1);
    JobContext ctx;
    expectSpectraMatch(gpu_->arSpectra(in, p, ctx), cpu_->arSpectra(in, p, ctx), 1e-3, preset);
  }
}

TEST_F(ArParity, FilteredSpectraMatchTheCpuChain) {
  const SignalBlock in = arBlock(32, 2048, 256.0, seed_ + 2);
  std::vector<ChannelInfo> channels(40);
  std::vector<std::size_t> selection;
  for (std::size_t c = 3; c < 35; ++c) selection.push_back(c);
  const SpatialFilter car = commonAverageReference(channels, selection);
  const BurgArParams p = params(16, 128, 64, ArDetrend::Mean, ArOutput::Power);
  JobContext ctx;
  expectSpectraMatch(gpu_->filteredArSpectra(&car, in, p, ctx),
                     cpu_->filteredArSpectra(&car, in, p, ctx), 1e-3, "CAR then AR");
}

TEST_F(ArParity, LongWindowsUseTheGlobalScratch) {
  // 40,000 samples need 320 kB per warp, above any device's shared memory per block.
  const SignalBlock in = arBlock(3, 45000, 1000.0, seed_ + 3);
  const BurgArParams p = params(8, 40000, 2500, ArDetrend::Linear, ArOutput::Power);
  JobContext ctx;
  expectSpectraMatch(gpu_->arSpectra(in, p, ctx), cpu_->arSpectra(in, p, ctx), 1e-3,
                     "40000-sample windows");
}

TEST_F(ArParity, ManyWindowsSpanSeveralLaunches) {
  // 3 x 29,937 windows: more than one launch's 65,536 windows, so rows go in several launches.
  const SignalBlock in = arBlock(3, 30000, 256.0, seed_ + 4);
  const BurgArParams p = params(4, 64, 1, ArDetrend::None, ArOutput::Power);
  JobContext ctx;
  expectSpectraMatch(gpu_->arSpectra(in, p, ctx), cpu_->arSpectra(in, p, ctx), 1e-3,
                     "89,811 windows");
}

TEST_F(ArParity, FlatChannelsGiveZerosAndTheSameDiagnostics) {
  SignalBlock in = arBlock(4, 1024, 256.0, seed_ + 5);
  std::fill_n(in.channel(1), in.samples, 7.25f);  // flat all along
  std::fill_n(in.channel(3) + 300, 600, -3.0f);   // flat in some windows
  const BurgArParams p = params(16, 128, 64, ArDetrend::None, ArOutput::Power);
  JobContext ctx;
  const ArSpectrumResult g = gpu_->arSpectra(in, p, ctx), c = cpu_->arSpectra(in, p, ctx);
  expectSpectraMatch(g, c, 1e-3, "flat channels");
  ASSERT_EQ(g.diagnostics.size(), c.diagnostics.size());
  for (std::size_t i = 0; i < c.diagnostics.size(); ++i) {
    EXPECT_EQ(g.diagnostics[i].code, c.diagnostics[i].code);
    EXPECT_EQ(g.diagnostics[i].message, c.diagnostics[i].message);
  }
  for (std::size_t w = 0; w < g.windowCount(); ++w)
    for (std::size_t k = 0; k < g.valuesPerWindow(); ++k) EXPECT_EQ(g.row(1, w)[k], 0.0f);
}

TEST_F(ArParity, RejectsWhatTheCpuRejects) {
  SignalBlock in = arBlock(3, 600, 256.0, seed_ + 6);
  in.channel(2)[417] = std::numeric_limits<float>::quiet_NaN();
  const BurgArParams p = params(16, 128, 64, ArDetrend::None, ArOutput::Power);
  auto message = [&](ComputeBackend& b, const SignalBlock& blk, const BurgArParams& q) {
    try {
      JobContext ctx;
      b.arSpectra(blk, q, ctx);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message(*gpu_, in, p), message(*cpu_, in, p));
  EXPECT_NE(message(*gpu_, in, p).find("NaN"), std::string::npos);
  in.channel(2)[417] = 0.0f;
  EXPECT_EQ(message(*gpu_, in, params(65, 128, 64, ArDetrend::None, ArOutput::Power)),
            message(*cpu_, in, params(65, 128, 64, ArDetrend::None, ArOutput::Power)));
  EXPECT_EQ(message(*gpu_, in, params(16, 700, 64, ArDetrend::None, ArOutput::Power)),
            message(*cpu_, in, params(16, 700, 64, ArDetrend::None, ArOutput::Power)));
}

TEST_F(ArParity, EventR2OnTheDemoRecordingMatches) {
  // The whole feature chain on real EEG: T1 vs T2 of PhysioNet S001R03, CAR, BCI2000 preset.
  const auto rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  std::vector<std::size_t> all(rec->channels.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  EventFeatureOptions o;
  auto car = std::make_shared<SpatialFilter>(commonAverageReference(rec->channels, all));
  o.spatialFilter = car;
  JobContext ctx;
  const BurgArParams p = burgArPreset("bci2000");
  const EventR2Result g = computeEventR2(*rec, all, "T1", "T2", p, o, *gpu_, ctx);
  const EventR2Result c = computeEventR2(*rec, all, "T1", "T2", p, o, *cpu_, ctx);
  ASSERT_EQ(g.r2.size(), c.r2.size());
  double worst = 0;
  for (std::size_t i = 0; i < c.r2.size(); ++i)
    worst = std::max(worst, std::abs(g.r2[i] - c.r2[i]));
  std::printf("[ parity   ] demo T1 vs T2 r^2: largest difference %.3g\n", worst);
  // r^2 is a smooth function of band powers that agree to 1e-3 relative: 1e-3 absolute.
  EXPECT_LE(worst, 1e-3);
}

}  // namespace
}  // namespace modescope
