// Presets, validation and names of the EMD-family parameters (emd_params.h). The preset values
// come from the reference MATLAB codes and the thesis's GPU runs; docs/emd.md tabulates them.
#include "engine/emd/emd_params.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"

namespace modescope {
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
  p.gpuPrecision = GpuPrecision::Float32;
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

void validateStop(const StopRule& r, const std::string& prefix) {
  auto bad = [&](const char* field, double v, const char* expected, const char* remedy) {
    throw InvalidParameterError(prefix + "." + field, formatNumber(v), expected, remedy);
  };
  switch (r.kind) {
    case StopRuleKind::Rilling:
      if (!(std::isfinite(r.threshold1) && r.threshold1 > 0))
        bad("threshold1", r.threshold1, "a finite number > 0",
            "use Rilling's default 0.05");
      if (!(std::isfinite(r.threshold2) && r.threshold2 > 0))
        bad("threshold2", r.threshold2, "a finite number > 0", "use Rilling's default 0.5");
      if (r.threshold1 > r.threshold2)
        bad("threshold1", r.threshold1,
            ("at most threshold2 (" + formatNumber(r.threshold2) + ")").c_str(),
            "swap the two thresholds (defaults 0.05 and 0.5)");
      if (!(r.tolerance > 0 && r.tolerance < 1))
        bad("tolerance", r.tolerance, "a fraction in (0, 1)", "use Rilling's default 0.05");
      if (r.maxSifts < 1)
        bad("maxSifts", r.maxSifts, "at least 1", "use emd.m's default 2000");
      break;
    case StopRuleKind::FixedSifts:
      if (r.fixedSifts < 1)
        bad("fixedSifts", r.fixedSifts, "at least 1", "use 10 as Wu and Huang");
      break;
    case StopRuleKind::SNumber:
      if (r.sNumber < 1) bad("sNumber", r.sNumber, "at least 1", "use 4 to 8 (Huang et al. 2003)");
      if (r.maxSifts < 1)
        bad("maxSifts", r.maxSifts, "at least 1", "use emd.m's default 2000");
      break;
    default:
      throw InvalidParameterError(prefix + ".kind", std::to_string(static_cast<int>(r.kind)),
                                  "rilling, fixed or s-number");
  }
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

void validateEmdParams(const EmdParams& p) {
  const bool ensemble = p.method != EmdMethod::Emd;
  switch (p.method) {
    case EmdMethod::Emd:
    case EmdMethod::Eemd:
    case EmdMethod::Ceemdan:
    case EmdMethod::Iceemdan:
      break;
    default:
      throw InvalidParameterError("method", std::to_string(static_cast<int>(p.method)),
                                  "emd, eemd, ceemdan or iceemdan");
  }
  validateStop(p.stop, "stop");
  if (p.method == EmdMethod::Ceemdan || p.method == EmdMethod::Iceemdan)
    validateStop(p.noiseStop, "noiseStop");
  if (p.maxImfs < 0)
    throw InvalidParameterError("maxImfs", std::to_string(p.maxImfs),
                                "0 (automatic) or a positive count",
                                "use 0 to decompose until the residue is monotonic");
  if (!ensemble) return;
  if (p.ensembleSize < 1 || p.ensembleSize > kEmdMaxEnsemble)
    throw InvalidParameterError("ensembleSize", std::to_string(p.ensembleSize),
                                "1 to " + std::to_string(kEmdMaxEnsemble),
                                "use 50 to 500 members (100 in the reference codes)");
  if (p.method == EmdMethod::Eemd && p.pairedNoise && p.ensembleSize % 2 != 0)
    throw InvalidParameterError("ensembleSize", std::to_string(p.ensembleSize),
                                "an even count with pairedNoise (members come as +w/-w pairs)",
                                "add or remove one member, or turn pairedNoise off");
  if (!(std::isfinite(p.noiseStd) && p.noiseStd > 0))
    throw InvalidParameterError("noiseStd", formatNumber(p.noiseStd), "a finite number > 0",
                                "use 0.2 (the reference codes' value)");
  if (p.method == EmdMethod::Iceemdan && p.noiseScaling != NoiseScaling::Increasing &&
      p.noiseScaling != NoiseScaling::Constant)
    throw InvalidParameterError("noiseScaling", std::to_string(static_cast<int>(p.noiseScaling)),
                                "increasing or constant");
}

const char* emdMethodName(EmdMethod m) {
  switch (m) {
    case EmdMethod::Emd: return "emd";
    case EmdMethod::Eemd: return "eemd";
    case EmdMethod::Ceemdan: return "ceemdan";
    case EmdMethod::Iceemdan: return "iceemdan";
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
    case StopRuleKind::Rilling: return "rilling";
    case StopRuleKind::FixedSifts: return "fixed";
    case StopRuleKind::SNumber: return "s-number";
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
