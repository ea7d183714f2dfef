// Cleaning by ICA component rejection (`modescope-cli ica-apply`, the GUI's component browser):
// back-project the selection of an ICA file without the rejected components and build the
// cleaned recording, which reads like the original everywhere except on the decomposed channels
// over the decomposed range.
//
// Thread rules: pure functions on values; the cleaned recording's source is read-only and safe
// to read from several threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_ica.h"

namespace modescope {

// Throws InvalidParameterError("--ica", ...) unless `rec` is the recording `file` was computed
// on: every channel index exists with the same label (or name), the same sample rate, and the
// decomposed range lies inside it. `icaPath` names the file in the message.
void checkIcaMatchesRecording(const Recording& rec, const IcaFile& file,
                              const std::string& icaPath);

// Parses "1,3,7" (1-based component numbers as printed) into sorted 0-based indices; "" or
// "none" = nothing. Throws InvalidParameterError("--reject") for numbers outside 1..components,
// repeats or text.
std::vector<int> parseRejectList(const std::string& text, int components);

// The cleaned recording: checkIcaMatchesRecording, then icaBackProject of the decomposed
// selection without `rejected` (0-based); the rest is read from `base` on demand. Metadata and
// annotations are base's, plus an Info diagnostic "ica.cleaned".
std::shared_ptr<const Recording> icaCleanedRecording(std::shared_ptr<const Recording> base,
                                                     const IcaFile& file,
                                                     const std::vector<int>& rejected,
                                                     const std::string& icaPath);

// Provenance of the cleaned recording: method "ica-cleaning", the ICA file, the rejected
// components (1-based), the decomposition's parameters, seed, selection.
Provenance icaCleaningProvenance(const IcaFile& file, const std::vector<int>& rejected,
                                 const std::string& icaPath);

// "components 1, 3 and 7" / "no components".
std::string describeRejected(const std::vector<int>& rejected);

}  // namespace modescope
