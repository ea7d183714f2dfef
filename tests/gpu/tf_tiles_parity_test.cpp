// The streamed time-frequency transform on the GPU (ComputeBackend::timeFrequencyTiles,
// cuda/tf_gpu.cpp) against the GPU's whole image (the same kernels: equal values) and the CPU's
// streamed twin (engine/tf/tf_tiles.cpp), with chunks that cross channels and many small tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "engine/core/error.h"
#include "gpu_test_support.h"

namespace modescope {
namespace {

SignalBlock noisyTones(std::size_t channels, int n) {
  SignalBlock b;
  b.sampleRate = 512.0;
  b.samples = n;
  for (std::size_t c = 0; c < channels; ++c) {
    b.channels.push_back(c);
    for (int i = 0; i < n; ++i)
      b.data.push_back(static_cast<float>(std::sin(0.13 * (c + 1) * i + 1e-6 * i * i) +
                                          0.2 * std::sin(1.7 * i + c)));
  }
  return b;
}

class TfTilesParity : public gpu_test::ParityTest {
 protected:
  // The streamed image in the whole image's layout (tiles arrive channel by channel, columns
  // increasing), and whether they did arrive so.
  struct Streamed {
    TfResult shape;
    std::vector<std::complex<float>> values;
    std::vector<float> magnitude;
    int64_t columns = 0;  // over all channels
    bool ordered = true;
  };
  static Streamed stream(ComputeBackend& be, const SignalBlock& b, const TfParams& p,
                         TfTileValues kind) {
    Streamed s;
    JobContext ctx;
    std::size_t channel = 0;
    int64_t next = 0;
    s.shape = be.timeFrequencyTiles(
        b, p, kind,
        [&](const TfTile& t) {
          if (t.channel != channel) {
            s.ordered = s.ordered && t.channel == channel + 1;
            channel = t.channel;
            next = 0;
          }
          s.ordered = s.ordered && t.firstColumn == next;
          next = t.firstColumn + t.columns;
          const std::size_t count = static_cast<std::size_t>(t.columns) * t.bins;
          if (t.values) s.values.insert(s.values.end(), t.values, t.values + count);
          if (t.magnitude) s.magnitude.insert(s.magnitude.end(), t.magnitude, t.magnitude + count);
          s.columns += t.columns;
        },
        ctx);
    return s;
  }
};

TEST_F(TfTilesParity, ComplexTilesAreTheWholeImageAcrossChunksAndChannels) {
  // 3 x 20,000 columns of 257 bins: a 32 MiB staging chunk holds 16,320 columns, so chunks
  // end inside channels and span channel boundaries.
  const SignalBlock b = noisyTones(3, 20000);
  for (TfOrder o : {TfOrder::Spectrogram, TfOrder::Third}) {
    TfParams p;
    p.order = o;
    p.windowLength = 256;
    p.fftLength = 512;
    JobContext ctx;
    const TfResult whole = gpu_->timeFrequency(b, p, ctx);
    const Streamed s = stream(*gpu_, b, p, TfTileValues::Complex);
    EXPECT_TRUE(s.ordered);
    EXPECT_EQ(s.columns, 3 * whole.columns);
    EXPECT_EQ(s.values, whole.values) << tfOrderName(o);
    EXPECT_TRUE(s.shape.values.empty());
    EXPECT_EQ(s.shape.columns, whole.columns);
  }
}

TEST_F(TfTilesParity, MagnitudesAreTheWholeImagesAndTheCpusOverManySmallTiles) {
  const SignalBlock b = noisyTones(2, 6000);
  TfParams p;
  p.order = TfOrder::Spectrogram;
  p.windowLength = 128;
  p.fftLength = 256;
  p.maxFrequency = 200;
  JobContext ctx;
  // About 40 frames per tile: hundreds of tiles, each smaller than a staging chunk. The whole
  // image is made with the same tiles: cuFFT's rounding may depend on the batch, which moves the
  // smallest values by more than their own rounding (the CPU comparison below bounds it).
  gpu_test::setHooks(true, 40 * 256);
  const TfResult whole = gpu_->timeFrequency(b, p, ctx);
  const Streamed g = stream(*gpu_, b, p, TfTileValues::Magnitude);
  gpu_test::setHooks(true);
  const Streamed c = stream(*cpu_, b, p, TfTileValues::Magnitude);
  EXPECT_TRUE(g.ordered);
  ASSERT_EQ(g.magnitude.size(), whole.values.size());
  ASSERT_EQ(c.magnitude.size(), whole.values.size());
  float peak = 0;
  for (float v : c.magnitude) peak = std::max(peak, v);
  double worstWhole = 0, worstCpu = 0;
  for (std::size_t i = 0; i < whole.values.size(); ++i) {
    const float re = whole.values[i].real(), im = whole.values[i].imag();
    const float m = std::sqrt(re * re + im * im);
    // The device may fuse re*re + im*im into one rounding: a few units in the last place.
    worstWhole = std::max(worstWhole, std::fabs(double(g.magnitude[i]) - m) / (m + 1e-30));
    worstCpu = std::max(worstCpu, std::fabs(double(g.magnitude[i]) - c.magnitude[i]) / peak);
  }
  EXPECT_LT(worstWhole, 1e-6);
  EXPECT_LT(worstCpu, 1e-4);  // float against double: as StftAgreesToFloatRounding
}

TEST_F(TfTilesParity, WhatTheSinkThrowsStopsTheDeviceRun) {
  const SignalBlock b = noisyTones(2, 40000);
  TfParams p;
  p.windowLength = 256;
  p.fftLength = 512;
  JobContext ctx;
  int calls = 0;
  EXPECT_THROW(gpu_->timeFrequencyTiles(
                   b, p, TfTileValues::Magnitude,
                   [&](const TfTile&) {
                     if (++calls == 2) throw Cancelled();
                   },
                   ctx),
               Cancelled);
  EXPECT_EQ(calls, 2);
  // The workspace is usable after the interrupted run.
  const TfResult again = gpu_->timeFrequency(b, p, ctx);
  EXPECT_EQ(again.channels.size(), 2u);
}

}  // namespace
}  // namespace modescope
