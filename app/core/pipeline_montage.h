// The pipeline step "montage" read from and written to a pipeline file (docs/pipelines.md),
// beside pipeline.cpp's readers of the other steps:
//   {"step": "montage", "montage": "double-banana"}            a built-in montage, or
//   {"step": "montage", "name": "Mine", "derivations": ["Fp1-F7: Fp1 - F7", ...]}
// each derivation a line of a montage file (engine/montage/derivations.h).
//
// Thread rules: pure functions.
#pragma once

#include <string>

#include "app/core/pipeline.h"

namespace modescope {

class JsonValue;
class JsonWriter;

// `where` names the step in messages ("step 2 (montage)"). Throws InvalidInputError with the
// pipeline reader's wording: the file, the step, the field, what was found and expected.
PipelineMontageStep readMontageStep(const JsonValue& step, const std::string& path,
                                    const std::string& where);
// The montage the step applies to `rec`: its derivations, or the built-in montage formed for
// `rec`. Throws what builtinMontage throws (mastoids missing).
DerivationMontage montageStepMontage(const PipelineMontageStep& step, const Recording& rec);
// The step's fields after "step" (the writer's object is open).
void writeMontageStep(JsonWriter& w, const PipelineMontageStep& step);

}  // namespace modescope
