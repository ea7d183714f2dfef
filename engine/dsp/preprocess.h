// Preprocessing: re-referencing and zero-phase FIR filtering, run through a ComputeBackend.
//
// Filters are linear-phase FIR designed by the window method on a frequency grid (Hamming), with
// MNE-Python's automatic transition bandwidths and lengths (filter_length='auto', firwin,
// phase='zero'): l_trans = min(max(0.25 * l_freq, 2), l_freq), h_trans = min(max(0.25 * h_freq,
// 2), nyquist - h_freq), length = 3.3 / (transition / fs) rounded up to odd. Notch removes
// base, 2*base, ... below Nyquist with 1 Hz-wide stop bands (transition 1 Hz each side).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"

namespace modescope {

enum class ReferenceKind { AsRecorded, Average, LinkedMastoids, Channel };

struct ReferenceSpec {
  ReferenceKind kind = ReferenceKind::AsRecorded;
  std::string channel;  // for Channel: name or label of the reference electrode
};

enum class FilterKind { BandPass, HighPass, LowPass, Notch };

struct FilterSpec {
  FilterKind kind = FilterKind::BandPass;
  double lowHz = 1.0;          // high-pass edge (BandPass, HighPass), Hz
  double highHz = 40.0;        // low-pass edge (BandPass, LowPass), Hz
  double notchHz = 50.0;       // Notch: mains frequency, 50 or 60 Hz
  bool notchHarmonics = true;  // Notch: also 2f, 3f, ... below Nyquist
  double transitionHz = 0.0;   // 0 = automatic (MNE rules above)
};

struct PreprocessSpec {
  ReferenceSpec reference;
  std::vector<FilterSpec> filters;  // applied in order
};

// Throws InvalidParameterError for edges outside (0, Nyquist), low >= high, a notch above Nyquist.
FirKernel designFir(const FilterSpec& spec, double sampleRate);

// Which rows of a block form the reference and which are re-referenced (EEG rows only).
// Linked mastoids use M1/M2, else A1/A2, else TP9/TP10; throws InvalidParameterError naming what
// is missing.
ReferencePlan planReference(const Recording& rec, const std::vector<std::size_t>& blockChannels,
                            const ReferenceSpec& spec);

// Parses the CLI/GUI spelling: "bandpass:1-40", "highpass:0.5", "lowpass:40", "notch:50",
// "notch:60"; and "average", "mastoids", "channel:Cz", "none" for references. The kinds, their
// spellings and the values' ranges come from the declarations (filter_param_table.h, which
// implements these two).
FilterSpec parseFilterSpec(const std::string& text);
ReferenceSpec parseReferenceSpec(const std::string& text);
std::string describe(const FilterSpec& spec);
std::string describe(const ReferenceSpec& spec);

// Cuts the selection out of `rec`, re-references, filters and returns a new in-memory recording
// with the annotations of the range. `provenance` receives method, parameters and backend.
std::shared_ptr<const Recording> preprocess(const Recording& rec,
                                            const std::vector<std::size_t>& channels,
                                            double startSeconds, double durationSeconds,
                                            const PreprocessSpec& spec, ComputeBackend& backend,
                                            JobContext& ctx, Provenance* provenance = nullptr);

}  // namespace modescope
