// Channel label normalisation to 10-05 names, channel-type guessing and standard positions.
//
// "EEG Fp1-REF", "FP1", "fp1-le", "Fp1.." all become "Fp1"; "Fc5." becomes "FC5", "Fcz." "FCz".
// Labels that are not a 10-05 site keep a cleaned form of the label (trimmed, sanitised UTF-8).
// Positions come from the bundled tables (resources/montages, BSD-3, sappelhoff/eeg_positions).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct NormalisedLabel {
  std::string name;  // 10-05 spelling, or the cleaned label
  bool isStandardSite = false;
};

NormalisedLabel normaliseChannelLabel(const std::string& label);

// From the label (prefixes "EEG", "EOG", "ECG"/"EKG", "EMG", names like "Status", "Trigger",
// "STI 014", "VEOG", "HEOG", "LOC", "ROC") and whether it is a 10-05 site.
ChannelType guessChannelType(const std::string& label, const NormalisedLabel& normalised);

// Unit-sphere position of a 10-05 site (x right, y nose, z up), if known.
std::optional<Position3> standardPosition(const std::string& name);
// 2-D projected position for topographic layouts (from the bundled 2-D table), if known.
std::optional<std::pair<double, double>> standardPosition2D(const std::string& name);

// All 10-05 site names in the bundled table.
const std::vector<std::string>& standardSiteNames();

// Fills name, type and position of every channel from its label (readers call this).
void applyStandardNames(std::vector<ChannelInfo>& channels);

}  // namespace modescope
