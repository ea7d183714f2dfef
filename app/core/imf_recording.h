// The IMFs of one decomposed channel as a recording on the source recording's time axis, so a
// view that takes a recording channel (the time-frequency view) can show an IMF and follow the
// source's browser: channel r is IMF r + 1 (the last, the residue), sample s of the recording is
// sample s - firstSample of the decomposition, and zero outside the decomposed range. The samples
// are read from the EmdResult (kept alive by the recording), not copied.
//
// Thread rules: the recording is immutable and its source thread-safe, like every recording.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope {

// `resultChannel` indexes result->channels. Channel names: "<source name> IMF k" and
// "<source name> residue". Throws InvalidParameterError for a channel out of range.
std::shared_ptr<const Recording> imfRecording(const Recording& source,
                                              std::shared_ptr<const EmdResult> result,
                                              std::size_t resultChannel);

}  // namespace modescope
