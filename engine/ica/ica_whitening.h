// Internal to engine/ica (uses Eigen, which only modescope_engine sees): the data passes before
// the Infomax iterations (mean, covariance, rank, PCA reduction, sphering) and a small parallel
// loop over sample ranges. Steps 1-3 of the procedure in infomax.h.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>

#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"

namespace modescope::ica_detail {

// Runs body(begin, end) over [0, count) split into at most `threads` contiguous ranges, on a
// leased WorkerTeam of `threads` (the calling thread takes ranges too). The first exception
// propagates; ranges not yet started are then skipped.
void parallelRanges(int64_t count, int threads,
                    const std::function<void(int64_t begin, int64_t end)>& body);

struct Whitening {
  Eigen::VectorXd mean;          // C
  Eigen::MatrixXd covariance;    // C x C, 1/(N-1), of the centred data
  Eigen::VectorXd eigenvalues;   // C, descending
  Eigen::MatrixXd eigenvectors;  // C x C, columns in the order of eigenvalues
  int detectedRank = 0;
  int components = 0;      // r
  Eigen::MatrixXd sphere;  // r x C, applied to centred data
};

struct ChannelMoments {
  Eigen::VectorXd mean;        // C
  Eigen::MatrixXd covariance;  // C x C, 1/(N-1), of the centred data
};

// Mean and covariance of `block` (all channels, all samples) in double on `threads` threads, the
// same bits for any thread count. Checks the cancel token between chunks.
ChannelMoments channelMoments(const SignalBlock& block, int threads, JobContext& ctx);

// From the moments: eigen decomposition and rank, then the component count r (pcaRank or the
// rank; InvalidParameterError when pcaRank exceeds the rank) and the sphere for r. Adds the
// rank-reduction diagnostic. `block` names the channels in messages.
Whitening whiteningFrom(ChannelMoments moments, const SignalBlock& block, const IcaParams& params,
                        Diagnostics& diagnostics);

// channelMoments, then whiteningFrom.
Whitening computeWhitening(const SignalBlock& block, const IcaParams& params, int threads,
                           JobContext& ctx, Diagnostics& diagnostics);

// sphere * (x - mean) for every sample: r x N, column-major (one sample per column, contiguous).
// `mean` has C entries, `sphere` is r x C.
Eigen::MatrixXd sphereData(const SignalBlock& block, const Eigen::Ref<const Eigen::VectorXd>& mean,
                           const Eigen::Ref<const Eigen::MatrixXd>& sphere, int threads,
                           JobContext& ctx);

}  // namespace modescope::ica_detail
