// Burg's recursion for one window (procedure in burg.h). The error sums are recomputed directly at
// every stage rather than with Andersen's recursive denominator (BCI2000's speed-up): in double the
// direct sums cost N - m multiply-adds per stage and cannot drift, so |k| < 1 needs no fallback.
#include "engine/ar/burg.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"

namespace modescope {

BurgModel burg(const double* x, int64_t n, int order, BurgWorkspace& ws) {
  if (order < 1) throw InvalidParameterError("order", std::to_string(order), "at least 1");
  if (n < static_cast<int64_t>(order) + 1)
    throw InvalidParameterError("window", std::to_string(n) + " samples",
                                "at least " + std::to_string(order + 1) + " (order + 1)",
                                "lengthen the window or lower the order");
  const auto p = static_cast<std::size_t>(order);
  BurgModel m;
  m.a.assign(p, 0.0);
  m.reflection.assign(p, 0.0);

  double sumSquares = 0.0;
  bool allEqual = true;
  for (int64_t t = 0; t < n; ++t) {
    sumSquares += x[t] * x[t];
    allEqual = allEqual && x[t] == x[0];
  }
  if (!std::isfinite(sumSquares))
    throw InvalidParameterError("window", "non-finite samples or overflow", "finite samples",
                                "remove NaN/Inf samples before the AR fit");
  if (allEqual) {
    m.flat = true;
    return m;
  }
  m.meanSquare = sumSquares / static_cast<double>(n);
  m.noiseVariance = m.meanSquare;

  const auto pairs = static_cast<std::size_t>(n - 1);
  ws.earlier.assign(x, x + pairs);
  ws.later.assign(x + 1, x + n);
  ws.previousA.assign(p, 0.0);
  double* e = ws.earlier.data();
  double* l = ws.later.data();

  for (std::size_t stage = 1; stage <= p; ++stage) {
    const std::size_t len = static_cast<std::size_t>(n) - stage;  // pairs at this stage
    double num = 0.0, den = 0.0;
    for (std::size_t j = 0; j < len; ++j) {
      num += l[j] * e[j];
      den += l[j] * l[j] + e[j] * e[j];
    }
    // Predictable without error at order stage - 1 (or rounding pushed |k| to 1): stop here.
    if (!(den > 0.0) || std::abs(2.0 * num) >= den) break;
    const double k = 2.0 * num / den;

    ws.previousA.assign(m.a.begin(), m.a.end());
    for (std::size_t i = 1; i < stage; ++i)
      m.a[i - 1] = ws.previousA[i - 1] - k * ws.previousA[stage - i - 1];
    m.a[stage - 1] = k;
    m.reflection[stage - 1] = k;
    m.noiseVariance *= (1.0 - k) * (1.0 + k);  // = 1 - k^2 without cancellation near |k| = 1
    m.orderReached = static_cast<int>(stage);

    if (stage < p) {
      for (std::size_t j = 0; j + 1 < len; ++j) {
        e[j] = e[j] - k * l[j];
        l[j] = l[j + 1] - k * e[j + 1];
      }
    }
  }
  return m;
}

BurgModel burg(const std::vector<double>& x, int order) {
  BurgWorkspace ws;
  return burg(x.data(), static_cast<int64_t>(x.size()), order, ws);
}

}  // namespace modescope
