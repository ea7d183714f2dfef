#include "engine/ica/ica_rank.h"

#include <string>

#include "engine/core/error.h"
#include "engine/ica/ica_whitening.h"

namespace modescope {

IcaRankEstimate estimateIcaRank(const SignalBlock& block, double rankTolerance, JobContext& ctx) {
  if (block.channels.size() < 2 || block.samples < 2) {
    throw InvalidParameterError("selection",
                                std::to_string(block.channels.size()) + " channels x " +
                                    std::to_string(block.samples) + " samples",
                                "at least 2 channels and 2 samples");
  }
  IcaParams params;
  params.rankTolerance = rankTolerance;
  Diagnostics ignored;  // the rank-reduction note: the caller words the proposal itself
  const ica_detail::Whitening w = ica_detail::computeWhitening(block, params, 1, ctx, ignored);
  IcaRankEstimate out;
  out.channels = static_cast<int>(block.channels.size());
  out.detectedRank = w.detectedRank;
  out.eigenvalues.assign(w.eigenvalues.data(), w.eigenvalues.data() + w.eigenvalues.size());
  return out;
}

}  // namespace modescope
