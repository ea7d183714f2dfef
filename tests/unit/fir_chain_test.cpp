// Display filter chains (engine/dsp/fir_chain.h): the chain's kernel is the convolution of its
// filters' kernels, so its gain in dB is the sum of theirs at every frequency; a 0.5 Hz
// high-pass + 40 Hz low-pass + 50 Hz notch at 250 Hz passes 10 Hz and stops 0.05, 50 and 100 Hz;
// the kernel stays odd and symmetric; a filter that does not fit the rate is named.
#include "engine/dsp/fir_chain.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"

namespace modescope {
namespace {

FilterSpec highPass(double hz) {
  FilterSpec f;
  f.kind = FilterKind::HighPass;
  f.lowHz = hz;
  return f;
}
FilterSpec lowPass(double hz) {
  FilterSpec f;
  f.kind = FilterKind::LowPass;
  f.highHz = hz;
  return f;
}
FilterSpec notch(double hz) {
  FilterSpec f;
  f.kind = FilterKind::Notch;
  f.notchHz = hz;
  return f;
}

TEST(FirChain, GainIsTheSumOfTheFiltersGains) {
  const double fs = 250.0;
  const std::vector<FilterSpec> chain = {highPass(0.5), lowPass(40.0), notch(50.0)};
  const FirKernel k = designFirChain(chain, fs);
  std::size_t taps = 0;
  std::vector<double> f = {0.05, 1.0, 5.0, 10.0, 20.0, 30.0, 45.0, 50.0, 60.0, 100.0, 120.0};
  std::vector<double> sum(f.size(), 0.0);
  for (const FilterSpec& s : chain) {
    const FirKernel one = designFir(s, fs);
    taps += one.taps.size() - 1;
    const auto g = firGainDb(one, f);
    for (std::size_t i = 0; i < f.size(); ++i) sum[i] += g[i];
  }
  ASSERT_EQ(k.taps.size(), taps + 1);  // full convolution length
  const auto g = firGainDb(k, f);
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (sum[i] > -150) {
      EXPECT_NEAR(g[i], sum[i], 1e-6) << f[i] << " Hz";
    }
  }
  // What the chain is for.
  EXPECT_NEAR(g[3], 0.0, 0.1);  // 10 Hz passes
  EXPECT_NEAR(g[2], 0.0, 0.1);  // 5 Hz passes
  EXPECT_LT(g[0], -20.0);       // 0.05 Hz (drift) is stopped
  EXPECT_LT(g[7], -40.0);       // 50 Hz mains
  EXPECT_LT(g[9], -40.0);       // 100 Hz
  // Odd length, symmetric: zero phase about the centre.
  ASSERT_EQ(k.taps.size() % 2, 1u);
  for (std::size_t i = 0; i < k.taps.size() / 2; ++i)
    EXPECT_NEAR(k.taps[i], k.taps[k.taps.size() - 1 - i], 1e-15);
  EXPECT_NE(k.description.find("high-pass"), std::string::npos) << k.description;
  EXPECT_NE(k.description.find(" + "), std::string::npos);
}

TEST(FirChain, OneFilterIsThatFilter) {
  const FirKernel a = designFirChain({lowPass(30.0)}, 200.0);
  const FirKernel b = designFir(lowPass(30.0), 200.0);
  EXPECT_EQ(a.taps, b.taps);
}

TEST(FirChain, BadChainsAreRefused) {
  EXPECT_THROW(designFirChain({}, 250.0), InvalidParameterError);
  try {
    designFirChain({highPass(1.0), lowPass(200.0)}, 250.0);  // 200 Hz is above Nyquist
    FAIL() << "no error";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("low-pass"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace modescope
