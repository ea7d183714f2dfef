// Burg's method (the maximum entropy method) for one window: AR coefficients and the prediction
// error power. Wilson and Williams (2009) use it after Numerical Recipes' memcof, as BCI2000's
// MEMPredictor does; the equations (the paper's Eqs. 3 and 6-13, lost in its text extraction) are
// rebuilt from memcof and checked against exact fractions in tests/unit/burg_ar_test.cpp.
//
// Model (NR/BCI2000 sign): x_t = sum_{k=1..p} a_k x_{t-k} + e_t, noise power sigma^2.
//
// Procedure (the CPU does exactly this in double; a GPU backend follows the same steps):
//   flat:  if all N samples are equal, return a = 0, sigma^2 = 0, flat = true (no model exists:
//          stage 1 would give k = 1 and a spectrum 0/0).
//   init:  sigma_0^2 = sum x^2 / N (the raw mean square, no mean removed, as memcof does);
//          e_j = x_j, l_j = x_{j+1}, j = 0..N-2 ("earlier" = backward error b_{m-1}(t-1),
//          "later" = forward error f_{m-1}(t); L = N - 1 pairs).
//   stage m = 1..p, with L = N - m pairs (e_j, l_j):
//          num = sum_j l_j e_j;  den = sum_j (l_j^2 + e_j^2)           (Eq. 13)
//          if den == 0 or |2 num| >= den: stop, the model keeps order m - 1 (see below)
//          k_m = 2 num / den                                            (|k_m| < 1)
//          a_{m,i} = a_{m-1,i} - k_m a_{m-1,m-i}, i = 1..m-1;  a_{m,m} = k_m   (Levinson)
//          sigma_m^2 = sigma_{m-1}^2 (1 - k_m^2)
//          if m < p: e'_j = e_j - k_m l_j,  l'_j = l_{j+1} - k_m e_{j+1},  j = 0..L-2
//                    (element-wise from the old values; the CPU does it in place ascending,
//                    a GPU writes to a second buffer or reads both values before a barrier)
//   Cauchy-Schwarz gives |2 num| <= den, with equality only when the window is predictable
//   without error at order m - 1 (a pure ramp, a noiseless sinusoid); then k_m = +-1 would put a
//   pole on the unit circle and sigma^2 = 0 (spectrum 0/0). Stopping there keeps every pole inside
//   the unit circle and sigma^2 > 0; `orderReached` < p reports it.
//
// Thread rules: pure; re-entrant. A BurgWorkspace is per thread.
#pragma once

#include <cstdint>
#include <vector>

namespace modescope {

struct BurgModel {
  std::vector<double> a;           // a_1..a_p (index k - 1); zeros beyond orderReached
  std::vector<double> reflection;  // k_1..k_p; zeros beyond orderReached
  double noiseVariance = 0.0;      // sigma_p^2, in the signal's unit squared (per sample)
  double meanSquare = 0.0;         // sigma_0^2 = sum x^2 / N
  int orderReached = 0;            // p, or less when the recursion stopped early (see above)
  bool flat = false;               // all samples equal: a = 0, sigma^2 = 0
};

// Scratch for burg(): the two error vectors of N - 1 values each.
struct BurgWorkspace {
  std::vector<double> earlier, later, previousA;
};

// Fits order `order` (>= 1) to x[0..n). Requires n >= order + 1 and finite samples; throws
// InvalidParameterError otherwise (the driver validates first, so it never throws there).
BurgModel burg(const double* x, int64_t n, int order, BurgWorkspace& ws);
BurgModel burg(const std::vector<double>& x, int order);

}  // namespace modescope
