// What "Analysis > Decompose (EMD family)" asks for, and how it maps onto the one decomposition
// job (app/core/emd_job.h: runEmdJob, the same checks and provenance as `modescope-cli emd`).
// Nothing here decomposes: the workflow runs runEmdJob(rec, toJobSpec(request, file), ...).
//
// Thread rules: plain values and pure functions, usable on any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/core/emd_job.h"
#include "app/core/selection.h"
#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_params.h"
#include "engine/hht/hht.h"

namespace modescope {

struct DecomposeRequest : RequestSelection {  // channels, range, backend
  EmdParams params;
  HhtParams hht;           // the GUI always computes the Hilbert-Huang transform
  std::string presetName;  // "" when the fields differ from every preset
};

// The job spec runEmdJob takes: the request's selection, parameters, preset and HHT parameters;
// `inputFile` is recorded in the provenance ("" = the recording's source path).
EmdJobSpec toJobSpec(const DecomposeRequest& request, const std::string& inputFile);

// "ICEEMDAN of Cz, O1 (10 s from 5 s)" for job titles and tabs.
std::string describeDecomposition(const Recording& rec, const DecomposeRequest& request);

}  // namespace modescope
