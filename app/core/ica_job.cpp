#include "app/core/ica_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "app/core/gpu_backend.h"
#include "app/core/recording_selection.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

void checkIcaJob(const Recording& rec, const IcaJobSpec& spec) {
  validateIcaParams(spec.params);
  checkSelection(rec, spec, {2, "ICA unmixes several channels", "select 2 or more channels"});
}

std::vector<std::pair<std::string, std::string>> icaProvenanceParameters(
    const IcaResult& r, const std::string& presetName) {
  // The declared parameters as asked (automatic values say so), then what the run resolved them
  // to and how it ended: a reader sees both the request and what was done.
  const ResolvedIcaParams& q = r.resolved;
  std::vector<std::pair<std::string, std::string>> v;
  if (!presetName.empty()) v.emplace_back("preset", presetName);
  for (auto& entry : icaParamTable().describe(r.params)) v.push_back(std::move(entry));
  v.emplace_back("ran.learningRate", formatNumber(q.learningRate) + " per sample");
  v.emplace_back("ran.blockSize", std::to_string(q.blockSize) + " samples");
  v.emplace_back("ran.annealFactor", formatNumber(q.annealFactor));
  v.emplace_back("ran.stopTolerance", formatNumber(q.stopTolerance) + " (squared weight change)");
  v.emplace_back("ran.components", std::to_string(r.components) + " (detected rank " +
                                       std::to_string(r.detectedRank) + ")");
  v.emplace_back("ran.steps", std::to_string(r.steps) +
                                  (r.converged ? " (converged, " : " (not converged, ") +
                                  r.stopReason + ")");
  return v;
}

IcaJobResult runIcaJob(const Recording& rec, const IcaJobSpec& spec, JobContext& ctx) {
  checkIcaJob(rec, spec);
  std::string note;
  const std::shared_ptr<ComputeBackend> backend =
      backendForRun(spec.backend, nullptr, &note, spec.threads);
  IcaJobResult out = runIcaJob(rec, spec, *backend, ctx);
  out.backendNote = note;
  return out;
}

IcaJobResult runIcaJob(const Recording& rec, const IcaJobSpec& spec, ComputeBackend& backend,
                       JobContext& ctx) {
  const auto t0 = Clock::now();
  checkIcaJob(rec, spec);
  IcaJobResult out;
  out.backend = backend.info().describe();
  out.onGpu = backend.info().kind == BackendKind::Cuda;

  ctx.progress(0.0, "reading the selection");
  SignalBlock block = extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  const int64_t rangeSamples = block.samples;
  // Bad segments are left out of the fit and the rest joined (MNE's ICA.fit with
  // reject_by_annotation=True); the unmixing still applies to the whole range.
  const int64_t skipped = dropBadSamples(block, badSegments(rec.annotations));
  if (skipped > 0 && block.samples == 0) {
    throw InvalidParameterError("start", "a range that lies wholly in bad segments",
                                "a range with samples outside the bad segments",
                                "choose another range, or remove bad segments");
  }
  ctx.checkpoint();
  JobContext icaCtx = ctx.sub(0.05, 1.0);
  auto file = std::make_shared<IcaFile>();
  file->result = backend.infomax(block, spec.params, icaCtx);
  file->result.channels = block.channels;
  file->channels = icaFileChannels(rec, block.channels);
  file->sampleRate = block.sampleRate;
  file->firstSample = block.firstSample;
  file->samples = rangeSamples;
  file->inputFile = spec.inputFile.empty() ? rec.sourcePath : spec.inputFile;

  Provenance& prov = file->provenance;
  prov.method = "ica";
  prov.parameters = icaProvenanceParameters(file->result, spec.presetName);
  prov.seed = std::to_string(spec.params.seed);
  out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stampJobProvenance(prov, out.backend, file->inputFile, rec, spec.channels, spec.startSeconds,
                     spec.durationSeconds, out.wallSeconds, BadSegmentUse::Skipped);
  out.file = std::move(file);
  ctx.progress(1.0, "decomposed");
  return out;
}

}  // namespace modescope
