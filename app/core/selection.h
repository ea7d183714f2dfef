// What every method runs on: the channels (indices into the recording, in the order the method
// uses them) and the time range. Every job spec (EMD, MEMD, ICA, AR spectra, entropy,
// time-frequency) is a Selection plus its method's parameters, and every GUI request a
// RequestSelection (a Selection plus the backend the user chose for the run), so that the
// dialogs read the selection in one place (RangeBackendBox::selection) and the checks
// (checkSelection, app/core/recording_selection.h) and the provenance
// (describeSelection) take it the same way for every method.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "engine/compute/backend.h"

namespace modescope {

struct Selection {
  std::vector<std::size_t> channels;  // recording indices; each method says how many, which rate
  double startSeconds = 0.0;          // s from the recording start
  double durationSeconds = -1.0;      // s; < 0: to the end
};

struct RequestSelection : Selection {
  std::optional<BackendChoice> backend;  // nullopt: the Compute menu's choice
};

}  // namespace modescope
