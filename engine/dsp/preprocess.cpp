// Description of preprocessing specs, and the preprocess() pipeline. Their parsing is made from
// the declarations (filter_param_table.cpp).
#include "engine/dsp/preprocess.h"

#include <chrono>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

std::string joinRange(double a, double b) { return formatNumber(a) + "-" + formatNumber(b); }

}  // namespace

std::string describe(const FilterSpec& spec) {
  std::string d;
  switch (spec.kind) {
    case FilterKind::BandPass:
      d = "band-pass " + joinRange(spec.lowHz, spec.highHz) + " Hz";
      break;
    case FilterKind::HighPass:
      d = "high-pass " + formatNumber(spec.lowHz) + " Hz";
      break;
    case FilterKind::LowPass:
      d = "low-pass " + formatNumber(spec.highHz) + " Hz";
      break;
    case FilterKind::Notch:
      d = "notch " + formatNumber(spec.notchHz) + " Hz" +
          (spec.notchHarmonics ? " and harmonics" : "");
      break;
  }
  if (spec.transitionHz > 0.0) d += ", transition " + formatNumber(spec.transitionHz) + " Hz";
  return d;
}

std::string describe(const ReferenceSpec& spec) {
  switch (spec.kind) {
    case ReferenceKind::AsRecorded:
      return "as recorded";
    case ReferenceKind::Average:
      return "average reference";
    case ReferenceKind::LinkedMastoids:
      return "linked mastoids";
    case ReferenceKind::Channel:
      return "reference to " + spec.channel;
  }
  return "as recorded";
}

std::shared_ptr<const Recording> preprocess(const Recording& rec,
                                            const std::vector<std::size_t>& channels,
                                            double startSeconds, double durationSeconds,
                                            const PreprocessSpec& spec, ComputeBackend& backend,
                                            JobContext& ctx, Provenance* provenance) {
  const auto started = std::chrono::steady_clock::now();
  ctx.progress(0.0, "reading the selection");
  SignalBlock block = extractBlock(rec, channels, startSeconds, durationSeconds);
  ctx.checkpoint();

  // Design and plan everything before computing, so a bad parameter fails at once.
  const ReferencePlan plan = planReference(rec, block.channels, spec.reference);
  std::vector<FirKernel> kernels;
  for (const auto& f : spec.filters) kernels.push_back(designFir(f, block.sampleRate));

  Diagnostics notes;
  for (const auto& k : kernels) {
    // MNE warns likewise: with fewer samples than taps the padding, not the data, shapes the
    // output.
    if (static_cast<int64_t>(k.taps.size()) > block.samples) {
      addDiagnostic(notes, Severity::Warning, "preprocess.filterLongerThanSignal",
                    "The " + k.description + " filter is longer than the " +
                        std::to_string(block.samples) +
                        "-sample selection, so edge effects dominate; select a longer range or "
                        "raise the high-pass edge");
    }
  }

  // The backend runs the whole chain so it can keep the block where it computes (one round trip
  // over the host-device link on the GPU instead of one per stage).
  {
    JobContext c = ctx.sub(0.05, 1.0);
    std::string stage = plan.targets.empty() ? std::string() : describe(spec.reference);
    for (const auto& k : kernels) stage += (stage.empty() ? "" : ", ") + k.description;
    c.progress(0.0, stage);
    backend.applyPipeline(block, plan.targets.empty() ? nullptr : &plan, kernels, c);
  }
  ctx.checkpoint();

  auto base = recordingFromBlock(rec, std::move(block));
  auto out = std::make_shared<Recording>(*base);
  for (auto& d : notes) addDiagnostic(out->diagnostics, d.severity, d.code, d.message);
  ctx.progress(1.0, "done");

  if (provenance) {
    Provenance& p = *provenance;
    p.method = "preprocess";
    p.parameters.clear();
    p.parameters.emplace_back("reference", describe(spec.reference));
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      p.parameters.emplace_back("filter " + std::to_string(i + 1), kernels[i].description);
    }
    p.seed.clear();
    p.backend = backend.info().describe();
    p.softwareVersion = softwareVersion();
    p.inputFile = rec.sourcePath;
    std::string names;
    for (std::size_t ch : block.channels) {
      if (!names.empty()) names += ",";
      names += rec.channels[ch].name;
    }
    const double t0 = static_cast<double>(block.firstSample) / block.sampleRate;
    const double t1 = t0 + static_cast<double>(block.samples) / block.sampleRate;
    p.selection = "channels " + names + "; " + formatNumber(t0) + "-" + formatNumber(t1) + " s";
    p.createdAt = utcNowIso8601();
    p.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  return out;
}

}  // namespace modescope
