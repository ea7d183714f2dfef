// The bad-channel suggestions of a recording for both front ends: which channels are measured
// (the EEG channels of the main sample rate) and over what stretch, then
// engine/spatial/bad_channel_detection.h.
#pragma once

#include <memory>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/spatial/bad_channel_detection.h"

namespace modescope {

// The EEG channels among defaultMethodChannels(rec) (every non-trigger channel of the main
// rate); all of those when none is typed EEG. Throws what suggestBadChannels throws.
BadChannelReport suggestBadChannelsOf(const Recording& rec, const BadChannelCriteria& criteria,
                                      ComputeBackend& backend, JobContext& ctx,
                                      double startSeconds = 0.0, double durationSeconds = -1.0);

}  // namespace modescope
