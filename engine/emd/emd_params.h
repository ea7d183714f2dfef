// Parameters of the EMD family: EMD (Huang et al. 1998, with the sifting of Rilling, Flandrin and
// Goncalves 2003), EEMD (Wu and Huang 2009), CEEMDAN (Torres et al. 2011) and ICEEMDAN
// (Colominas, Schlotthauer and Torres 2014). Defaults and presets follow the reference MATLAB
// codes (Rilling/Flandrin emd.m 2007, Colominas iceemdan.m 2015, Torres ceemdan.m); docs/emd.md
// ("Parameters", "Presets") lists them with their sources.
//
// Thread rules: plain values; validateEmdParams() and the preset functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope {

enum class EmdMethod { Emd, Eemd, Ceemdan, Iceemdan };

// How sifting decides that the candidate is an IMF (emd.m's three modes).
enum class StopRuleKind {
  // Rilling: with sigma = |mean envelope| / envelope amplitude, keep sifting while
  // (fraction(sigma > threshold1) > tolerance OR any(sigma > threshold2)) AND #extrema > 2, and
  // also while |#zero crossings - #extrema| > 1; at most maxSifts iterations.
  Rilling,
  // Exactly `fixedSifts` iterations (emd.m 'FIX'); stops earlier only when the candidate has
  // fewer than 3 extrema.
  FixedSifts,
  // S-number (Huang et al. 2003, emd.m 'FIX_H'): stop once |#zero crossings - #extrema| <= 1 has
  // held for sNumber consecutive iterations; at most maxSifts iterations.
  SNumber,
};

struct StopRule {
  StopRuleKind kind = StopRuleKind::Rilling;
  double threshold1 = 0.05;  // Rilling theta_1
  double threshold2 = 0.5;   // Rilling theta_2
  double tolerance = 0.05;   // Rilling alpha: allowed fraction of samples above theta_1
  int maxSifts = 2000;       // Rilling and SNumber: iteration cap (emd.m MAXITERATIONS)
  int fixedSifts = 10;       // FixedSifts: the count
  int sNumber = 4;           // SNumber: consecutive iterations

  // Every field alike (the CUDA backend sifts the signal and the noise in one batch only then).
  bool operator==(const StopRule&) const = default;
};

// ICEEMDAN's noise scaling at stage k >= 2 (iceemdan.m SNRFlag).
enum class NoiseScaling {
  // 1: beta_k E_k(w) with E_k not re-normalised (SNR grows with the stage; 2014 paper, default).
  Increasing,
  // 2: E_k(w) re-normalised to unit std before scaling (constant SNR).
  Constant,
};

// Precision the CUDA backend computes in (the CPU backend always computes in double).
enum class GpuPrecision { Float32, Float64 };

struct EmdParams {
  EmdMethod method = EmdMethod::Iceemdan;
  StopRule stop;  // for the decomposition of the signal (ensemble members included)
  // For the full EMD of the noise realizations (EEMD/CEEMDAN/ICEEMDAN's E_k(w)). iceemdan.m
  // decomposes the noise with emd.m's defaults whatever MaxIter is: Rilling, 2000 sifts.
  StopRule noiseStop;
  // Maximum number of IMFs (the residue is extra). 0 = until the residue is monotonic (fewer
  // than 3 extrema) or, for CEEMDAN/ICEEMDAN, already an IMF (iceemdan.m's es_imf rule), and at
  // most imfLimit (below).
  int maxImfs = 0;
  int ensembleSize = 100;  // I (iceemdan.m NR); ignored by EMD
  double noiseStd = 0.2;   // epsilon_0 (iceemdan.m Nstd), relative to std(x); ignored by EMD
  uint64_t seed = 1;       // Philox key; ensemble noise = f(seed, channel, member, sample)
  NoiseScaling noiseScaling = NoiseScaling::Increasing;  // ICEEMDAN only
  // EEMD: add +w and -w as a pair (Yeh et al. 2010, "complementary EEMD") so the noise cancels
  // exactly in the average; ensembleSize must then be even.
  bool pairedNoise = false;
  // float64 by default: with Rilling's rule and the automatic IMF count, float32 rounding of the
  // slowest residues makes spurious extrema, and the decomposition runs on into rounding noise
  // (docs/emd.md, "Precision"). On an H200 float64 costs about 17 % more time.
  GpuPrecision gpuPrecision = GpuPrecision::Float64;
};

// Named parameter sets. "iceemdan-colominas": iceemdan.m as in the reference runs (Nstd 0.2, NR
// 100, MaxIter 5000, SNRFlag 1, automatic IMF count); "iceemdan-thesis": the thesis's GPU runs (I =
// 100, S fixed, 12 rows); "ceemdan-torres"; "eemd-wu": Wu and Huang 2009 (noise 0.2, 100 members,
// 10 fixed sifts); "emd-rilling": emd.m defaults. Every preset sets every field.
struct EmdPreset {
  std::string name;
  std::string description;  // one line with the source
  EmdParams params;
};
const std::vector<EmdPreset>& emdPresets();
// Throws InvalidParameterError naming the known presets when `name` is unknown.
EmdParams emdPreset(const std::string& name);

// The most IMFs a decomposition extracts from `samples` samples: maxImfs, or for an automatic
// count (0) floor(log2 N) + 6 (a dyadic filter bank has about log2 N bands). Every backend stops
// there. In double precision no signal has come near it; in float32 the GPU's residue keeps
// extrema at the level of its own rounding, which sifting never exhausts: white noise of 20,001
// samples ran past 2,400 ICEEMDAN stages with Rilling's rule, every mode after the twelfth or
// fourteenth 1e-7..3e-4 of the residue (docs/emd.md, nineteenth session).
int imfLimit(const EmdParams& p, int64_t samples);
int imfLimit(int maxImfs, int64_t samples);  // the same from maxImfs alone
int automaticImfLimit(int64_t samples);      // the limit for maxImfs = 0

// Every EmdParams field declared once: key, CLI option, label, unit, range, default, help and
// the methods it applies to (emd_param_table.cpp). Validation, provenance, the CLI and the dialog
// are produced from it.
const ParamTable<EmdParams>& emdParamTable();

// Throws InvalidParameterError (parameter, value found, range expected, remedy) for values no
// method can run with: every applicable field outside its declared range (emdParamTable()), and
// threshold1 > threshold2 or an odd ensemble with pairedNoise.
void validateEmdParams(const EmdParams& p);

const char* emdMethodName(EmdMethod m);             // "emd", "eemd", "ceemdan", "iceemdan"
EmdMethod parseEmdMethod(const std::string& text);  // throws InvalidParameterError
const char* stopRuleName(StopRuleKind k);           // "rilling", "fixed", "s-number"
// "rilling 0.05/0.5/0.05, at most 2000 sifts" / "10 fixed sifts" / "S-number 4, at most 2000".
std::string describeStopRule(const StopRule& r);

// Minimum samples any method accepts (a signal needs at least 3 extrema to be sifted).
constexpr int64_t kEmdMinSamples = 8;

}  // namespace modescope
