// MEMD and NA-MEMD parameters, declared once (engine/method/param_table.h). Sources: Rehman and
// Mandic's memd.m (defaults), Rehman and Mandic 2011 / ur Rehman et al. 2013 (NA-MEMD);
// docs/memd.md tabulates them.
#include <string>

#include "engine/core/text.h"
#include "engine/memd/memd_params.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<MemdParams>;

std::function<bool(const MemdParams&)> stopIs(std::initializer_list<MemdStopKind> kinds) {
  return [k = std::vector<MemdStopKind>(kinds)](const MemdParams& p) {
    for (MemdStopKind s : k)
      if (p.stop == s) return true;
    return false;
  };
}
bool noiseAssisted(const MemdParams& p) { return p.noiseChannels > 0; }

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<MemdParams>(
      integerParam("directions", "directions", "Directions")
          .in("directions")
          .atLeast(1)
          .atMost(kMemdMaxDirections)
          .orSpecial(0, "automatic")
          .because("K, the projection directions (Hammersley set as memd.m builds it); "
                   "automatic: max(64, 2 x channels), since K should be at least twice the "
                   "channels (Rehman and Mandic 2010)"),
      &MemdParams::directions));
  f.push_back(bindChoice<MemdParams>(
      choiceParam("stop", "stop", "Stop rule",
                  {{"stop",
                    "memd.m 'stop'",
                    "sift while more than a fraction tol of samples have sigma > sd or any "
                    "has sigma > sd2 (memd.m default, [0.075 0.75 0.075])",
                    {}},
                   {"fix_h",
                    "memd.m 'fix_h'",
                    "stop once zero crossings and extrema of some projection differ by at most "
                    "one for n consecutive sifts",
                    {"fix-h", "fixh", "s-number"}},
                   {"fixed",
                    "Fixed number of sifts",
                    "exactly S sifts per IMF (the published GPU code uses 10)",
                    {}}})
          .because("how sifting decides that the multivariate candidate is an IMF"),
      &MemdParams::stop,
      ChoiceNames<MemdStopKind>{{MemdStopKind::Stop, "stop"},
                                {MemdStopKind::FixH, "fix_h"},
                                {MemdStopKind::Fixed, "fixed"}}));
  const auto isStop = stopIs({MemdStopKind::Stop});
  f.push_back(bindField<MemdParams>(
      realParam("sd", "sd", "sd")
          .above(0)
          .atMost(10)
          .because("memd.m stop_vec(1) (0.075): the sigma most samples must stay under")
          .onlyFor("stop rule"),
      &MemdParams::sd, isStop));
  f.push_back(bindField<MemdParams>(
      realParam("sd2", "sd2", "sd2")
          .above(0)
          .atMost(10)
          .because("memd.m stop_vec(2) (0.75): the sigma no sample may exceed")
          .onlyFor("stop rule"),
      &MemdParams::sd2, isStop));
  f.push_back(bindField<MemdParams>(
      realParam("tol", "tol", "tol")
          .above(0)
          .below(1)
          .because("memd.m stop_vec(3) (0.075): the fraction of samples allowed above sd")
          .onlyFor("stop rule"),
      &MemdParams::tol, isStop));
  f.push_back(bindField<MemdParams>(integerParam("maxSifts", "max-sifts", "Max sifts")
                                        .in("sifts")
                                        .atLeast(1)
                                        .atMost(1000000)
                                        .because("sift cap per IMF (memd.m MAXITERATIONS 1000)")
                                        .onlyFor("stop and fix_h rules"),
                                    &MemdParams::maxSifts,
                                    stopIs({MemdStopKind::Stop, MemdStopKind::FixH})));
  f.push_back(bindField<MemdParams>(
      integerParam("sNumber", "s-number", "fix_h count")
          .in("sifts")
          .atLeast(1)
          .atMost(1000)
          .because("memd.m 'fix_h' n_iter (2): consecutive sifts the zero-crossing condition "
                   "must hold")
          .onlyFor("fix_h rule"),
      &MemdParams::sNumber, stopIs({MemdStopKind::FixH})));
  f.push_back(bindField<MemdParams>(
      integerParam("fixedSifts", "sifts", "Fixed sifts")
          .in("sifts")
          .atLeast(1)
          .atMost(1000000)
          .because("sifts per IMF of the fixed rule (the published GPU code: 10)")
          .onlyFor("fixed rule"),
      &MemdParams::fixedSifts, stopIs({MemdStopKind::Fixed})));
  f.push_back(bindField<MemdParams>(
      integerParam("maxImfs", "max-imfs", "Max IMFs")
          .in("IMFs")
          .atLeast(1)
          .atMost(64)
          .orSpecial(0, "automatic")
          .because("IMFs before the residue; automatic: until every direction's projection of "
                   "the residue has fewer than 3 extrema (memd.m stop_emd)"),
      &MemdParams::maxImfs));
  f.push_back(bindField<MemdParams>(
      integerParam("noiseChannels", "noise-channels", "Noise channels")
          .in("channels")
          .atLeast(0)
          .atMost(kMemdMaxNoiseChannels)
          .because("NA-MEMD (Rehman and Mandic 2011): white-noise channels decomposed with the "
                   "data and dropped from the output; 0 = plain MEMD"),
      &MemdParams::noiseChannels));
  f.push_back(bindField<MemdParams>(
      realParam("noiseLevel", "noise-level", "Noise level")
          .in("x std")
          .above(0)
          .atMost(100)
          .shown(3, 0.05)
          .because("std of each noise channel relative to the mean std of the data channels "
                   "(ur Rehman et al. 2013 use a few percent of the signal power)")
          .onlyFor("NA-MEMD"),
      &MemdParams::noiseLevel, noiseAssisted));
  f.push_back(bindField<MemdParams>(
      integerParam("ensembleSize", "ensemble", "Noise draws")
          .in("draws")
          .atLeast(1)
          .atMost(kMemdMaxEnsemble)
          .because("NA-MEMD noise realizations whose IMFs are averaged (1 = one draw, as the "
                   "original NA-MEMD); time grows linearly with it")
          .onlyFor("NA-MEMD"),
      &MemdParams::ensembleSize, noiseAssisted));
  f.push_back(bindField<MemdParams>(
      seedParam("seed", "seed", "Seed")
          .because("key of the Philox-4x32-10 generator: noise channel j of draw i depends only "
                   "on it, so CPU and GPU add the same noise")
          .onlyFor("NA-MEMD"),
      &MemdParams::seed, noiseAssisted));
  f.push_back(bindChoice<MemdParams>(
      choiceParam("gpuPrecision", "precision", "GPU precision",
                  {{"float32", "float32", "as the published GPU code", {"float", "single"}},
                   {"float64", "float64", "as memd.m", {"double"}}})
          .because("arithmetic of the CUDA backend (the CPU backend always uses double)"),
      &MemdParams::gpuPrecision,
      ChoiceNames<GpuPrecision>{{GpuPrecision::Float32, "float32"},
                                {GpuPrecision::Float64, "float64"}}));
  return f;
}

void crossCheck(const MemdParams& p) {
  if (p.stop == MemdStopKind::Stop && p.sd > p.sd2)
    throw InvalidParameterError("sd", formatNumber(p.sd),
                                "at most sd2 (" + formatNumber(p.sd2) + ")",
                                "swap the two thresholds (memd.m: 0.075 and 0.75)");
  const MemdSupplied& s = p.supplied;
  if (!s.directions.empty()) {
    if (s.directionCount < 1 || s.directions.size() % static_cast<std::size_t>(s.directionCount))
      throw InvalidParameterError("direction set", std::to_string(s.directions.size()) + " values",
                                  "directionCount rows of equal length",
                                  "write one direction per line (docs/memd.md)");
    if (p.directions != 0 && p.directions != s.directionCount)
      throw InvalidParameterError("directions", std::to_string(p.directions),
                                  std::to_string(s.directionCount) +
                                      " (the rows of the supplied direction set) or automatic",
                                  "leave --directions out when a direction file is given");
  }
  if (!s.noise.empty() && p.noiseChannels == 0)
    throw InvalidParameterError("noiseChannels", "0", "at least 1 with a supplied noise file",
                                "set --noise-channels to the noise file's channels per draw");
}

}  // namespace

const ParamTable<MemdParams>& memdParamTable() {
  static const ParamTable<MemdParams> table(makeFields(), crossCheck);
  return table;
}

}  // namespace modescope
