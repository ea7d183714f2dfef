// Burg AR's parameters, declared once (engine/method/param_table.h). Defaults are BCI2000's
// ARFilter (ar_params.h), ranges the engine's limits (kArMaxOrder, kArMaxEvaluationsPerBin,
// kArMaxBins); docs/ar.md ("Parameters", "Presets") gives the sources. Rules that need the sample
// rate (a window of at least order + 1 samples, a step of at least one, bin centres up to fs/2) are
// validateBurgArParams's.
#include <cmath>
#include <string>

#include "engine/ar/ar_params.h"
#include "engine/core/text.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<BurgArParams>;

const ChoiceNames<ArLengthUnit> kLengthUnits = {{ArLengthUnit::Seconds, "seconds"},
                                                {ArLengthUnit::Samples, "samples"}};

// A length's two fields: its value (key "window", as the engine's errors have always named it)
// and its unit ("window.unit"). The unit has no CLI option: the command line writes it after the
// number (0.5s, 250ms, 80samples).
void addLength(std::vector<Field>& out, ArLength BurgArParams::*length, const std::string& key,
               const std::string& label, const std::string& help) {
  out.push_back(bindField<BurgArParams>(
      realParam(key, key, label).storedAs(key + "_requested").above(0).shown(3, 0.05).because(help),
      length, &ArLength::value));
  out.push_back(bindChoice<BurgArParams>(
      choiceParam(key + ".unit", "", label + " unit",
                  {{"seconds", "s", "rounded to the nearest sample at the selection's rate", {"s"}},
                   {"samples", "samples", "a whole number of samples", {"sample"}}})
          .because("what the " + key + " length counts")
          .storedAs(key + "_requested_unit"),
      length, &ArLength::unit, kLengthUnits));
}

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<BurgArParams>(
      integerParam("order", "order", "Order")
          .atLeast(1)
          .atMost(kArMaxOrder)
          .because("model order p of the Burg fit; 64 is the limit of this implementation (BCI2000 "
                   "ModelOrder 16, Wilson and Williams 2009 use 30; above 64 a model of a short "
                   "EEG window fits noise)"),
      &BurgArParams::order));
  addLength(f, &BurgArParams::window, "window", "Window",
            "samples per AR window, at least order + 1 at the selection's rate (BCI2000 0.5 s, "
            "Wilson and Williams 2009 250 ms)");
  addLength(f, &BurgArParams::step, "step", "Step",
            "hop between window starts, at least one sample at the selection's rate (the seed's "
            "50 ms block)");
  f.push_back(bindChoice<BurgArParams>(
      choiceParam("detrend", "detrend", "Detrend",
                  {{"none", "none", "the raw window (BCI2000, NR memcof)", {}},
                   {"mean", "mean", "the window's mean removed", {}},
                   {"linear", "linear", "the least-squares line over the window removed", {}}})
          .because("removed from each window before Burg; without it a DC offset leaks into the "
                   "lowest bins (digest 1.6, fact 3)"),
      &BurgArParams::detrend,
      ChoiceNames<ArDetrend>{
          {ArDetrend::None, "none"}, {ArDetrend::Mean, "mean"}, {ArDetrend::Linear, "linear"}}));
  f.push_back(bindField<BurgArParams>(
      realParam("firstBinCenter", "first-bin", "First bin centre")
          .storedAs("first_bin_center_hz")
          .in("Hz")
          .atLeast(0)
          .shown(2, 0.5)
          .because("centre of the first bin, at most fs/2 (BCI2000 FirstBinCenter 0 Hz)"),
      &BurgArParams::firstBinCenter));
  f.push_back(bindField<BurgArParams>(
      realParam("lastBinCenter", "last-bin", "Last bin centre")
          .storedAs("last_bin_center_hz")
          .in("Hz")
          .atLeast(0)
          .shown(2, 0.5)
          .because("centre of the last bin: the first plus a whole number of bin widths, at most "
                   "fs/2 (BCI2000 LastBinCenter 30 Hz)"),
      &BurgArParams::lastBinCenter));
  f.push_back(bindField<BurgArParams>(
      realParam("binWidth", "bin-width", "Bin width")
          .storedAs("bin_width_hz")
          .in("Hz")
          .above(0)
          .shown(2, 0.5)
          .because("width of each bin; bins are adjacent, at most " + std::to_string(kArMaxBins) +
                   " of them (BCI2000 3 Hz, Wilson and Williams 2009 2 Hz)"),
      &BurgArParams::binWidth));
  f.push_back(bindField<BurgArParams>(
      integerParam("evaluationsPerBin", "evaluations", "Evaluations per bin")
          .atLeast(1)
          .atMost(kArMaxEvaluationsPerBin)
          .because("frequencies where the spectrum is evaluated per bin, the bin value being their "
                   "mean (BCI2000 15, Wilson and Williams 2009 11); 1024 is one GPU thread block"),
      &BurgArParams::evaluationsPerBin));
  f.push_back(bindChoice<BurgArParams>(
      choiceParam("binGrid", "bin-grid", "Bin grid",
                  {{"midpoints",
                    "midpoints",
                    "BCI2000 TransferSpectrum: midpoints of E equal sub-intervals",
                    {}},
                   {"edge-inclusive",
                    "edge-inclusive",
                    "the seed's grid: both bin edges included (11 points 0.2 Hz apart in 2 Hz)",
                    {}}})
          .because("where the evaluations of a bin lie"),
      &BurgArParams::binGrid,
      ChoiceNames<ArBinGrid>{{ArBinGrid::Midpoints, "midpoints"},
                             {ArBinGrid::EdgeInclusive, "edge-inclusive"}}));
  // CLI --values: -o/--output names the file in every command.
  f.push_back(bindChoice<BurgArParams>(
      choiceParam("output", "values", "Output",
                  {{"power", "power", "one-sided PSD averaged over the bin, unit^2/Hz", {}},
                   {"amplitude",
                    "amplitude",
                    "sqrt of that bin mean, unit/sqrt(Hz) (BCI2000's amplitude)",
                    {}},
                   {"coefficients",
                    "coefficients",
                    "the AR coefficients a_1..a_p and the prediction error power (no bins)",
                    {}}})
          .because("what each window gives (the seed's Eq. 4/5 quantity is power)"),
      &BurgArParams::output,
      ChoiceNames<ArOutput>{{ArOutput::Power, "power"},
                            {ArOutput::Amplitude, "amplitude"},
                            {ArOutput::Coefficients, "coefficients"}}));
  return f;
}

std::string lengthText(const ArLength& l) {
  return formatNumber(l.value) + (l.unit == ArLengthUnit::Seconds ? " s" : " samples");
}

void crossCheck(const BurgArParams& p) {
  for (const auto& [length, key] : {std::pair{&p.window, "window"}, std::pair{&p.step, "step"}}) {
    if (length->unit == ArLengthUnit::Samples && length->value != std::floor(length->value))
      throw InvalidParameterError(key, lengthText(*length), "a whole number of samples",
                                  "round it, or give the length in seconds");
  }
  if (p.lastBinCenter < p.firstBinCenter)
    throw InvalidParameterError(
        "lastBinCenter", formatNumber(p.lastBinCenter) + " Hz",
        "at least firstBinCenter (" + formatNumber(p.firstBinCenter) + " Hz)",
        "use at least firstBinCenter (" + formatNumber(p.firstBinCenter) + " Hz)");
  const double span = (p.lastBinCenter - p.firstBinCenter) / p.binWidth;
  // Centres typed in decimal (0.1 Hz steps) are not exact in binary: 1e-6 of a bin absorbs that.
  if (std::abs(span - std::round(span)) > 1e-6) {
    const double below = p.firstBinCenter + std::floor(span) * p.binWidth;
    throw InvalidParameterError(
        "lastBinCenter", formatNumber(p.lastBinCenter) + " Hz",
        "firstBinCenter plus a whole number of bin widths (" + formatNumber(p.binWidth) + " Hz)",
        "use " + formatNumber(below) + " or " + formatNumber(below + p.binWidth) + " Hz");
  }
  if (std::round(span) + 1 > kArMaxBins)
    throw InvalidParameterError("binWidth", formatNumber(p.binWidth) + " Hz",
                                "at most " + std::to_string(kArMaxBins) + " bins in all",
                                "widen the bins or narrow the range");
}

}  // namespace

const ParamTable<BurgArParams>& burgArParamTable() {
  static const ParamTable<BurgArParams> table(makeFields(), crossCheck);
  return table;
}

}  // namespace modescope
