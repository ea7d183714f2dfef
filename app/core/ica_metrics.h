// What the component browser shows for each independent component, to find artifacts fast
// (docs/gui.md, "Independent components"): the variance it accounts for, the kurtosis of its
// activation (blinks and other spiky artifacts are strongly super-Gaussian), its |correlation| with
// the EOG and ECG channels (EEGLAB's and MNE's usual blink and heartbeat finders: find_bads_eog /
// find_bads_ecg correlate the sources with those channels), and its Welch power spectrum.
//
// Reference channels come from ChannelInfo::type. A recording without EOG channels (most EEG
// files, the demo) uses the frontal sites Fp1, Fp2, AF7 and AF8 as a blink proxy: blinks are
// largest there (the eyes are a dipole just in front of them), and the component browser says so.
//
// Thread rules: pure functions on values; summariseIcaComponents reads the recording (its source
// is thread-safe) and runs on a worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/dsp/welch.h"
#include "engine/ica/ica_flags.h"
#include "engine/io/hdf5_ica.h"

namespace modescope {

// The blink proxy used when a recording has no EOG channel.
inline const std::vector<std::string>& icaFrontalProxySites() {
  static const std::vector<std::string> sites{"Fp1", "Fp2", "AF7", "AF8"};
  return sites;
}

struct IcaReferenceChannels {
  std::vector<std::size_t> eog;  // recording indices
  std::vector<std::size_t> ecg;
  bool eogIsFrontalProxy = false;  // no EOG channel: `eog` holds the frontal sites found
};

// EOG and ECG channels by type at `sampleRate` (others cannot be correlated sample by sample),
// else the frontal proxy sites (matched by normalised name) for EOG.
IcaReferenceChannels icaReferenceChannels(const Recording& rec, double sampleRate);

// Excess kurtosis m4 / m2^2 - 3 of the centred samples (0 for a Gaussian, +3 for a Laplacian,
// -1.2 for a uniform law); 0 when the samples are constant or fewer than 2.
double excessKurtosis(const float* x, int64_t n);

// Pearson correlation of two equally long series; 0 when either is constant or n < 2.
double pearsonCorrelation(const float* a, const float* b, int64_t n);

struct IcaComponentMetrics {
  double variancePercent = 0.0;  // 100 * IcaResult::varianceFraction
  double kurtosis = 0.0;         // of the activation over the decomposed range
  double eogCorrelation = -1.0;  // max |r| over the EOG (or proxy) channels; < 0: none
  double ecgCorrelation = -1.0;  // max |r| over the ECG channels; < 0: none
};

struct IcaComponentSummary {
  std::vector<IcaComponentMetrics> components;  // in the result's component order
  IcaReferenceChannels references;
  std::vector<WelchSpectrum> spectra;  // of each activation (unit^2/Hz of the activation)
  IcaFlags flags;  // the automatic artifact flags (ica_flags_job.h), flags.params the thresholds
};

// Activations over the decomposed range of `rec` (the recording `file` was computed on; checked
// like ica-apply checks it), then the metrics and spectra above. Progress: reading, activations,
// metrics, flags; checkpoints between components. Throws InvalidParameterError when `rec` does not
// match.
// `flagParams`: the automatic flags' thresholds.
IcaComponentSummary summariseIcaComponents(const Recording& rec, const IcaFile& file,
                                           JobContext& ctx,
                                           const IcaFlagParams& flagParams = IcaFlagParams{});

}  // namespace modescope
