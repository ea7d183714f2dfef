#include "engine/entropy/entropy_candidates.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/entropy/entropy_cpu.h"

namespace modescope {

SortedFirstValues sortFirstValues(const double* y, int64_t n, int m) {
  const int64_t t = n - m + 1;
  SortedFirstValues s;
  std::vector<int32_t> order(static_cast<std::size_t>(t));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return y[a] < y[b]; });
  s.index = order;
  s.value.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) s.value[k] = y[order[k]];
  return s;
}

EntropyPairCounts countEntropyMatchesSorted(const double* x, const double* y,
                                            const SortedFirstValues& ySorted, int64_t n, int m,
                                            double r, EntropyMeasure measure) {
  EntropyPairCounts out;
  const int64_t t = n - m + 1;  // m-templates
  const int64_t t1 = t - 1;     // (m+1)-templates
  const bool apen = measure == EntropyMeasure::ApproximateEntropy;
  // SampEn uses the same N - m templates for both lengths (Richman and Moorman).
  const int64_t rangeM = apen ? t : t1;
  const double* keys = ySorted.value.data();
  const int32_t* idx = ySorted.index.data();
  for (int64_t i = 0; i < rangeM; ++i) {
    const double xi = x[i];
    const bool hasLonger = i < t1;
    int64_t cm = 0, cm1 = 0;
    // Candidates: keys in [xi - r, xi + r]; a slightly wider search (rounding of xi -+ r), the
    // exact test below decides.
    const double slack = 1e-12 * (1.0 + std::fabs(xi) + r);
    const double* first = std::lower_bound(keys, keys + t, xi - r - slack);
    for (const double* k = first; k != keys + t && *k <= xi + r + slack; ++k) {
      const int64_t j = idx[k - keys];
      if (j >= rangeM) continue;
      countTemplatePair(x + i, y + j, m, r, hasLonger && j < t1, cm, cm1);
    }
    addTemplateCounts(out, cm, cm1, apen, hasLonger);
  }
  return out;
}

}  // namespace modescope
