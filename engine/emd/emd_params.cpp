// Presets, validation and names of the EMD-family parameters (emd_params.h). The preset values
// come from the reference MATLAB codes and the thesis's GPU runs; docs/emd.md tabulates them.
#include "engine/emd/emd_params.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"

namespace modescope {

int automaticImfLimit(int64_t samples) {
  return static_cast<int>(std::floor(std::log2(static_cast<double>(samples)))) + 6;
}
int imfLimit(int maxImfs, int64_t samples) {
  return maxImfs > 0 ? maxImfs : automaticImfLimit(samples);
}
int imfLimit(const EmdParams& p, int64_t samples) { return imfLimit(p.maxImfs, samples); }

namespace {

StopRule rilling(int maxSifts) {
  StopRule r;
  r.kind = StopRuleKind::Rilling;
  r.threshold1 = 0.05;
  r.threshold2 = 0.5;
  r.tolerance = 0.05;
  r.maxSifts = maxSifts;
  r.fixedSifts = 10;
  r.sNumber = 4;
  return r;
}

StopRule fixedSifts(int count) {
  StopRule r = rilling(2000);
  r.kind = StopRuleKind::FixedSifts;
  r.fixedSifts = count;
  return r;
}

EmdParams base(EmdMethod method) {
  EmdParams p;
  p.method = method;
  p.stop = rilling(2000);
  p.noiseStop = rilling(2000);  // emd.m's defaults: how iceemdan.m/ceemdan.m decompose the noise
  p.maxImfs = 0;
  p.ensembleSize = 100;
  p.noiseStd = 0.2;
  p.seed = 1;
  p.noiseScaling = NoiseScaling::Increasing;
  p.pairedNoise = false;
  p.gpuPrecision = GpuPrecision::Float64;
  return p;
}

std::vector<EmdPreset> makePresets() {
  std::vector<EmdPreset> out;
  {
    EmdParams p = base(EmdMethod::Emd);
    out.push_back({"emd-rilling",
                   "EMD with emd.m's defaults (Rilling, Flandrin and Goncalves 2003): stop "
                   "0.05/0.5/0.05, at most 2000 sifts, IMFs until the residue is monotonic",
                   p});
  }
  {
    EmdParams p = base(EmdMethod::Iceemdan);
    p.stop = rilling(5000);  // iceemdan.m called with MaxIter 5000 in the reference runs
    out.push_back({"iceemdan-colominas",
                   "ICEEMDAN as Colominas et al.'s iceemdan.m (2015): Nstd 0.2, NR 100, MaxIter "
                   "5000, SNRFlag 1, noise decomposed with emd.m defaults, automatic IMF count",
                   p});
  }
  {
    EmdParams p = base(EmdMethod::Iceemdan);
    p.stop = fixedSifts(10);
    p.noiseStop = fixedSifts(10);
    p.maxImfs = 11;  // 12 rows with the residue, as the thesis's GPU benchmark
    p.gpuPrecision = GpuPrecision::Float32;  // as the thesis's GPU code; fixed sifts and a fixed
                                             // IMF count cannot run on into rounding noise
    out.push_back({"iceemdan-thesis",
                   "ICEEMDAN as the thesis's GPU benchmark runs: I = 100, 10 fixed sifts (signal "
                   "and noise), 11 IMFs plus the residue, noise 0.2",
                   p});
  }
  {
    EmdParams p = base(EmdMethod::Ceemdan);
    p.stop = rilling(5000);
    out.push_back({"ceemdan-torres",
                   "CEEMDAN as Torres et al.'s ceemdan.m (2011): Nstd 0.2, NR 100, MaxIter 5000, "
                   "automatic IMF count",
                   p});
  }
  {
    EmdParams p = base(EmdMethod::Eemd);
    p.stop = fixedSifts(10);
    p.noiseStop = fixedSifts(10);  // unused by EEMD (it decomposes x + noise directly)
    p.maxImfs = 0;                 // floor(log2 N) - 1 IMFs, as Wu's eemd.m
    out.push_back({"eemd-wu",
                   "EEMD as Wu and Huang (2009): noise 0.2 std(x), 100 members, 10 fixed sifts, "
                   "floor(log2 N) - 1 IMFs",
                   p});
  }
  return out;
}

std::string knownPresetNames() {
  std::string s;
  for (const EmdPreset& p : emdPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace

const std::vector<EmdPreset>& emdPresets() {
  static const std::vector<EmdPreset> presets = makePresets();
  return presets;
}

EmdParams emdPreset(const std::string& name) {
  for (const EmdPreset& p : emdPresets())
    if (equalsIgnoreCase(p.name, trim(name))) return p.params;
  throw InvalidParameterError("preset", "'" + name + "'", "one of " + knownPresetNames(),
                              "pick one of the listed presets");
}

void validateEmdParams(const EmdParams& p) { emdParamTable().validate(p); }

const char* emdMethodName(EmdMethod m) {
  switch (m) {
    case EmdMethod::Emd:
      return "emd";
    case EmdMethod::Eemd:
      return "eemd";
    case EmdMethod::Ceemdan:
      return "ceemdan";
    case EmdMethod::Iceemdan:
      return "iceemdan";
  }
  return "unknown";
}

EmdMethod parseEmdMethod(const std::string& text) {
  const std::string t = toLower(trim(text));
  for (EmdMethod m : {EmdMethod::Emd, EmdMethod::Eemd, EmdMethod::Ceemdan, EmdMethod::Iceemdan})
    if (t == emdMethodName(m)) return m;
  throw InvalidParameterError("method", "'" + text + "'", "emd, eemd, ceemdan or iceemdan",
                              "iceemdan is the recommended method for EEG");
}

const char* stopRuleName(StopRuleKind k) {
  switch (k) {
    case StopRuleKind::Rilling:
      return "rilling";
    case StopRuleKind::FixedSifts:
      return "fixed";
    case StopRuleKind::SNumber:
      return "s-number";
  }
  return "unknown";
}

std::string describeStopRule(const StopRule& r) {
  switch (r.kind) {
    case StopRuleKind::Rilling:
      return "rilling " + formatNumber(r.threshold1) + "/" + formatNumber(r.threshold2) + "/" +
             formatNumber(r.tolerance) + ", at most " + std::to_string(r.maxSifts) + " sifts";
    case StopRuleKind::FixedSifts:
      return std::to_string(r.fixedSifts) + " fixed sifts";
    case StopRuleKind::SNumber:
      return "S-number " + std::to_string(r.sNumber) + ", at most " + std::to_string(r.maxSifts);
  }
  return "unknown stop rule";
}

}  // namespace modescope
