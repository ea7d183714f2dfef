#include "app/core/imf_reconstruction.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

bool isDropped(const std::vector<int>& dropped, int row) {
  return std::find(dropped.begin(), dropped.end(), row) != dropped.end();
}

// base's samples with some channel ranges replaced. The patches are few (one per decomposed
// channel), so a linear look-up per read is enough.
class PatchedSource final : public SignalSource {
 public:
  struct Patch {
    int64_t first = 0;
    std::vector<float> samples;
  };

  PatchedSource(std::shared_ptr<const SignalSource> base, std::map<std::size_t, Patch> patches)
      : base_(std::move(base)), patches_(std::move(patches)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    base_->read(channel, first, count, out);
    const auto it = patches_.find(channel);
    if (it == patches_.end()) return;
    const Patch& p = it->second;
    const int64_t lo = std::max(first, p.first);
    const int64_t hi = std::min(first + count, p.first + static_cast<int64_t>(p.samples.size()));
    if (hi <= lo) return;
    std::memcpy(out + (lo - first), p.samples.data() + (lo - p.first),
                static_cast<std::size_t>(hi - lo) * sizeof(float));
  }

 private:
  std::shared_ptr<const SignalSource> base_;
  std::map<std::size_t, Patch> patches_;
};

std::string rowName(const EmdChannelModes& m, int row) {
  return row == m.rows - 1 ? std::string("residue") : "IMF " + std::to_string(row + 1);
}

const std::vector<int>* droppedFor(const DroppedRows& dropped, std::size_t channel) {
  const auto it = dropped.find(channel);
  return it == dropped.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<float> reconstructKeptRows(const EmdChannelModes& modes, int64_t samples,
                                       const std::vector<int>& dropped) {
  const auto n = static_cast<std::size_t>(std::max<int64_t>(samples, 0));
  if (modes.rows < 0 || modes.data.size() != static_cast<std::size_t>(modes.rows) * n) {
    throw InvalidParameterError(
        "modes", std::to_string(modes.data.size()) + " values",
        std::to_string(modes.rows) + " rows x " + std::to_string(n) + " samples",
        "Use the decomposition result as the engine returned it");
  }
  // Double accumulation: a dozen float rows of EEG-sized values would otherwise lose a few
  // ulps each, and the oracle (sum of all rows == input) is checked at float precision.
  std::vector<double> sum(n, 0.0);
  for (int r = 0; r < modes.rows; ++r) {
    if (isDropped(dropped, r)) continue;
    const float* row = modes.row(r, samples);
    for (std::size_t i = 0; i < n; ++i) sum[i] += row[i];
  }
  return std::vector<float>(sum.begin(), sum.end());
}

std::shared_ptr<const Recording> cleanedRecording(std::shared_ptr<const Recording> base,
                                                  const EmdResult& result,
                                                  const DroppedRows& dropped) {
  if (!base || !base->source) {
    throw InvalidParameterError("recording", "none", "the decomposed recording",
                                "Open the recording the decomposition was run on");
  }
  std::map<std::size_t, PatchedSource::Patch> patches;
  for (const EmdChannelModes& m : result.channels) {
    if (m.channel >= base->channelCount()) {
      throw InvalidParameterError("channel", std::to_string(m.channel + 1),
                                  "1.." + std::to_string(base->channelCount()),
                                  "Apply the result to the recording it was computed from");
    }
    const ChannelInfo& info = base->channels[m.channel];
    if (info.sampleRate != result.sampleRate) {
      throw InvalidParameterError("sampleRate",
                                  formatNumber(result.sampleRate) + " Hz (decomposition)",
                                  formatNumber(info.sampleRate) + " Hz (" + info.name + ")",
                                  "Apply the result to the recording it was computed from");
    }
    if (result.firstSample < 0 || result.firstSample + result.samples > info.sampleCount) {
      throw InvalidParameterError(
          "range",
          "samples " + std::to_string(result.firstSample) + ".." +
              std::to_string(result.firstSample + result.samples),
          "within 0.." + std::to_string(info.sampleCount) + " of " + info.name,
          "Apply the result to the recording it was computed from");
    }
    static const std::vector<int> kNone;
    const std::vector<int>* d = droppedFor(dropped, m.channel);
    patches[m.channel] = {result.firstSample,
                          reconstructKeptRows(m, result.samples, d ? *d : kNone)};
  }
  auto rec = std::make_shared<Recording>(*base);
  rec->source = std::make_shared<PatchedSource>(base->source, std::move(patches));
  return rec;
}

std::string describeDroppedRows(const Recording& rec, const EmdResult& result,
                                const DroppedRows& dropped) {
  std::string text;
  for (const EmdChannelModes& m : result.channels) {
    const std::vector<int>* d = droppedFor(dropped, m.channel);
    if (!d) continue;
    std::string rows;
    for (int r = 0; r < m.rows; ++r) {
      if (!isDropped(*d, r)) continue;
      if (!rows.empty()) rows += ", ";
      rows += rowName(m, r);
    }
    if (rows.empty()) continue;
    if (!text.empty()) text += "; ";
    const std::string name = m.channel < rec.channelCount() ? rec.channels[m.channel].name
                                                            : std::to_string(m.channel + 1);
    text += name + ": " + rows;
  }
  return text.empty() ? std::string("none") : text;
}

Provenance cleaningProvenance(const Recording& rec, const EmdResult& result,
                              const DroppedRows& dropped) {
  Provenance p;
  p.method = "emd-clean";
  p.parameters = {
      {"decomposition", emdMethodName(result.params.method)},
      {"dropped", describeDroppedRows(rec, result, dropped)},
      {"start", formatNumber(static_cast<double>(result.firstSample) / result.sampleRate) + " s"},
      {"duration", formatNumber(static_cast<double>(result.samples) / result.sampleRate) + " s"}};
  p.seed = result.provenance.seed;
  p.backend = result.provenance.backend;
  p.inputFile = result.provenance.inputFile;
  p.selection = result.provenance.selection;
  return p;
}

}  // namespace modescope
