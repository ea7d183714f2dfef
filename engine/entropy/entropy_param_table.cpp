// The entropy matrices' parameters, declared once (engine/method/param_table.h). Defaults are the
// seed's (Martinez-Zarzuela et al. 2013: m 1, r 0.2, 1024-sample epochs), ranges the engine's
// limits (kEntropyMaxM, kEntropyMaxEpochSamples, entropy_params.h); docs/entropy.md
// ("Parameters") gives the sources. `rows` and `keepCounts` are not parameters a user sets: the
// channel selection and a test aid.
#include <string>

#include "engine/entropy/entropy_params.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<EntropyParams>;

bool isApEn(const EntropyParams& p) { return p.measure == EntropyMeasure::ApproximateEntropy; }
// epochSamples 0 means no fixed length (the whole selection is one epoch): the length then does
// not apply. Declared so rather than as a special value, because 1 and 2 between 0 and the
// shortest epoch are refused, and a spin box cannot skip them.
bool hasEpochLength(const EntropyParams& p) { return p.epochSamples != 0; }

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindChoice<EntropyParams>(
      choiceParam("measure", "measure", "Measure",
                  {{"apen",
                    "ApEn / Cross-ApEn",
                    "Cross-ApEn(v||u) for every ordered channel pair, ApEn on the diagonal (Pincus "
                    "1991; Martinez-Zarzuela et al. 2013)",
                    {"xapen", "cross-apen"}},
                   {"sampen",
                    "SampEn / cross-SampEn",
                    "cross-SampEn, SampEn on the diagonal (Richman and Moorman 2000): no "
                    "self-matches, NaN when nothing matches",
                    {"xsampen", "cross-sampen"}}})
          .because("what the matrix holds"),
      &EntropyParams::measure,
      ChoiceNames<EntropyMeasure>{{EntropyMeasure::ApproximateEntropy, "apen"},
                                  {EntropyMeasure::SampleEntropy, "sampen"}}));
  f.push_back(bindField<EntropyParams>(
      integerParam("m", "m", "Template length m")
          .in("samples")
          .atLeast(1)
          .atMost(kEntropyMaxM)
          .because("samples per template (the seed's MEG study 1; Pincus suggests 1 or 2); the GPU "
                   "keeps a template's m + 1 values in registers"),
      &EntropyParams::m));
  f.push_back(bindField<EntropyParams>(
      realParam("r", "r", "Tolerance r")
          .in("SD")
          .above(0)
          .shown(3, 0.05)
          .because("two templates match when their Chebyshev distance is <= r, each series "
                   "z-scored by its own mean and SD per epoch (the seed 0.2; Pincus 0.1-0.25)"),
      &EntropyParams::r));
  f.push_back(bindChoice<EntropyParams>(
      choiceParam("sd", "sd", "SD convention",
                  {{"population", "population (N)", "divide by N", {"n"}},
                   {"sample", "sample (N - 1)", "divide by N - 1", {"n-1"}}})
          .because("the SD that z-scores each series (the seed does not say; digest 2.1)"),
      &EntropyParams::sd,
      ChoiceNames<SdConvention>{{SdConvention::Population, "population"},
                                {SdConvention::Sample, "sample"}}));
  // No CLI option of its own: --epoch takes seconds, samples or 'all' (cmd_xapen.cpp).
  f.push_back(bindField<EntropyParams>(
      integerParam("epoch", "", "Epoch length")
          .storedAs("epoch_samples_requested")
          .in("samples")
          .atLeast(static_cast<double>(entropyMinimumEpoch(1)))
          .atMost(static_cast<double>(kEntropyMaxEpochSamples))
          .because("samples per epoch, consecutive and disjoint (the seed 1024); two templates "
                   "of m + 1 samples need at least m + 2 (m + 2 = 3 at m = 1); above 32768 a "
                   "channel pair costs about 10^9 distance checks per epoch")
          .onlyFor("epochs of a fixed length (0: the whole selection is one epoch)"),
      &EntropyParams::epochSamples, hasEpochLength));
  f.push_back(bindChoice<EntropyParams>(
      choiceParam("bias", "bias", "Bias (ln 0)",
                  {{"zero",
                    "zero",
                    "C_i^m = C_i^(m+1) = 0 -> both 1 (the template contributes 0); C_i^(m+1) = 0 "
                    "alone -> 1/(N - m)",
                    {"0", "bias0"}},
                   {"max",
                    "max",
                    "C_i^m = 0 -> 1, C_i^(m+1) = 0 -> 1/(N - m + 1): no match counts as maximal "
                    "asynchrony, ln(N - m + 1)",
                    {"biasmax"}}})
          .because("the correction of ln(0) in Cross-ApEn when a template has no match in the "
                   "other channel (digest 2.1, citing Richman and Moorman 2000)")
          .onlyFor("the apen measure (ApEn / Cross-ApEn)"),
      &EntropyParams::bias, ChoiceNames<ApEnBias>{{ApEnBias::Zero, "zero"}, {ApEnBias::Max, "max"}},
      isApEn));
  f.push_back(bindField<EntropyParams>(
      flagParam("excludeBadSegments", "exclude-bad-segments", "Leave out bad segments")
          .because("leave out the epochs that overlap a bad segment (annotations beginning with "
                   "'bad' and the marked segments; MNE's reject_by_annotation): an artifact "
                   "inside an epoch changes its template matches"),
      &EntropyParams::excludeBadSegments));
  return f;
}

void crossCheck(const EntropyParams& p) {
  const int64_t minimum = entropyMinimumEpoch(p.m);
  if (hasEpochLength(p) && p.epochSamples < minimum)
    throw InvalidParameterError(
        "epoch", std::to_string(p.epochSamples) + " samples",
        "at least m + 2 = " + std::to_string(minimum) + " samples",
        "use longer epochs (ApEn is usable from about 50 points; the seed used 1024)");
}

}  // namespace

const ParamTable<EntropyParams>& entropyParamTable() {
  static const ParamTable<EntropyParams> table(makeFields(), crossCheck);
  return table;
}

}  // namespace modescope
