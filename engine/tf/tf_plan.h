// Step 1 of every time-frequency backend: the checks, the grid, the modified windows and the size
// of the output, before any work (docs/time-frequency.md, "Grid" and "Limits").
//
// Thread rules: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_result.h"

namespace modescope {

struct TfPlan {
  TfParams params;                          // rows resolved
  int orderCode = 0;                        // tf::OrderCode
  int stfts = 1;                            // J modified STFTs per column (tfStftCount)
  std::size_t channels = 0;                 // C
  int64_t samples = 0;                      // S per channel
  int64_t columns = 0;                      // T = ceil(S / hop)
  int firstBin = 0, lastBin = 0, bins = 0;  // image rows: FFT bins firstBin..lastBin, K of them
  double sigma = 0.0;                       // Gaussian sigma (0 for Hann/Hamming)
  double windowAtZero = 0.0;                // h(0)
  // J x L: window j (tf_operators.h stftIndex layout: T^a D^b h) at taps k = -L/2 .. L-1-L/2.
  std::vector<double> windows;
  // Per channel: the absolute amplitude threshold gamma = threshold x RMS(x) x sum(h) (0 for the
  // spectrogram), computed in double on the host so both backends use the same number.
  std::vector<double> thresholds;
  std::size_t outputBytes = 0;  // C x T x K x 8 (complex float)
  Diagnostics diagnostics;
};

// The output size of transforming `channels` x `samples` with p (no other check): C x T x K x 8.
std::size_t tfOutputBytes(const TfParams& p, double sampleRate, std::size_t channels,
                          int64_t samples);

// The modified windows of p (J x L, see TfPlan::windows) and h(0).
std::vector<double> tfWindows(const TfParams& p, double* windowAtZero = nullptr);

// Checks (InvalidParameterError naming what was wrong and what to do, InvalidInputError for
// samples): validateTfParams; rows (empty -> all; each below the block's rows; no repeats); the
// window no longer than the signal; a positive sampling rate; maxFrequency at most the Nyquist
// frequency (the rate too low for the range names the rate it needs); at least one bin in the
// range; every sample finite (naming channel and sample); the output within params.maxBytes (the
// message says how large it would be and how to shrink it).
TfPlan planTf(const SignalBlock& block, const TfParams& params);

// planTf for a transform whose image is handed over tile by tile and never held
// (ComputeBackend::timeFrequencyTiles): every check but the in-memory bound params.maxBytes.
TfPlan planTfStreamed(const SignalBlock& block, const TfParams& params);

// An empty result with every field but values filled from the plan (values sized C x T x K,
// zeros; left empty without `allocateValues`, for an image kept elsewhere, e.g. on a device).
TfResult makeTfResult(const TfPlan& plan, const SignalBlock& block, bool allocateValues = true);

}  // namespace modescope
