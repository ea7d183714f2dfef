#include "app/core/interpolation_job.h"

#include <chrono>
#include <map>

#include "app/core/channel_selection.h"
#include "app/core/patched_recording.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"

namespace modescope {

InterpolationJobResult runInterpolationJob(const std::shared_ptr<const Recording>& rec,
                                           const InterpolationJobSpec& spec,
                                           ComputeBackend& backend, JobContext& ctx) {
  if (!rec) throw InvalidParameterError("recording", "none", "an open recording");
  const auto t0 = std::chrono::steady_clock::now();
  InterpolationJobResult out;
  out.plan = planChannelInterpolation(rec->channels, spec.bad, spec.params, spec.alsoExcluded);
  out.backend = backend.info().describe();

  ctx.progress(0.0, "reading the good channels");
  const SignalBlock good = extractBlock(*rec, out.plan.sources, 0.0, -1.0);
  ctx.checkpoint();
  JobContext filterCtx = ctx.sub(0.3, 0.95);
  SignalBlock interpolated = backend.spatialFilter(out.plan.filter, good, filterCtx);
  if (interpolated.channels.size() != out.plan.bad.size() || interpolated.samples != good.samples) {
    throw Error("the backend returned " + std::to_string(interpolated.channels.size()) +
                " interpolated channels for " + std::to_string(out.plan.bad.size()) +
                " (a backend bug; try --backend cpu)");
  }
  std::map<std::size_t, std::vector<float>> replacement;
  for (std::size_t k = 0; k < out.plan.bad.size(); ++k) {
    const float* row = interpolated.channel(k);
    std::vector<float> samples(row, row + interpolated.samples);
    // A bad channel shorter than the good ones (a truncated last record) keeps its own length.
    const int64_t own = rec->channels[out.plan.bad[k]].sampleCount;
    if (static_cast<int64_t>(samples.size()) > own) samples.resize(static_cast<std::size_t>(own));
    replacement.emplace(out.plan.bad[k], std::move(samples));
  }
  std::shared_ptr<Recording> fixed =
      patchedRecording(rec, out.plan.sampleRate, 0, std::move(replacement),
                       "interpolate channels that share the good channels' length");
  for (std::size_t i : out.plan.bad) fixed->channels[i].bad = false;  // good again (MNE reset_bads)
  out.recording = std::move(fixed);

  Provenance& prov = out.provenance;
  prov.method = "spherical spline interpolation";
  prov.parameters = splineInterpolationParamTable().describe(spec.params);
  prov.parameters.emplace_back("interpolated", describeChannels(*rec, out.plan.bad));
  prov.parameters.emplace_back("from", describeChannels(*rec, out.plan.sources));
  if (!spec.alsoExcluded.empty())
    prov.parameters.emplace_back("also excluded", describeChannels(*rec, spec.alsoExcluded));
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stampJobProvenance(prov, out.backend, spec.inputFile.empty() ? rec->sourcePath : spec.inputFile,
                     *rec, out.plan.bad, 0.0, -1.0, out.wallSeconds);
  ctx.progress(1.0, "interpolated");
  return out;
}

}  // namespace modescope
