// Shared by the EMD tests (emd_cpu_test.cpp, sift_imf_test.cpp, tests/gpu/emd_parity_test.cpp): how
// closely a computed mode follows a known component, independent of its scale and offset.
// Header-only.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace modescope::test_support {

// Pearson correlation of two series of the same length (1: same shape).
inline double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= static_cast<double>(a.size());
  mb /= static_cast<double>(b.size());
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

}  // namespace modescope::test_support
