// The Hilbert-Huang transform of EMD modes (Huang et al. 1998, Proc. R. Soc. A 454:903; the
// thesis only names it, and its Eqs. 2.13-2.14 as printed are wrong; docs/hht.md gives this
// recipe):
//
//   analytic signal  z = x + i H[x] by FFT (Marple 1999): X = FFT(x) over the channel's length,
//                    bins 1..ceil(n/2)-1 doubled, the Nyquist bin (even n) kept, negative bins
//                    zeroed, inverse FFT. No padding or tapering: the ends carry the usual
//                    Gibbs/edge error, which `edgeSeconds` lets views and sums leave out.
//   amplitude        a[n] = |z[n]|
//   frequency        f[n] = fs / (4 pi) * (arg(z[n+1] conj z[n]) + arg(z[n] conj z[n-1]))
//                    (central difference of the phase, each one-sided step taken in (-pi, pi],
//                    so no unwrapping is needed and f covers (-fs/2, fs/2]; the single argument
//                    arg(z[n+1] conj z[n-1]) / 2 of Barnes 1992 would alias above fs/4); at n = 0
//                    and n = N-1 the one-sided difference fs / (2 pi) * arg(z[1] conj z[0]) /
//                    arg(z[N-1] conj z[N-2]). Exact for a quadratic phase (tone, linear chirp).
//                    Negative values (phase going backwards, where the IMF is not monocomponent)
//                    are kept in the series but fall outside every spectrum bin.
//   edges            E = round(edgeSeconds * fs) samples at each end (hhtEdgeSamples); the
//                    included samples are E .. N-1-E. They are left out of the spectrum, the
//                    marginal and the per-IMF summaries, never out of the per-sample series.
//   Hilbert spectrum H(f, t): for every IMF and included sample, a (Amplitude) or a^2 (Energy)
//                    added to the bin of f[n] and the time bin of n; a time bin holds the sum over
//                    its samples divided by its count of included samples (a mean per sample, so
//                    the value does not depend on the number of columns; a column inside the
//                    edges holds 0).
//                    Frequency bin k (0-based, B = frequencyBins) holds edge[k] <= f < edge[k+1],
//                    the last bin also f = fMax; k = floor(B (f - fMin) / (fMax - fMin)) (linear,
//                    edge[k] = fMin + k (fMax - fMin) / B) or floor(B ln(f / fMin) / ln(fMax /
//                    fMin)) (logarithmic, edge[k] = fMin (fMax / fMin)^(k / B)); f outside [fMin,
//                    fMax] falls in no bin. Time bin j (T = timeBins) holds samples floor(j N / T)
//                    .. floor((j+1) N / T) - 1 (equal columns over the block).
//   marginal         h(f) = sum over time of H(f, t) * (included samples of the bin) / fs
//                    (amplitude or energy times seconds), i.e. the integral over time.
//   per IMF          mean frequency = sum a^2 f / sum a^2 over included samples with f inside
//                    (0, fs/2] (energy-weighted, the usual choice for IMF summaries; 0 when no
//                    sample qualifies) and energy = sum x^2 / fs over included samples
//                    (units^2 * s).
//   IMF rows         `imfs` names rows by number (results list them ascending); a channel with
//                    fewer IMFs than a listed row skips that row (a diagnostic says so):
//                    channels of one EMD run may have different IMF counts.
//
// Thread rules: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/emd/emd_result.h"
#include "engine/method/param_table.h"

namespace modescope {

enum class HhtQuantity { Amplitude, Energy };

struct HhtParams {
  double fMin = 0.0;        // Hz, lower edge of the first frequency bin (> 0 when logarithmic)
  double fMax = 0.0;        // Hz, upper edge of the last bin; 0 = Nyquist
  int frequencyBins = 256;  // rows of the spectrum (1 .. 65536)
  bool logFrequency = false;
  int timeBins = 0;  // columns (1 .. samples); 0 = min(samples, 2048)
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
  double energy = 0.0;  // units^2 * s
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
  HhtParams params;  // as run (fMax and timeBins resolved)
  double sampleRate = 0.0;
  int64_t firstSample = 0;
  int64_t samples = 0;
  std::vector<double> frequencyEdges;  // frequencyBins + 1, Hz, ascending
  std::vector<int64_t> timeEdges;      // timeBins + 1, sample offsets within the block
  std::vector<HhtChannel> channels;
  Diagnostics diagnostics;
};

// Bounds of the declared ranges (hhtParamTable) and the automatic time grid.
inline constexpr int kHhtMaxFrequencyBins = 65536;
inline constexpr int kHhtMaxTimeBins = 10000000;
inline constexpr int kHhtDefaultMaxTimeBins = 2048;

// The declarations of HhtParams's fields (every field but `imfs`, which views choose): ranges,
// units, help; the CLI options, dialog editors and provenance are produced from them.
const ParamTable<HhtParams>& hhtParamTable();

// The declared ranges and the rules that need the block: fMax up to the Nyquist frequency of
// `sampleRate`, fMin below the resolved fMax, timeBins up to `samples`, edges leaving at least
// one sample. Both the job check before a decomposition and validateHhtParams use it.
void checkHhtForBlock(const HhtParams& p, double sampleRate, int64_t samples);

// Throws InvalidParameterError (naming the parameter: "frequencyBins", "timeBins", "fMin", "fMax",
// "edgeSeconds", "imfs", or "modes" for the input) for bins < 1, frequencyBins above 65536,
// timeBins above the sample count, fMin < 0, fMin >= fMax, fMax above Nyquist, log scale with
// fMin <= 0, non-finite values, rows below 0 or beyond every channel's IMFs or listed twice,
// edgeSeconds < 0 or leaving nothing, and for modes that are malformed (sample rate <= 0, fewer
// than 2 samples, data sizes not rows x samples) or hold NaN/Inf.
void validateHhtParams(const HhtParams& p, const EmdResult& modes);

// Samples left out at each end: round(edgeSeconds * sampleRate).
int64_t hhtEdgeSamples(double edgeSeconds, double sampleRate);

// The resolved copy (fMax = Nyquist when 0, timeBins = min(samples, 2048) when 0) and the bin
// edges both backends use.
HhtParams resolveHhtParams(const HhtParams& p, const EmdResult& modes);
std::vector<double> hhtFrequencyEdges(const HhtParams& resolved);
std::vector<int64_t> hhtTimeEdges(const HhtParams& resolved, int64_t samples);

// The result skeleton both backends fill: the resolved parameters, the rate, first sample,
// sample count and bin edges of `modes`, and for every channel the IMF rows of params.imfs (all
// IMFs when empty) in ascending order, rows a channel lacks skipped (an Info diagnostic
// "hht.rowsSkipped" counts them), per-sample series sized when keepInstantaneous, spectrum and
// marginal zeroed. `requested` must have passed validateHhtParams().
HhtResult prepareHhtResult(const EmdResult& modes, const HhtParams& requested);

}  // namespace modescope
