// Shared by the ICA tests: synthetic sources with known kurtosis, a mixing matrix with a known
// condition number, and the global matrix unmixing * mixing whose Amari index measures separation.
// Header-only; no Eigen (the engine links it privately).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/core/philox.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_result.h"
#include "engine/parallel/worker_team.h"

namespace modescope::ica_test {

enum class Source { Laplace, Uniform, Sine };

// Unit-variance sources, one row per source (row-major n x samples). Laplace: excess kurtosis +3
// (super-Gaussian); uniform: -1.2 and a sine: -1.5 (sub-Gaussian). Sines get distinct
// incommensurate frequencies (in cycles per sample) and random phases.
inline std::vector<std::vector<double>> makeSources(const std::vector<Source>& kinds,
                                                    int64_t samples, uint64_t seed) {
  std::vector<std::vector<double>> s(kinds.size(), std::vector<double>(samples));
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    PhiloxStream rng(seed, 100 + k);
    const double freq = 0.0123 * (1.0 + 0.731 * static_cast<double>(k));
    const double phase = 6.283185307179586 * rng.nextUniform();
    for (int64_t t = 0; t < samples; ++t) {
      const double u = rng.nextUniform();
      switch (kinds[k]) {
        case Source::Laplace: {
          // Inverse CDF of the Laplace law with b = 1/sqrt(2) (variance 2 b^2 = 1).
          const double b = 1.0 / std::sqrt(2.0);
          s[k][t] = u < 0.5 ? b * std::log(2.0 * u) : -b * std::log(2.0 * (1.0 - u));
          break;
        }
        case Source::Uniform:
          s[k][t] = std::sqrt(3.0) * (2.0 * u - 1.0);
          break;
        case Source::Sine:
          s[k][t] = std::sqrt(2.0) * std::sin(6.283185307179586 * freq * t + phase);
          break;
      }
    }
  }
  return s;
}

// rows x cols (rows >= cols) matrix Q1 diag(sv) Q2 with Q1, Q2 products of 3 random Householder
// reflections: the singular values are exactly `sv` (so the condition number is max/min sv).
inline IcaMatrix makeMixing(int rows, int cols, const std::vector<double>& sv, uint64_t seed) {
  auto householders = [&](int n, uint64_t stream) {
    IcaMatrix q(n, n);
    for (int i = 0; i < n; ++i) q(i, i) = 1.0;
    PhiloxStream rng(seed, stream);
    for (int h = 0; h < 3; ++h) {
      std::vector<double> v(n);
      double nn = 0.0;
      for (double& x : v) {
        x = rng.nextNormal();
        nn += x * x;
      }
      // q = q (I - 2 v v^T / v^T v)
      for (int i = 0; i < n; ++i) {
        double d = 0.0;
        for (int j = 0; j < n; ++j) d += q(i, j) * v[j];
        for (int j = 0; j < n; ++j) q(i, j) -= 2.0 * d * v[j] / nn;
      }
    }
    return q;
  };
  const IcaMatrix q1 = householders(rows, 1), q2 = householders(cols, 2);
  IcaMatrix a(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double v = 0.0;
      for (int k = 0; k < cols; ++k) v += q1(i, k) * sv[k] * q2(k, j);
      a(i, j) = v;
    }
  return a;
}

inline IcaMatrix multiply(const IcaMatrix& a, const IcaMatrix& b) {
  IcaMatrix c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k)
      for (int j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}

// Channels x = a s (+ offset per channel, to exercise mean removal) as a float block.
inline SignalBlock mixToBlock(const IcaMatrix& a, const std::vector<std::vector<double>>& s,
                              double sampleRate = 250.0) {
  SignalBlock b;
  const int64_t n = static_cast<int64_t>(s[0].size());
  b.samples = n;
  b.sampleRate = sampleRate;
  for (int i = 0; i < a.rows; ++i) b.channels.push_back(static_cast<std::size_t>(i));
  b.data.resize(static_cast<std::size_t>(a.rows) * n);
  // One worker per group of rows: the benchmark mixes 256 sources x 600000 samples.
  auto rows = [&](int first, int step) {
    for (int i = first; i < a.rows; i += step)
      for (int64_t t = 0; t < n; ++t) {
        double v = 10.0 * (i + 1);  // a DC offset per channel
        for (int k = 0; k < a.cols; ++k) v += a(i, k) * s[k][t];
        b.data[static_cast<std::size_t>(i) * n + t] = static_cast<float>(v);
      }
  };
  const int threads = std::max(1, std::min(a.rows, hardwareThreads()));
  TeamLease team(threads);
  team->run(static_cast<std::size_t>(threads),
            [&](int, std::size_t w) { rows(static_cast<int>(w), threads); });
  return b;
}

// Pearson correlation of two series.
template <typename A, typename B>
double correlation(const A* x, const B* y, int64_t n) {
  double mx = 0, my = 0;
  for (int64_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = x[i] - mx, b = y[i] - my;
    sxy += a * b;
    sxx += a * a;
    syy += b * b;
  }
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace modescope::ica_test
