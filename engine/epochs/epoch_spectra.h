// Channel power spectra (Welch, engine/dsp/welch.h) of a block of samples (the browser's page or
// a selection) or of epochs: one density per channel in unit^2/Hz, and their mean over channels.
// For epochs, each epoch's Welch spectrum is computed and the spectra are averaged over epochs
// (mne's Epochs.compute_psd('welch') followed by a mean over epochs).
//
// Thread rules: pure functions (FFTW plans under the engine's planner lock).
#pragma once

#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/epochs/epoch_params.h"
#include "engine/epochs/epochs.h"

namespace modescope {

struct ChannelSpectra {
  double binHz = 0.0;
  int segmentLength = 0;
  int segmentsPerSeries = 0;
  int series = 0;                          // blocks or epochs averaged
  std::vector<std::string> channels;       // names
  std::vector<std::vector<double>> power;  // per channel, bins 0 .. up to maxFrequency
  std::vector<double> meanPower;           // over channels

  std::size_t bins() const { return meanPower.size(); }
  double frequency(std::size_t k) const { return static_cast<double>(k) * binHz; }
};

// Spectra of every row of `block`; names from `rec`. Throws InvalidParameterError (fewer than 8
// samples; segment longer than the block is shortened to it).
ChannelSpectra blockSpectra(const Recording& rec, const SignalBlock& block,
                            const SpectrumParams& p);

// The mean over the kept epochs of each epoch's spectrum, per channel.
ChannelSpectra epochSpectra(const EpochSet& set, const SpectrumParams& p);

}  // namespace modescope
