// Automatic artifact flags for independent components, from published, transparent detectors
// whose features a user can read (ICLabel's trained weights are not available to this project):
//
//   eye      MNE 1.3 find_bads_eog: Pearson r of each activation with each EOG (or frontal proxy)
//            channel after a 1-10 Hz band-pass, flagged by MNE's iterated z-score rule (with a
//            frontal proxy, counted only for an eye-like map: SAD or SED above threshold); and the
//            ADJUST rules (Mognon et al. 2011): blink = SAD and TK high, horizontal movement =
//            SED and MEV high.
//   heart    with an ECG channel: find_bads_ecg's correlation z-score rule at 8-16 Hz and its
//            cross-trial phase statistic (CTPS, Dammers et al. 2008) on epochs around the R
//            peaks; without: the periodicity of the 8-16 Hz envelope at heart rates.
//   muscle   MNE find_bads_muscle (Dharmaprani et al. 2016): log-log spectral slope 7-45 Hz,
//            distance of the map's weight from the vertex, low spatial smoothness.
//   line     a narrow spectral peak at 50 or 60 Hz.
//   channel  a map concentrated on one electrode, or ADJUST's generic discontinuity (GDSF and
//            MEV high).
//
// Each detector reports its features with their thresholds and a verdict with a confidence in
// [0, 1]: 0.5 at the threshold, towards 1 the further every required feature lies beyond its
// threshold (a logistic of the smallest margin, in units of the feature's spread over the
// components). A component's label comes from its flagged rules by evidence, strongest first:
// (1) a reference channel (EOG/ECG correlation, CTPS on the ECG's beats), (2) the activation's
// own time course and spectrum (muscle, line, heartbeat periodicity), (3) the map's shape (the
// ADJUST eye rules: a lateral muscle map also differs between the eyes), (4) channel noise (a
// focal eye or muscle map is also "on few electrodes"); within a level the most confident rule
// wins. No flagged rule: brain-or-other.
//
// Thread rules: pure functions on values; flagIcaComponents checkpoints between components.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_flags_params.h"
#include "engine/ica/ica_result.h"

namespace modescope {

enum class IcaFlagLabel { BrainOrOther, Eye, Heart, Muscle, Line, Channel };

// "brain", "eye", "heart", "muscle", "line", "channel" (mne-icalabel's names where they exist:
// "eye blink" is ours "eye", "heart beat" "heart", "muscle artifact" "muscle", "line noise"
// "line", "channel noise" "channel", "brain"/"other" together "brain").
const char* icaFlagLabelName(IcaFlagLabel label);
// mne-icalabel's ic_type text: "eye blink", "heart beat", "muscle artifact", "line noise",
// "channel noise", "brain".
const char* icaFlagIcType(IcaFlagLabel label);
// Parses "eye,heart" (names above, also the ic_type texts); throws InvalidParameterError
// naming `option` and the accepted names.
std::vector<IcaFlagLabel> parseIcaFlagLabels(const std::string& text, const std::string& option);

struct IcaReferenceSeries {
  std::string name;            // channel name ("VEOG", "Fp1")
  std::vector<float> samples;  // the decomposed range, at the activations' rate
};

struct IcaFlagInput {
  double sampleRate = 0.0;
  int components = 0;
  int64_t samples = 0;
  std::vector<float> activations;  // components x samples, row-major
  IcaMatrix mixing;                // channels x components (the scalp maps)
  std::vector<std::string> channelNames;
  std::vector<std::optional<Position3>> positions;  // unit sphere, x right, y nose, z up
  std::vector<IcaReferenceSeries> eog, ecg;
  bool eogIsFrontalProxy = false;
};

struct IcaFlagFeature {
  std::string key;    // "sad", "eog_z", ...
  std::string label;  // "spatial average difference"
  double value = 0.0;
  double threshold = 0.0;  // the value it is compared with (automatic ones resolved)
  bool above = false;      // value > threshold (|r| > threshold for a correlation)
};

struct IcaDetectorVerdict {
  IcaFlagLabel label = IcaFlagLabel::BrainOrOther;
  std::string rule;  // "MNE find_bads_eog (VEOG)", "ADJUST blink", ...
  int evidence = 0;  // the level above: 1 reference channel ... 4 channel noise
  bool flagged = false;
  // False when the rule flagged the component but its evidence does not hold for it: an EOG/ECG
  // correlation whose |r| lies within chance (MNE's second z round can pass one), or a frontal
  // proxy's (an EEG channel standing in for the EOG correlates with any component strong at that
  // site, so it labels a component only if its map is eye-like too: ADJUST's SAD for Fp sites,
  // SED for the bipolar F8-F7). Uncounted verdicts do not label.
  bool counted = true;
  double confidence = 0.0;
  std::vector<IcaFlagFeature> features;
  std::string reason;  // one sentence: which features crossed which thresholds
};

struct IcaComponentFlags {
  IcaFlagLabel label = IcaFlagLabel::BrainOrOther;
  double confidence = 0.0;  // of the label (brain: 1 - the highest detector confidence)
  std::vector<IcaDetectorVerdict> verdicts;  // every rule that ran, flagged or not
  std::string reasons() const;               // the flagged verdicts' reasons, one per line
};

struct IcaFlags {
  IcaFlagParams params;
  std::vector<IcaComponentFlags> components;
  std::vector<std::string> notes;  // rules that could not run and why ("no ECG channel: ...")
};

// Throws InvalidParameterError for bad params or shapes that disagree; Cancelled.
IcaFlags flagIcaComponents(const IcaFlagInput& input, const IcaFlagParams& params, JobContext& ctx);

// Components (0-based) whose label is one of `labels` with confidence >= minConfidence.
std::vector<int> flaggedComponents(const IcaFlags& flags, const std::vector<IcaFlagLabel>& labels,
                                   double minConfidence = 0.5);

}  // namespace modescope
