// What "Analysis > Independent components (Infomax ICA)" asks for, and how it maps onto the ICA
// job of app/core/ica_job.h (runIcaJob: the same checks, parameters and provenance as
// `modescope-cli ica`). Nothing here decomposes.
//
// Thread rules: plain values and pure functions, usable on any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/core/ica_job.h"
#include "app/core/pipeline.h"
#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"

namespace modescope {

struct IcaRequest : RequestSelection {  // channels, range, backend
  IcaParams params;
  std::string presetName;  // "" when the fields differ from every preset
  // A replayed pipeline's automatic flags: the thresholds the component browser labels with and
  // the labels whose flagged components it marks (nullopt: the default thresholds, no marks).
  std::optional<PipelineIcaFlags> flags;
};

// The job spec runIcaJob takes; `menuChoice` fills the backend when the request leaves it open.
IcaJobSpec toJobSpec(const IcaRequest& request, const std::string& inputFile,
                     BackendChoice menuChoice);

// "ICA of 64 channels (30 s from 0 s)" for job titles and tabs.
std::string describeIca(const Recording& rec, const IcaRequest& request);

// The channels the dialog checks first: the EEG channels that are not marked bad (normalised
// names), at the most common EEG sample rate.
std::vector<int> defaultIcaChannels(const Recording& rec, const std::vector<std::string>& bad);

}  // namespace modescope
