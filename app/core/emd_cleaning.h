// IMF-based cleaning: a recording whose decomposed channels are, over the decomposed range, the
// sum of the modes the user kept (the IMFs not marked as artifacts, and the residue unless it is
// dropped too). Used by `modescope-cli emd --drop-imfs ... --cleaned OUT` and the GUI's IMF view.
//
// Thread rules: pure functions; the returned recording reads the original's samples on demand
// (it keeps the original source alive) and is safe to read from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope {

// Sum over the rows of `modes` that are not in `dropRows` (0-based rows; the residue is row
// modes.rows - 1), accumulated in double and rounded once to float. Rows outside 0..rows-1 in
// `dropRows` are ignored. Dropping nothing gives the input back to float rounding (the modes
// sum to it).
std::vector<float> sumKeptRows(const EmdChannelModes& modes, int64_t samples,
                               const std::vector<int>& dropRows);

struct EmdCleaning {
  std::vector<int> dropImfs;  // 1-based IMF numbers ("IMF 1" is the highest-frequency one)
  bool dropResidue = false;   // also remove the residue (the trend)
};

struct CleanedRecording {
  std::shared_ptr<const Recording> recording;
  // One sentence per decomposed channel that has fewer IMFs than a number in dropImfs (automatic
  // IMF counts differ between channels): that number was skipped there.
  std::vector<std::string> notes;
};

// `rec` with every channel of `modes` replaced over [modes.firstSample, + modes.samples) by
// sumKeptRows; every other channel and every other sample is read unchanged from `rec`'s
// source. Metadata and annotations are kept; a diagnostic "emd.cleaned" says what was removed.
// Throws InvalidParameterError when `cleaning` drops nothing, names an IMF number < 1, or
// `modes` does not fit `rec` (channel index, sample rate or range).
CleanedRecording cleanWithModes(const std::shared_ptr<const Recording>& rec,
                                const EmdResult& modes, const EmdCleaning& cleaning);

// "IMF 1, IMF 2 and the residue".
std::string describeCleaning(const EmdCleaning& cleaning);

}  // namespace modescope
