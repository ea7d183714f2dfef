// Presets, the sample-rate part of the validation and names of the Burg AR parameters
// (ar_params.h; the fields' declarations are in ar_param_table.cpp). Preset values are written out
// from the digest (sections 1.1, 1.5, 1.6); docs/ar.md tabulates them with their sources.
#include "engine/ar/ar_params.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

std::vector<BurgArPreset> makePresets() {
  std::vector<BurgArPreset> out;
  {
    BurgArParams p;
    p.order = 16;
    p.window = {0.5, ArLengthUnit::Seconds};
    p.step = {0.05, ArLengthUnit::Seconds};
    p.detrend = ArDetrend::None;
    p.firstBinCenter = 0.0;
    p.lastBinCenter = 30.0;
    p.binWidth = 3.0;
    p.evaluationsPerBin = 15;
    p.binGrid = ArBinGrid::Midpoints;
    p.output = ArOutput::Power;
    out.push_back({"bci2000",
                   "BCI2000 ARFilter defaults: order 16, 0.5 s windows, bins centred 0-30 Hz, 3 Hz "
                   "wide, 15 evaluations per bin (sub-interval midpoints), no detrending",
                   p});
  }
  {
    BurgArParams p;
    p.order = 30;
    p.window = {0.25, ArLengthUnit::Seconds};
    p.step = {0.05, ArLengthUnit::Seconds};
    p.detrend = ArDetrend::None;
    p.firstBinCenter = 1.0;
    p.lastBinCenter = 29.0;
    p.binWidth = 2.0;
    p.evaluationsPerBin = 11;
    p.binGrid = ArBinGrid::EdgeInclusive;
    p.output = ArOutput::Power;
    out.push_back({"wilson2009",
                   "Wilson and Williams 2009: order 30, 250 ms windows every 50 ms, 2 Hz bins "
                   "with 11 evaluations including both edges (0.2 Hz apart), bins 0-30 Hz",
                   p});
  }
  return out;
}

std::string knownPresetNames() {
  std::string s;
  for (const BurgArPreset& p : burgArPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

std::string lengthText(const ArLength& l) {
  return formatNumber(l.value) + (l.unit == ArLengthUnit::Seconds ? " s" : " samples");
}

// Samples of a length at fs. `what` is "window" or "step". The value's own rules (declared in
// burgArParamTable) are checked again here because streams and replay resolve lengths without
// validateBurgArParams; 1e12 samples is a resolved count, so it needs the rate.
int64_t toSamples(const ArLength& l, double fs, const char* what) {
  if (l.unit != ArLengthUnit::Seconds && l.unit != ArLengthUnit::Samples)
    throw InvalidParameterError(std::string(what) + ".unit",
                                std::to_string(static_cast<int>(l.unit)), "seconds or samples");
  if (!(std::isfinite(l.value) && l.value > 0))
    throw InvalidParameterError(what, lengthText(l), "a finite length > 0",
                                "give the length in seconds (e.g. 0.5) or in samples");
  const double samples = l.unit == ArLengthUnit::Seconds ? std::round(l.value * fs) : l.value;
  if (l.unit == ArLengthUnit::Samples && samples != std::floor(samples))
    throw InvalidParameterError(what, lengthText(l), "a whole number of samples",
                                "round it, or give the length in seconds");
  if (samples > 1e12)
    throw InvalidParameterError(what, lengthText(l), "at most 1e12 samples",
                                "use a shorter length");
  return static_cast<int64_t>(samples);
}

}  // namespace

ArResolvedLengths resolveArLengths(const BurgArParams& p, double sampleRate) {
  if (!(std::isfinite(sampleRate) && sampleRate > 0))
    throw InvalidParameterError("sampleRate", formatNumber(sampleRate), "a finite rate > 0 Hz",
                                "select channels that have a sample rate");
  ArResolvedLengths r;
  r.windowSamples = toSamples(p.window, sampleRate, "window");
  r.stepSamples = toSamples(p.step, sampleRate, "step");
  if (p.order >= 1 && r.windowSamples < arMinimumWindow(p.order))
    throw InvalidParameterError(
        "window",
        lengthText(p.window) + " (" + std::to_string(r.windowSamples) + " samples at " +
            formatNumber(sampleRate) + " Hz)",
        "at least " + std::to_string(arMinimumWindow(p.order)) + " samples (order + 1) for order " +
            std::to_string(p.order),
        "lengthen the window to at least " +
            formatNumber(static_cast<double>(arMinimumWindow(p.order)) / sampleRate) +
            " s, or lower the order");
  if (r.stepSamples < 1)
    throw InvalidParameterError(
        "step", lengthText(p.step) + " (0 samples at " + formatNumber(sampleRate) + " Hz)",
        "at least 1 sample", "use a step of at least " + formatNumber(1.0 / sampleRate) + " s");
  return r;
}

void validateBurgArParams(const BurgArParams& p, double sampleRate) {
  burgArParamTable().validate(p);
  resolveArLengths(p, sampleRate);
  const double nyquist = sampleRate / 2;
  if (p.firstBinCenter > nyquist)
    throw InvalidParameterError("firstBinCenter", formatNumber(p.firstBinCenter) + " Hz",
                                "0 to fs/2 = " + formatNumber(nyquist) + " Hz",
                                "choose a centre inside the signal's band");
  if (p.lastBinCenter > nyquist)
    throw InvalidParameterError(
        "lastBinCenter", formatNumber(p.lastBinCenter) + " Hz",
        formatNumber(p.firstBinCenter) + " (firstBinCenter) to fs/2 = " + formatNumber(nyquist) +
            " Hz",
        "use " +
            formatNumber(p.firstBinCenter +
                         std::floor((nyquist - p.firstBinCenter) / p.binWidth) * p.binWidth) +
            " Hz, the highest centre of whole bin widths up to fs/2");
}

std::vector<double> arBinCenters(const BurgArParams& p) {
  const auto count =
      static_cast<int>(std::lround((p.lastBinCenter - p.firstBinCenter) / p.binWidth)) + 1;
  std::vector<double> c(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k)
    c[static_cast<std::size_t>(k)] = p.firstBinCenter + k * p.binWidth;
  return c;
}

std::vector<double> arEvaluationFrequencies(const BurgArParams& p, double center) {
  const int e = p.evaluationsPerBin;
  const double w = p.binWidth;
  std::vector<double> f(static_cast<std::size_t>(e));
  for (int i = 0; i < e; ++i) {
    if (p.binGrid == ArBinGrid::Midpoints)
      f[static_cast<std::size_t>(i)] = center - w / 2 + w / (2.0 * e) + w * i / e;
    else
      f[static_cast<std::size_t>(i)] = e == 1 ? center : center - w / 2 + w * i / (e - 1);
  }
  return f;
}

const std::vector<BurgArPreset>& burgArPresets() {
  static const std::vector<BurgArPreset> presets = makePresets();
  return presets;
}

BurgArParams burgArPreset(const std::string& name) {
  for (const BurgArPreset& p : burgArPresets())
    if (equalsIgnoreCase(p.name, trim(name))) return p.params;
  throw InvalidParameterError("preset", "'" + name + "'", "one of " + knownPresetNames(),
                              "pick one of the listed presets");
}

const char* arDetrendName(ArDetrend d) {
  switch (d) {
    case ArDetrend::None:
      return "none";
    case ArDetrend::Mean:
      return "mean";
    case ArDetrend::Linear:
      return "linear";
  }
  return "unknown";
}

const char* arOutputName(ArOutput o) {
  switch (o) {
    case ArOutput::Power:
      return "power";
    case ArOutput::Amplitude:
      return "amplitude";
    case ArOutput::Coefficients:
      return "coefficients";
  }
  return "unknown";
}

const char* arBinGridName(ArBinGrid g) {
  switch (g) {
    case ArBinGrid::Midpoints:
      return "midpoints";
    case ArBinGrid::EdgeInclusive:
      return "edge-inclusive";
  }
  return "unknown";
}

namespace {

// The spellings a field accepts are its declaration's (names, labels, aliases; any case).
BurgArParams parsedField(const std::string& key, const std::string& text) {
  const ParamField<BurgArParams>& f = *burgArParamTable().find(key);
  BurgArParams p;
  f.set(p, parseValue(f.decl, text, key));
  return p;
}

}  // namespace

ArDetrend parseArDetrend(const std::string& text) { return parsedField("detrend", text).detrend; }
ArOutput parseArOutput(const std::string& text) { return parsedField("output", text).output; }
ArBinGrid parseArBinGrid(const std::string& text) { return parsedField("binGrid", text).binGrid; }

std::string arValueUnit(ArOutput o, const std::string& signalUnit) {
  const std::string u = signalUnit.empty() ? "unit" : signalUnit;
  switch (o) {
    case ArOutput::Power:
      return u + "^2/Hz";
    case ArOutput::Amplitude:
      return u + "/sqrt(Hz)";
    case ArOutput::Coefficients:
      return "";
  }
  return "";
}

}  // namespace modescope
