// Automatic suggestions of bad channels: flat, very noisy and poorly correlated channels, by the
// criteria of the PREP pipeline (Bigdely-Shamlo, Mullen, Kothe, Su and Robbins 2015, "The PREP
// pipeline", Front. Neuroinform. 9:16; its findNoisyChannels, as pyprep's NoisyChannels
// find_bad_by_nan_flat / find_bad_by_deviation / find_bad_by_hfnoise / find_bad_by_correlation
// describe them). The user sees every measure and every threshold and decides; nothing is marked
// without them.
//
//  - first, slow trends are removed by a zero-phase FIR high-pass at detrendCutoff (pyprep's
//    NoisyChannels(do_detrend=True), removeTrend: 1 Hz); every measure below reads the detrended
//    data, so a DC-coupled recording's drifts (BioSemi) do not pass for deviation;
//  - flat: the channel's robust SD (1.4826 x median absolute deviation) or its plain SD is at most
//    `flatThreshold` (PREP: 1e-15 V; here in the channel's unit, which is uV for EEG);
//  - deviation: the robust z-score of the channel's robust SD among the channels,
//    z = (x - median) / (1.4826 MAD), beyond +-deviationZ (PREP 5); the median and MAD are those
//    of the channels that are not flat (pyprep's usable channels);
//  - high-frequency noise: the ratio MAD(x - lowpass(x)) / MAD(lowpass(x)) with a zero-phase FIR
//    low-pass at highFrequencyCutoff Hz (PREP 50 Hz), its robust z-score above highFrequencyZ
//    (PREP 5); skipped (said so in the report) when the sample rate is not above twice the cutoff
//    plus the transition;
//  - low correlation: in windows of correlationWindow seconds (PREP 1 s) of the low-passed data,
//    a channel's "largest" absolute correlation with the other channels, taken as PREP takes it:
//    the 98th percentile (MATLAB's quantile, pyprep's _mat_quantile) of the column of |r| with
//    its own entry set to 0, so one twin channel (a bridged electrode) does not vouch for it; the
//    window is bad for it when that is below correlationThreshold (PREP 0.4), and the channel is
//    suggested when more than badWindowFraction (PREP 0.01) of its windows are bad.
//
// Thread rules: plain values; suggestBadChannels uses the backend for the low-pass (one job's
// backend, from the engine thread) and threads over channels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/method/param_table.h"

namespace modescope {

struct BadChannelCriteria {
  double flatThreshold = 1e-6;        // channel unit (uV): robust or plain SD at most this = flat
  double deviationZ = 5.0;            // |robust z| of the robust SD above this = noisy
  double highFrequencyZ = 5.0;        // robust z of the high-frequency ratio above this = noisy
  double highFrequencyCutoff = 50.0;  // Hz: the low-pass separating "high frequency"
  double correlationThreshold = 0.4;  // a window is bad when the best |r| is below this
  double correlationWindow = 1.0;     // s
  double badWindowFraction = 0.01;    // suggested when more than this share of windows are bad
  double detrendCutoff = 1.0;         // Hz: high-pass before measuring (pyprep 1 Hz); 0 = off
};

// The declarations (engine/method/param_table.h): CLI options --flat-threshold, --deviation-z,
// --hf-z, --hf-cutoff, --correlation-threshold, --correlation-window, --bad-window-fraction.
const ParamTable<BadChannelCriteria>& badChannelCriteriaParamTable();

enum class BadChannelReason { Flat, Deviation, HighFrequencyNoise, LowCorrelation };
const char* badChannelReasonName(BadChannelReason r);  // "flat", "deviation", ...

// The measures of one channel (one block row). NaN where a measure was not computed (a flat
// channel has no correlation; the high-frequency measure needs a rate above 2 x cutoff).
struct ChannelQuality {
  std::size_t channel = 0;  // recording index (the block's channels[row])
  double robustSd = 0.0;    // 1.4826 x MAD, channel unit
  double sd = 0.0;          // plain standard deviation, channel unit
  double deviationZ = 0.0;
  double highFrequencyRatio = 0.0;
  double highFrequencyZ = 0.0;
  double lowCorrelationFraction = 0.0;    // share of windows below the correlation threshold
  std::vector<BadChannelReason> reasons;  // empty = not suggested
  bool suggested() const { return !reasons.empty(); }
  // "deviation z 7.2 > 5; low correlation in 12 % of windows > 1 %"
  std::string explanation(const BadChannelCriteria& criteria) const;
};

struct BadChannelReport {
  BadChannelCriteria criteria;
  std::vector<ChannelQuality> channels;        // one per block row, in block order
  std::vector<std::string> notes;              // criteria skipped and why
  int windows = 0;                             // correlation windows used
  std::vector<std::size_t> suggested() const;  // recording indices, block order
  // One line per criterion with its threshold, for the user: "flat: SD <= 1e-06 uV", ...
  std::vector<std::string> thresholdLines() const;
};

// Throws InvalidParameterError for criteria outside their declared ranges, a block with fewer
// than 3 channels or shorter than two correlation windows; Cancelled on a stop request.
BadChannelReport suggestBadChannels(const SignalBlock& block, const BadChannelCriteria& criteria,
                                    ComputeBackend& backend, JobContext& ctx);

// The p-quantile of `values` as MATLAB's quantile computes it (PREP, pyprep's _mat_quantile): the
// sorted values at positions (i - 0.5) / n, linear between them, the ends beyond.
double matlabQuantile(std::vector<double> values, double p);

// Median and 1.4826 x MAD of `values` (consistent with the SD for normal data); the robust
// z-scores (x - median) / (1.4826 MAD), 0 for every value when the MAD is 0 and x equals the
// median, +-infinity when it does not.
double medianOf(std::vector<double> values);
std::vector<double> robustZScores(const std::vector<double>& values);

}  // namespace modescope
