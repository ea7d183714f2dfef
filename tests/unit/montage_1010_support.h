// The bundled 10-10 montage as EEG channels with unit-sphere positions (fiducials left out), for
// the tests of spatial filters and channel interpolation. Header-only.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/montage/position_files.h"

namespace modescope::test_support {

inline std::vector<ChannelInfo> montage1010() {
  const ElectrodeLocations file = readElectrodeLocations(
      std::string(MODESCOPE_SOURCE_DIR) + "/resources/montages/eeg_positions_standard_1010_3D.tsv");
  std::vector<ChannelInfo> channels;
  for (const auto& e : file.electrodes) {
    if (e.label == "NAS" || e.label == "LPA" || e.label == "RPA") continue;
    ChannelInfo c;
    c.label = c.name = e.label;
    c.type = ChannelType::EEG;
    const double n = std::sqrt(e.position.x * e.position.x + e.position.y * e.position.y +
                               e.position.z * e.position.z);
    c.position = Position3{e.position.x / n, e.position.y / n, e.position.z / n};
    channels.push_back(c);
  }
  return channels;
}

}  // namespace modescope::test_support
