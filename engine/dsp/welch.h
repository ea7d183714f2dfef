// Power spectral density by Welch's method (Welch 1967): Hann-windowed segments with 50 %
// overlap, each segment's mean removed, periodograms averaged. One-sided density in unit^2/Hz
// (the bins between 0 and Nyquist doubled), so that summing power * binHz over the bins gives the
// signal's variance (Parseval) - the scaling scipy.signal.welch(scaling='density') and MNE's
// psd_array_welch use.
//
// Thread rules: pure functions; FFTW plans are made under the engine's planner lock, so calls from
// several threads are safe.
#pragma once

#include <cstdint>
#include <vector>

namespace modescope {

struct WelchSpectrum {
  double binHz = 0.0;         // frequency spacing: bin k is at k * binHz, k = 0 .. segment/2
  int segmentLength = 0;      // samples per segment
  int segments = 0;           // periodograms averaged
  std::vector<double> power;  // segment/2 + 1 values, unit^2/Hz
};

// The segment length used when none is given: the power of two nearest to 2 s of samples (0.5 Hz
// resolution, MNE's and EEGLAB's spectopo's usual choice), at least 8, at most `samples`.
int welchSegmentLength(int64_t samples, double sampleRate);

// Welch spectra of `rows` signals stored row-major (rows x samples). segmentLength <= 0: the
// default above; larger than `samples`: `samples`. Throws InvalidParameterError for samples < 8,
// a non-positive rate or rows < 0.
std::vector<WelchSpectrum> welchSpectra(const float* data, int rows, int64_t samples,
                                        double sampleRate, int segmentLength = 0);

}  // namespace modescope
