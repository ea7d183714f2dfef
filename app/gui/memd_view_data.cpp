#include "app/gui/memd_view_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"

namespace modescope {
namespace {

// Row `row` of every channel of the shared result, placed at its first sample.
class ModeRowSource final : public SignalSource {
 public:
  ModeRowSource(std::shared_ptr<const EmdResult> modes, int row)
      : modes_(std::move(modes)), row_(row) {}
  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    const EmdChannelModes& m = modes_->channels[channel];
    const float* x = m.row(row_, modes_->samples);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t n = first + i - modes_->firstSample;
      out[i] = n >= 0 && n < modes_->samples ? x[n] : 0.0f;
    }
  }

 private:
  std::shared_ptr<const EmdResult> modes_;
  int row_;
};

}  // namespace

MemdAlignment memdAlignment(const HhtResult& hht, int imfCount) {
  MemdAlignment a;
  a.channels = static_cast<int>(hht.channels.size());
  a.imfs = std::max(0, imfCount);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  a.meanFrequencyHz.assign(static_cast<std::size_t>(a.channels * a.imfs), nan);
  a.energy.assign(a.meanFrequencyHz.size(), nan);
  for (int c = 0; c < a.channels; ++c) {
    for (const HhtImf& imf : hht.channels[static_cast<std::size_t>(c)].imfs) {
      if (imf.row < 0 || imf.row >= a.imfs) continue;
      const auto i = static_cast<std::size_t>(c * a.imfs + imf.row);
      a.meanFrequencyHz[i] = imf.meanFrequencyHz;
      a.energy[i] = imf.energy;
    }
  }
  for (int k = 0; k < a.imfs; ++k) {
    double sum = 0, sumSq = 0;
    int count = 0;
    for (int c = 0; c < a.channels; ++c) {
      const double f = a.frequency(c, k);
      if (!std::isfinite(f)) continue;
      sum += f;
      sumSq += f * f;
      ++count;
    }
    const double mean = count > 0 ? sum / count : nan;
    a.imfMeanHz.push_back(mean);
    a.imfSpreadHz.push_back(count > 0 ? std::sqrt(std::max(0.0, sumSq / count - mean * mean))
                                      : nan);
  }
  return a;
}

HhtResult summedHhtChannels(const HhtResult& hht) {
  HhtResult sum;
  sum.params = hht.params;
  sum.sampleRate = hht.sampleRate;
  sum.firstSample = hht.firstSample;
  sum.samples = hht.samples;
  sum.frequencyEdges = hht.frequencyEdges;
  sum.timeEdges = hht.timeEdges;
  if (hht.channels.empty()) return sum;
  HhtChannel total;
  total.channel = hht.channels.front().channel;
  total.spectrum.assign(hht.channels.front().spectrum.size(), 0.0f);
  total.marginal.assign(hht.channels.front().marginal.size(), 0.0);
  for (const HhtChannel& c : hht.channels) {
    const std::size_t cells = std::min(c.spectrum.size(), total.spectrum.size());
    for (std::size_t i = 0; i < cells; ++i) total.spectrum[i] += c.spectrum[i];
    const std::size_t bins = std::min(c.marginal.size(), total.marginal.size());
    for (std::size_t i = 0; i < bins; ++i) total.marginal[i] += c.marginal[i];
  }
  sum.channels.push_back(std::move(total));
  return sum;
}

std::shared_ptr<const Recording> modeAcrossChannels(const Recording& base,
                                                    std::shared_ptr<const EmdResult> modes,
                                                    int row) {
  const int rows = modes && !modes->channels.empty() ? modes->channels.front().rows : 0;
  if (row < 0 || row >= rows)
    throw InvalidParameterError("IMF row", std::to_string(row),
                                "0 to " + std::to_string(rows - 1) + " (IMFs, then the residue)");
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = base.sourcePath;
  rec->info = base.info;
  rec->annotations = base.annotations;
  for (const EmdChannelModes& m : modes->channels) {
    ChannelInfo info = m.channel < base.channelCount() ? base.channels[m.channel] : ChannelInfo{};
    if (info.name.empty()) info.name = "channel " + std::to_string(m.channel + 1);
    info.sampleRate = modes->sampleRate;
    info.sampleCount = modes->firstSample + modes->samples;
    info.bad = false;
    rec->channels.push_back(std::move(info));
  }
  rec->source = std::make_shared<ModeRowSource>(std::move(modes), row);
  return rec;
}

}  // namespace modescope
