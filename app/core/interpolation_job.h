// One interpolation of bad channels on a recording for both front ends (`modescope-cli
// interpolate`, the window's Process > Interpolate bad channels, the pipeline step): the plan
// (engine/spatial/channel_interpolation.h), the good channels read once, the backend's spatial
// filter (CPU in double, CUDA as one SGEMM), and a recording whose bad channels carry the
// interpolated samples while every other channel is read lazily from the original.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/spatial/channel_interpolation.h"

namespace modescope {

struct InterpolationJobSpec {
  std::vector<std::size_t> bad;           // recording indices to interpolate
  std::vector<std::size_t> alsoExcluded;  // further bad channels: neither used nor interpolated
  SplineInterpolationParams params;
  std::string inputFile;  // for provenance; "" = the recording's sourcePath
};

struct InterpolationJobResult {
  std::shared_ptr<const Recording> recording;  // all channels of the input, bad ones replaced
  ChannelInterpolationPlan plan;
  Provenance provenance;
  std::string backend;
  double wallSeconds = 0.0;
};

// Throws what planChannelInterpolation throws (before any sample is read), the backend's errors,
// Cancelled on a stop request.
InterpolationJobResult runInterpolationJob(const std::shared_ptr<const Recording>& rec,
                                           const InterpolationJobSpec& spec,
                                           ComputeBackend& backend, JobContext& ctx);

}  // namespace modescope
