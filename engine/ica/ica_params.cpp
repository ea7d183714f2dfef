// Presets, automatic values and validation of the Infomax parameters (ica_params.h). The values
// are runica.m's and MNE 1.3 infomax()'s defaults as tabulated in ../shared/notes/peers.md
// section 3; docs/ica.md repeats them for users.
#include "engine/ica/ica_params.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

IcaParams runicaDefaults() {
  IcaParams p;  // the struct's defaults are runica's; spelled out so the preset owns every field
  p.extended = true;  // pop_runica pre-fills 'extended', 1
  p.rules = IcaRules::Runica;
  p.learningRate = 0.0;
  p.blockSize = 0;
  p.annealDegrees = 60.0;  // runica's code (its help text says 70)
  p.annealFactor = 0.0;
  p.stopTolerance = 0.0;
  p.maxSteps = 512;
  p.pcaRank = 0;
  p.rankTolerance = 1e-10;
  p.sphering = IcaSphering::Runica;
  p.bias = true;
  p.seed = 1;
  p.ext = IcaExtendedParams{};
  p.ext.centredKurtosis = false;
  p.maxWeight = 1e8;
  p.restartFactor = 0.9;
  p.blowupChange = 1e9;
  p.blowupFactor = 0.8;
  p.minLearningRate = 1e-6;
  p.maxSmallAngleSteps = 0;
  return p;
}

IcaParams mneDefaults() {
  IcaParams p = runicaDefaults();
  p.extended = true;  // infomax()'s own default
  p.rules = IcaRules::Mne;
  p.maxSteps = 200;
  p.sphering = IcaSphering::PcaUnit;
  p.ext.centredKurtosis = true;  // scipy.stats.kurtosis(fisher=True)
  p.blowupChange = 1e4;
  p.blowupFactor = 0.5;
  p.minLearningRate = 1e-10;
  p.maxSmallAngleSteps = 20;
  return p;
}

std::vector<IcaPreset> makePresets() {
  return {
      {"eeglab-runica",
       "EEGLAB runica.m as pop_runica calls it ('extended', 1): lrate 0.00065/ln(channels), block "
       "ceil(min(5 ln N, 0.3 N)), sphere 2 inv(sqrtm(cov)), anneal 0.98 past 60 degrees, stop 1e-6 "
       "(1e-7 above 32 components), 512 steps",
       runicaDefaults()},
      {"mne-infomax",
       "MNE-Python 1.3 mne.preprocessing.infomax() defaults: extended, lrate 0.01/ln(n^2), block "
       "floor(sqrt(N/3)), PCA whitening, anneal 0.9 past 60 degrees, stop 1e-12, 200 steps, "
       "blow-up 1e4 / 0.5, stop after 20 small-angle steps",
       mneDefaults()},
  };
}

std::string knownPresetNames() {
  std::string s;
  for (const IcaPreset& p : icaPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

[[noreturn]] void bad(const std::string& name, double v, const std::string& expected,
                      const std::string& remedy) {
  throw InvalidParameterError(name, formatNumber(v), expected, remedy);
}

bool finitePositive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

ResolvedIcaParams resolveIcaParams(const IcaParams& p, int channels, int components,
                                   int64_t samples) {
  ResolvedIcaParams r;
  r.components = components;
  const double n = static_cast<double>(samples);
  const bool runica = p.rules == IcaRules::Runica;
  if (p.learningRate > 0) {
    r.learningRate = p.learningRate;
  } else if (runica) {
    // runica evaluates this with the channel count before its 'pca' option reduces it.
    r.learningRate = 0.00065 / std::log(static_cast<double>(std::max(channels, 2)));
  } else {
    const double c = static_cast<double>(std::max(components, 2));
    r.learningRate = 0.01 / std::log(c * c);
  }
  if (p.blockSize > 0) {
    r.blockSize = p.blockSize;
  } else if (runica) {
    r.blockSize = static_cast<int>(std::ceil(std::min(5.0 * std::log(n), 0.3 * n)));
  } else {
    r.blockSize = static_cast<int>(std::floor(std::sqrt(n / 3.0)));
  }
  r.blockSize = static_cast<int>(std::clamp<int64_t>(r.blockSize, 1, std::max<int64_t>(samples, 1)));
  if (p.annealFactor > 0)
    r.annealFactor = p.annealFactor;
  else
    r.annealFactor = runica && p.extended ? 0.98 : 0.90;
  if (p.stopTolerance > 0)
    r.stopTolerance = p.stopTolerance;
  else
    r.stopTolerance = runica ? (components > 32 ? 1e-7 : 1e-6) : 1e-12;
  return r;
}

const std::vector<IcaPreset>& icaPresets() {
  static const std::vector<IcaPreset> presets = makePresets();
  return presets;
}

IcaParams icaPreset(const std::string& name) {
  for (const IcaPreset& p : icaPresets())
    if (equalsIgnoreCase(p.name, trim(name))) return p.params;
  throw InvalidParameterError("preset", "'" + name + "'", "one of " + knownPresetNames(),
                              "pick one of the listed presets");
}

void validateIcaParams(const IcaParams& p) {
  if (p.rules != IcaRules::Runica && p.rules != IcaRules::Mne)
    bad("rules", static_cast<int>(p.rules), "runica or mne", "");
  if (p.sphering != IcaSphering::Runica && p.sphering != IcaSphering::PcaUnit)
    bad("sphering", static_cast<int>(p.sphering), "runica or pca-unit", "");
  if (!(std::isfinite(p.learningRate) && p.learningRate >= 0 && p.learningRate <= 0.1))
    bad("learningRate", p.learningRate, "0 (automatic) or a rate in (0, 0.1]",
        "use 0: runica's 0.00065/ln(channels) is about 1.6e-4 for 64 channels");
  if (p.blockSize < 0)
    bad("blockSize", p.blockSize, "0 (automatic) or a positive sample count",
        "use 0: runica's ceil(min(5 ln N, 0.3 N))");
  if (!(std::isfinite(p.annealDegrees) && p.annealDegrees > 0 && p.annealDegrees <= 180))
    bad("annealDegrees", p.annealDegrees, "an angle in (0, 180]", "use runica's 60");
  if (!(std::isfinite(p.annealFactor) && p.annealFactor >= 0 && p.annealFactor <= 1))
    bad("annealFactor", p.annealFactor, "0 (automatic) or a factor in (0, 1]",
        "use 0: runica's 0.98 (extended) or 0.90 (logistic)");
  if (!(std::isfinite(p.stopTolerance) && p.stopTolerance >= 0))
    bad("stopTolerance", p.stopTolerance, "0 (automatic) or a positive weight change",
        "use 0: runica's 1e-6, or 1e-7 above 32 components");
  if (p.maxSteps < 1)
    bad("maxSteps", p.maxSteps, "at least 1", "use runica's 512");
  if (p.pcaRank < 0)
    bad("pcaRank", p.pcaRank, "0 (automatic: the data rank) or a positive component count",
        "use 0 to let the data rank decide");
  if (!(std::isfinite(p.rankTolerance) && p.rankTolerance > 0 && p.rankTolerance < 1))
    bad("rankTolerance", p.rankTolerance, "a relative eigenvalue threshold in (0, 1)",
        "use 1e-10");
  if (p.extended) {
    const IcaExtendedParams& e = p.ext;
    if (e.extBlocks <= 0 && e.subGaussian < 0)
      bad("ext.subGaussian", e.subGaussian, "0 or more sub-Gaussian components",
          "use runica's 1");
    if (e.subGaussian < 0)
      bad("ext.subGaussian", e.subGaussian, "0 or more", "use runica's 1");
    if (e.kurtosisSamples < 2)
      bad("ext.kurtosisSamples", e.kurtosisSamples, "at least 2 (runica warns below 2000)",
          "use runica's 6000");
    if (!(std::isfinite(e.kurtosisMomentum) && e.kurtosisMomentum >= 0 && e.kurtosisMomentum < 1))
      bad("ext.kurtosisMomentum", e.kurtosisMomentum, "a weight in [0, 1)", "use runica's 0.5");
    if (!std::isfinite(e.signsBias))
      bad("ext.signsBias", e.signsBias, "a finite number", "use runica's 0.02");
    if (e.signCountThreshold < 1)
      bad("ext.signCountThreshold", e.signCountThreshold, "at least 1", "use runica's 25");
    if (!(std::isfinite(e.signCountStep) && e.signCountStep >= 1))
      bad("ext.signCountStep", e.signCountStep, "a factor >= 1", "use runica's 2");
  }
  if (!finitePositive(p.maxWeight))
    bad("maxWeight", p.maxWeight, "a positive number", "use runica's 1e8");
  if (!(std::isfinite(p.restartFactor) && p.restartFactor > 0 && p.restartFactor < 1))
    bad("restartFactor", p.restartFactor, "a factor in (0, 1)", "use runica's 0.9");
  if (!finitePositive(p.blowupChange))
    bad("blowupChange", p.blowupChange, "a positive number", "use runica's 1e9");
  if (!(std::isfinite(p.blowupFactor) && p.blowupFactor > 0 && p.blowupFactor <= 1))
    bad("blowupFactor", p.blowupFactor, "a factor in (0, 1]", "use runica's 0.8");
  if (!finitePositive(p.minLearningRate))
    bad("minLearningRate", p.minLearningRate, "a positive number", "use runica's 1e-6");
  if (p.maxSmallAngleSteps < 0)
    bad("maxSmallAngleSteps", p.maxSmallAngleSteps, "0 (off) or a step count",
        "use 0 (runica) or MNE's 20");
}

const char* icaRulesName(IcaRules r) { return r == IcaRules::Mne ? "mne" : "runica"; }
const char* icaSpheringName(IcaSphering s) {
  return s == IcaSphering::PcaUnit ? "pca-unit" : "runica";
}

const char* icaGpuMathName(IcaGpuMath m) {
  switch (m) {
    case IcaGpuMath::Tf32x3: return "tf32x3";
    case IcaGpuMath::Tf32: return "tf32";
    case IcaGpuMath::Fp32: return "fp32";
  }
  return "?";
}

IcaGpuMath parseIcaGpuMath(const std::string& text) {
  for (IcaGpuMath m : {IcaGpuMath::Tf32x3, IcaGpuMath::Tf32, IcaGpuMath::Fp32})
    if (text == icaGpuMathName(m)) return m;
  throw InvalidParameterError("GPU math", "'" + text + "'", "tf32x3, tf32 or fp32",
                              "tf32 (tensor cores) is the default; tf32x3 gives FP32 accuracy");
}

std::string describeIcaParams(const IcaParams& p) {
  auto autoOr = [](double v) { return v > 0 ? formatNumber(v) : std::string("auto"); };
  std::string s = p.extended ? "extended" : "logistic";
  s += ", rules " + std::string(icaRulesName(p.rules));
  s += ", lrate " + autoOr(p.learningRate);
  s += ", block " + autoOr(p.blockSize);
  s += ", anneal " + autoOr(p.annealFactor) + " past " + formatNumber(p.annealDegrees) + " deg";
  s += ", stop " + autoOr(p.stopTolerance);
  s += ", max " + std::to_string(p.maxSteps) + " steps";
  s += ", rank " + (p.pcaRank > 0 ? std::to_string(p.pcaRank) : std::string("auto"));
  s += ", sphering " + std::string(icaSpheringName(p.sphering));
  s += p.bias ? ", bias" : ", no bias";
  if (p.extended) {
    if (p.ext.extBlocks > 0)
      s += ", kurtosis every " + std::to_string(p.ext.extBlocks) + " block(s) on " +
           std::to_string(p.ext.kurtosisSamples) + " samples";
    else
      s += ", " + std::to_string(p.ext.subGaussian) + " fixed sub-Gaussian";
  }
  s += ", seed " + std::to_string(p.seed);
  s += ", GPU math " + std::string(icaGpuMathName(p.gpuMath));
  return s;
}

}  // namespace modescope
