#include "app/core/imf_recording.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace modescope {
namespace {

// The rows of one channel's modes, placed at firstSample and zero elsewhere.
class ImfSource final : public SignalSource {
 public:
  ImfSource(std::shared_ptr<const EmdResult> result, std::size_t channel)
      : result_(std::move(result)), channel_(channel) {}

  void read(std::size_t row, int64_t first, int64_t count, float* out) const override {
    const EmdChannelModes& modes = result_->channels[channel_];
    const float* data = modes.row(static_cast<int>(row), result_->samples);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t s = first + i - result_->firstSample;
      out[i] = s >= 0 && s < result_->samples ? data[s] : 0.0f;
    }
  }

 private:
  std::shared_ptr<const EmdResult> result_;
  std::size_t channel_;
};

}  // namespace

std::shared_ptr<const Recording> imfRecording(const Recording& source,
                                              std::shared_ptr<const EmdResult> result,
                                              std::size_t resultChannel) {
  if (!result || resultChannel >= result->channels.size())
    throw InvalidParameterError("channel", std::to_string(resultChannel),
                                "a decomposed channel of the result");
  const EmdChannelModes& modes = result->channels[resultChannel];
  if (modes.channel >= source.channelCount())
    throw InvalidParameterError("channel", std::to_string(modes.channel),
                                "a channel of the decomposed recording");
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = source.sourcePath;
  rec->info = source.info;
  rec->annotations = source.annotations;
  const ChannelInfo& base = source.channels[modes.channel];
  const std::string name = base.name.empty() ? base.label : base.name;
  for (int r = 0; r < modes.rows; ++r) {
    ChannelInfo c = base;
    c.name = c.label = name + (r + 1 < modes.rows ? " IMF " + std::to_string(r + 1) : " residue");
    c.sampleRate = result->sampleRate;
    c.sampleCount = result->firstSample + result->samples;
    c.position.reset();
    rec->channels.push_back(std::move(c));
  }
  rec->source = std::make_shared<ImfSource>(std::move(result), resultChannel);
  return rec;
}

}  // namespace modescope
