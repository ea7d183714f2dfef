// Thresholds of the automatic ICA artifact flags (engine/ica/ica_flags.h), declared once in
// icaFlagParamTable(): the CLI options of `modescope-cli ica-flags`, the pipeline step's fields
// and the component browser's threshold editors are produced from it.
//
// Defaults follow the published detectors: MNE 1.3's find_bads_eog (z-score 3, 1-10 Hz),
// find_bads_ecg (z-score 3 at 8-16 Hz for correlation, the Kuiper threshold of its CTPS method),
// find_bads_muscle (0.5, 7-45 Hz) and ADJUST (Mognon et al. 2011, Psychophysiology 48:229) for
// the spatial and temporal eye and discontinuity features.
//
// Thread rules: plain values.
#pragma once

#include "engine/method/param_table.h"

namespace modescope {

struct IcaFlagParams {
  // Eye: correlation of each activation with each EOG (or frontal proxy) channel after a
  // band-pass, then MNE's iterated z-score (_find_outliers, 2 rounds) over the components.
  double eogZThreshold = 3.0;
  double eogLowHz = 1.0;
  double eogHighHz = 10.0;
  // ADJUST (Mognon et al. 2011): blink = SAD and TK above threshold; horizontal movement = SED and
  // MEV above threshold; generic discontinuity = GDSF and MEV above threshold. A threshold of 0
  // means automatic: ADJUST's expectation-maximisation split of the feature over the components.
  double sadThreshold = 0.0;
  double sedThreshold = 0.0;
  double kurtosisThreshold = 0.0;  // TK: mean per-segment kurtosis (3 for a Gaussian)
  double mevThreshold = 0.0;       // MEV: max segment variance / mean segment variance
  double gdsfThreshold = 0.0;
  // Heart: with an ECG channel, MNE find_bads_ecg(method='correlation') z-score rule at
  // 8-16 Hz and its CTPS method (Dammers et al. 2008) on epochs around the R peaks; without
  // one, the periodicity of the activation's 8-16 Hz envelope at 42-180 beats per minute.
  double ecgZThreshold = 3.0;
  double ecgLowHz = 8.0;
  double ecgHighHz = 16.0;
  double ctpsThreshold = 0.0;         // 0 = MNE's automatic Kuiper threshold for the sample rate
  double periodicityThreshold = 8.0;  // envelope spectrum peak / median, 0.7-3 Hz
  // Muscle: MNE find_bads_muscle: the product of three logistic scores above threshold^3.
  double muscleThreshold = 0.5;
  double muscleLowHz = 7.0;
  double muscleHighHz = 45.0;
  // Line noise: power within 0.5 Hz of 50 or 60 Hz over the median of 40-70 Hz, in dB.
  double linePeakDb = 15.0;
  // ... and the share of the activation's power within 0.5 Hz of that frequency: a brain
  // component that leaks a little mains has a peak but not the power.
  double lineShare = 0.1;
  // Channel noise: the share of the map's energy on its largest electrode (besides GDSF).
  double channelConcentration = 0.7;
  // Segments for the temporal features and the properties view's epoch image.
  double segmentSeconds = 2.0;
};

const ParamTable<IcaFlagParams>& icaFlagParamTable();

// Throws InvalidParameterError naming the field (the table's ranges; each band's low edge lies
// at or below a split its high edge lies above: EOG 5 Hz, ECG 12 Hz, muscle 20 Hz).
void validateIcaFlagParams(const IcaFlagParams& p);

}  // namespace modescope
