// Entropy matrices (ApEn / Cross-ApEn, SampEn / cross-SampEn) on the CPU, and the host steps every
// backend shares. The procedure (Martinez-Zarzuela et al. 2013 for Cross-ApEn, docs/entropy.md
// "What is computed"; Richman and Moorman 2000 for SampEn):
//
//  1. planEntropy(block, params): validateEntropyParams; rows resolved (empty -> all rows; each
//     < block rows, no repeats, at most kEntropyMaxChannels); N = params.epochSamples or the block
//     length; N within entropyMinimumEpoch(m)..kEntropyMaxEpochSamples and <= the block length;
//     E = floor(S / N) epochs starting at e * N (the tail is dropped, with a diagnostic);
//     E * C^2 <= kEntropyMaxEntries. Every used sample must be finite (InvalidInputError naming the
//     channel and the sample). Each (channel, epoch) series is z-scored in double by its own mean
//     and SD (params.sd), never a pooled SD. A channel with SD = 0 in every epoch is refused
//     (InvalidParameterError naming it: drop it from the selection); SD = 0 in some epochs only
//     marks those (channel, epoch) series constant: they are stored as zeros and the result has
//     NaN in that channel's row and column for those epochs, with a diagnostic.
//  2. Counting, per (epoch e, template channel u, target channel v), all C^2 ordered pairs
//     (never a mirrored half), on series of that epoch only, so templates never cross an epoch
//     boundary: one pass over (i, j) computes d_m and, from it, d_{m+1} (the seed's merged m/m+1
//     loop), matches are d <= r (inclusive), giving an EntropyPairCounts (entropy_result.h).
//     ApEn uses j in [0, T) for length m; SampEn uses the same T - 1 = N - m templates for both
//     lengths. A GPU backend replaces this step (it may compare in float, but must give these
//     counts), and may z-score (EntropyZScores::Deferred) and compute step 3's values itself.
//  3. entropyFromCounts per entry (the formulas of entropy_values.h), NaN for constant series,
//     then the epoch average over finite values: assembleEntropyResult, or finishEntropyResult
//     from values computed elsewhere (shared host code).
//
// Values (N epoch length, T = N - m + 1):
//   ApEn family: Phi^m = (1/T) sum_{i<T} ln C_i^m with C_i^m = N_i^m / T, Phi^{m+1} = (1/(T-1))
//     sum_{i<T-1} ln C_i^{m+1} with C_i^{m+1} = N_i^{m+1} / (T - 1), natural log; value
//     Phi^m - Phi^{m+1}; the ApEnBias rules replace zero C's (entropy_params.h). May be negative.
//   SampEn family: -ln(A / B) with A, B from the counts; on the diagonal the T - 1 self-pairs are
//     removed from both. Undefined (NaN, counted in the "entropy.undefined" diagnostic) when A = 0
//     or B = 0; never a crash and never a substituted value.
//
// Thread rules: every function is re-entrant; computeEntropyCpu runs `threads` workers (<= 0:
// hardware concurrency) over (epoch, u, v) items, reports progress ("entropy matrices e/E
// epochs"-style) from the calling thread only, and throws Cancelled within one pair's work after
// a stop request.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/entropy/entropy_params.h"
#include "engine/entropy/entropy_result.h"

namespace modescope {

// Step 1's output: what every backend counts on.
struct EntropyPlan {
  EntropyParams params;      // rows resolved (never empty)
  int64_t epochSamples = 0;  // N
  std::size_t epochs = 0;    // E
  std::size_t channels = 0;  // C = params.rows.size()
  // E x C x N doubles, [(e * C + c) * N + k]: the z-scored epoch of matrix channel c. All zeros
  // for a constant series. Empty when planned with EntropyZScores::Deferred.
  std::vector<double> zscored;
  std::vector<uint8_t> constant;  // E x C: 1 where the series had SD = 0
  Diagnostics diagnostics;        // "entropy.droppedTail", "entropy.constantEpochs"

  const double* series(std::size_t e, std::size_t c) const {
    return zscored.data() + (e * channels + c) * static_cast<std::size_t>(epochSamples);
  }
};

// Who z-scores the series. Deferred: planEntropy does every check and fills `constant`, but
// leaves `zscored` empty; the backend then z-scores each series itself, bit for bit as
// zscoreSeries does (the CUDA backend, on the device), and zeros the constant ones.
enum class EntropyZScores { Host, Deferred };

// Step 1. Throws InvalidParameterError, InvalidInputError as described above.
EntropyPlan planEntropy(const SignalBlock& block, const EntropyParams& params,
                        EntropyZScores zscores = EntropyZScores::Host);

// Whether zscoreSeries treats x[0..n) as constant (SD 0): every sample equal (an exact test: a
// sum of equal doubles can round to a ~1e-17 "SD"), or too few samples for the SD.
bool entropySeriesConstant(const float* x, int64_t n, SdConvention sd);

// Z-scores x[0..n) into out[0..n) with the mean and the SD of `sd` (double accumulation, in
// sample order: sum, mean = sum / n, sum of squared deviations, sqrt(ss / divisor), then
// (x - mean) / sd; no fused multiply-adds). Returns the SD; 0 (out all zeros) for a constant
// series.
double zscoreSeries(const float* x, int64_t n, SdConvention sd, double* out);

// Step 2 for one pair: x = template series (u), y = target series (v), both z-scored, n samples.
// Assumes valid parameters (1 <= m, n >= m + 2, r > 0). This is the reference: every (i, j) pair
// compared. computeEntropyCpu counts through sorted candidate windows instead
// (entropy_candidates.h), which gives exactly these counts with ~8x fewer comparisons.
EntropyPairCounts countEntropyMatches(const double* x, const double* y, int64_t n, int m, double r,
                                      EntropyMeasure measure);

// One template pair of both counting methods: xi = x + i, yj = y + j. When max_{k<m}
// |xi[k] - yj[k]| <= r it adds 1 to cm and, when both have an (m+1)-th value (`longer`) and it
// matches too, 1 to cm1 (the merged loop: d_{m+1} = max(d_m, one more component)).
inline void countTemplatePair(const double* xi, const double* yj, int m, double r, bool longer,
                              int64_t& cm, int64_t& cm1) {
  for (int k = 0; k < m; ++k)
    if (std::fabs(xi[k] - yj[k]) > r) return;
  ++cm;
  if (longer && std::fabs(xi[m] - yj[m]) <= r) ++cm1;
}

// Adds one template's counts (cm = N_i^m over the measure's j range, cm1 = N_i^{m+1}) to `out`;
// hasLonger: i < T - 1. Every counting method (brute force, sorted windows) ends with this.
void addTemplateCounts(EntropyPairCounts& out, int64_t cm, int64_t cm1, bool apen, bool hasLonger);

// Step 3 for one entry. `diagonal`: u == v in the same epoch (SampEn then removes self-pairs).
double apEnFromCounts(const EntropyPairCounts& c, int64_t n, int m, ApEnBias bias);
double sampEnFromCounts(const EntropyPairCounts& c, int64_t n, int m,
                        bool diagonal);  // NaN if A or B is 0
double entropyFromCounts(const EntropyPairCounts& c, int64_t n, const EntropyParams& params,
                         bool diagonal);

// Step 3 for all: `counts` is E x C x C in EntropyMatrixResult::epochValues order. The values
// (entropy_values.h, NaN for constant series), then finishEntropyResult.
EntropyMatrixResult assembleEntropyResult(const EntropyPlan& plan, const SignalBlock& block,
                                          std::vector<EntropyPairCounts> counts);

// The rest of step 3 from values already computed (E x C x C, NaN for constant series; a backend
// may compute them on its device with entropy_values.h): the epoch average over finite values,
// the "entropy.undefined" diagnostic, and every field except channelNames (block gives
// sampleRate, firstSample and the recording channel indices). `counts` is moved in when
// params.keepCounts (then E x C x C), else ignored.
EntropyMatrixResult finishEntropyResult(const EntropyPlan& plan, const SignalBlock& block,
                                        std::vector<double> epochValues,
                                        std::vector<EntropyPairCounts> counts);

// Steps 1-3 on the CPU in double. Throws InvalidParameterError, InvalidInputError, Cancelled.
EntropyMatrixResult computeEntropyCpu(const SignalBlock& block, const EntropyParams& params,
                                      int threads, JobContext& ctx);

}  // namespace modescope
