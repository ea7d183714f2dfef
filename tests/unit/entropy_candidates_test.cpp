// The sorted-candidate count (engine/entropy/entropy_candidates.h) against the brute-force count
// of every template pair (countEntropyMatches): the window is only a filter, so every field of
// the counts must be equal exactly (integers) or to the last bit of the same log sums taken in
// the same order, on continuous data, on quantised data where many distances equal r exactly,
// and at the extremes of r.
#include "engine/entropy/entropy_candidates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/entropy/entropy_cpu.h"

namespace modescope {
namespace {

void expectSameCounts(const EntropyPairCounts& a, const EntropyPairCounts& b) {
  EXPECT_EQ(a.matchesM, b.matchesM);
  EXPECT_EQ(a.matchesM1, b.matchesM1);
  EXPECT_EQ(a.noMatchM, b.noMatchM);
  EXPECT_EQ(a.noMatchBoth, b.noMatchBoth);
  EXPECT_EQ(a.noMatchM1Only, b.noMatchM1Only);
  // Same terms in the same template order: bit-identical sums.
  EXPECT_EQ(a.sumLogM, b.sumLogM);
  EXPECT_EQ(a.sumLogM1, b.sumLogM1);
}

std::vector<double> series(int64_t n, unsigned seed, double quantum) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = quantum > 0 ? std::round(g(rng) / quantum) * quantum : g(rng);
  return x;
}

TEST(EntropyCandidates, EqualTheBruteForceCountExactly) {
  for (double quantum : {0.0, 0.1}) {  // 0.1: distances of exactly r = 0.2 are common
    for (int m : {1, 2, 3}) {
      for (double r : {1e-9, 0.2, 0.5, 100.0}) {
        for (EntropyMeasure measure :
             {EntropyMeasure::ApproximateEntropy, EntropyMeasure::SampleEntropy}) {
          const int64_t n = 257;
          const auto x = series(n, 11 + m, quantum), y = series(n, 97 + m, quantum);
          const SortedFirstValues sy = sortFirstValues(y.data(), n, m);
          const SortedFirstValues sx = sortFirstValues(x.data(), n, m);
          SCOPED_TRACE("quantum " + std::to_string(quantum) + " m " + std::to_string(m) + " r " +
                       std::to_string(r) + " " + entropyMeasureName(measure));
          expectSameCounts(countEntropyMatchesSorted(x.data(), y.data(), sy, n, m, r, measure),
                           countEntropyMatches(x.data(), y.data(), n, m, r, measure));
          // The diagonal: every template matches itself.
          expectSameCounts(countEntropyMatchesSorted(x.data(), x.data(), sx, n, m, r, measure),
                           countEntropyMatches(x.data(), x.data(), n, m, r, measure));
        }
      }
    }
  }
}

}  // namespace
}  // namespace modescope
