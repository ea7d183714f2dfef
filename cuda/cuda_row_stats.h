// Host entry to the device's row statistics (row_stats.cuh), for the parity test against the
// CPU's sampleStd (tests/gpu/row_stats_parity_test.cpp). Host-only header.
#pragma once

#include <cstdint>
#include <vector>

namespace modescope::cuda {

struct HostRowStats {
  std::vector<double> mean, stddev, maxAbs;
};

// Statistics of `rows` rows of n samples (row-major in `values`), computed on the current device
// in the values' precision.
HostRowStats rowStatisticsOf(const std::vector<float>& values, std::int64_t n, int rows);
HostRowStats rowStatisticsOf(const std::vector<double>& values, std::int64_t n, int rows);

}  // namespace modescope::cuda
