// Parsing and description of preprocessing specs, and the preprocess() pipeline.
#include "engine/dsp/preprocess.h"

#include <charconv>
#include <chrono>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

const char* kFilterSyntax =
    "bandpass:LOW-HIGH, highpass:LOW, lowpass:HIGH or notch:50|60 (frequencies in Hz)";
const char* kReferenceSyntax = "none, average, mastoids or channel:NAME";

// A positive, finite frequency in Hz; an optional trailing "Hz" is accepted.
double parseHz(const std::string& whole, std::string text) {
  text = trim(text);
  if (text.size() > 2 && equalsIgnoreCase(text.substr(text.size() - 2), "hz")) {
    text = trim(text.substr(0, text.size() - 2));
  }
  double v = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0.0) {
    throw InvalidParameterError("filter", "'" + whole + "' ('" + text + "' is not a frequency)",
                                kFilterSyntax);
  }
  return v;
}

std::string joinRange(double a, double b) { return formatNumber(a) + "-" + formatNumber(b); }

}  // namespace

FilterSpec parseFilterSpec(const std::string& text) {
  const std::string t = trim(text);
  const auto colon = t.find(':');
  if (colon == std::string::npos) {
    throw InvalidParameterError("filter", "'" + text + "'", kFilterSyntax,
                                "Example: --filter bandpass:1-40");
  }
  const std::string kind = toLower(trim(t.substr(0, colon)));
  const std::string args = trim(t.substr(colon + 1));
  FilterSpec s;
  if (kind == "bandpass" || kind == "band-pass" || kind == "bp") {
    const auto dash = args.find('-');
    if (dash == std::string::npos) {
      throw InvalidParameterError("filter", "'" + text + "'",
                                  "bandpass:LOW-HIGH, e.g. bandpass:1-40");
    }
    s.kind = FilterKind::BandPass;
    s.lowHz = parseHz(text, args.substr(0, dash));
    s.highHz = parseHz(text, args.substr(dash + 1));
    if (s.lowHz >= s.highHz) {
      throw InvalidParameterError("filter", "'" + text + "'", "a low edge below the high edge",
                                  "Write the lower frequency first, e.g. bandpass:1-40");
    }
  } else if (kind == "highpass" || kind == "high-pass" || kind == "hp") {
    s.kind = FilterKind::HighPass;
    s.lowHz = parseHz(text, args);
  } else if (kind == "lowpass" || kind == "low-pass" || kind == "lp") {
    s.kind = FilterKind::LowPass;
    s.highHz = parseHz(text, args);
  } else if (kind == "notch") {
    s.kind = FilterKind::Notch;
    s.notchHz = parseHz(text, args);
  } else {
    throw InvalidParameterError("filter", "'" + text + "' (unknown kind '" + kind + "')",
                                kFilterSyntax);
  }
  return s;
}

ReferenceSpec parseReferenceSpec(const std::string& text) {
  const std::string t = trim(text);
  ReferenceSpec s;
  if (equalsIgnoreCase(t, "none") || equalsIgnoreCase(t, "as-recorded")) {
    s.kind = ReferenceKind::AsRecorded;
  } else if (equalsIgnoreCase(t, "average") || equalsIgnoreCase(t, "car")) {
    s.kind = ReferenceKind::Average;
  } else if (equalsIgnoreCase(t, "mastoids") || equalsIgnoreCase(t, "linked-mastoids")) {
    s.kind = ReferenceKind::LinkedMastoids;
  } else if (startsWithIgnoreCase(t, "channel:")) {
    s.kind = ReferenceKind::Channel;
    s.channel = trim(t.substr(8));
    if (s.channel.empty()) {
      throw InvalidParameterError("reference", "'" + text + "' (no channel name)",
                                  "channel:NAME, e.g. channel:Cz");
    }
  } else {
    throw InvalidParameterError("reference", "'" + text + "'", kReferenceSyntax);
  }
  return s;
}

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
