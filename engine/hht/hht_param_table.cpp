// The Hilbert spectrum's parameters, declared once (engine/method/param_table.h): the CLI's
// emd options, the decomposition dialog's "Hilbert spectrum" box, the provenance and the engine
// checks all read these ranges. Rules that need the data (Nyquist, the block's length) are in
// checkHhtForBlock (hht.cpp). docs/hht.md describes each parameter.
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/hht/hht.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<HhtParams>;

// Above every EEG/MEG sample rate ModeScope reads (MEG systems record at up to 20 kHz).
constexpr double kMaxHhtFrequencyHz = 1.0e6;

void checkHhtCrossRules(const HhtParams& p) {
  if (p.logFrequency && !(p.fMin > 0.0)) {
    throw InvalidParameterError("fMin", formatNumber(p.fMin) + " Hz",
                                "a frequency above 0 Hz on a logarithmic frequency axis",
                                "Give a lowest frequency such as 0.5 Hz");
  }
  if (p.fMax > 0.0 && p.fMin >= p.fMax) {
    throw InvalidParameterError("fMin", formatNumber(p.fMin) + " Hz",
                                "less than fMax = " + formatNumber(p.fMax) + " Hz",
                                "Lower fMin or raise fMax");
  }
}

std::vector<Field> hhtFields() {
  std::vector<Field> f;
  f.push_back(bindField<HhtParams>(
      realParam("fMin", "fmin", "Lowest frequency")
          .storedAs("f_min_hz")
          .in("Hz")
          .atLeast(0)
          .atMost(kMaxHhtFrequencyHz)
          .shown(2, 0.5)
          .because("lower edge of the first frequency bin; above 0 Hz on a logarithmic axis"),
      &HhtParams::fMin));
  f.push_back(bindField<HhtParams>(
      realParam("fMax", "fmax", "Highest frequency")
          .storedAs("f_max_hz")
          .in("Hz")
          .above(0)
          .atMost(kMaxHhtFrequencyHz)
          .orSpecial(0, "Nyquist")
          .shown(2, 1.0)
          .because("upper edge of the last frequency bin, at most half the sample rate"),
      &HhtParams::fMax));
  f.push_back(bindField<HhtParams>(
      integerParam("frequencyBins", "freq-bins", "Frequency bins")
          .in("bins")
          .atLeast(1)
          .atMost(kHhtMaxFrequencyBins)
          .because("rows of the Hilbert spectrum (its frequency resolution); 256 suit most EEG"),
      &HhtParams::frequencyBins));
  f.push_back(bindField<HhtParams>(
      flagParam("logFrequency", "log-freq", "Logarithmic frequency bins")
          .because("geometric bin edges between the lowest and highest frequency: equal "
                   "resolution per octave, as EEG bands are laid out"),
      &HhtParams::logFrequency));
  f.push_back(bindField<HhtParams>(
      integerParam("timeBins", "time-bins", "Time bins")
          .in("bins")
          .atLeast(1)
          .atMost(kHhtMaxTimeBins)
          .orSpecial(0, "automatic")
          .because("columns of the Hilbert spectrum, at most one per sample; automatic: one per "
                   "sample up to " +
                   std::to_string(kHhtDefaultMaxTimeBins)),
      &HhtParams::timeBins));
  f.push_back(bindChoice<HhtParams>(
      choiceParam("quantity", "quantity", "Quantity",
                  {{"amplitude", "Amplitude", "a(t) of each IMF in the bin of its frequency", {}},
                   {"energy", "Energy", "a(t)^2", {}}})
          .because("what each IMF adds to the bin of its instantaneous frequency (Huang et al. "
                   "1998)"),
      &HhtParams::quantity,
      ChoiceNames<HhtQuantity>{{HhtQuantity::Amplitude, "amplitude"},
                               {HhtQuantity::Energy, "energy"}}));
  f.push_back(bindField<HhtParams>(
      realParam("edgeSeconds", "edge", "Leave out at the ends")
          .storedAs("edge_s")
          .in("s")
          .atLeast(0)
          .atMost(3600)
          .shown(3, 0.1)
          .because("left out of the spectrum, marginal and IMF summaries at both ends, where "
                   "the FFT Hilbert transform's edge error lives; less than half the range"),
      &HhtParams::edgeSeconds));
  f.push_back(bindField<HhtParams>(
      flagParam("keepInstantaneous", "keep-instantaneous", "Keep instantaneous series")
          .because("keep per-sample amplitude and frequency of every IMF (doubles the result's "
                   "size)"),
      &HhtParams::keepInstantaneous));
  return f;
}

}  // namespace

const ParamTable<HhtParams>& hhtParamTable() {
  static const ParamTable<HhtParams> table(hhtFields(), checkHhtCrossRules);
  return table;
}

}  // namespace modescope
