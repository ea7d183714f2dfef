#include "app/core/method_registry.h"

namespace modescope {

const std::vector<MethodEntry>& methodRegistry() {
  static const std::vector<MethodEntry> kMethods = {
      {"filter", "Process", "&Filter and re-reference...", true,
       "re-reference and zero-phase FIR filters (docs/preprocessing.md)"},
      {"interpolate", "Process", "&Interpolate bad channels...", true,
       "spherical-spline interpolation of the bad channels, as MNE's interpolate_bads "
       "(docs/bad-channels.md)"},
      {"montage", "Process", "Apply &montage as new recording...", true,
       "a derivation montage (double banana, Laplacian, a montage file) computed into a new "
       "recording (docs/montages.md)"},
      {"emd", "Analysis", "&Decompose (EMD family)...", true,
       "EMD, EEMD, CEEMDAN, ICEEMDAN with Hilbert-Huang spectra (docs/emd.md)"},
      {"memd", "Analysis", "&Multivariate EMD (MEMD, NA-MEMD)...", true,
       "multivariate EMD (MEMD, NA-MEMD) of channels together, mode-aligned (docs/memd.md)"},
      {"ica", "Analysis", "&Independent components (Infomax ICA)...", true,
       "extended Infomax ICA as EEGLAB's runica or MNE compute it (docs/ica.md)"},
      {"ar", "Analysis", "Event-related &spectra (AR)...", false,
       "Burg AR spectra and the r^2 map between two event classes (docs/ar.md)"},
      {"xapen", "Analysis", "&Entropy matrices (Cross-ApEn / SampEn)...", true,
       "ApEn / Cross-ApEn / SampEn matrices of every channel pair (docs/entropy.md)"},
      {"epoch", "Analysis", "E&pochs and averages...", true,
       "epochs around events, averaged ERPs with confidence bands, difference waves "
       "(docs/epochs.md)"},
      {"average", "", "", false,
       "averaged ERPs per event type with confidence bands and difference waves, without the "
       "epochs (docs/epochs.md)"},
      {"tfr", "Analysis", "&Time-frequency (spectrogram, synchrosqueezing)...", true,
       "spectrograms and synchrosqueezing of orders 1-4, ridges, reconstruction "
       "(docs/time-frequency.md)"},
  };
  return kMethods;
}

const MethodEntry* findMethod(std::string_view id) {
  for (const MethodEntry& m : methodRegistry())
    if (m.id == id) return &m;
  return nullptr;
}

std::string pipelineStepKinds() {
  std::vector<std::string> kinds;
  for (const MethodEntry& m : methodRegistry())
    if (m.pipelineStep) kinds.push_back(m.id);
  std::string s;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (i) s += i + 1 == kinds.size() ? " or " : ", ";
    s += kinds[i];
  }
  return s;
}

}  // namespace modescope
