// Parameters of the entropy matrices: approximate entropy (ApEn, Pincus 1991) and Cross-ApEn as
// Martinez-Zarzuela et al. (2013, Comput. Methods Programs Biomed. 112:189) compute it for every
// ordered channel pair of MEG, and sample entropy / cross-sample entropy (Richman and Moorman 2000,
// Am. J. Physiol. 278:H2039). docs/entropy.md ("What is computed", "Parameters") gives the method
// and its defaults; entropy_cpu.h the procedure.
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope {

// What the matrix holds. Diagonal entries are the single-series statistic of that channel.
enum class EntropyMeasure {
  // Entry [u][v] = Cross-ApEn(m, r, N)(v||u) (templates from u searched in v); diagonal = ApEn(u)
  // (self-matches counted, as in Pincus). Not symmetric: the full ordered matrix is computed.
  ApproximateEntropy,
  // Entry [u][v] = cross-SampEn(m, r, N)(v||u) = -ln(A / B) over all template pairs (i, j);
  // diagonal = SampEn(u) (self-matches i = j excluded). Symmetric in exact arithmetic (Chebyshev
  // distance is), but computed in full like ApEn so both share one counting pass.
  SampleEntropy,
};

// Correction of ln(0) in Cross-ApEn when a u-template has no match in v (digest 2.1, citing
// Richman and Moorman 2000). Never triggers on the diagonal (every template matches itself).
enum class ApEnBias {
  // C_i^m = C_i^{m+1} = 0 -> both 1 (the template contributes 0);
  // C_i^m != 0, C_i^{m+1} = 0 -> C_i^{m+1} = 1 / (N - m).
  Zero,
  // C_i^m = 0 -> 1; C_i^{m+1} = 0 -> 1 / (N - m + 1) (a template with no match contributes the
  // maximum, ln(N - m + 1)).
  Max,
};

// Which SD z-scores each series (the seed does not say; digest 2.1).
enum class SdConvention {
  Population,  // divide by N
  Sample,      // divide by N - 1
};

struct EntropyParams {
  EntropyMeasure measure = EntropyMeasure::ApproximateEntropy;
  int m = 1;       // template length (seed's MEG study: 1; Pincus suggests 1 or 2)
  double r = 0.2;  // tolerance in SD units: every series is z-scored by its own mean and SD per
                   // epoch, then matches are d <= r (Chebyshev, inclusive). Seed: 0.2.
  SdConvention sd = SdConvention::Population;
  // N, samples per epoch. 0: the whole block is one epoch. Epochs are consecutive and disjoint,
  // starting at the block's first sample; a tail shorter than N is not used (a diagnostic says
  // how many samples were dropped). Templates never cross an epoch boundary.
  int64_t epochSamples = 0;
  // Bias correction of Cross-ApEn (ignored by SampleEntropy). The seed used both and never says
  // which underlies its figures; Max is our default because a template with no match in the other
  // channel is then counted as maximal asynchrony instead of vanishing from the mean, which keeps
  // Cross-ApEn >= its value with any match and avoids negative off-diagonal entries at small r.
  ApEnBias bias = ApEnBias::Max;
  // Leave out the epochs that overlap a bad segment (engine/core/bad_marks.h). The backends never
  // see bad segments: the jobs (app/core/entropy_job.h) drop those epochs from the block before
  // computing, which gives the kept epochs' matrices exactly (epochs are disjoint and z-scored
  // one by one, and templates never cross an epoch boundary).
  bool excludeBadSegments = true;
  // Rows of the SignalBlock to use, in this order (the matrix's channel order). Empty: all rows.
  std::vector<std::size_t> rows;
  // Keep the per-(epoch, u, v) match summaries in the result (EntropyMatrixResult::counts), for
  // parity tests and diagnostics. Costs 48 bytes per matrix entry.
  bool keepCounts = false;
};

// Hard limits of every backend, and why:
// - m: 1..16. The GPU keeps a template's m + 1 values in registers; Pincus/the seed use 1-2 and
//   m > ~5 needs far more than the 10^m..30^m points a stable estimate wants.
// - epoch length: m + 2 .. 32768 samples. m + 2 is the shortest epoch with two (m+1)-templates
//   (one for SampEn would leave no pair to count); above 32768 one pair costs ~10^9 distance
//   checks per epoch (seconds on a CPU core), and 1024-32768 covers every published use.
// - channels: 1..1024 (a 1024 x 1024 ordered matrix per epoch; whole-head MEG has <= 306).
// - epochs x channels^2 <= 2^27 matrix entries (1 GiB of doubles for the per-epoch matrices).
constexpr int kEntropyMaxM = 16;
constexpr int64_t kEntropyMaxEpochSamples = 32768;
constexpr std::size_t kEntropyMaxChannels = 1024;
constexpr std::size_t kEntropyMaxEntries = std::size_t{1} << 27;

// Shortest epoch for template length m: m + 2 samples.
constexpr int64_t entropyMinimumEpoch(int m) { return static_cast<int64_t>(m) + 2; }

// Every user-set EntropyParams field declared once: key, CLI option, label, unit, range, default,
// help and what it applies to (entropy_param_table.cpp); the CLI options and the dialog's editors
// are produced from it.
const ParamTable<EntropyParams>& entropyParamTable();

// Throws InvalidParameterError (parameter, value found, range expected, remedy) for a field
// outside its declared range (entropyParamTable()): m outside 1..kEntropyMaxM; r not finite or
// <= 0; epochSamples (when not 0) outside entropyMinimumEpoch(1)..kEntropyMaxEpochSamples;
// unknown enum values; and for an epoch shorter than entropyMinimumEpoch(m). Block-dependent
// checks (epoch vs block length, rows, channel count, entries) are in planEntropy
// (entropy_cpu.h).
void validateEntropyParams(const EntropyParams& p);

const char* entropyMeasureName(EntropyMeasure m);  // "apen", "sampen"
const char* apEnBiasName(ApEnBias b);              // "zero", "max"
const char* sdConventionName(SdConvention s);      // "population", "sample"
// The inverse of the names above: the declaration's names, labels and aliases, any case ("xapen",
// "n-1", "bias0"); throw InvalidParameterError listing the names.
EntropyMeasure parseEntropyMeasure(const std::string& text);
ApEnBias parseApEnBias(const std::string& text);
SdConvention parseSdConvention(const std::string& text);

}  // namespace modescope
