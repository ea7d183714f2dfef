// What the MEMD results pane computes from a result for its views, as pure functions (tested
// without widgets): the mode-alignment read-out (mean instantaneous frequency and energy of
// every IMF on every channel, from the Hilbert-Huang transform, engine/hht/hht.h), the Hilbert
// spectrum summed across channels, and one IMF across all channels as a recording the signal
// browser can show.
//
// Thread rules: pure functions on values; the IMF recording's source reads the shared result
// (read-only) and is safe from several threads like every SignalSource.
#pragma once

#include <memory>
#include <vector>

#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

namespace modescope {

// channels x imfs matrices, row-major (row = result channel, column = IMF row; the residue is
// not included: the HHT leaves it out). A value the HHT has no entry for is NaN.
struct MemdAlignment {
  int channels = 0;
  int imfs = 0;
  std::vector<double> meanFrequencyHz;  // energy-weighted mean instantaneous frequency
  std::vector<double> energy;           // units^2 * s
  // Per IMF over the channels: the mean of the mean frequencies and their spread (std); a
  // well-aligned decomposition has a small spread (the same scale on every channel).
  std::vector<double> imfMeanHz, imfSpreadHz;
  double frequency(int channel, int imf) const {
    return meanFrequencyHz[static_cast<std::size_t>(channel * imfs + imf)];
  }
};
MemdAlignment memdAlignment(const HhtResult& hht, int imfCount);

// The spectra and marginals of every channel added up, as an HhtResult with one channel (index
// of the first; its IMF list empty), so spectrumGridFromHht draws it like any channel. Units
// stay those of one channel (an amplitude sum). Empty channels give an empty result.
HhtResult summedHhtChannels(const HhtResult& hht);

// Row `row` (0-based; the last is the residue) of every channel of `modes` as a recording: one
// channel per decomposed channel, with `base`'s channel information (name, unit, position), at
// the result's rate, on the recording's time axis (the samples before the decomposed range read
// as 0, the recording ends with the range), so the browser's page times match the original's.
// Nothing is copied: the source reads the shared result. Throws InvalidParameterError for a row
// outside [0, rows).
std::shared_ptr<const Recording> modeAcrossChannels(const Recording& base,
                                                    std::shared_ptr<const EmdResult> modes,
                                                    int row);

}  // namespace modescope
