// Cleaning by IMF rejection: the reconstruction from the kept rows of an EMD-family
// decomposition, and the cleaned recording built from it (docs/cli.md, "emd"). The one cleaning
// module: the GUI marks rows per channel (DroppedRows); `modescope-cli emd --drop-imfs LIST
// --cleaned OUT` names IMF numbers for every channel (EmdCleaning, turned into DroppedRows by
// droppedRowsFor).
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

// IMF numbers to drop on every decomposed channel (the CLI's --drop-imfs).
struct EmdCleaning {
  std::vector<int> dropImfs;  // 1-based IMF numbers ("IMF 1" is the highest-frequency one)
  bool dropResidue = false;   // also remove the residue (the trend)
};

// The DroppedRows of `cleaning` for every channel of `result`: IMF k is row k-1, the residue row
// rows-1. A channel with fewer IMFs than a number asked for (automatic IMF counts differ between
// channels) skips that number; when `notes` is given, one sentence per such channel is appended
// ("Cz has 4 IMFs: IMF 5 skipped there"; names from `rec`). Throws InvalidParameterError when
// `cleaning` drops nothing or names an IMF number < 1.
DroppedRows droppedRowsFor(const Recording& rec, const EmdResult& result,
                           const EmdCleaning& cleaning, std::vector<std::string>* notes = nullptr);

// "IMF 1, IMF 2 and the residue" (sorted, each number once); "nothing" when empty.
std::string describeCleaning(const EmdCleaning& cleaning);

// Sum of the rows of `modes` not listed in `dropped` (accumulated in double, one float per
// sample; `samples` samples). Rows outside [0, modes.rows) in `dropped` are ignored. Throws
// InvalidParameterError when modes.data does not hold rows x samples values.
std::vector<float> reconstructKeptRows(const EmdChannelModes& modes, int64_t samples,
                                       const std::vector<int>& dropped);

// A new recording that reads like `base` everywhere except on the decomposed channels over the
// decomposed range [result.firstSample, result.firstSample + result.samples), where it holds
// the kept-rows reconstruction. Samples outside that range and the other channels are read from
// base's source on demand (nothing else is copied, so a long recording stays cheap). Metadata,
// annotations and diagnostics are base's, plus an Info diagnostic "emd.cleaned" that says what
// was removed where (describeDroppedRows and the range). Throws InvalidParameterError when the
// result does not fit the recording (a channel index past its channels, a range past a channel's
// end, a sample rate that differs from the channel's).
std::shared_ptr<const Recording> cleanedRecording(std::shared_ptr<const Recording> base,
                                                  const EmdResult& result,
                                                  const DroppedRows& dropped);

// "Fp1: IMF 1, IMF 2; Cz: residue" (channel names from `rec`), "none" when nothing is dropped.
std::string describeDroppedRows(const Recording& rec, const EmdResult& result,
                                const DroppedRows& dropped);

// Provenance of a cleaned recording: method "emd-cleaning"; parameters "dropped"
// (describeDroppedRows), "decomposition" (the provenance's method, else the EMD variant) and then
// the decomposition's own parameters (its "method" aside); seed, backend, input file and selection
// carried over from the decomposition's provenance; this software version; created now.
Provenance cleaningProvenance(const Recording& rec, const EmdResult& result,
                              const DroppedRows& dropped);

}  // namespace modescope
