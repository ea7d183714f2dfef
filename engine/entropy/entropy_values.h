// The entropy value of one matrix entry from its match counts (step 3 of entropy_cpu.h), written
// once for the host and the device: the CPU's assembleEntropyResult and the CUDA backend's values
// kernel both call these, so the two backends cannot drift apart in the formulas. Plain C++ with
// no engine dependencies beyond the counts; __host__ __device__ when compiled by nvcc.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/core/host_device.h"
#include "engine/entropy/entropy_params.h"
#include "engine/entropy/entropy_result.h"

namespace modescope {

// T = N - m + 1 and T - 1 with their logs, computed once per matrix instead of per entry.
struct EntropyTemplateCounts {
  double t, t1, logT, logT1;
  MODESCOPE_HOST_DEVICE EntropyTemplateCounts(int64_t n, int m)
      : t(static_cast<double>(n - m + 1)), t1(t - 1.0), logT(log(t)), logT1(log(t1)) {}
};

// ApEn family (entropy_cpu.h, "Values"): Phi^m - Phi^{m+1} with the bias rule for ln 0.
MODESCOPE_HOST_DEVICE inline double apEnValue(const EntropyPairCounts& c,
                                              const EntropyTemplateCounts& k, ApEnBias bias) {
  // ln C_i^m = ln N_i^m - ln T where N_i^m > 0; both corrections set C_i^m = 1 (ln 0) otherwise.
  const double phiM = (c.sumLogM - (k.t - c.noMatchM) * k.logT) / k.t;
  const double positive = k.t1 - c.noMatchBoth - c.noMatchM1Only;
  double sum1 = c.sumLogM1 - positive * k.logT1;
  if (bias == ApEnBias::Zero)
    sum1 -= c.noMatchM1Only * k.logT1;  // C = 1/(N-m); both-zero templates contribute 0
  else
    sum1 -= (c.noMatchBoth + c.noMatchM1Only) * k.logT;  // C = 1/(N-m+1)
  return phiM - sum1 / k.t1;
}

// SampEn family: -ln(A / B); on the diagonal the T - 1 = N - m self-pairs are removed from both.
// NaN (undefined) when A = 0 or B = 0.
MODESCOPE_HOST_DEVICE inline double sampEnValue(const EntropyPairCounts& c, int64_t n, int m,
                                                bool diagonal) {
  const int64_t self = diagonal ? n - m : 0;
  const int64_t a = c.matchesM1 - self, b = c.matchesM - self;
  if (a <= 0 || b <= 0)
    return std::numeric_limits<double>::quiet_NaN();  // constexpr: fine on the device
  return log(static_cast<double>(b)) - log(static_cast<double>(a));
}

}  // namespace modescope
