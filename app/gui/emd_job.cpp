#include "app/gui/emd_job.h"

#include "engine/core/provenance.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

const char* methodTitle(EmdMethod m) {
  switch (m) {
    case EmdMethod::Emd:
      return "EMD";
    case EmdMethod::Eemd:
      return "EEMD";
    case EmdMethod::Ceemdan:
      return "CEEMDAN";
    case EmdMethod::Iceemdan:
      return "ICEEMDAN";
  }
  return "EMD";
}

std::string channelList(const Recording& rec, const std::vector<std::size_t>& channels) {
  constexpr std::size_t kNamed = 4;  // longer lists are summarised
  std::string text;
  for (std::size_t i = 0; i < channels.size() && i < kNamed; ++i) {
    if (i) text += ", ";
    text += channels[i] < rec.channelCount() ? rec.channels[channels[i]].name
                                             : std::to_string(channels[i] + 1);
  }
  if (channels.size() > kNamed)
    text += " and " + std::to_string(channels.size() - kNamed) + " more";
  return text;
}

std::string rangeText(double start, double duration) {
  return duration < 0 ? "from " + formatNumber(start) + " s to the end"
                      : formatNumber(duration) + " s from " + formatNumber(start) + " s";
}

Provenance decompositionProvenance(const Recording& rec, const DecomposeRequest& r,
                                   const SignalBlock& block, const ComputeBackend& backend,
                                   const std::string& inputFile) {
  const EmdParams& p = r.params;
  Provenance prov;
  prov.method = std::string("emd/") + emdMethodName(p.method);
  auto num = [](double v) { return formatNumber(v); };
  prov.parameters = {{"method", emdMethodName(p.method)},
                     {"preset", r.presetName.empty() ? "custom" : r.presetName},
                     {"stopRule", describeStopRule(p.stop)},
                     {"maxImfs", p.maxImfs == 0 ? "automatic" : std::to_string(p.maxImfs)}};
  if (p.method != EmdMethod::Emd) {
    prov.parameters.push_back({"noiseStd", num(p.noiseStd) + " x std(x)"});
    prov.parameters.push_back({"ensembleSize", std::to_string(p.ensembleSize)});
    prov.parameters.push_back({"noiseStopRule", describeStopRule(p.noiseStop)});
    prov.seed = std::to_string(p.seed);
  }
  if (p.method == EmdMethod::Iceemdan)
    prov.parameters.push_back(
        {"noiseScaling", p.noiseScaling == NoiseScaling::Increasing ? "increasing" : "constant"});
  if (p.method == EmdMethod::Eemd)
    prov.parameters.push_back({"pairedNoise", p.pairedNoise ? "yes" : "no"});
  const BackendInfo info = backend.info();
  if (info.kind == BackendKind::Cuda)
    prov.parameters.push_back(
        {"gpuPrecision", p.gpuPrecision == GpuPrecision::Float32 ? "float32" : "float64"});
  const HhtParams& h = r.hht;
  prov.parameters.push_back(
      {"hht", std::string(h.quantity == HhtQuantity::Energy ? "energy" : "amplitude") + ", " +
                  std::to_string(h.frequencyBins) + (h.logFrequency ? " log" : " linear") +
                  " bins " + num(h.fMin) + ".." + (h.fMax > 0 ? num(h.fMax) : "Nyquist") +
                  " Hz, edges " + num(h.edgeSeconds) + " s"});
  prov.backend = info.describe();
  prov.inputFile = inputFile;
  prov.selection = channelList(rec, r.channels) + "; " +
                   rangeText(static_cast<double>(block.firstSample) / block.sampleRate,
                             static_cast<double>(block.samples) / block.sampleRate);
  prov.softwareVersion = softwareVersion();
  prov.createdAt = utcNowIso8601();
  return prov;
}

}  // namespace

DecompositionOutcome runDecomposition(const Recording& rec, const DecomposeRequest& request,
                                      ComputeBackend& backend, JobContext& ctx,
                                      const std::string& inputFile) {
  ctx.progress(0.0, "reading");
  const SignalBlock block =
      extractBlock(rec, request.channels, request.startSeconds, request.durationSeconds);
  ctx.checkpoint();
  JobContext decomposeCtx = ctx.sub(0.0, kDecomposeProgressShare);
  auto modes = std::make_shared<EmdResult>(backend.decompose(block, request.params, decomposeCtx));
  modes->provenance = decompositionProvenance(rec, request, block, backend, inputFile);
  ctx.checkpoint();
  JobContext hhtCtx = ctx.sub(kDecomposeProgressShare, 1.0);
  hhtCtx.progress(0.0, "Hilbert-Huang transform");
  auto hht = std::make_shared<HhtResult>(backend.hilbertHuang(*modes, request.hht, hhtCtx));
  ctx.progress(1.0, "done");
  return {std::move(modes), std::move(hht)};
}

std::string describeDecomposition(const Recording& rec, const DecomposeRequest& request) {
  return std::string(methodTitle(request.params.method)) + " of " +
         channelList(rec, request.channels) + " (" +
         rangeText(request.startSeconds, request.durationSeconds) + ")";
}

}  // namespace modescope
