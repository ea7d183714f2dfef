#include "app/gui/session_history.h"

#include "app/core/channel_selection.h"

namespace modescope {
namespace {

// Names, not indices: the pipeline must select the same channels on another recording whose
// channels come in another order.
StepSelection selectionOf(const Recording& rec, const std::vector<std::size_t>& channels,
                          double start, double duration, std::optional<BackendChoice> backend) {
  StepSelection s;
  std::vector<std::string> names;
  for (std::size_t c : channels)
    if (c < rec.channelCount()) names.push_back(rec.channels[c].name);
  s.channels = std::move(names);
  s.start = start;
  s.duration = duration;
  s.backend = backend;
  return s;
}

std::vector<std::size_t> channelsOf(const Recording& rec, const StepSelection& s) {
  if (!s.channels) return defaultMethodChannels(rec);
  return parseChannelSelection(rec, s.channelsText());
}

}  // namespace

PipelineFilterStep historyStep(const Recording& rec, const PreprocessRequest& request) {
  PipelineFilterStep step;
  step.selection = selectionOf(rec, request.channels, request.startSeconds, request.durationSeconds,
                               request.backend);
  step.spec = request.spec;
  return step;
}

PipelineEmdStep historyStep(const Recording& rec, const DecomposeRequest& request) {
  PipelineEmdStep step;
  step.selection = selectionOf(rec, request.channels, request.startSeconds, request.durationSeconds,
                               request.backend);
  step.preset = request.presetName;
  step.params = request.params;
  step.hht = true;  // the window always shows the Hilbert spectrum
  return step;
}

PipelineIcaStep historyStep(const Recording& rec, const IcaRequest& request) {
  PipelineIcaStep step;
  step.selection = selectionOf(rec, request.channels, request.startSeconds, request.durationSeconds,
                               request.backend);
  step.preset = request.presetName;
  step.params = request.params;
  step.flags = request.flags;
  return step;
}

PipelineEntropyStep historyStep(const Recording& rec, const EntropyRequest& request) {
  PipelineEntropyStep step;
  step.selection = selectionOf(rec, request.spec.channels, request.spec.startSeconds,
                               request.spec.durationSeconds, request.backend);
  step.params = request.spec.params;
  step.params.rows.clear();  // the selection says which channels
  return step;
}

PipelineMemdStep historyStep(const Recording& rec, const MemdRequest& request) {
  PipelineMemdStep step;
  step.selection = selectionOf(rec, request.channels, request.startSeconds, request.durationSeconds,
                               request.backend);
  step.preset = request.presetName;
  step.params = request.params;
  return step;
}

PreprocessRequest preprocessRequest(const Recording& rec, const PipelineFilterStep& step) {
  PreprocessRequest r;
  r.spec = step.spec;
  r.channels = channelsOf(rec, step.selection);
  r.startSeconds = step.selection.start;
  r.durationSeconds = step.selection.duration;
  r.backend = step.selection.backend;
  return r;
}

DecomposeRequest decomposeRequest(const Recording& rec, const PipelineEmdStep& step) {
  DecomposeRequest r;
  r.params = step.params;
  r.channels = channelsOf(rec, step.selection);
  r.startSeconds = step.selection.start;
  r.durationSeconds = step.selection.duration;
  r.backend = step.selection.backend;
  r.presetName = emdStepPresetName(step);
  return r;
}

IcaRequest icaRequest(const Recording& rec, const PipelineIcaStep& step) {
  IcaRequest r;
  r.params = step.params;
  r.channels = channelsOf(rec, step.selection);
  r.startSeconds = step.selection.start;
  r.durationSeconds = step.selection.duration;
  r.backend = step.selection.backend;
  r.presetName = icaStepPresetName(step);
  r.flags = step.flags;
  return r;
}

EntropyRequest entropyRequest(const Recording& rec, const PipelineEntropyStep& step) {
  EntropyRequest r;
  r.spec.params = step.params;
  r.spec.channels = channelsOf(rec, step.selection);
  r.spec.startSeconds = step.selection.start;
  r.spec.durationSeconds = step.selection.duration;
  r.backend = step.selection.backend;
  return r;
}

MemdRequest memdRequest(const Recording& rec, const PipelineMemdStep& step) {
  MemdRequest r;
  r.params = step.params;
  r.channels = channelsOf(rec, step.selection);
  r.startSeconds = step.selection.start;
  r.durationSeconds = step.selection.duration;
  r.backend = step.selection.backend;
  r.presetName = step.preset;  // as `memd --preset`: "" when none
  return r;
}

}  // namespace modescope
