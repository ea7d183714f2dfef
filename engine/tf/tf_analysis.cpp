// Reconstruction, ridges and Renyi entropy of time-frequency images (tf_analysis.h).
#include "engine/tf/tf_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/core/error.h"

namespace modescope {
namespace {

void checkChannel(const TfResult& r, std::size_t c) {
  if (c >= r.channelCount())
    throw InvalidParameterError("channel", std::to_string(c),
                                "an image channel below " + std::to_string(r.channelCount()));
}

double reconstructionScale(const TfResult& r) {
  return 2.0 / (static_cast<double>(r.params.fftLength) * r.windowAtZero);
}

// Per column, 2 / (N h0) Re sum of rows [lo(t), hi(t)].
template <class Rows>
std::vector<double> sumRows(const TfResult& r, std::size_t c, Rows rows) {
  std::vector<double> out(static_cast<std::size_t>(r.columns));
  const double s = reconstructionScale(r);
  for (int64_t t = 0; t < r.columns; ++t) {
    const std::complex<float>* col = r.column(c, t);
    int lo = 0, hi = r.bins - 1;
    rows(t, lo, hi);
    double sum = 0.0;
    for (int k = std::max(lo, 0); k <= std::min(hi, r.bins - 1); ++k) sum += col[k].real();
    out[static_cast<std::size_t>(t)] = s * sum;
  }
  return out;
}

// Lower envelope of parabolas: d[k] = min_j f[j] + w (k - j)^2, arg[k] the j (Felzenszwalb and
// Huttenlocher's distance transform). w > 0.
void distanceTransform(const std::vector<double>& f, double w, std::vector<double>& d,
                       std::vector<int>& arg) {
  const int n = static_cast<int>(f.size());
  std::vector<int> v(n);
  std::vector<double> z(n + 1);
  int k = 0;
  v[0] = 0;
  z[0] = -std::numeric_limits<double>::infinity();
  z[1] = std::numeric_limits<double>::infinity();
  for (int q = 1; q < n; ++q) {
    auto meet = [&](int p) {
      return ((f[q] + w * q * q) - (f[p] + w * p * p)) / (2.0 * w * (q - p));
    };
    double s = meet(v[k]);
    while (s <= z[k]) {  // z[0] = -inf ends the loop at k = 0
      --k;
      s = meet(v[k]);
    }
    ++k;
    v[k] = q;
    z[k] = s;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  k = 0;
  d.assign(n, 0.0);
  arg.assign(n, 0);
  for (int q = 0; q < n; ++q) {
    while (z[k + 1] < q) ++k;
    d[q] = f[v[k]] + w * (q - v[k]) * (q - v[k]);
    arg[q] = v[k];
  }
}

}  // namespace

std::vector<double> tfReconstruct(const TfResult& r, std::size_t c) {
  checkChannel(r, c);
  return sumRows(r, c, [](int64_t, int&, int&) {});
}

std::vector<double> tfReconstructBand(const TfResult& r, std::size_t c, double lowHz,
                                      double highHz) {
  checkChannel(r, c);
  int lo = r.bins, hi = -1;
  for (int k = 0; k < r.bins; ++k)
    if (r.frequency(k) >= lowHz && r.frequency(k) <= highHz) {
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
  if (hi < lo)
    throw InvalidParameterError(
        "band", std::to_string(lowHz) + "-" + std::to_string(highHz) + " Hz",
        "a band holding at least one image row (" + std::to_string(r.frequency(0)) + "-" +
            std::to_string(r.frequency(r.bins - 1)) + " Hz)",
        "widen the band");
  return sumRows(r, c, [lo, hi](int64_t, int& a, int& b) {
    a = lo;
    b = hi;
  });
}

std::vector<std::vector<int>> tfRidges(const TfResult& r, std::size_t c, const TfRidgeParams& p) {
  checkChannel(r, c);
  if (p.count < 1) throw InvalidParameterError("ridges", std::to_string(p.count), "at least 1");
  if (!(p.penalty >= 0))
    throw InvalidParameterError("ridge penalty", std::to_string(p.penalty), "at least 0");
  if (p.halfWidth < 0)
    throw InvalidParameterError("ridge half-width", std::to_string(p.halfWidth), "at least 0");
  const int K = r.bins;
  const int64_t T = r.columns;
  std::vector<float> energy(static_cast<std::size_t>(T) * K);
  float peak = 0.0f;
  for (int64_t t = 0; t < T; ++t)
    for (int k = 0; k < K; ++k) {
      const float e = std::norm(r.column(c, t)[k]);
      energy[static_cast<std::size_t>(t) * K + k] = e;
      peak = std::max(peak, e);
    }
  if (peak <= 0) peak = 1.0f;
  std::vector<std::vector<int>> ridges;
  std::vector<double> cost(K), d;
  std::vector<int> arg;
  std::vector<int> back(static_cast<std::size_t>(T) * K);
  for (int n = 0; n < p.count; ++n) {
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> local(K);
      for (int k = 0; k < K; ++k)
        local[k] = -std::log(energy[static_cast<std::size_t>(t) * K + k] / peak + 1e-12);
      if (t == 0) {
        cost = local;
        continue;
      }
      if (p.penalty > 0) {
        distanceTransform(cost, p.penalty, d, arg);
      } else {  // no penalty: the best previous row, whatever the jump
        const int best =
            static_cast<int>(std::min_element(cost.begin(), cost.end()) - cost.begin());
        d.assign(K, cost[best]);
        arg.assign(K, best);
      }
      for (int k = 0; k < K; ++k) {
        cost[k] = local[k] + d[k];
        back[static_cast<std::size_t>(t) * K + k] = arg[k];
      }
    }
    std::vector<int> ridge(static_cast<std::size_t>(T));
    int k = static_cast<int>(std::min_element(cost.begin(), cost.end()) - cost.begin());
    for (int64_t t = T - 1; t >= 0; --t) {
      ridge[static_cast<std::size_t>(t)] = k;
      if (t > 0) k = back[static_cast<std::size_t>(t) * K + k];
    }
    for (int64_t t = 0; t < T; ++t)
      for (int q = std::max(0, ridge[t] - p.halfWidth);
           q <= std::min(K - 1, ridge[t] + p.halfWidth); ++q)
        energy[static_cast<std::size_t>(t) * K + q] = 0.0f;
    ridges.push_back(std::move(ridge));
  }
  return ridges;
}

std::vector<double> tfReconstructRidge(const TfResult& r, std::size_t c,
                                       const std::vector<int>& ridge, int halfWidth) {
  checkChannel(r, c);
  if (static_cast<int64_t>(ridge.size()) != r.columns)
    throw InvalidParameterError("ridge", std::to_string(ridge.size()) + " columns",
                                std::to_string(r.columns) + " (the image's columns)");
  return sumRows(r, c, [&](int64_t t, int& a, int& b) {
    a = ridge[static_cast<std::size_t>(t)] - halfWidth;
    b = ridge[static_cast<std::size_t>(t)] + halfWidth;
  });
}

double tfRenyiEntropy(const TfResult& r, std::size_t c, double alpha) {
  checkChannel(r, c);
  if (!(alpha > 0) || alpha == 1.0)
    throw InvalidParameterError("alpha", std::to_string(alpha), "a positive order other than 1");
  const std::size_t n = static_cast<std::size_t>(r.columns) * r.bins;
  const std::complex<float>* v = r.column(c, 0);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) total += std::norm(std::complex<double>(v[i]));
  if (!(total > 0))
    throw InvalidParameterError("image", "all zero", "some energy", "the channel is flat");
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double pr = std::norm(std::complex<double>(v[i])) / total;
    if (pr > 0) sum += std::pow(pr, alpha);
  }
  return std::log2(sum) / (1.0 - alpha);
}

void TfRenyiSums::add(const float* magnitude, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const double p = static_cast<double>(magnitude[i]) * magnitude[i];
    power_ += p;
    sixth_ += p * p * p;
  }
}

void TfRenyiSums::add(const std::complex<float>* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const double p = std::norm(std::complex<double>(values[i]));
    power_ += p;
    sixth_ += p * p * p;
  }
}

double TfRenyiSums::entropy() const {
  if (!(power_ > 0)) return std::nan("");
  return std::log2(sixth_ / (power_ * power_ * power_)) / (1.0 - 3.0);
}

double tfReconstructionQuality(const std::vector<double>& x, const std::vector<double>& xHat) {
  const std::size_t n = std::min(x.size(), xHat.size());
  double signal = 0.0, error = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    signal += x[i] * x[i];
    error += (x[i] - xHat[i]) * (x[i] - xHat[i]);
  }
  if (error == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / error);
}

}  // namespace modescope
