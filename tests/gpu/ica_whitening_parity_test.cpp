// The Infomax whitening on the device (cuda/ica_whitening_gpu.h) against its CPU twins
// (icaChannelMoments, icaSpheredData in engine/ica/infomax.h). Both compute in double from the
// same float samples and differ only in the order of their sums, so the moments agree to a few
// units in the last place of a double, and the sphered floats are the CPU's doubles rounded to
// float (or TF32) except where a double lies within that difference of a rounding midpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "engine/ica/infomax.h"
#include "gpu_test_support.h"

namespace modescope {
namespace {

class IcaWhiteningParity : public gpu_test::ParityTest {};

// Channels with large offsets (so centring matters: EEG often sits on a DC offset of millivolts)
// and correlated noise; `samples` spans several device chunks of 65,536 with a partial last one.
SignalBlock offsetChannels(int channels, int64_t samples, unsigned seed) {
  SignalBlock b;
  b.samples = samples;
  b.sampleRate = 256;
  for (int ch = 0; ch < channels; ++ch) b.channels.push_back(static_cast<std::size_t>(ch));
  b.data.resize(static_cast<std::size_t>(channels) * static_cast<std::size_t>(samples));
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.f, 1.f);
  std::uniform_real_distribution<float> offset(-2000.f, 2000.f);
  std::vector<float> common(static_cast<std::size_t>(samples));
  for (float& x : common) x = noise(rng);
  for (int ch = 0; ch < channels; ++ch) {
    const float dc = offset(rng), gain = 0.5f + 0.1f * static_cast<float>(ch % 7);
    float* x = b.channel(static_cast<std::size_t>(ch));
    for (int64_t t = 0; t < samples; ++t)
      x[t] = dc + 20.f * noise(rng) + 30.f * gain * common[static_cast<std::size_t>(t)];
  }
  return b;
}

double maxAbs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

#ifdef MODESCOPE_HAVE_CUDA

TEST_F(IcaWhiteningParity, DeviceMeansAndCovarianceMatchTheCpu) {
  const SignalBlock b = offsetChannels(70, 150001, seed_);
  const IcaChannelMoments cpu = icaChannelMoments(b, 2);
  std::vector<double> mean, covariance;
  cudaIcaMoments(b, mean, covariance);
  ASSERT_EQ(mean.size(), cpu.mean.size());
  ASSERT_EQ(covariance.size(), cpu.covariance.size());
  for (std::size_t ch = 0; ch < mean.size(); ++ch)
    EXPECT_NEAR(mean[ch], cpu.mean[ch], 1e-12 * std::max(1.0, std::abs(cpu.mean[ch])))
        << "channel " << ch;
  const double scale = maxAbs(cpu.covariance);
  ASSERT_GT(scale, 100.0);  // the data do vary: the comparison is not of zeros
  double worst = 0;
  for (std::size_t i = 0; i < covariance.size(); ++i)
    worst = std::max(worst, std::abs(covariance[i] - cpu.covariance[i]));
  EXPECT_LT(worst, 1e-11 * scale);
  // Symmetric, as the CPU's.
  const std::size_t c = mean.size();
  for (std::size_t i = 0; i < c; ++i)
    for (std::size_t j = 0; j < i; ++j) ASSERT_EQ(covariance[i * c + j], covariance[j * c + i]);
}

// A sphere of r < C rows (a PCA reduction), so the product's shape is not square.
std::vector<double> someSphere(int r, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0.0, 0.05);
  std::vector<double> s(static_cast<std::size_t>(r) * static_cast<std::size_t>(c));
  for (double& x : s) x = d(rng);
  return s;
}

TEST_F(IcaWhiteningParity, DeviceSpheringMatchesTheCpuInFloatAndTf32) {
  const int c = 70, r = 50;
  const int64_t n = 150001;
  const SignalBlock b = offsetChannels(c, n, seed_);
  const IcaChannelMoments m = icaChannelMoments(b, 2);
  const std::vector<double> sphere = someSphere(r, c, seed_ + 1);
  const std::vector<double> cpu = icaSpheredData(b, m.mean, sphere, r, 2);  // r x n
  // Both sides sum C double products in their own order, so they may differ by C rounding
  // steps of the products' magnitudes: where the sum cancels to near zero (seed 3474428954,
  // H200), that is more than a float step of the result. The allowance below is that bound.
  std::vector<double> magnitude(cpu.size(), 0.0);
  const auto rows = static_cast<std::size_t>(r);
  for (std::size_t ch = 0; ch < static_cast<std::size_t>(c); ++ch) {
    const float* x = b.channel(ch);
    for (std::size_t t = 0; t < static_cast<std::size_t>(n); ++t) {
      const double centred = std::abs(static_cast<double>(x[t]) - m.mean[ch]);
      for (std::size_t i = 0; i < rows; ++i)
        magnitude[t * rows + i] += std::abs(sphere[ch * rows + i]) * centred;
    }
  }
  const double productRounding = c * std::ldexp(1.0, -52);
  for (bool tf32 : {false, true}) {
    SCOPED_TRACE(tf32 ? "TF32" : "float");
    const std::vector<float> gpu = cudaIcaSphered(b, m.mean, sphere, r, tf32);  // n x r
    ASSERT_EQ(gpu.size(), cpu.size());
    int64_t exact = 0, bad = 0;
    // A TF32 value keeps 10 of float's 23 mantissa bits: its spacing is 2^13 float ulps.
    const double spacing = tf32 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -23);
    for (std::size_t k = 0; k < cpu.size(); ++k) {
      const float g = gpu[k];
      const double want = cpu[k];
      std::uint32_t bits;
      std::memcpy(&bits, &g, sizeof bits);
      if (tf32 && (bits & 0x1fffu) != 0) ++bad;  // not a TF32 value
      if (!(std::abs(g - want) <= spacing * std::abs(want) + productRounding * magnitude[k])) ++bad;
      if (!tf32 && g == static_cast<float>(want)) ++exact;
    }
    EXPECT_EQ(bad, 0);
    if (!tf32) {
      EXPECT_GT(exact, static_cast<int64_t>(0.999 * static_cast<double>(cpu.size())));
    }
  }
}

#else

TEST_F(IcaWhiteningParity, DeviceMeansAndCovarianceMatchTheCpu) {}
TEST_F(IcaWhiteningParity, DeviceSpheringMatchesTheCpuInFloatAndTf32) {}

#endif

}  // namespace
}  // namespace modescope
