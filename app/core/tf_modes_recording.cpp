#include "app/core/tf_modes_recording.h"

#include <cstdio>
#include <string>

#include "app/core/tf_job.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {

TfModesRecording tfModesRecording(const Recording& rec, const TfModesRequest& request,
                                  ComputeBackend& backend, JobContext& ctx) {
  if (request.readout.ridges < 1)
    throw InvalidParameterError("ridges", std::to_string(request.readout.ridges), "at least 1",
                                "ask for one ridge or more");
  TfJobSpec spec;
  spec.channels = {request.channel};
  spec.params = request.params;
  spec.params.hop = 1;
  spec.startSeconds = request.startSeconds;
  spec.durationSeconds = request.seconds;
  spec.readout = request.readout;
  spec.readout.reconstruct = false;
  spec.readout.complexValues = false;
  JobContext work = ctx.sub(0.0, 0.95);
  const TfJobResult run = runTfJob(rec, spec, backend, work);
  const TfResult& r = run.run->result;
  const std::vector<std::vector<double>>& modes = run.run->ridgeModes.at(0);
  const std::vector<std::vector<int>>& ridges = run.run->ridges.at(0);

  // The input itself, the modes, and what they leave.
  SignalBlock block = extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  const int64_t n = block.samples;
  std::vector<float> data(block.data.begin(), block.data.begin() + n);
  std::vector<float> residual = data;
  TfModesRecording out;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    for (int64_t i = 0; i < n; ++i) {
      const double v = i < static_cast<int64_t>(modes[m].size()) ? modes[m][i] : 0.0;
      data.push_back(static_cast<float>(v));
      residual[static_cast<std::size_t>(i)] -= static_cast<float>(v);
    }
    double sum = 0.0;
    for (int row : ridges[m]) sum += r.frequency(row);
    out.ridgeMeanHz.push_back(ridges[m].empty() ? 0.0 : sum / ridges[m].size());
  }
  data.insert(data.end(), residual.begin(), residual.end());
  block.channels.assign(modes.size() + 2, request.channel);
  block.data = std::move(data);
  auto derived = std::make_shared<Recording>(*recordingFromBlock(rec, std::move(block)));
  const ChannelInfo& source = rec.channels[request.channel];
  const std::string name = source.name.empty() ? source.label : source.name;
  for (std::size_t m = 0; m < modes.size(); ++m) {
    ChannelInfo& c = derived->channels[m + 1];
    char hz[32];
    std::snprintf(hz, sizeof hz, "%.1f", out.ridgeMeanHz[m]);
    c.name = c.label = name + " ridge " + std::to_string(m + 1) + " (" + hz + " Hz)";
    c.position.reset();
  }
  ChannelInfo& rest = derived->channels.back();
  rest.name = rest.label = name + " residual";
  rest.position.reset();
  derived->info.format = "derived (time-frequency modes)";
  derived->info.reader = "memory";

  out.provenance = run.run->provenance;
  std::string meanHz;
  for (double f : out.ridgeMeanHz) meanHz += (meanHz.empty() ? "" : ", ") + formatNumber(f);
  out.provenance.parameters.emplace_back(
      "ran.modes", std::to_string(modes.size()) + " ridge modes of " + name + " (mean " + meanHz +
                       " Hz), half-width " + std::to_string(request.readout.ridge.halfWidth) +
                       " bins, and the residual");
  out.recording = std::move(derived);
  ctx.progress(1.0, "modes");
  return out;
}

}  // namespace modescope
