// The Hilbert-Huang transform of EMD modes (Huang et al. 1998, Proc. R. Soc. A 454:903; the
// thesis only names it, see ../shared/notes/seed-000-emd-iceemdan.md section 1.4 and fact 16):
//
//   analytic signal  z = x + i H[x] by FFT (Marple 1999): X = FFT(x) over the channel's length,
//                    bins 1..ceil(n/2)-1 doubled, the Nyquist bin (even n) kept, negative bins
//                    zeroed, inverse FFT. No padding or tapering: the ends carry the usual
//                    Gibbs/edge error, which `edgeSeconds` lets views and sums leave out.
//   amplitude        a[n] = |z[n]|
//   frequency        f[n] = fs / (2 pi) * arg(z[n+1] * conj(z[n-1])) / 2 (central phase
//                    difference, no unwrapping needed; Barnes 1992's estimator); at n = 0 and
//                    n = N-1 the one-sided difference arg(z[1] conj z[0]) / arg(z[N-1] conj z[N-2]).
//                    Negative values (phase going backwards, where the IMF is not monocomponent)
//                    are kept in the series but fall outside every spectrum bin.
//   Hilbert spectrum H(f, t): for every IMF and sample, a (Amplitude) or a^2 (Energy) added to
//                    the bin of f[n] (frequency bins linear or logarithmic between fMin and fMax)
//                    and the time bin of n (timeBins equal columns over the block); a time bin
//                    holds the sum over its samples divided by its sample count (a mean per
//                    sample, so the value does not depend on the number of columns).
//   marginal         h(f) = sum over time of H(f, t) * (samples of the bin) / fs (amplitude or
//                    energy times seconds), i.e. the integral over time.
//   per IMF          mean frequency = sum a^2 f / sum a^2 over samples with f inside
//                    (0, fs/2] (energy-weighted, the usual choice for IMF summaries) and energy =
//                    sum x^2 / fs (units^2 * s); both exclude the edges.
//
// Thread rules: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/emd/emd_result.h"

namespace modescope {

enum class HhtQuantity { Amplitude, Energy };

struct HhtParams {
  double fMin = 0.0;         // Hz, lower edge of the first frequency bin (> 0 when logarithmic)
  double fMax = 0.0;         // Hz, upper edge of the last bin; 0 = Nyquist
  int frequencyBins = 256;   // rows of the spectrum
  bool logFrequency = false;
  int timeBins = 0;          // columns; 0 = min(samples, 2048)
  HhtQuantity quantity = HhtQuantity::Amplitude;
  double edgeSeconds = 0.0;  // left out of the spectrum, marginal and IMF summaries at each end
  // IMF rows to include (0-based); empty = every IMF (the residue is never included).
  std::vector<int> imfs;
  bool keepInstantaneous = true;  // keep per-sample amplitude and frequency in the result
};

struct HhtImf {
  int row = 0;                     // IMF row in the EmdChannelModes
  std::vector<float> amplitude;    // per sample (empty unless keepInstantaneous), input units
  std::vector<float> frequencyHz;  // per sample (empty unless keepInstantaneous)
  double meanFrequencyHz = 0.0;
  double energy = 0.0;             // units^2 * s
};

struct HhtChannel {
  std::size_t channel = 0;
  std::vector<HhtImf> imfs;
  // frequencyBins x timeBins, row-major, row 0 = lowest frequency; units: input units
  // (Amplitude) or units^2 (Energy) per sample.
  std::vector<float> spectrum;
  std::vector<double> marginal;  // frequencyBins: units*s or units^2*s
};

struct HhtResult {
  HhtParams params;          // as run (fMax and timeBins resolved)
  double sampleRate = 0.0;
  int64_t firstSample = 0;
  int64_t samples = 0;
  std::vector<double> frequencyEdges;  // frequencyBins + 1, Hz, ascending
  std::vector<int64_t> timeEdges;      // timeBins + 1, sample offsets within the block
  std::vector<HhtChannel> channels;
  Diagnostics diagnostics;
};

// Throws InvalidParameterError for bins < 1, fMax <= fMin, fMax above Nyquist, log scale with
// fMin <= 0, rows outside the IMFs, edgeSeconds leaving nothing.
void validateHhtParams(const HhtParams& p, const EmdResult& modes);

// The resolved copy (fMax = Nyquist when 0, timeBins = min(samples, 2048) when 0) and the bin
// edges both backends use.
HhtParams resolveHhtParams(const HhtParams& p, const EmdResult& modes);
std::vector<double> hhtFrequencyEdges(const HhtParams& resolved);
std::vector<int64_t> hhtTimeEdges(const HhtParams& resolved, int64_t samples);

}  // namespace modescope
