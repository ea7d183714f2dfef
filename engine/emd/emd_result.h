// The modes an EMD-family decomposition returns (immutable once made; shared as
// std::shared_ptr<const EmdResult>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/core/provenance.h"
#include "engine/emd/emd_params.h"

namespace modescope {

// One channel's modes: rows IMF 1 (highest frequency) ... IMF K, then the residue, in the input's
// units. Sum of all rows == input (to float rounding; EEMD: see docs/emd.md).
struct EmdChannelModes {
  std::size_t channel = 0;  // index into the recording (SignalBlock::channels)
  int rows = 0;             // IMFs + 1 (the last row is the residue)
  std::vector<float> data;  // rows x samples, row-major
  // Sifting iterations per IMF row (ensemble methods: mean over the members, rounded).
  std::vector<int> sifts;
  // Ensemble members whose candidate had fewer than 3 extrema at a stage (ICEEMDAN/CEEMDAN:
  // their local mean is the candidate itself), summed over stages; 0 for EMD.
  int64_t degenerateMembers = 0;

  int imfCount() const { return rows > 0 ? rows - 1 : 0; }
  const float* row(int r, int64_t samples) const {
    return data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(samples);
  }
  float* row(int r, int64_t samples) {
    return data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(samples);
  }
};

struct EmdResult {
  EmdParams params;
  double sampleRate = 0.0;                // Hz
  int64_t firstSample = 0;                // where the decomposed block starts in the recording
  int64_t samples = 0;                    // per channel
  std::vector<EmdChannelModes> channels;  // in the order of SignalBlock::channels
  Diagnostics diagnostics;  // non-fatal findings (members skipped, sift cap reached, ...)
  Provenance provenance;    // filled by the job that ran it (app/core)
};

}  // namespace modescope
