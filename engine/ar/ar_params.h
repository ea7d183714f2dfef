// Parameters of the Burg (maximum entropy) AR spectra over sliding windows: the BCI2000 ARFilter
// and Wilson and Williams (2009, Front. Neuroeng. 2:11). docs/ar.md ("What is computed",
// "Parameters", "Presets") gives the method and the defaults; the procedure itself is in
// ar_spectrum.h.
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope {

// Applied to each window before Burg. Burg itself (NR memcof, BCI2000 MEMPredictor) removes
// nothing: without detrending a DC offset leaks into the lowest bins (digest 1.6, fact 3).
enum class ArDetrend {
  None,    // the raw window (the seed and NR memcof)
  Mean,    // the window's mean removed
  Linear,  // the least-squares straight line over the window removed
};

// What each window produces.
enum class ArOutput {
  Power,         // one-sided power spectral density, averaged over the bin: unit^2/Hz
  Amplitude,     // sqrt of that bin mean: unit/sqrt(Hz) (BCI2000's amplitude = sqrt(power))
  Coefficients,  // the AR coefficients a_1..a_p and the prediction error power (no bins)
};

// Where the E evaluation frequencies of a bin of width W centred on c lie.
enum class ArBinGrid {
  // BCI2000 TransferSpectrum: midpoints of E equal sub-intervals,
  // f_e = c - W/2 + W/(2E) + e W/E, e = 0..E-1 (no point on a bin edge).
  Midpoints,
  // The seed's example ("a 2-Hz bin from 10-12 Hz with 11 evaluations ... 0.2 Hz intervals"):
  // both edges included, f_e = c - W/2 + e W/(E-1) (E = 1: f_0 = c). Neighbours share an edge.
  EdgeInclusive,
};

enum class ArLengthUnit { Seconds, Samples };

// A duration given in seconds or in samples; resolved against the block's sample rate.
struct ArLength {
  double value = 0.0;
  ArLengthUnit unit = ArLengthUnit::Seconds;
};

struct BurgArParams {
  int order = 16;                               // p, model order (BCI2000 ModelOrder 16)
  ArLength window{0.5, ArLengthUnit::Seconds};  // N, samples per window (BCI2000 0.5 s)
  ArLength step{0.05, ArLengthUnit::Seconds};   // hop between window starts (seed: 50 ms block)
  ArDetrend detrend = ArDetrend::None;          // BCI2000 Detrend none
  double firstBinCenter = 0.0;                  // Hz, centre of the first bin
  double lastBinCenter = 30.0;                  // Hz, centre of the last bin
  double binWidth = 3.0;                        // Hz; bins are adjacent: centres first + k W
  int evaluationsPerBin = 15;                   // E
  ArBinGrid binGrid = ArBinGrid::Midpoints;
  ArOutput output = ArOutput::Power;
};

// Hard limits of every backend, and why:
// - order: 64. Twice the seed's benchmark order (30) and four times BCI2000's default (16); the
//   GPU keeps two coefficient vectors of p + 1 values per window in shared memory/registers, and
//   beyond ~64 a Burg model of a 0.25-0.5 s EEG window fits noise (N/p falls below ~2-4).
// - evaluations per bin: 1024, one GPU thread per evaluation in one block (the seed's PSD kernel).
// - bins: 4096, so a channels x windows x bins result stays bounded.
constexpr int kArMaxOrder = 64;
constexpr int kArMaxEvaluationsPerBin = 1024;
constexpr int kArMaxBins = 4096;

// Window length and step in samples for a sample rate (seconds are rounded to the nearest
// sample). Throws InvalidParameterError as validateBurgArParams.
struct ArResolvedLengths {
  int64_t windowSamples = 0;
  int64_t stepSamples = 0;
};
ArResolvedLengths resolveArLengths(const BurgArParams& p, double sampleRate);

// Minimum window a model of order p needs: p + 1 samples (the last Burg stage has N - p terms;
// BCI2000 likewise refuses a window that does not exceed the order).
constexpr int64_t arMinimumWindow(int order) { return static_cast<int64_t>(order) + 1; }

// Every BurgArParams field declared once: key, CLI option, label, unit, range, default and help
// (ar_param_table.cpp), with the rules between fields (a whole number of samples for a length in
// samples; lastBinCenter = firstBinCenter + k binWidth, k >= 0; at most kArMaxBins bins). The CLI
// options and the dialog's editors are produced from it; its validate() is every check that needs
// no sample rate.
const ParamTable<BurgArParams>& burgArParamTable();

// Throws InvalidParameterError (parameter, value found, range expected, remedy) for: any field
// outside its declared range or a rule between fields (burgArParamTable().validate: order outside
// 1..kArMaxOrder, window or step not > 0, binWidth <= 0, a bin centre < 0, evaluationsPerBin
// outside 1..kArMaxEvaluationsPerBin, unknown enum values, ...); then, at `sampleRate`:
// sampleRate not finite or <= 0; window or step resolving to fewer samples than
// arMinimumWindow(order) / than 1, or to more than 1e12; a bin centre above fs/2. Evaluation
// points of a bin that fall below 0 Hz or above fs/2 (BCI2000's bin centred on 0 Hz) read the
// mirrored spectrum, which for a real AR model is exact: P(-f) = P(f) and P(fs/2 + d) =
// P(fs/2 - d).
void validateBurgArParams(const BurgArParams& p, double sampleRate);

// The bin centres first + k W, k = 0..count-1 (Hz). Assumes valid parameters.
std::vector<double> arBinCenters(const BurgArParams& p);
// The E evaluation frequencies of the bin centred on `center` (Hz), per p.binGrid.
std::vector<double> arEvaluationFrequencies(const BurgArParams& p, double center);

// Named parameter sets (every preset sets every field):
// "bci2000":    order 16, 0.5 s windows, bins centred 0-30 Hz, 3 Hz wide, 15 evaluations per bin
//               on BCI2000's midpoint grid, no detrending (digest 1.1 [external], 1.6 fact 1/3);
//               step 50 ms (the seed's block; the digest gives no BCI2000 step).
// "wilson2009": order 30, 250 ms windows recomputed every 50 ms (digest 1.1 benchmark parameters,
//               1.6 fact 4), 2 Hz bins with 11 edge-inclusive evaluations (digest 1.1, the
//               10-12 Hz example), no detrending (NR memcof); bins centred 1-29 Hz so the
//               example's 10-12 Hz bin is one of them (the seed gives no bin range: our choice).
// Both output power (the seed's Eq. 4/5 quantity; the digest does not list BCI2000's default).
struct BurgArPreset {
  std::string name;
  std::string description;  // one line with the source
  BurgArParams params;
};
const std::vector<BurgArPreset>& burgArPresets();
// Throws InvalidParameterError naming the known presets when `name` is unknown.
BurgArParams burgArPreset(const std::string& name);

const char* arDetrendName(ArDetrend d);  // "none", "mean", "linear"
const char* arOutputName(ArOutput o);    // "power", "amplitude", "coefficients"
const char* arBinGridName(ArBinGrid g);  // "midpoints", "edge-inclusive"
// The inverse: the declaration's names (any case); throw InvalidParameterError listing them.
ArDetrend parseArDetrend(const std::string& text);
ArOutput parseArOutput(const std::string& text);
ArBinGrid parseArBinGrid(const std::string& text);

// Unit of the output values for a signal in `signalUnit` ("uV"): "uV^2/Hz", "uV/sqrt(Hz)", or
// "" for Coefficients (dimensionless; the prediction error power is in signalUnit^2).
std::string arValueUnit(ArOutput o, const std::string& signalUnit);

}  // namespace modescope
