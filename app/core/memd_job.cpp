#include "app/core/memd_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"  // kEmdMinSamples

namespace modescope {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

void checkMemdJob(const Recording& rec, const MemdJobSpec& spec) {
  validateMemdParams(spec.params);
  // Noise channels (NA-MEMD) count towards the two MEMD needs; one recorded channel is enough.
  const std::size_t noise = static_cast<std::size_t>(std::max(0, spec.params.noiseChannels));
  const auto [rate, samples] = checkSelection(
      rec, spec,
      {noise >= 1 ? 1u : 2u, "MEMD decomposes channels together",
       "select 2 or more channels, add noise channels (NA-MEMD, --noise-channels), or use "
       "`modescope-cli emd` for a single channel"});
  if (samples < kEmdMinSamples)
    throw InvalidParameterError(
        "duration",
        std::to_string(std::max<int64_t>(samples, 0)) + " samples (" +
            formatNumber(static_cast<double>(std::max<int64_t>(samples, 0)) / rate) + " s)",
        "at least " + std::to_string(kEmdMinSamples) + " samples", "Choose a longer time range");
}

std::vector<std::pair<std::string, std::string>> memdProvenanceParameters(
    const MemdJobSpec& spec, const MemdResult* result) {
  std::vector<std::pair<std::string, std::string>> v;
  if (!spec.presetName.empty()) v.emplace_back("preset", spec.presetName);
  for (auto& entry : memdParamTable().describe(spec.params)) v.push_back(std::move(entry));
  if (!spec.directionFile.empty()) v.emplace_back("directionFile", spec.directionFile);
  if (!spec.noiseFile.empty()) v.emplace_back("noiseFile", spec.noiseFile);
  if (result) {
    v.emplace_back(
        "ran.directions",
        std::to_string(result->directions) +
            (spec.params.supplied.directions.empty() ? " (Hammersley, memd.m)" : " (supplied)"));
    v.emplace_back("ran.dims", std::to_string(result->dims) + " channels (" +
                                   std::to_string(spec.params.noiseChannels) + " noise)");
    v.emplace_back("ran.imfs", std::to_string(result->imfCount()));
  }
  return v;
}

EmdResult memdModesAsEmd(const MemdResult& m) {
  EmdResult e;
  e.params.method = EmdMethod::Emd;
  e.params.maxImfs = m.params.maxImfs;
  e.sampleRate = m.sampleRate;
  e.firstSample = m.firstSample;
  e.samples = m.samples;
  e.channels = m.channels;
  e.diagnostics = m.diagnostics;
  e.provenance = m.provenance;
  return e;
}

MemdJobResult runMemdJob(const Recording& rec, const MemdJobSpec& spec, ComputeBackend& backend,
                         JobContext& ctx) {
  const auto t0 = Clock::now();
  checkMemdJob(rec, spec);
  MemdJobResult out;
  out.backend = backend.info().describe();
  ctx.progress(0.0, "reading the selection");
  SignalBlock block = extractBlock(rec, spec.channels, spec.startSeconds, spec.durationSeconds);
  ctx.checkpoint();
  JobContext sub = ctx.sub(0.05, 1.0);
  const auto t1 = Clock::now();
  auto modes = std::make_shared<MemdResult>(backend.memd(block, spec.params, sub));
  out.decomposeSeconds = secondsSince(t1);
  if (modes->channels.size() != block.channels.size())
    throw Error("the backend returned " + std::to_string(modes->channels.size()) +
                " decomposed channels for " + std::to_string(block.channels.size()) +
                " (a backend bug; try --backend cpu)");
  for (std::size_t i = 0; i < block.channels.size(); ++i)
    modes->channels[i].channel = block.channels[i];
  Provenance& prov = modes->provenance;
  prov.method = spec.params.noiseChannels > 0 ? "na-memd" : "memd";
  prov.parameters = memdProvenanceParameters(spec, modes.get());
  prov.seed = spec.params.noiseChannels > 0 && spec.params.supplied.noise.empty()
                  ? std::to_string(spec.params.seed)
                  : std::string();
  out.wallSeconds = secondsSince(t0);
  stampJobProvenance(prov, out.backend, spec.inputFile.empty() ? rec.sourcePath : spec.inputFile,
                     rec, spec.channels, spec.startSeconds, spec.durationSeconds, out.wallSeconds);
  out.modes = std::move(modes);
  ctx.progress(1.0, "decomposed");
  return out;
}

}  // namespace modescope
