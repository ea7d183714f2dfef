// CUDA time-frequency transforms (ComputeBackend::timeFrequency on the GPU, float32) against the
// CPU's double reference on the same blocks.
//
// The STFT itself (order 0) must agree to float rounding everywhere. Squeezed images can differ
// where an estimate lies within float rounding of a bin boundary (the value then lands one row
// over), so they are compared through what does not depend on that: each column's sum (the
// reconstruction, RQF against the CPU's), the share of rows that differ, and the oracles (tone on
// its bin, RQF >= 45 dB against the signal, lower Renyi entropy). The GPU must be deterministic
// (no global atomics): two runs, and runs split into many tiles, are bit for bit equal.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/tf/tf_analysis.h"
#include "engine/tf/tf_cpu.h"
#include "gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include <complex>

#include "cuda/cuda_tf.h"
#endif

namespace modescope {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRate = 512.0;

class TfParity : public gpu_test::ParityTest {
 protected:
  TfResult onGpu(const SignalBlock& b, const TfParams& p) {
    JobContext ctx;
    return gpu_->timeFrequency(b, p, ctx);
  }
  TfResult onCpu(const SignalBlock& b, const TfParams& p) {
    JobContext ctx;
    return cpu_->timeFrequency(b, p, ctx);
  }
};

// Channels of a tone, a chirp and noise, tapered at the ends (as a pulse).
SignalBlock eegLike(std::size_t channels, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.05);
  SignalBlock b;
  b.sampleRate = kRate;
  b.samples = n;
  for (std::size_t c = 0; c < channels; ++c) {
    b.channels.push_back(c);
    const double f1 = 8.0 + 3.0 * c, f2 = 40.0 + 5.0 * c;
    for (int i = 0; i < n; ++i) {
      const double t = i / kRate, edge = 128;
      const double taper = i < edge           ? 0.5 - 0.5 * std::cos(kPi * i / edge)
                           : i > n - 1 - edge ? 0.5 - 0.5 * std::cos(kPi * (n - 1 - i) / edge)
                                              : 1.0;
      b.data.push_back(static_cast<float>(
          taper * (std::sin(2 * kPi * f1 * t) + 0.5 * std::cos(2 * kPi * (f2 * t + 4.0 * t * t)) +
                   noise(rng))));
    }
  }
  return b;
}

TfParams params(TfOrder order) {
  TfParams p;
  p.order = order;
  p.windowLength = 256;
  p.fftLength = 512;
  p.threshold = 1e-3;
  return p;
}

const TfOrder kOrders[] = {TfOrder::Spectrogram, TfOrder::First,          TfOrder::Second,
                           TfOrder::Third,       TfOrder::ThirdCanonical, TfOrder::Fourth};

TEST_F(TfParity, StftAgreesToFloatRounding) {
  const SignalBlock b = eegLike(3, 4096, seed_);
  for (TfWindow w : {TfWindow::Gaussian, TfWindow::Hann, TfWindow::Hamming}) {
    TfParams p = params(TfOrder::Spectrogram);
    p.window = w;
    const TfResult g = onGpu(b, p), c = onCpu(b, p);
    ASSERT_EQ(g.values.size(), c.values.size());
    float peak = 0.0f;
    for (const auto& v : c.values) peak = std::max(peak, std::abs(v));
    for (std::size_t i = 0; i < c.values.size(); ++i)
      ASSERT_LT(std::abs(g.values[i] - c.values[i]), 1e-5f * peak)
          << tfWindowName(w) << " element " << i;
  }
}

TEST_F(TfParity, SqueezedImagesAgreeWithTheCpu) {
  const SignalBlock b = eegLike(3, 4096, seed_);
  for (TfOrder o : kOrders) {
    const TfResult g = onGpu(b, params(o)), c = onCpu(b, params(o));
    ASSERT_EQ(g.values.size(), c.values.size());
    for (std::size_t ch = 0; ch < 3; ++ch) {
      const std::vector<double> x(b.channel(ch), b.channel(ch) + b.samples);
      const double gpuRqf = tfReconstructionQuality(x, tfReconstruct(g, ch));
      EXPECT_GE(gpuRqf, 45.0) << "order " << tfOrderName(o) << " channel " << ch;
      EXPECT_GT(tfReconstructionQuality(tfReconstruct(c, ch), tfReconstruct(g, ch)), 50.0)
          << "order " << tfOrderName(o) << " channel " << ch;
      if (o != TfOrder::Spectrogram) {
        EXPECT_LT(tfRenyiEntropy(g, ch), tfRenyiEntropy(onGpu(b, params(TfOrder::Spectrogram)), ch))
            << "order " << tfOrderName(o);
      }
    }
    // Rows that differ by more than 1 % of the column's peak: only boundary cases.
    std::size_t differing = 0;
    const std::size_t K = static_cast<std::size_t>(c.bins);
    for (std::size_t col = 0; col < c.values.size() / K; ++col) {
      float peak = 0.0f;
      for (std::size_t k = 0; k < K; ++k) peak = std::max(peak, std::abs(c.values[col * K + k]));
      for (std::size_t k = 0; k < K; ++k)
        if (std::abs(g.values[col * K + k] - c.values[col * K + k]) > 0.01f * peak) ++differing;
    }
    EXPECT_LT(static_cast<double>(differing), 0.01 * static_cast<double>(c.values.size()))
        << "order " << tfOrderName(o);
  }
}

TEST_F(TfParity, OffBinTonePeaksOnItsBinEveryOrder) {
  SignalBlock b;
  b.channels = {0};
  b.sampleRate = kRate;
  b.samples = 2048;
  const double f0 = 61.3;  // bin 61.3 at N = 512, fs = 512
  for (int i = 0; i < 2048; ++i)
    b.data.push_back(static_cast<float>(std::cos(2 * kPi * f0 * i / kRate)));
  for (TfOrder o : kOrders) {
    if (o == TfOrder::Spectrogram) continue;
    const TfResult g = onGpu(b, params(o));
    for (int64_t t : {400, 1000, 1600}) {
      int best = 0;
      for (int k = 1; k < g.bins; ++k)
        if (std::norm(g.column(0, t)[k]) > std::norm(g.column(0, t)[best])) best = k;
      EXPECT_EQ(best, 61) << "order " << tfOrderName(o) << " column " << t;
    }
  }
}

TEST_F(TfParity, DeterministicAndTileIndependent) {
  const SignalBlock b = eegLike(4, 3000, seed_);
  TfParams p = params(TfOrder::Fourth);
  p.hop = 3;
  p.minFrequency = 5;
  p.maxFrequency = 80;
  const TfResult one = onGpu(b, p), two = onGpu(b, p);
  EXPECT_EQ(one.values, two.values);
  // About 7 frames per tile: hundreds of tiles, the last one partial.
  gpu_test::setHooks(true, 7 * 17 * 512);
  const TfResult tiled = onGpu(b, p);
  gpu_test::setHooks(true);
  EXPECT_EQ(one.values, tiled.values);
}

TEST_F(TfParity, ALongFftSqueezesThroughGlobalMemoryAsTheCpuDoes) {
  // FFT 32768: a frame's targets, source lists and row offsets (2 x 16385 + 2 x 16385 + 1 ints,
  // 256 KiB) exceed the shared memory of an H100/H200 block (227 KiB), so the squeeze keeps them
  // in global scratch.
  const SignalBlock b = eegLike(1, 40000, seed_);
  TfParams p = params(TfOrder::Third);
  p.fftLength = 32768;
  p.windowLength = 2048;
  p.hop = 256;
  const TfResult g = onGpu(b, p), c = onCpu(b, p), again = onGpu(b, p);
  EXPECT_EQ(g.values, again.values);
  ASSERT_EQ(g.values.size(), c.values.size());
  const std::size_t K = static_cast<std::size_t>(c.bins);
  std::size_t differing = 0;
  for (std::size_t col = 0; col < c.values.size() / K; ++col) {
    float peak = 0.0f;
    for (std::size_t k = 0; k < K; ++k) peak = std::max(peak, std::abs(c.values[col * K + k]));
    for (std::size_t k = 0; k < K; ++k)
      if (std::abs(g.values[col * K + k] - c.values[col * K + k]) > 0.01f * peak) ++differing;
  }
  EXPECT_LT(static_cast<double>(differing), 0.01 * static_cast<double>(c.values.size()));
}

TEST_F(TfParity, AReusedWorkspaceGivesWhatAFreshOneGives) {
  // The backend keeps its plan and buffers between calls (cuda_tf.h): changing the order, the
  // FFT length, the hop and the channel count in turn must not leave anything of the last call.
  const SignalBlock four = eegLike(4, 3000, seed_), one = eegLike(1, 2000, seed_ + 1);
  TfParams a = params(TfOrder::Fourth);
  TfParams b = params(TfOrder::Second);
  b.fftLength = 256;
  b.windowLength = 128;
  b.hop = 5;
  const TfResult first = onGpu(four, a);
  const TfResult other = onGpu(one, b);
  const TfResult again = onGpu(four, a);
  EXPECT_EQ(first.values, again.values);
  std::string reason;
  std::unique_ptr<ComputeBackend> fresh = gpu_test::gpuBackend(reason);
  ASSERT_TRUE(fresh) << reason;
  JobContext ctx;
  EXPECT_EQ(other.values, fresh->timeFrequency(one, b, ctx).values);
}

#ifdef MODESCOPE_HAVE_CUDA
TEST_F(TfParity, TheImageLeftOnTheDeviceIsTheHostImage) {
  const SignalBlock b = eegLike(3, 2500, seed_);
  for (TfOrder o : {TfOrder::Spectrogram, TfOrder::Third}) {
    TfParams p = params(o);
    p.hop = 2;
    p.maxFrequency = 100;
    const TfResult host = onGpu(b, p);
    cuda::TfWorkspacePtr ws = cuda::makeTfWorkspace();
    JobContext ctx;
    TfResult shape;
    const std::complex<float>* image = cuda::timeFrequencyGpuOnDevice(b, p, ctx, *ws, shape);
    ASSERT_NE(image, nullptr);
    EXPECT_TRUE(shape.values.empty());
    EXPECT_EQ(shape.columns, host.columns);
    EXPECT_EQ(shape.bins, host.bins);
    std::vector<std::complex<float>> back(host.values.size());
    cuda::copyTfImageToHost(image, back.size(), back.data());
    EXPECT_EQ(back, host.values) << tfOrderName(o);
  }
}
#endif

TEST_F(TfParity, RefusesWhatTheCpuRefuses) {
  const SignalBlock b = eegLike(1, 1024, seed_);
  TfParams p = params(TfOrder::Third);
  p.maxFrequency = 300;  // above 256 Hz
  EXPECT_THROW(onGpu(b, p), InvalidParameterError);
  SignalBlock bad = b;
  bad.data[10] = std::nanf("");
  EXPECT_THROW(onGpu(bad, params(TfOrder::Third)), InvalidInputError);
  std::stop_source stop;
  stop.request_stop();
  JobContext cancelled(stop.get_token(), {});
  EXPECT_THROW(gpu_->timeFrequency(b, params(TfOrder::Third), cancelled), Cancelled);
}

}  // namespace
}  // namespace modescope
