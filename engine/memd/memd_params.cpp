// Presets, validation and names of the MEMD parameters (memd_params.h); docs/memd.md tabulates
// the presets with their sources.
#include "engine/memd/memd_params.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

std::vector<ParamPreset<MemdParams>> makePresets() {
  std::vector<ParamPreset<MemdParams>> out;
  const MemdParams memd;  // the struct's defaults are memd.m's
  out.push_back({"rehman-mandic",
                 "memd.m (Rehman and Mandic 2010) defaults: Hammersley directions max(64, 2 x "
                 "channels), 'stop' [0.075 0.75 0.075], at most 1000 sifts, IMFs until every "
                 "projection has fewer than 3 extrema",
                 memd});
  {
    MemdParams p = memd;
    p.stop = MemdStopKind::FixH;
    out.push_back({"rehman-mandic-fix-h", "memd.m with 'fix_h' 2 (at most 1000 sifts)", p});
  }
  {
    MemdParams p = memd;
    p.noiseChannels = 4;
    p.noiseLevel = 0.1;
    p.ensembleSize = 1;
    out.push_back({"na-memd",
                   "NA-MEMD (Rehman and Mandic 2011): memd.m defaults with 4 white-noise "
                   "channels at 0.1 x the data's std, one draw, noise channels dropped",
                   p});
  }
  {
    MemdParams p = memd;
    p.stop = MemdStopKind::Fixed;
    p.fixedSifts = 10;
    p.maxImfs = 8;
    out.push_back({"thesis-gpu",
                   "the published MEMD-GPU benchmark (Wang and Juhasz 2023): 10 fixed sifts, 8 "
                   "IMFs + residue, directions 2 x channels when given",
                   p});
  }
  return out;
}

}  // namespace

const std::vector<ParamPreset<MemdParams>>& memdPresets() {
  static const auto presets = makePresets();
  return presets;
}

MemdParams memdPreset(const std::string& name) {
  std::string known;
  for (const auto& p : memdPresets()) {
    if (p.name == name) return p.params;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw InvalidParameterError("preset", "'" + name + "'", "one of " + known,
                              "run `modescope-cli memd --help` for the presets");
}

void validateMemdParams(const MemdParams& p) { memdParamTable().validate(p); }

const char* memdStopName(MemdStopKind k) {
  switch (k) {
    case MemdStopKind::Stop:
      return "stop";
    case MemdStopKind::FixH:
      return "fix_h";
    case MemdStopKind::Fixed:
      return "fixed";
  }
  return "?";
}

std::string describeMemdStop(const MemdParams& p) {
  switch (p.stop) {
    case MemdStopKind::Stop:
      return "stop " + formatNumber(p.sd) + "/" + formatNumber(p.sd2) + "/" + formatNumber(p.tol) +
             ", at most " + std::to_string(p.maxSifts) + " sifts";
    case MemdStopKind::FixH:
      return "fix_h " + std::to_string(p.sNumber) + ", at most " + std::to_string(p.maxSifts) +
             " sifts";
    case MemdStopKind::Fixed:
      return std::to_string(p.fixedSifts) + " fixed sifts";
  }
  return "?";
}

int memdDirectionCount(const MemdParams& p, int dims) {
  if (!p.supplied.directions.empty()) return p.supplied.directionCount;
  if (p.directions > 0) return p.directions;
  return std::max(64, 2 * dims);
}

}  // namespace modescope
