// The EMD family on the CPU (the reference implementation, double precision, threads over
// channels and ensemble members) and the exact procedure both backends follow. The CUDA backend
// (cuda/emd_*.cu) implements the same steps with the same primitives (sift_primitives.h) and the
// same noise (Philox, stream numbering below), so the two agree to rounding.
//
// Sifting (one "extract IMF" of a signal y, emd.m's inner loop):
//   m = y; stats = envelopes(m)                       (sift_primitives.h)
//   if m has < 3 extrema, or max|m| < 1e-10 max|y|:   no IMF ("monotonic")
//   nbit = 0
//   while !stopSifting(stats) and nbit < cap:          cap = maxSifts, or fixedSifts (FixedSifts)
//       m -= mean envelope; stats = envelopes(m); ++nbit
//   IMF = m
// EMD:      repeat on r = y - sum(IMFs) until no IMF or imfLimit IMFs (emd_params.h: maxImfs, or
//           floor(log2 N) + 6 for an automatic count); rows IMFs..., residue.
// Noise:    white noise w_i[n] = Philox4x32(seed).normalDouble(stream, n) with
//           stream = (channel index in the recording) << 20 | member i (members < 2^20), so a
//           channel's noise does not depend on which other channels are decomposed with it.
//           E_k(w_i) = k-th IMF of the EMD of w_i with `noiseStop` (all k, computed once).
// EEMD:     x_i = x + noiseStd * std(x) * w_i (pairedNoise: members 2j and 2j+1 use +w_j and
//           -w_j); EMD of every x_i with K = maxImfs IMFs (0: floor(log2 N) - 1 as Wu's eemd.m);
//           d_k = mean_i IMF_k(x_i) (a member with fewer IMFs contributes zeros);
//           residue = x - sum_k d_k, so the rows sum to x exactly.
// CEEMDAN:  x~ = x / std(x); d_1 = mean_i IMF_1(x~ + noiseStd * w_i); r_1 = x~ - d_1;
//           stage k >= 2: d_k = mean_i IMF_1(r_{k-1} + noiseStd * std(r_{k-1}) *
//           E_{k-1}(w_i) / std(E_{k-1}(w_i))) (no noise for a member without that mode);
//           r_k = r_{k-1} - d_k; stop when r has < 3 extrema or imfLimit IMFs; rows * std(x).
// ICEEMDAN: x~ = x / std(x); M(y) = y - IMF_1(y) (= y when y has no IMF: a degenerate member);
//           r_1 = mean_i M(x~ + noiseStd * E_1(w_i) / std(E_1(w_i))); d_1 = x~ - r_1;
//           stage k >= 2 while r_{k-1} has an IMF that sifting changes (iceemdan.m es_imf: it
//           has >= 3 extrema and is not already an IMF by the stop rule) and k <= imfLimit:
//           beta = noiseStd * std(r_{k-1}); e = E_k(w_i) (Constant scaling: / std(E_k(w_i)));
//           r_k = mean_i M(r_{k-1} + beta * e) (no noise for a member without mode k);
//           d_k = r_{k-1} - r_k; rows d_1..d_K, r_K, all * std(x).
// std() is the sample standard deviation (N - 1), as MATLAB's std.
//
// Errors: InvalidParameterError (validateEmdParams; block with fewer than kEmdMinSamples
// samples), InvalidInputError for NaN/Inf samples (naming the channel and the first bad sample)
// and for constant channels (nothing to decompose), Cancelled between sifting iterations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope {

// Noise stream of member `member` of recording channel `channel` (see above).
constexpr uint64_t emdNoiseStream(uint64_t channel, uint64_t member) {
  return (channel << 20) | member;
}
constexpr int kEmdMaxEnsemble = 1 << 20;

// Rejects what no backend can decompose (too short, NaN/Inf, constant), with the errors above.
void validateEmdInput(const SignalBlock& block, const EmdParams& params);

// The warning both backends give for the channels where an automatic IMF count stopped at its
// limit (imfLimit, emd_params.h) with the residue still holding an IMF.
Diagnostic imfLimitDiagnostic(int limit, const std::vector<std::size_t>& channels);

// The CPU reference. threads <= 0: all hardware threads.
EmdResult decomposeCpu(const SignalBlock& block, const EmdParams& params, int threads,
                       JobContext& ctx);

}  // namespace modescope
