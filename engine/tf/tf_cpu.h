// Time-frequency representations on the CPU in double (docs/time-frequency.md): the reference
// the CUDA backend (cuda/tf_gpu.cpp) is tested against. The procedure both backends follow:
//
//  1. planTf (tf_plan.h): checks, grid, windows, per-channel thresholds, output size.
//  2. Per column t (centred on sample t * hop, the signal zero outside the block): the J modified
//     STFTs F_j(m) = sum_k x(t*hop + k) w_j(k) e^{-j 2 pi m k / N}, k = -L/2 .. L-1-L/2, for the
//     bins m = 0 .. N/2 (local-time convention: the window's centre has phase 0).
//  3. Per source bin m, in increasing m: order 0 keeps F_0(m) at m. Otherwise, when |F_0(m)| is
//     above the channel's threshold, tf::instantaneousFrequency gives w_hat and tf::targetBin the
//     bin (a negative estimate lands at |w_hat| as conj F, the real signal's mirror bin;
//     estimates outside the image's bins are discarded); below it the bin stays at m. The
//     value F_0(m) (halved at m = 0 and N/2, see tf_analysis.h) is added to the target, one column
//     at a time (no two columns share output, so the sums are deterministic and in the same order
//     on every backend).
//
// Thread rules: re-entrant; `threads` workers (<= 0: all cores) over (channel, block of columns)
// items; progress from the calling thread; Cancelled within one item after a stop request.
#pragma once

#include <complex>
#include <cstdint>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_plan.h"
#include "engine/tf/tf_result.h"

namespace modescope {

// Smallest |det M| of the normalised squeezing system trusted in double (tf_operators.h); the
// CUDA backend uses its own for float.
constexpr double kTfDetFloorDouble = 1e-9;

// Steps 1-3. Throws InvalidParameterError, InvalidInputError, Cancelled.
TfResult computeTfCpu(const SignalBlock& block, const TfParams& params, int threads,
                      JobContext& ctx);

// The estimates behind one bin, from the J modified STFTs of one column summed directly in double
// (no FFT): for oracles, parity checks and a view's cursor read-out. `row` is a row of the block,
// `column` a column index of the plan's grid, `bin` an FFT bin (0..N/2). Throws what planTf
// throws and InvalidParameterError for an index outside the grid.
struct TfBinEstimate {
  std::complex<double> value;  // F^h(t, m)
  // Instantaneous frequency (Hz) of the order's operator; NaN when |F^h| is at or below the
  // threshold (the bin is not relocated) or for order 0.
  double frequency = 0.0;
  // Group delay (s, from the block's first sample): t + Re(F^{Th} / F^h) (local-time
  // convention, the sign the seed's (13) misprints); NaN when |F^h| = 0.
  double time = 0.0;
};
TfBinEstimate tfEstimateAt(const SignalBlock& block, const TfParams& params, std::size_t row,
                           int64_t column, int bin);

}  // namespace modescope
