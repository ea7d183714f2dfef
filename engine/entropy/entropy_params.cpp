// Validation and names of the entropy-matrix parameters (entropy_params.h).
#include "engine/entropy/entropy_params.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {

void validateEntropyParams(const EntropyParams& p) {
  if (p.measure != EntropyMeasure::ApproximateEntropy && p.measure != EntropyMeasure::SampleEntropy)
    throw InvalidParameterError("measure", std::to_string(static_cast<int>(p.measure)),
                                "apen or sampen");
  if (p.bias != ApEnBias::Zero && p.bias != ApEnBias::Max)
    throw InvalidParameterError("bias", std::to_string(static_cast<int>(p.bias)), "zero or max");
  if (p.sd != SdConvention::Population && p.sd != SdConvention::Sample)
    throw InvalidParameterError("sd", std::to_string(static_cast<int>(p.sd)),
                                "population or sample");
  if (p.m < 1 || p.m > kEntropyMaxM)
    throw InvalidParameterError("m", std::to_string(p.m),
                                "a template length from 1 to " + std::to_string(kEntropyMaxM),
                                "use m = 1 or 2 (Pincus; the seed's MEG study used 1)");
  if (!std::isfinite(p.r) || p.r <= 0)
    throw InvalidParameterError("r", formatNumber(p.r),
                                "a finite tolerance > 0 in SD units of each series",
                                "use r between 0.1 and 0.25 (the seed used 0.2)");
  if (p.epochSamples < 0)
    throw InvalidParameterError("epoch", std::to_string(p.epochSamples) + " samples",
                                "> 0 samples, or 0 for the whole selection as one epoch");
  if (p.epochSamples > 0) {
    const int64_t minimum = entropyMinimumEpoch(p.m);
    if (p.epochSamples < minimum)
      throw InvalidParameterError(
          "epoch", std::to_string(p.epochSamples) + " samples",
          "at least m + 2 = " + std::to_string(minimum) + " samples",
          "use longer epochs (ApEn is usable from about 50 points; the seed used 1024)");
    if (p.epochSamples > kEntropyMaxEpochSamples)
      throw InvalidParameterError("epoch", std::to_string(p.epochSamples) + " samples",
                                  "at most " + std::to_string(kEntropyMaxEpochSamples) + " samples",
                                  "split the selection into shorter epochs");
  }
}

const char* entropyMeasureName(EntropyMeasure m) {
  return m == EntropyMeasure::SampleEntropy ? "sampen" : "apen";
}
const char* apEnBiasName(ApEnBias b) { return b == ApEnBias::Zero ? "zero" : "max"; }
const char* sdConventionName(SdConvention s) {
  return s == SdConvention::Sample ? "sample" : "population";
}

EntropyMeasure parseEntropyMeasure(const std::string& text) {
  const std::string t = toLower(trim(text));
  if (t == "apen" || t == "xapen" || t == "cross-apen") return EntropyMeasure::ApproximateEntropy;
  if (t == "sampen" || t == "xsampen" || t == "cross-sampen") return EntropyMeasure::SampleEntropy;
  throw InvalidParameterError("measure", "'" + text + "'", "apen or sampen");
}

ApEnBias parseApEnBias(const std::string& text) {
  const std::string t = toLower(trim(text));
  if (t == "zero" || t == "0" || t == "bias0") return ApEnBias::Zero;
  if (t == "max" || t == "biasmax") return ApEnBias::Max;
  throw InvalidParameterError("bias", "'" + text + "'", "zero or max");
}

SdConvention parseSdConvention(const std::string& text) {
  const std::string t = toLower(trim(text));
  if (t == "population" || t == "n") return SdConvention::Population;
  if (t == "sample" || t == "n-1") return SdConvention::Sample;
  throw InvalidParameterError("sd", "'" + text + "'", "population (divide by N) or sample (N - 1)");
}

}  // namespace modescope
