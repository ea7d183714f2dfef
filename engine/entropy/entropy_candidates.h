// Match counting through sorted candidate windows: the same matches as countEntropyMatches
// (entropy_cpu.h), found with fewer comparisons. A template j of the target series can match
// template i only if its first value lies within r of x[i]; with the first values y[j], j < T,
// sorted once per series, template i binary-searches that window and tests only the candidates
// in it with the full rule (max_k |x[i+k] - y[j+k]| <= r, the (m+1)-th value for the longer
// template). With r = 0.2 SD about 11 % of the templates are candidates, so an epoch of 1024
// samples needs ~130 comparisons per template instead of 1024. The CUDA backend counts the same
// way (cuda/entropy_kernels.cuh). Exactly equal to the brute force in double: the window is only
// a filter, every match is decided by the same comparison (tests/unit/entropy_candidates_test.cpp).
//
// Thread rules: pure functions; a SortedFirstValues is read-only once built.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/entropy/entropy_params.h"
#include "engine/entropy/entropy_result.h"

namespace modescope {

// The first values of the m-templates of one series, ascending, with their template index.
struct SortedFirstValues {
  std::vector<double> value;
  std::vector<int32_t> index;
};

// Sorts y[0..T), T = n - m + 1.
SortedFirstValues sortFirstValues(const double* y, int64_t n, int m);

// countEntropyMatches(x, y, n, m, r, measure) with `ySorted` = sortFirstValues(y, n, m).
EntropyPairCounts countEntropyMatchesSorted(const double* x, const double* y,
                                            const SortedFirstValues& ySorted, int64_t n, int m,
                                            double r, EntropyMeasure measure);

}  // namespace modescope
