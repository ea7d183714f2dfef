// Cleaning by IMF rejection: the reconstruction from the kept rows of an EMD-family
// decomposition, and the cleaned recording built from it (issue 3, item 4).
//
// EMD is complete (sum of all rows == input, engine/emd/emd_result.h), so dropping the rows that
// carry an artifact (eye blinks in the slow IMFs, line noise or muscle in the fast ones) and
// summing the others is the cleaned signal. The residue is a row like the others: keeping it
// keeps the trend, dropping it removes it.
//
// Thread rules: pure functions on values; the cleaned recording's source is read-only and safe
// to read from several threads, like every SignalSource.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope {

// Rows to drop per decomposed channel: key = recording channel index (EmdChannelModes::channel),
// value = 0-based rows (IMF 1 is row 0, the residue is row rows-1). Channels without an entry
// keep every row.
using DroppedRows = std::map<std::size_t, std::vector<int>>;

// Sum of the rows of `modes` not listed in `dropped` (accumulated in double, one float per
// sample; `samples` samples). Rows outside [0, modes.rows) in `dropped` are ignored. Throws
// InvalidParameterError when modes.data does not hold rows x samples values.
std::vector<float> reconstructKeptRows(const EmdChannelModes& modes, int64_t samples,
                                       const std::vector<int>& dropped);

// A new recording that reads like `base` everywhere except on the decomposed channels over the
// decomposed range [result.firstSample, result.firstSample + result.samples), where it holds
// the kept-rows reconstruction. Samples outside that range and the other channels are read from
// base's source on demand (nothing else is copied, so a long recording stays cheap). Metadata,
// annotations and diagnostics are base's. Throws InvalidParameterError when the result does not
// fit the recording (a channel index past its channels, a range past a channel's end, a sample
// rate that differs from the channel's).
std::shared_ptr<const Recording> cleanedRecording(std::shared_ptr<const Recording> base,
                                                  const EmdResult& result,
                                                  const DroppedRows& dropped);

// "Fp1: IMF 1, IMF 2; Cz: residue" (channel names from `rec`), "none" when nothing is dropped.
std::string describeDroppedRows(const Recording& rec, const EmdResult& result,
                                const DroppedRows& dropped);

// Provenance of a cleaned recording: method "emd-clean", the decomposition's method, the dropped
// rows, the range; input file and backend carried over from the decomposition's provenance.
Provenance cleaningProvenance(const Recording& rec, const EmdResult& result,
                              const DroppedRows& dropped);

}  // namespace modescope
