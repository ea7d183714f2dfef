// The rank an ICA would use on a selection, before running it: the same mean removal, covariance
// and eigenvalue test as step 2 of infomax.h (so the proposal and the run agree). The GUI shows it
// as the PCA-rank proposal ("auto = detected rank 63 of 64: average-referenced data").
//
// Thread rules: re-entrant; runs on the caller's thread (a 64-channel minute at 160 Hz takes a few
// milliseconds).
#pragma once

#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {

struct IcaRankEstimate {
  int channels = 0;
  int detectedRank = 0;
  std::vector<double> eigenvalues;  // of the covariance, descending
};

// Throws what runInfomaxCpu's whitening throws for unusable blocks (fewer than 2 channels or
// samples, NaN/Inf: InvalidParameterError / InvalidInputError) and Cancelled.
IcaRankEstimate estimateIcaRank(const SignalBlock& block, double rankTolerance, JobContext& ctx);

}  // namespace modescope
