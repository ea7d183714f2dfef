// Presets, automatic values and validation of the Infomax parameters (ica_params.h). The values
// are runica.m's and MNE 1.3 infomax()'s defaults as docs/ica.md ("Parameters and presets")
// tabulates them with their sources.
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
  r.blockSize =
      static_cast<int>(std::clamp<int64_t>(r.blockSize, 1, std::max<int64_t>(samples, 1)));
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

void validateIcaParams(const IcaParams& p) { icaParamTable().validate(p); }

const char* icaRulesName(IcaRules r) { return r == IcaRules::Mne ? "mne" : "runica"; }
const char* icaSpheringName(IcaSphering s) {
  return s == IcaSphering::PcaUnit ? "pca-unit" : "runica";
}

const char* icaGpuMathName(IcaGpuMath m) {
  switch (m) {
    case IcaGpuMath::Tf32x3:
      return "tf32x3";
    case IcaGpuMath::Tf32:
      return "tf32";
    case IcaGpuMath::Fp32:
      return "fp32";
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
