// The GPU AR stream (ComputeBackend::openArStream on the CUDA backend) against the CPU stream,
// push by push: the same blocks, with and without a spatial filter, block lengths that do and do
// not divide the window, a block longer than the window, reset, and a NaN. Tolerances as in
// ar_parity_test.cpp (bins 3e-4 relative to the bin or 1e-3 of the row's peak).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/ar/ar_stream.h"
#include "engine/core/error.h"
#include "engine/spatial/spatial_filter.h"
#include "gpu_test_support.h"

namespace modescope {
namespace {

class ArStreamParity : public gpu_test::ParityTest {};

// rows x samples of AR(2)-coloured noise at 10 Hz (fs 160) with offsets.
std::vector<float> signal(std::size_t rows, int64_t samples, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<float> x(rows * static_cast<std::size_t>(samples));
  const double w = 2 * 3.14159265358979 * 10.0 / 160.0, a1 = 2 * 0.95 * std::cos(w),
               a2 = -0.95 * 0.95;
  for (std::size_t r = 0; r < rows; ++r) {
    double x1 = 0, x2 = 0;
    for (int64_t t = 0; t < samples; ++t) {
      const double v = a1 * x1 + a2 * x2 + g(rng);
      x2 = x1;
      x1 = v;
      x[r * samples + t] = static_cast<float>(v + 10.0 * static_cast<double>(r % 4));
    }
  }
  return x;
}

// Rows [0, rows) x columns [first, first + count) of a rows x total matrix.
std::vector<float> columns(const std::vector<float>& x, std::size_t rows, int64_t total,
                           int64_t first, int64_t count) {
  std::vector<float> out(rows * static_cast<std::size_t>(count));
  for (std::size_t r = 0; r < rows; ++r)
    std::copy_n(x.data() + r * total + first, count, out.data() + r * count);
  return out;
}

void expectUpdatesMatch(const ArStreamUpdate& g, const ArStreamUpdate& c, std::size_t bins,
                        const std::string& what) {
  ASSERT_EQ(g.ready, c.ready) << what;
  EXPECT_EQ(g.pushedSamples, c.pushedSamples) << what;
  if (!c.ready) return;
  ASSERT_EQ(g.values.size(), c.values.size()) << what;
  EXPECT_EQ(g.flatOutputs, c.flatOutputs) << what;
  for (std::size_t o = 0; o < c.values.size() / bins; ++o) {
    const float* cv = c.values.data() + o * bins;
    const float peak = *std::max_element(cv, cv + bins);
    for (std::size_t b = 0; b < bins; ++b) {
      const double scale = std::max(std::abs(static_cast<double>(cv[b])), 1e-3 * peak);
      EXPECT_LE(std::abs(g.values[o * bins + b] - cv[b]) / scale, 3e-4)
          << what << " output " << o << " bin " << b;
    }
  }
}

ArStreamConfig config(std::shared_ptr<const SpatialFilter> f, std::size_t channels) {
  ArStreamConfig c;
  c.filter = std::move(f);
  c.channels = channels;
  c.params = burgArPreset("bci2000");  // 0.5 s = 80 samples at 160 Hz, order 16
  c.sampleRate = 160.0;
  return c;
}

TEST_F(ArStreamParity, PushByPushWithAndWithoutAFilter) {
  const std::size_t rows = 12;
  const int64_t total = 1000;
  const std::vector<float> x = signal(rows, total, seed_);
  std::vector<ChannelInfo> channels(rows);
  std::vector<std::size_t> all(rows);
  for (std::size_t c = 0; c < rows; ++c) all[c] = c;
  auto car = std::make_shared<SpatialFilter>(commonAverageReference(channels, all));
  for (const auto& f :
       {std::shared_ptr<const SpatialFilter>(), std::shared_ptr<const SpatialFilter>(car)}) {
    for (int64_t block : {8, 13, 100}) {  // divides 80, does not, longer than the window
      const auto g = gpu_->openArStream(config(f, rows));
      const auto c = cpu_->openArStream(config(f, rows));
      for (int64_t t = 0; t + block <= total; t += block) {
        const std::vector<float> piece = columns(x, rows, total, t, block);
        expectUpdatesMatch(g->push(piece.data(), block), c->push(piece.data(), block),
                           g->binCount(),
                           std::string(f ? "CAR" : "no filter") + ", blocks of " +
                               std::to_string(block) + " at " + std::to_string(t));
      }
    }
  }
}

TEST_F(ArStreamParity, ResetAndNonFiniteSamples) {
  const std::size_t rows = 4;
  const std::vector<float> x = signal(rows, 200, seed_ + 1);
  const auto g = gpu_->openArStream(config(nullptr, rows));
  const auto c = cpu_->openArStream(config(nullptr, rows));
  std::vector<float> piece = columns(x, rows, 200, 0, 100);
  expectUpdatesMatch(g->push(piece.data(), 100), c->push(piece.data(), 100), g->binCount(),
                     "first");
  g->reset();
  c->reset();
  piece = columns(x, rows, 200, 100, 40);
  const ArStreamUpdate afterReset = g->push(piece.data(), 40);
  EXPECT_FALSE(afterReset.ready);
  EXPECT_EQ(afterReset.pushedSamples, 40);
  c->push(piece.data(), 40);
  piece[2 * 40 + 17] = std::numeric_limits<float>::quiet_NaN();
  std::string gm, cm;
  try {
    g->push(piece.data(), 40);
  } catch (const InvalidInputError& e) {
    gm = e.what();
  }
  try {
    c->push(piece.data(), 40);
  } catch (const InvalidInputError& e) {
    cm = e.what();
  }
  EXPECT_NE(gm.find("NaN"), std::string::npos) << gm;
  EXPECT_NE(gm.find("sample 17 of the pushed block"), std::string::npos) << gm;
  EXPECT_EQ(gm, cm);
  // After the error both start a fresh window.
  piece = columns(x, rows, 200, 0, 100);
  expectUpdatesMatch(g->push(piece.data(), 100), c->push(piece.data(), 100), g->binCount(),
                     "after the NaN");
}

}  // namespace
}  // namespace modescope
