// The automatic ICA flags' thresholds, declared once (engine/method/param_table.h). Sources:
// MNE 1.3 mne/preprocessing/ica.py (find_bads_eog, find_bads_ecg, find_bads_muscle), ADJUST
// (Mognon, Jovicich, Bruzzone and Buiatti 2011).
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/ica_flags_params.h"

namespace modescope {
namespace {

using Field = ParamField<IcaFlagParams>;

// Band edges: each band's low edge at most `split` Hz and its high edge above it, so that no
// combination of values crosses (a range per field, no rule between fields).
ParamDecl lowEdge(const char* key, const char* cli, const char* label, double split,
                  const char* help) {
  return realParam(key, cli, label).in("Hz").above(0).atMost(split).shown(1, 1).because(help);
}
ParamDecl highEdge(const char* key, const char* cli, const char* label, double split,
                   const char* help) {
  return realParam(key, cli, label).in("Hz").above(split).atMost(1000).shown(1, 1).because(help);
}

ParamDecl adjustThreshold(const char* key, const char* cli, const char* label, const char* help) {
  return realParam(key, cli, label)
      .above(0)
      .atMost(1e6)
      .orSpecial(0, "automatic")
      .shown(3, 0.1)
      .because(std::string(help) +
               "; automatic: ADJUST's expectation-maximisation threshold over the components");
}

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<IcaFlagParams>(
      realParam("eogZThreshold", "eog-z", "EOG z-score threshold")
          .above(0)
          .atMost(100)
          .shown(2, 0.5)
          .because("MNE find_bads_eog threshold: |z| of the EOG correlation over the components"),
      &IcaFlagParams::eogZThreshold));
  f.push_back(bindField<IcaFlagParams>(
      lowEdge("eogLowHz", "eog-low", "EOG band low edge", 5, "MNE find_bads_eog l_freq (1 Hz)"),
      &IcaFlagParams::eogLowHz));
  f.push_back(bindField<IcaFlagParams>(highEdge("eogHighHz", "eog-high", "EOG band high edge", 5,
                                                "MNE find_bads_eog h_freq (10 Hz)"),
                                       &IcaFlagParams::eogHighHz));
  f.push_back(bindField<IcaFlagParams>(
      adjustThreshold("sadThreshold", "sad", "SAD threshold",
                      "ADJUST spatial average difference |mean frontal| - |mean posterior|"),
      &IcaFlagParams::sadThreshold));
  f.push_back(bindField<IcaFlagParams>(
      adjustThreshold("sedThreshold", "sed", "SED threshold",
                      "ADJUST spatial eye difference |mean left eye - mean right eye|"),
      &IcaFlagParams::sedThreshold));
  f.push_back(bindField<IcaFlagParams>(
      adjustThreshold("kurtosisThreshold", "tk", "Temporal kurtosis threshold",
                      "ADJUST TK: mean kurtosis of the activation's segments"),
      &IcaFlagParams::kurtosisThreshold));
  f.push_back(bindField<IcaFlagParams>(
      adjustThreshold("mevThreshold", "mev", "Maximum epoch variance threshold",
                      "ADJUST MEV: largest segment variance over the mean (top 1 % trimmed)"),
      &IcaFlagParams::mevThreshold));
  f.push_back(bindField<IcaFlagParams>(
      adjustThreshold("gdsfThreshold", "gdsf", "GDSF threshold",
                      "ADJUST generic discontinuity: an electrode's weight against its 10 "
                      "nearest neighbours'"),
      &IcaFlagParams::gdsfThreshold));
  f.push_back(bindField<IcaFlagParams>(
      realParam("ecgZThreshold", "ecg-z", "ECG z-score threshold")
          .above(0)
          .atMost(100)
          .shown(2, 0.5)
          .because("MNE find_bads_ecg(method='correlation', measure='zscore') threshold"),
      &IcaFlagParams::ecgZThreshold));
  f.push_back(bindField<IcaFlagParams>(
      lowEdge("ecgLowHz", "ecg-low", "ECG band low edge", 12, "MNE find_bads_ecg l_freq (8 Hz)"),
      &IcaFlagParams::ecgLowHz));
  f.push_back(bindField<IcaFlagParams>(highEdge("ecgHighHz", "ecg-high", "ECG band high edge", 12,
                                                "MNE find_bads_ecg h_freq (16 Hz)"),
                                       &IcaFlagParams::ecgHighHz));
  f.push_back(bindField<IcaFlagParams>(
      realParam("ctpsThreshold", "ctps", "CTPS threshold")
          .above(0)
          .below(1)
          .orSpecial(0, "automatic")
          .shown(2, 0.05)
          .because("Kuiper statistic of the cross-trial phase (Dammers et al. 2008); automatic: "
                   "MNE's _get_ctps_threshold (pk 20) for the sample rate"),
      &IcaFlagParams::ctpsThreshold));
  f.push_back(bindField<IcaFlagParams>(
      realParam("periodicityThreshold", "periodicity", "Heartbeat periodicity threshold")
          .above(1)
          .atMost(1e6)
          .shown(1, 1)
          .because("without ECG: the 8-16 Hz envelope's spectral peak at 0.7-3 Hz (42-180 beats "
                   "per minute) over the median there"),
      &IcaFlagParams::periodicityThreshold));
  f.push_back(bindField<IcaFlagParams>(
      realParam("muscleThreshold", "muscle", "Muscle threshold")
          .above(0)
          .atMost(1)
          .shown(2, 0.05)
          .because("MNE find_bads_muscle threshold (flags scores above threshold^3; Dharmaprani "
                   "et al. 2016)"),
      &IcaFlagParams::muscleThreshold));
  f.push_back(bindField<IcaFlagParams>(lowEdge("muscleLowHz", "muscle-low", "Muscle slope low edge",
                                               20, "MNE find_bads_muscle l_freq (7 Hz)"),
                                       &IcaFlagParams::muscleLowHz));
  f.push_back(bindField<IcaFlagParams>(
      highEdge("muscleHighHz", "muscle-high", "Muscle slope high edge", 20,
               "MNE find_bads_muscle h_freq (45 Hz; 75 Hz in Dharmaprani et al.)"),
      &IcaFlagParams::muscleHighHz));
  f.push_back(bindField<IcaFlagParams>(
      realParam("linePeakDb", "line-db", "Line peak threshold")
          .in("dB")
          .above(0)
          .atMost(200)
          .shown(1, 1)
          .because("power within 0.5 Hz of 50 or 60 Hz over the 40-70 Hz median"),
      &IcaFlagParams::linePeakDb));
  f.push_back(bindField<IcaFlagParams>(
      realParam("lineShare", "line-share", "Line power share")
          .above(0)
          .atMost(1)
          .shown(2, 0.05)
          .because("share of the activation's power within 0.5 Hz of the mains frequency"),
      &IcaFlagParams::lineShare));
  f.push_back(bindField<IcaFlagParams>(
      realParam("channelConcentration", "channel-share", "Single-electrode share")
          .above(0)
          .atMost(1)
          .shown(2, 0.05)
          .because("share of the scalp map's energy on one electrode: a map of one bad contact"),
      &IcaFlagParams::channelConcentration));
  f.push_back(bindField<IcaFlagParams>(
      realParam("segmentSeconds", "segment", "Segment length")
          .in("s")
          .atLeast(0.25)
          .atMost(60)
          .shown(2, 0.5)
          .because("ADJUST's epochs; EEGLAB pop_prop's epoch image of continuous data"),
      &IcaFlagParams::segmentSeconds));
  return f;
}

}  // namespace

const ParamTable<IcaFlagParams>& icaFlagParamTable() {
  static const ParamTable<IcaFlagParams> table(makeFields());
  return table;
}

void validateIcaFlagParams(const IcaFlagParams& p) { icaFlagParamTable().validate(p); }

}  // namespace modescope
