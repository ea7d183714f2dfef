// Scalp-map features of the ICA artifact flags (engine/ica/ica_flags.h); internal to engine/ica.
//
// ADJUST (Mognon et al. 2011) works on maps scaled to unit norm with channel sites in EEGLAB's
// polar convention (theta: degrees from the nose, positive to the right; radius: angle from the
// vertex / 180 deg). MNE find_bads_muscle works on the azimuthal equidistant projection of the
// sites (channels/layout.py _auto_topomap_coords, default sphere at the origin).
//
// Thread rules: pure functions.
#pragma once

#include <optional>
#include <vector>

#include "engine/core/recording.h"
#include "engine/ica/ica_result.h"

namespace modescope::ica_flags {

struct MapFeatures {
  bool hasPositions = false;   // every channel has a site: otherwise only `concentration` is set
  double sad = 0.0;            // |mean frontal| - |mean posterior| (ADJUST computeSAD)
  double sed = 0.0;            // |mean left eye - mean right eye| (ADJUST computeSED)
  double gdsf = 0.0;           // max over electrodes of |a_i - weighted mean of 10 neighbours|
  double concentration = 0.0;  // max a_i^2 / sum a^2
  int peakChannel = 0;         // the electrode with the largest |a_i|
  double focusDistance = 0.0;  // MNE find_bads_muscle metric 2
  double smoothness = 0.0;     // MNE find_bads_muscle metric 3
};

// One entry per column of `mixing` (channels x components).
std::vector<MapFeatures> mapFeatures(const IcaMatrix& mixing,
                                     const std::vector<std::optional<Position3>>& positions);

}  // namespace modescope::ica_flags
