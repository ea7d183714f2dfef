#include "app/core/ica_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "app/core/gpu_backend.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

std::string orAuto(double v, const std::string& unit) {
  return v == 0.0 ? std::string("auto") : formatNumber(v) + unit;
}

}  // namespace

void checkIcaJob(const Recording& rec, const IcaJobSpec& spec) {
  validateIcaParams(spec.params);
  if (spec.channels.size() < 2) {
    throw InvalidParameterError("channels", std::to_string(spec.channels.size()) + " channel(s)",
                                "at least 2 channels (ICA unmixes several channels)");
  }
  checkMethodSelection(rec, spec.channels, spec.startSeconds);
}

std::vector<std::pair<std::string, std::string>> icaProvenanceParameters(
    const IcaResult& r, const std::string& presetName) {
  const IcaParams& p = r.params;
  const ResolvedIcaParams& q = r.resolved;
  std::vector<std::pair<std::string, std::string>> v;
  if (!presetName.empty()) v.emplace_back("preset", presetName);
  v.emplace_back("method", p.extended ? "extended infomax" : "infomax (logistic)");
  v.emplace_back("rules", icaRulesName(p.rules));
  v.emplace_back("sphering", icaSpheringName(p.sphering));
  v.emplace_back("learning_rate", orAuto(p.learningRate, "") + " (ran " +
                                      formatNumber(q.learningRate) + " per sample)");
  v.emplace_back("block_size",
                 (p.blockSize == 0 ? std::string("auto") : std::to_string(p.blockSize)) + " (ran " +
                     std::to_string(q.blockSize) + " samples)");
  v.emplace_back("anneal_angle", formatNumber(p.annealDegrees) + " deg");
  v.emplace_back("anneal_factor",
                 orAuto(p.annealFactor, "") + " (ran " + formatNumber(q.annealFactor) + ")");
  v.emplace_back("stop_tolerance", orAuto(p.stopTolerance, "") + " (ran " +
                                       formatNumber(q.stopTolerance) + ", squared weight change)");
  v.emplace_back("max_steps", std::to_string(p.maxSteps) + " steps");
  v.emplace_back("rank", std::to_string(r.components) + " components (" +
                             (p.pcaRank > 0 ? "forced" : "automatic") + ", detected rank " +
                             std::to_string(r.detectedRank) + ")");
  v.emplace_back("rank_tolerance", formatNumber(p.rankTolerance) + " x largest eigenvalue");
  v.emplace_back("bias", p.bias ? "yes" : "no");
  if (p.extended) {
    v.emplace_back("ext_blocks", std::to_string(p.ext.extBlocks) + " blocks");
    v.emplace_back("ext_kurtosis_samples", std::to_string(p.ext.kurtosisSamples) + " samples");
  }
  v.emplace_back("steps", std::to_string(r.steps) +
                              (r.converged ? " (converged, " : " (not converged, ") + r.stopReason +
                              ")");
  return v;
}

IcaJobResult runIcaJob(const Recording& rec, const IcaJobSpec& spec, JobContext& ctx) {
  checkIcaJob(rec, spec);
  std::string note;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(spec.backend, &note, spec.threads);
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
  ctx.checkpoint();
  JobContext icaCtx = ctx.sub(0.05, 1.0);
  auto file = std::make_shared<IcaFile>();
  file->result = backend.infomax(block, spec.params, icaCtx);
  file->result.channels = block.channels;
  file->channels = icaFileChannels(rec, block.channels);
  file->sampleRate = block.sampleRate;
  file->firstSample = block.firstSample;
  file->samples = block.samples;
  file->inputFile = spec.inputFile.empty() ? rec.sourcePath : spec.inputFile;

  Provenance& prov = file->provenance;
  prov.method = "ica";
  prov.parameters = icaProvenanceParameters(file->result, spec.presetName);
  prov.seed = std::to_string(spec.params.seed);
  prov.backend = out.backend;
  prov.softwareVersion = softwareVersion();
  prov.inputFile = file->inputFile;
  prov.selection = describeSelection(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  prov.createdAt = utcNowIso8601();
  out.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  prov.wallSeconds = out.wallSeconds;
  out.file = std::move(file);
  ctx.progress(1.0, "decomposed");
  return out;
}

}  // namespace modescope
