// The modes read from a time-frequency image as a derived recording (the time-frequency view's
// "Reconstruct ridges"): one channel over a time range transformed with hop 1 (runTfJob), its
// strongest ridges extracted (tfRidges) and the signal along each reconstructed
// (tfReconstructRidge: the rows within the half-width of the ridge, summed per column), written as
// a new recording of the range with the channels
//   <name>, <name> ridge 1 (<mean Hz> Hz), ..., <name> residual
// (the residual is the channel minus the sum of the modes), so the modes can be browsed, filtered,
// decomposed further or exported like any recording. The range's annotations come along, shifted
// to the range's start.
//
// Thread rules: re-entrant; runs on a worker thread with a backend no other job uses.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_analysis.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_readout_params.h"

namespace modescope {

struct TfModesRequest {
  std::size_t channel = 0;
  double startSeconds = 0.0;
  double seconds = 10.0;
  TfParams params;  // hop is set to 1 (reconstruction needs every sample)
  // ridges (at least 1), penalty and half-width; reconstruct and complexValues are not read.
  TfReadoutParams readout = [] {
    TfReadoutParams r;
    r.ridges = 1;
    return r;
  }();
};

struct TfModesRecording {
  std::shared_ptr<const Recording> recording;
  Provenance provenance;            // method "tfr" with ran.modes
  std::vector<double> ridgeMeanHz;  // per mode: the mean frequency of its ridge
};

// Throws what checkTfJob and runTfJob throw (with their messages), and InvalidParameterError for
// ridges < 1.
TfModesRecording tfModesRecording(const Recording& rec, const TfModesRequest& request,
                                  ComputeBackend& backend, JobContext& ctx);

}  // namespace modescope
