// The EMD family's parameters, declared once (engine/method/param_table.h). Sources of the
// defaults and ranges: Rilling/Flandrin emd.m (2007), Colominas iceemdan.m (2015), Torres
// ceemdan.m, Wu and Huang 2009; docs/emd.md tabulates them.
#include <cmath>
#include <string>

#include "engine/core/text.h"
#include "engine/emd/emd.h"
#include "engine/emd/emd_params.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<EmdParams>;

bool isEnsembleMethod(const EmdParams& p) { return p.method != EmdMethod::Emd; }
bool decomposesNoise(const EmdParams& p) {
  return p.method == EmdMethod::Ceemdan || p.method == EmdMethod::Iceemdan;
}

const ChoiceNames<StopRuleKind> kStopKinds = {{StopRuleKind::Rilling, "rilling"},
                                              {StopRuleKind::FixedSifts, "fixed"},
                                              {StopRuleKind::SNumber, "s-number"}};

// The stop rule's seven fields, for the signal (`stop`) and for the noise EMD (`noiseStop`).
void addStopRule(std::vector<Field>& out, StopRule EmdParams::*rule, const std::string& key,
                 const std::string& cliPrefix, const std::string& labelPrefix,
                 std::function<bool(const EmdParams&)> applies, const std::string& appliesTo) {
  auto kindIs = [rule, applies](std::initializer_list<StopRuleKind> kinds) {
    return [rule, applies, kinds = std::vector<StopRuleKind>(kinds)](const EmdParams& p) {
      if (applies && !applies(p)) return false;
      for (StopRuleKind k : kinds)
        if ((p.*rule).kind == k) return true;
      return false;
    };
  };
  const std::string rilling = appliesTo.empty() ? "Rilling rule" : appliesTo + ", Rilling rule";
  out.push_back(bindChoice<EmdParams>(
      choiceParam(
          key + ".kind", cliPrefix + "stop", labelPrefix + "Rule",
          {{"rilling",
            "Rilling thresholds",
            "Rilling, Flandrin and Goncalves 2003: sift while more than a fraction alpha of "
            "samples have sigma > theta1 or any has sigma > theta2 (emd.m default)",
            {}},
           {"fixed",
            "Fixed number of sifts",
            "exactly S sifts per IMF (emd.m 'FIX'; the thesis's GPU runs use S = 10)",
            {}},
           {"s-number",
            "S-number",
            "Huang et al. 2003 (emd.m 'FIX_H'): stop once zero crossings and extrema differ "
            "by at most one for S consecutive sifts",
            {"snumber", "s_number"}}})
          .because("how sifting decides that a candidate is an IMF (emd.m's three modes)")
          .onlyFor(appliesTo)
          .storedAs(snakeCaseKey(key + ".rule")),  // modescope-emd/1 names it "rule"
      rule, &StopRule::kind, kStopKinds, applies));
  ParamDecl t1 = realParam(key + ".threshold1", cliPrefix + "theta1", labelPrefix + "theta1")
                     .above(0)
                     .atMost(10)
                     .because(
                         "Rilling et al. 2003 theta1 (emd.m 0.05): the sigma most samples "
                         "must stay under")
                     .onlyFor(rilling);
  ParamDecl t2 = realParam(key + ".threshold2", cliPrefix + "theta2", labelPrefix + "theta2")
                     .above(0)
                     .atMost(10)
                     .because(
                         "Rilling et al. 2003 theta2 (emd.m 0.5): the sigma no sample may "
                         "exceed")
                     .onlyFor(rilling);
  ParamDecl alpha = realParam(key + ".tolerance", cliPrefix + "alpha", labelPrefix + "alpha")
                        .above(0)
                        .below(1)
                        .because(
                            "Rilling et al. 2003 alpha (emd.m 0.05): the fraction of "
                            "samples allowed above theta1")
                        .onlyFor(rilling);
  const auto isRilling = kindIs({StopRuleKind::Rilling});
  out.push_back(bindField<EmdParams>(t1, rule, &StopRule::threshold1, isRilling));
  out.push_back(bindField<EmdParams>(t2, rule, &StopRule::threshold2, isRilling));
  out.push_back(bindField<EmdParams>(alpha, rule, &StopRule::tolerance, isRilling));
  const std::string siftText = appliesTo.empty() ? "" : appliesTo + ", ";
  out.push_back(bindField<EmdParams>(
      integerParam(key + ".maxSifts", cliPrefix + "max-sifts", labelPrefix + "Max sifts")
          .in("sifts")
          .atLeast(1)
          .atMost(1000000)
          .because("iteration cap per IMF of the Rilling and S-number rules (emd.m "
                   "MAXITERATIONS 2000; iceemdan.m MaxIter)")
          .onlyFor(siftText + "Rilling and S-number rules"),
      rule, &StopRule::maxSifts, kindIs({StopRuleKind::Rilling, StopRuleKind::SNumber})));
  out.push_back(bindField<EmdParams>(
      integerParam(key + ".fixedSifts", cliPrefix + "sifts", labelPrefix + "Fixed sifts")
          .in("sifts")
          .atLeast(1)
          .atMost(1000000)
          .because("sifts per IMF of the fixed rule (the thesis's S; Wu and Huang use 10)")
          .onlyFor(siftText + "fixed rule"),
      rule, &StopRule::fixedSifts, kindIs({StopRuleKind::FixedSifts})));
  out.push_back(bindField<EmdParams>(
      integerParam(key + ".sNumber", cliPrefix + "s-number", labelPrefix + "S-number")
          .in("sifts")
          .atLeast(1)
          .atMost(1000)
          .because("consecutive sifts the zero-crossing condition must hold (Huang et al. "
                   "2003 recommend 3 to 5)")
          .onlyFor(siftText + "S-number rule"),
      rule, &StopRule::sNumber, kindIs({StopRuleKind::SNumber})));
}

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindChoice<EmdParams>(
      choiceParam(
          "method", "method", "Method",
          {{"emd", "EMD", "Huang et al. 1998, sifting of Rilling, Flandrin and Goncalves 2003", {}},
           {"eemd", "EEMD", "Wu and Huang 2009: ensemble of noisy copies, averaged IMFs", {}},
           {"ceemdan",
            "CEEMDAN",
            "Torres et al. 2011: one IMF at a time, averaged over the ensemble",
            {}},
           {"iceemdan",
            "ICEEMDAN",
            "Colominas, Schlotthauer and Torres 2014: noise IMFs, local means (iceemdan.m)",
            {}}})
          .because("the member of the EMD family; ICEEMDAN is the recommended method for EEG"),
      &EmdParams::method,
      ChoiceNames<EmdMethod>{{EmdMethod::Emd, "emd"},
                             {EmdMethod::Eemd, "eemd"},
                             {EmdMethod::Ceemdan, "ceemdan"},
                             {EmdMethod::Iceemdan, "iceemdan"}}));
  const std::string ensembleText = "EEMD, CEEMDAN and ICEEMDAN";
  f.push_back(bindField<EmdParams>(
      realParam("noiseStd", "noise", "Noise std")
          .in("x std(x)")
          .above(0)
          .atMost(100)
          .shown(3, 0.05)
          .because("epsilon_0, the added noise's std relative to the signal's (iceemdan.m Nstd; "
                   "0.2 in Wu and Huang 2009 and the reference runs)")
          .onlyFor(ensembleText),
      &EmdParams::noiseStd, isEnsembleMethod));
  f.push_back(bindField<EmdParams>(
      integerParam("ensembleSize", "ensemble", "Ensemble size")
          .in("members")
          .atLeast(1)
          .atMost(kEmdMaxEnsemble)
          .because("I, the noise realizations averaged (iceemdan.m NR; 100 in the reference "
                   "codes); time grows linearly with it")
          .onlyFor(ensembleText),
      &EmdParams::ensembleSize, isEnsembleMethod));
  f.push_back(bindField<EmdParams>(
      flagParam("pairedNoise", "paired-noise", "Paired noise (+w and -w)")
          .because("complementary EEMD (Yeh, Shieh and Huang 2010): each realization added with "
                   "both signs so it cancels in the average; the ensemble size must be even")
          .onlyFor("EEMD only"),
      &EmdParams::pairedNoise, [](const EmdParams& p) { return p.method == EmdMethod::Eemd; }));
  f.push_back(bindChoice<EmdParams>(
      choiceParam("noiseScaling", "noise-scaling", "Noise scaling",
                  {{"increasing",
                    "Increasing SNR (SNRFlag 1)",
                    "beta_k E_k(w) with E_k not re-normalised: the SNR grows with the stage "
                    "(2014 paper, default)",
                    {}},
                   {"constant", "Constant SNR (SNRFlag 2)", "E_k(w) scaled to unit std first", {}}})
          .because("ICEEMDAN's noise scaling at stages k >= 2 (iceemdan.m SNRFlag)")
          .onlyFor("ICEEMDAN only"),
      &EmdParams::noiseScaling,
      ChoiceNames<NoiseScaling>{{NoiseScaling::Increasing, "increasing"},
                                {NoiseScaling::Constant, "constant"}},
      [](const EmdParams& p) { return p.method == EmdMethod::Iceemdan; }));
  f.push_back(bindField<EmdParams>(
      seedParam("seed", "seed", "Seed")
          .because("key of the Philox-4x32-10 generator: the noise of (channel, member, sample) "
                   "depends only on it, so CPU and GPU add the same noise and a run repeats")
          .onlyFor(ensembleText),
      &EmdParams::seed, isEnsembleMethod));
  f.push_back(bindField<EmdParams>(
      integerParam("maxImfs", "max-imfs", "Max IMFs")
          .in("IMFs")
          .atLeast(1)
          .atMost(64)
          .orSpecial(0, "automatic")
          .because("IMFs before the residue; automatic: until the residue has fewer than 3 "
                   "extrema or, for CEEMDAN/ICEEMDAN, is itself an IMF, and at most "
                   "floor(log2 N) + 6"),
      &EmdParams::maxImfs));
  f.push_back(bindChoice<EmdParams>(
      choiceParam("gpuPrecision", "precision", "GPU precision",
                  {{"float32", "float32", "as the thesis's GPU code", {"float", "single"}},
                   {"float64", "float64", "as the MATLAB reference", {"double"}}})
          .because("arithmetic of the CUDA backend (the CPU backend always uses double)"),
      &EmdParams::gpuPrecision,
      ChoiceNames<GpuPrecision>{{GpuPrecision::Float32, "float32"},
                                {GpuPrecision::Float64, "float64"}}));
  addStopRule(f, &EmdParams::stop, "stop", "", "", {}, "");
  addStopRule(f, &EmdParams::noiseStop, "noiseStop", "noise-", "Noise ", decomposesNoise,
              "CEEMDAN and ICEEMDAN");
  return f;
}

void crossCheck(const EmdParams& p) {
  for (const auto& [rule, key] :
       {std::pair{&p.stop, "stop"}, std::pair{&p.noiseStop, "noiseStop"}}) {
    if (rule == &p.noiseStop && !decomposesNoise(p)) continue;
    if (rule->kind == StopRuleKind::Rilling && rule->threshold1 > rule->threshold2) {
      throw InvalidParameterError(std::string(key) + ".threshold1", formatNumber(rule->threshold1),
                                  "at most threshold2 (" + formatNumber(rule->threshold2) + ")",
                                  "swap the two thresholds (defaults 0.05 and 0.5)");
    }
  }
  if (p.method == EmdMethod::Eemd && p.pairedNoise && p.ensembleSize % 2 != 0) {
    throw InvalidParameterError("ensembleSize", std::to_string(p.ensembleSize),
                                "an even count with pairedNoise (members come as +w/-w pairs)",
                                "add or remove one member, or turn pairedNoise off");
  }
}

}  // namespace

const ParamTable<EmdParams>& emdParamTable() {
  static const ParamTable<EmdParams> table(makeFields(), crossCheck);
  return table;
}

}  // namespace modescope
