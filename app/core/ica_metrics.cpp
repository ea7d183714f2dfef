#include "app/core/ica_metrics.h"

#include <algorithm>
#include <cmath>

#include "app/core/ica_cleaning.h"
#include "app/core/ica_flags_job.h"
#include "engine/ica/infomax.h"

namespace modescope {
namespace {

bool isProxySite(const ChannelInfo& c) {
  for (const std::string& s : icaFrontalProxySites())
    if (c.name == s) return true;
  return false;
}

// max |r| of `activation` with each reference series (rows of `refs`, `n` samples each).
double maxAbsCorrelation(const float* activation, const std::vector<std::vector<float>>& refs,
                         int64_t n) {
  if (refs.empty()) return -1.0;
  double best = 0.0;
  for (const auto& r : refs)
    best = std::max(best, std::fabs(pearsonCorrelation(activation, r.data(), n)));
  return best;
}

}  // namespace

IcaReferenceChannels icaReferenceChannels(const Recording& rec, double sampleRate) {
  IcaReferenceChannels out;
  for (std::size_t i = 0; i < rec.channelCount(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    if (c.sampleRate != sampleRate) continue;
    if (c.type == ChannelType::EOG) out.eog.push_back(i);
    if (c.type == ChannelType::ECG) out.ecg.push_back(i);
  }
  if (out.eog.empty()) {
    for (std::size_t i = 0; i < rec.channelCount(); ++i) {
      const ChannelInfo& c = rec.channels[i];
      if (c.sampleRate == sampleRate && isProxySite(c)) out.eog.push_back(i);
    }
    out.eogIsFrontalProxy = !out.eog.empty();
  }
  return out;
}

double excessKurtosis(const float* x, int64_t n) {
  if (n < 2) return 0.0;
  double mean = 0.0;
  for (int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double m2 = 0.0, m4 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = x[i] - mean, d2 = d * d;
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= static_cast<double>(n);
  m4 /= static_cast<double>(n);
  return m2 > 0 ? m4 / (m2 * m2) - 3.0 : 0.0;
}

double pearsonCorrelation(const float* a, const float* b, int64_t n) {
  if (n < 2) return 0.0;
  double ma = 0.0, mb = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double da = a[i] - ma, db = b[i] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

IcaComponentSummary summariseIcaComponents(const Recording& rec, const IcaFile& file,
                                           JobContext& ctx, const IcaFlagParams& flagParams) {
  checkIcaMatchesRecording(rec, file, file.inputFile);
  IcaComponentSummary out;
  ctx.progress(0.0, "reading the decomposed range");
  std::vector<std::size_t> channels;
  for (const IcaFileChannel& c : file.channels) channels.push_back(c.recordingIndex);
  const double start = file.startSeconds();
  const double duration = static_cast<double>(file.samples) / file.sampleRate;
  const SignalBlock block = extractBlock(rec, channels, start, duration);
  const int64_t n = block.samples;
  ctx.checkpoint();
  ctx.progress(0.2, "activations");
  const std::vector<float> act = icaActivations(file.result, block);
  ctx.checkpoint();

  out.references = icaReferenceChannels(rec, file.sampleRate);
  auto readRefs = [&](const std::vector<std::size_t>& idx) {
    std::vector<std::vector<float>> v;
    for (std::size_t i : idx) {
      std::vector<float> x = rec.readChannel(i, file.firstSample, n);
      if (static_cast<int64_t>(x.size()) == n) v.push_back(std::move(x));
    }
    return v;
  };
  const auto eog = readRefs(out.references.eog);
  const auto ecg = readRefs(out.references.ecg);

  const int r = file.result.components;
  out.components.resize(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) {
    const float* a = act.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
    IcaComponentMetrics& m = out.components[static_cast<std::size_t>(k)];
    if (static_cast<std::size_t>(k) < file.result.varianceFraction.size())
      m.variancePercent = 100.0 * file.result.varianceFraction[static_cast<std::size_t>(k)];
    m.kurtosis = excessKurtosis(a, n);
    m.eogCorrelation = maxAbsCorrelation(a, eog, n);
    m.ecgCorrelation = maxAbsCorrelation(a, ecg, n);
    ctx.checkpoint();
    ctx.progress(0.3 + 0.5 * (k + 1) / r, "component metrics");
  }
  if (n >= 8) {
    out.spectra = welchSpectra(act.data(), r, n, file.sampleRate);
    JobContext flagCtx = ctx.sub(0.85, 1.0);
    out.flags = flagIcaComponents(icaFlagInput(rec, file, act), flagParams, flagCtx);
  }
  ctx.progress(1.0, "summarised");
  return out;
}

}  // namespace modescope
