// Parameters of epoching and averaging around events (docs/epochs.md): the window, the baseline,
// the rejection rules and the confidence band of the averages, declared once
// (epoch_param_table.cpp). The conventions are MNE-Python's (mne.Epochs, Epochs.average), so a
// file epoched here and in MNE with the same numbers keeps the same epochs and gives the same
// averages (tests/integration/mne_epochs_test.cpp checks it).
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include "engine/method/param_table.h"

namespace modescope {

struct EpochParams {
  // The window around each event, seconds relative to its onset. Both ends are rounded to whole
  // samples (round(t fs)) and both are included, as mne.Epochs does: an epoch has
  // round(tmax fs) - round(tmin fs) + 1 samples.
  double tmin = -0.2;
  double tmax = 0.5;
  // Baseline correction: the mean over [baselineStart, baselineEnd] (seconds, inside the window,
  // both ends included) subtracted from each channel of each epoch (mne.baseline.rescale, mode
  // "mean").
  bool baseline = true;
  double baselineStart = -0.2;
  double baselineEnd = 0.0;
  // An epoch is rejected when any channel's peak-to-peak amplitude over the whole window exceeds
  // this, in the channels' unit (uV for EEG); 0 = no threshold (mne.Epochs reject=).
  double rejectPeakToPeak = 0.0;
  // An epoch that overlaps a bad segment is rejected (mne.Epochs reject_by_annotation=True: the
  // segments are the annotations whose text begins with "bad", and the session's marked ones).
  bool rejectBadSegments = true;
  // The band drawn around each average: mean +- z SE, z the two-sided normal quantile of this
  // level (0.95 -> 1.96); SE = sample standard deviation / sqrt(epochs).
  double confidence = 0.95;
};

// The ends of the epoch window and its baseline in samples relative to the event.
struct EpochWindow {
  int64_t first = 0;                            // round(tmin fs)
  int64_t last = 0;                             // round(tmax fs), included
  int64_t baselineFirst = 0, baselineLast = 0;  // indices into the epoch, both included
  int64_t samples() const { return last - first + 1; }
};

// Every EpochParams field declared once (epoch_param_table.cpp).
const ParamTable<EpochParams>& epochParamTable();

// Throws InvalidParameterError naming the field: a value outside its range, tmin >= tmax, or a
// baseline that is empty or outside the window.
void validateEpochParams(const EpochParams& p);

// The window in samples at `sampleRate`, with the baseline samples whose times t = (first + i) /
// fs satisfy baselineStart <= t <= baselineEnd (mne.baseline's time mask). Throws
// InvalidParameterError when the window has fewer than 2 samples or the baseline none at this
// rate.
EpochWindow epochWindow(const EpochParams& p, double sampleRate);

// The two-sided standard normal quantile of `level`: z with P(|Z| <= z) = level (0.95 -> 1.96).
double confidenceZ(double level);

// Parameters of the channel power spectrum (Welch, engine/dsp/welch.h).
struct SpectrumParams {
  int segmentLength = 0;      // samples per Welch segment; 0 = the power of two nearest 2 s
  double maxFrequency = 0.0;  // Hz shown and written; 0 = the Nyquist frequency
};

const ParamTable<SpectrumParams>& spectrumParamTable();

}  // namespace modescope
