#include "app/gui/session_history.h"

#include "app/core/channel_selection.h"

namespace modescope {
namespace {

// Names, not indices: the pipeline must select the same channels on another recording whose
// channels come in another order.
StepSelection stepSelectionOf(const Recording& rec, const Selection& selection,
                              std::optional<BackendChoice> backend) {
  StepSelection s;
  std::vector<std::string> names;
  for (std::size_t c : selection.channels)
    if (c < rec.channelCount()) names.push_back(rec.channels[c].name);
  s.channels = std::move(names);
  s.start = selection.startSeconds;
  s.duration = selection.durationSeconds;
  s.backend = backend;
  return s;
}

StepSelection stepSelectionOf(const Recording& rec, const RequestSelection& selection) {
  return stepSelectionOf(rec, selection, selection.backend);
}

RequestSelection requestSelectionOf(const Recording& rec, const StepSelection& s) {
  RequestSelection r;
  r.channels =
      s.channels ? parseChannelSelection(rec, s.channelsText()) : defaultMethodChannels(rec);
  r.startSeconds = s.start;
  r.durationSeconds = s.duration;
  r.backend = s.backend;
  return r;
}

}  // namespace

PipelineFilterStep historyStep(const Recording& rec, const PreprocessRequest& request) {
  PipelineFilterStep step;
  step.selection = stepSelectionOf(rec, request);
  step.spec = request.spec;
  return step;
}

PipelineEmdStep historyStep(const Recording& rec, const DecomposeRequest& request) {
  PipelineEmdStep step;
  step.selection = stepSelectionOf(rec, request);
  step.preset = request.presetName;
  step.params = request.params;
  step.hht = true;  // the window always shows the Hilbert spectrum
  return step;
}

PipelineIcaStep historyStep(const Recording& rec, const IcaRequest& request) {
  PipelineIcaStep step;
  step.selection = stepSelectionOf(rec, request);
  step.preset = request.presetName;
  step.params = request.params;
  step.flags = request.flags;
  return step;
}

PipelineEntropyStep historyStep(const Recording& rec, const EntropyRequest& request) {
  PipelineEntropyStep step;
  step.selection = stepSelectionOf(rec, request.spec, request.backend);
  step.params = request.spec.params;
  step.params.rows.clear();  // the selection says which channels
  return step;
}

PipelineMemdStep historyStep(const Recording& rec, const MemdRequest& request) {
  PipelineMemdStep step;
  step.selection = stepSelectionOf(rec, request);
  step.preset = request.presetName;
  step.params = request.params;
  return step;
}

PreprocessRequest preprocessRequest(const Recording& rec, const PipelineFilterStep& step) {
  PreprocessRequest r;
  r.spec = step.spec;
  static_cast<RequestSelection&>(r) = requestSelectionOf(rec, step.selection);
  return r;
}

DecomposeRequest decomposeRequest(const Recording& rec, const PipelineEmdStep& step) {
  DecomposeRequest r;
  r.params = step.params;
  static_cast<RequestSelection&>(r) = requestSelectionOf(rec, step.selection);
  r.presetName = emdStepPresetName(step);
  return r;
}

IcaRequest icaRequest(const Recording& rec, const PipelineIcaStep& step) {
  IcaRequest r;
  r.params = step.params;
  static_cast<RequestSelection&>(r) = requestSelectionOf(rec, step.selection);
  r.presetName = icaStepPresetName(step);
  r.flags = step.flags;
  return r;
}

EntropyRequest entropyRequest(const Recording& rec, const PipelineEntropyStep& step) {
  EntropyRequest r;
  r.spec.params = step.params;
  const RequestSelection selection = requestSelectionOf(rec, step.selection);
  static_cast<Selection&>(r.spec) = selection;
  r.backend = selection.backend;
  return r;
}

MemdRequest memdRequest(const Recording& rec, const PipelineMemdStep& step) {
  MemdRequest r;
  r.params = step.params;
  static_cast<RequestSelection&>(r) = requestSelectionOf(rec, step.selection);
  r.presetName = step.preset;  // as `memd --preset`: "" when none
  return r;
}

}  // namespace modescope
