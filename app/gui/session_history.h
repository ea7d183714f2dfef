// The GUI session's history as a pipeline (app/core/pipeline.h, docs/pipelines.md): each
// filter, decomposition, ICA and entropy-matrix run in the window becomes a pipeline step, with
// channels by name so the pipeline applies to the next recording; and the other way, a step becomes
// the request the window's workflows run. File > Export pipeline writes the history; File > Apply
// pipeline and `modescope-cli run` replay it.
//
// Thread rules: pure functions.
#pragma once

#include "app/core/pipeline.h"
#include "app/gui/emd_job.h"
#include "app/gui/entropy_dialog.h"
#include "app/gui/ica_request.h"
#include "app/gui/memd_request.h"
#include "app/gui/preprocess_dialog.h"

namespace modescope {

// Steps from the requests the dialogs made on `rec` (channel indices become channel names).
PipelineFilterStep historyStep(const Recording& rec, const PreprocessRequest& request);
PipelineEmdStep historyStep(const Recording& rec, const DecomposeRequest& request);
PipelineIcaStep historyStep(const Recording& rec, const IcaRequest& request);
PipelineEntropyStep historyStep(const Recording& rec, const EntropyRequest& request);
PipelineMemdStep historyStep(const Recording& rec, const MemdRequest& request);

// Requests for a step on `rec` (channel names resolved; absent channels: the method's default
// channels). Throws InvalidParameterError naming the step's channels when one is not in `rec`.
PreprocessRequest preprocessRequest(const Recording& rec, const PipelineFilterStep& step);
DecomposeRequest decomposeRequest(const Recording& rec, const PipelineEmdStep& step);
IcaRequest icaRequest(const Recording& rec, const PipelineIcaStep& step);
EntropyRequest entropyRequest(const Recording& rec, const PipelineEntropyStep& step);
MemdRequest memdRequest(const Recording& rec, const PipelineMemdStep& step);

}  // namespace modescope
