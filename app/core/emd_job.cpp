#include "app/core/emd_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool isEnsemble(EmdMethod m) { return m != EmdMethod::Emd; }

}  // namespace

void checkEmdJob(const Recording& rec, const EmdJobSpec& spec) {
  validateEmdParams(spec.params);
  const auto [rate, samples] = checkSelection(rec, spec);
  if (samples < kEmdMinSamples) {
    throw InvalidParameterError(
        "duration",
        std::to_string(std::max<int64_t>(samples, 0)) + " samples (" +
            formatNumber(static_cast<double>(std::max<int64_t>(samples, 0)) / rate) + " s)",
        "at least " + std::to_string(kEmdMinSamples) + " samples", "Choose a longer time range");
  }
  if (spec.hht) checkHhtForBlock(*spec.hht, rate, samples);
}

std::vector<std::pair<std::string, std::string>> emdProvenanceParameters(
    const EmdParams& p, const std::string& presetName, const HhtParams* hht) {
  // Every declared parameter that applies to this variant, named by its declaration's key (the
  // same key as a pipeline step's field), then the resolved Hilbert spectrum's
  // ("hht.fMax": the Nyquist frequency when it was left automatic).
  std::vector<std::pair<std::string, std::string>> v;
  if (!presetName.empty()) v.emplace_back("preset", presetName);
  for (auto& entry : emdParamTable().describe(p)) v.push_back(std::move(entry));
  if (hht) {
    for (auto& [key, value] : hhtParamTable().describe(*hht)) v.emplace_back("hht." + key, value);
  }
  return v;
}

EmdJobResult runEmdJob(const Recording& rec, const EmdJobSpec& spec, ComputeBackend& backend,
                       JobContext& ctx) {
  const auto t0 = Clock::now();
  checkEmdJob(rec, spec);
  EmdJobResult out;
  out.backend = backend.info().describe();

  ctx.progress(0.0, "reading the selection");
  SignalBlock block = extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  ctx.checkpoint();

  const double decomposeEnd = spec.hht ? kEmdJobDecomposeEnd : 1.0;
  JobContext emdCtx = ctx.sub(0.05, decomposeEnd);
  const auto t1 = Clock::now();
  auto modes = std::make_shared<EmdResult>(backend.decompose(block, spec.params, emdCtx));
  out.decomposeSeconds = secondsSince(t1);
  // The contract (emd_result.h) says where the rows came from; hold every backend to it, since
  // writers and views map rows to recording channels through these fields.
  if (modes->channels.size() != block.channels.size()) {
    throw Error("the backend returned " + std::to_string(modes->channels.size()) +
                " decomposed channels for " + std::to_string(block.channels.size()) +
                " (a backend bug; try --backend cpu)");
  }
  for (std::size_t i = 0; i < block.channels.size(); ++i)
    modes->channels[i].channel = block.channels[i];
  modes->sampleRate = block.sampleRate;
  modes->firstSample = block.firstSample;
  modes->samples = block.samples;
  ctx.checkpoint();

  std::shared_ptr<HhtResult> hht;
  HhtParams resolvedHht;
  if (spec.hht) {
    JobContext hhtCtx = ctx.sub(decomposeEnd, 1.0);
    const auto t2 = Clock::now();
    hht = std::make_shared<HhtResult>(backend.hilbertHuang(*modes, *spec.hht, hhtCtx));
    out.hhtSeconds = secondsSince(t2);
    resolvedHht = hht->params;
  }

  Provenance& prov = modes->provenance;
  prov.method = emdMethodName(spec.params.method);
  prov.parameters =
      emdProvenanceParameters(spec.params, spec.presetName, hht ? &resolvedHht : nullptr);
  prov.seed = isEnsemble(spec.params.method) ? std::to_string(spec.params.seed) : std::string();
  out.wallSeconds = secondsSince(t0);
  stampJobProvenance(prov, out.backend, spec.inputFile.empty() ? rec.sourcePath : spec.inputFile,
                     rec, spec.channels, spec.startSeconds, spec.durationSeconds, out.wallSeconds);

  out.modes = std::move(modes);
  out.hht = std::move(hht);
  ctx.progress(1.0, "decomposed");
  return out;
}

}  // namespace modescope
