// patchedRecording (patched_recording.h): a source that reads the base and overwrites the
// replaced range of the replaced channels.
#include "app/core/patched_recording.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

// base's samples with some channel ranges replaced (a map look-up per read: patches are few,
// one per processed channel).
class PatchedSource final : public SignalSource {
 public:
  struct Patch {
    int64_t first = 0;
    std::vector<float> samples;
  };

  PatchedSource(std::shared_ptr<const SignalSource> base, std::map<std::size_t, Patch> patches)
      : base_(std::move(base)), patches_(std::move(patches)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    if (count <= 0) return;
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

}  // namespace

std::shared_ptr<Recording> patchedRecording(std::shared_ptr<const Recording> base,
                                            double sampleRate, int64_t firstSample,
                                            std::map<std::size_t, std::vector<float>> replacement,
                                            const std::string& remedy) {
  if (!base || !base->source) {
    throw InvalidParameterError("recording", "none", "the recording the result was computed on",
                                "Open the recording the result was computed on");
  }
  std::map<std::size_t, PatchedSource::Patch> patches;
  for (auto& [channel, samples] : replacement) {
    if (channel >= base->channelCount()) {
      throw InvalidParameterError("channel", std::to_string(channel + 1),
                                  "1.." + std::to_string(base->channelCount()), remedy);
    }
    const ChannelInfo& info = base->channels[channel];
    if (info.sampleRate != sampleRate) {
      throw InvalidParameterError("sampleRate", formatNumber(sampleRate) + " Hz (result)",
                                  formatNumber(info.sampleRate) + " Hz (" + info.name + ")",
                                  remedy);
    }
    const auto count = static_cast<int64_t>(samples.size());
    if (firstSample < 0 || firstSample + count > info.sampleCount) {
      throw InvalidParameterError(
          "range",
          "samples " + std::to_string(firstSample) + ".." + std::to_string(firstSample + count),
          "within 0.." + std::to_string(info.sampleCount) + " of " + info.name, remedy);
    }
    patches[channel] = {firstSample, std::move(samples)};
  }
  auto rec = std::make_shared<Recording>(*base);
  rec->source = std::make_shared<PatchedSource>(base->source, std::move(patches));
  return rec;
}

}  // namespace modescope
