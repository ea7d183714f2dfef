// The device's row statistics (cuda/row_stats.cuh: mean, std, max |x| per row) against the CPU's
// sampleStd (engine/emd/emd_internal.h): every EEMD, CEEMDAN and ICEEMDAN stage scales its noise
// by this std, and the amplitude stop compares with this max. Lengths around the statistics'
// chunk of 4,096 samples and the benchmark's; rows far from zero mean, where a one-pass formula
// would lose the std. Skips loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/emd/emd_internal.h"
#include "tests/gpu/gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_row_stats.h"
#endif

namespace modescope {
namespace {

using GpuRowStats = gpu_test::ParityTest;

// Both sides sum in double, in different orders: ~1e-16 relative per addition, far below what
// a lost pass or a wrong divisor (n instead of n - 1: 1/n relative, 2.8e-6 at 358,401) moves.
constexpr double kRelativeTolerance = 1e-11;

template <class R>
void expectRowsMatch(std::int64_t n, unsigned seed) {
#ifdef MODESCOPE_HAVE_CUDA
  // Row 0: unit noise; row 1: the same far from zero; row 2: a ramp and a single spike.
  const int rows = 3;
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<R> values(static_cast<std::size_t>(rows * n));
  for (std::int64_t i = 0; i < n; ++i) {
    values[i] = static_cast<R>(normal(rng));
    values[n + i] = static_cast<R>(1000.0 + 0.5 * normal(rng));
    values[2 * n + i] = static_cast<R>(static_cast<double>(i) / static_cast<double>(n) - 0.25);
  }
  values[2 * n + n / 2] = static_cast<R>(-7.5);
  const cuda::HostRowStats got = cuda::rowStatisticsOf(values, n, rows);
  for (int r = 0; r < rows; ++r) {
    std::vector<double> row(values.begin() + r * n, values.begin() + (r + 1) * n);
    double sum = 0, peak = 0;
    for (double v : row) {
      sum += v;
      peak = std::max(peak, std::abs(v));
    }
    const double mean = sum / static_cast<double>(n);
    const double stddev = emd_detail::sampleStd(row.data(), n);
    SCOPED_TRACE(testing::Message()
                 << "n " << n << ", row " << r << ", " << sizeof(R) * 8 << "-bit values");
    EXPECT_NEAR(got.mean[r], mean, kRelativeTolerance * (std::abs(mean) + stddev));
    EXPECT_NEAR(got.stddev[r], stddev, kRelativeTolerance * stddev);
    EXPECT_EQ(got.maxAbs[r], peak);  // a maximum of the values themselves: exact
  }
#else
  (void)n;
  (void)seed;
#endif
}

TEST_F(GpuRowStats, MeanStdAndMaxAbsMatchTheCpu) {
  for (std::int64_t n : {2, 3, 4095, 4096, 4097, 102401, 358401}) {
    expectRowsMatch<double>(n, seed_);
    expectRowsMatch<float>(n, seed_ + 1);
  }
}

}  // namespace
}  // namespace modescope
