// Averages of epochs per condition (the ERP) with their standard errors, and difference waves
// (docs/epochs.md). mean = sum / n; SE = sqrt(sum (x - mean)^2 / (n - 1)) / sqrt(n), as
// mne.Epochs.average() and standard_error() compute them; SE is NaN for a condition with fewer
// than two epochs. Both backends compute this (ComputeBackend::averageEpochs); the CPU in double,
// the GPU in double accumulators over float samples.
//
// Thread rules: plain values; pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/epochs/epochs.h"

namespace modescope {

struct EpochAverages {
  std::vector<std::string> conditions;
  std::size_t channels = 0;
  int64_t samples = 0;
  std::vector<int64_t> counts;  // epochs averaged per condition
  // conditions x channels x samples
  std::vector<double> mean, standardError;

  std::size_t offset(std::size_t condition, std::size_t channel) const {
    return (condition * channels + channel) * static_cast<std::size_t>(samples);
  }
};

// The CPU reference: one pass per condition and channel, in double (memory-bound: one thread
// streams the epochs faster than the job can write them).
EpochAverages averageEpochsCpu(const EpochSet& set, JobContext& ctx);

// Rows of `set` grouped by condition for the device: the kept epochs' indices sorted by
// condition, and where each condition's run begins (conditions + 1 offsets).
struct EpochGroups {
  std::vector<int32_t> order;
  std::vector<int32_t> offsets;
};
EpochGroups groupEpochs(const EpochSet& set);

// A - B of two conditions of `avg` with SE sqrt(SE_A^2 + SE_B^2) (independent epochs), named
// "A - B". Throws InvalidParameterError for an unknown condition (naming the ones there are).
struct DifferenceWave {
  std::string name, minuend, subtrahend;
  std::vector<double> mean, standardError;  // channels x samples
};
DifferenceWave differenceWave(const EpochAverages& avg, const std::string& a, const std::string& b);

// "A-B" -> {A, B}: split at the one '-' that leaves both sides conditions of `avg`. Throws
// InvalidParameterError when no split names two conditions.
std::pair<std::string, std::string> parseDifference(const EpochAverages& avg,
                                                    const std::string& text);

}  // namespace modescope
