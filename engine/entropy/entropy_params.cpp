// Validation and names of the entropy-matrix parameters (entropy_params.h); the fields are
// declared in entropy_param_table.cpp.
#include "engine/entropy/entropy_params.h"

#include <string>

namespace modescope {

void validateEntropyParams(const EntropyParams& p) { entropyParamTable().validate(p); }

const char* entropyMeasureName(EntropyMeasure m) {
  return m == EntropyMeasure::SampleEntropy ? "sampen" : "apen";
}
const char* apEnBiasName(ApEnBias b) { return b == ApEnBias::Zero ? "zero" : "max"; }
const char* sdConventionName(SdConvention s) {
  return s == SdConvention::Sample ? "sample" : "population";
}

namespace {

// The spellings a field accepts are its declaration's (names, labels, aliases; any case).
EntropyParams parsedField(const std::string& key, const std::string& text) {
  const ParamField<EntropyParams>& f = *entropyParamTable().find(key);
  EntropyParams p;
  f.set(p, parseValue(f.decl, text, key));
  return p;
}

}  // namespace

EntropyMeasure parseEntropyMeasure(const std::string& text) {
  return parsedField("measure", text).measure;
}
ApEnBias parseApEnBias(const std::string& text) { return parsedField("bias", text).bias; }
SdConvention parseSdConvention(const std::string& text) { return parsedField("sd", text).sd; }

}  // namespace modescope
