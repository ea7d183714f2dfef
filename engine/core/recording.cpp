#include "engine/core/recording.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {

const char* channelTypeName(ChannelType t) {
  switch (t) {
    case ChannelType::EEG:
      return "EEG";
    case ChannelType::EOG:
      return "EOG";
    case ChannelType::ECG:
      return "ECG";
    case ChannelType::EMG:
      return "EMG";
    case ChannelType::STIM:
      return "STIM";
    case ChannelType::MISC:
      return "MISC";
  }
  return "MISC";
}

std::optional<ChannelType> parseChannelType(const std::string& name) {
  for (ChannelType t : {ChannelType::EEG, ChannelType::EOG, ChannelType::ECG, ChannelType::EMG,
                        ChannelType::STIM, ChannelType::MISC}) {
    if (equalsIgnoreCase(name, channelTypeName(t))) return t;
  }
  return std::nullopt;
}

InMemorySource::InMemorySource(std::vector<std::vector<float>> channels)
    : channels_(std::move(channels)) {}

void InMemorySource::read(std::size_t channel, int64_t first, int64_t count, float* out) const {
  const auto& c = channels_.at(channel);
  if (first < 0 || count < 0 || first + count > static_cast<int64_t>(c.size())) {
    throw std::out_of_range("InMemorySource::read outside the channel");
  }
  std::memcpy(out, c.data() + first, static_cast<std::size_t>(count) * sizeof(float));
}

double Recording::duration() const {
  double d = 0.0;
  for (const auto& c : channels) {
    if (c.sampleRate > 0) d = std::max(d, static_cast<double>(c.sampleCount) / c.sampleRate);
  }
  return d;
}

std::vector<float> Recording::readChannel(std::size_t channel, int64_t first, int64_t count) const {
  const auto& c = channels.at(channel);
  first = std::clamp<int64_t>(first, 0, c.sampleCount);
  count = std::clamp<int64_t>(count, 0, c.sampleCount - first);
  std::vector<float> out(static_cast<std::size_t>(count));
  if (count > 0) source->read(channel, first, count, out.data());
  return out;
}

int Recording::findChannel(const std::string& nameOrLabel) const {
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (equalsIgnoreCase(channels[i].name, nameOrLabel)) return static_cast<int>(i);
  }
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (equalsIgnoreCase(channels[i].label, nameOrLabel)) return static_cast<int>(i);
  }
  return -1;
}

SignalBlock extractBlock(const Recording& rec, const std::vector<std::size_t>& channels,
                         double startSeconds, double durationSeconds) {
  if (channels.empty()) {
    throw InvalidParameterError("channels", "an empty selection", "at least one channel");
  }
  const double rate = rec.channels.at(channels.front()).sampleRate;
  for (std::size_t ch : channels) {
    if (ch >= rec.channels.size()) {
      throw InvalidParameterError("channels", "index " + std::to_string(ch + 1),
                                  "1.." + std::to_string(rec.channels.size()));
    }
    if (rec.channels[ch].sampleRate != rate) {
      throw InvalidParameterError("channels",
                                  "channels at " + formatNumber(rate) + " Hz and " +
                                      formatNumber(rec.channels[ch].sampleRate) + " Hz (" +
                                      rec.channels[ch].name + ")",
                                  "one sample rate", "Select channels that share a sample rate");
    }
  }
  if (!(startSeconds >= 0.0) || startSeconds >= rec.duration()) {
    throw InvalidParameterError("start", formatNumber(startSeconds) + " s",
                                "0 to " + formatNumber(rec.duration()) + " s");
  }
  SignalBlock b;
  b.channels = channels;
  b.sampleRate = rate;
  b.firstSample = static_cast<int64_t>(std::llround(startSeconds * rate));
  int64_t available = rec.channels[channels.front()].sampleCount;
  for (std::size_t ch : channels) available = std::min(available, rec.channels[ch].sampleCount);
  available -= b.firstSample;
  b.samples = durationSeconds < 0
                  ? available
                  : std::min<int64_t>(available, std::llround(durationSeconds * rate));
  if (b.samples <= 0) {
    throw InvalidParameterError("duration", formatNumber(durationSeconds) + " s",
                                "a range that holds at least one sample");
  }
  b.data.resize(channels.size() * static_cast<std::size_t>(b.samples));
  for (std::size_t i = 0; i < channels.size(); ++i) {
    rec.source->read(channels[i], b.firstSample, b.samples, b.channel(i));
  }
  return b;
}

namespace {

// Metadata, channels and the annotations that fall inside the block, shifted to its start.
std::shared_ptr<Recording> metadataForBlock(const Recording& base, const SignalBlock& block) {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = base.sourcePath;
  rec->info = base.info;
  rec->diagnostics = base.diagnostics;
  const double t0 = static_cast<double>(block.firstSample) / block.sampleRate;
  const double t1 = t0 + static_cast<double>(block.samples) / block.sampleRate;
  for (const auto& a : base.annotations) {
    if (a.onset >= t0 && a.onset < t1)
      rec->annotations.push_back({a.onset - t0, a.duration, a.text});
  }
  for (std::size_t ch : block.channels) {
    ChannelInfo c = base.channels.at(ch);
    c.sampleCount = block.samples;
    rec->channels.push_back(std::move(c));
  }
  return rec;
}

}  // namespace

std::shared_ptr<const Recording> recordingFromBlock(const Recording& base,
                                                    const SignalBlock& block) {
  SignalBlock copy = block;
  return recordingFromBlock(base, std::move(copy));
}

std::shared_ptr<const Recording> recordingFromBlock(const Recording& base, SignalBlock&& block) {
  auto rec = metadataForBlock(base, block);
  rec->source = std::make_shared<BlockSource>(std::move(block.data), block.samples);
  block.data.clear();
  return rec;
}

BlockSource::BlockSource(std::vector<float> data, int64_t samplesPerChannel)
    : data_(std::move(data)), samples_(samplesPerChannel) {}

void BlockSource::read(std::size_t channel, int64_t first, int64_t count, float* out) const {
  const auto offset = static_cast<int64_t>(channel) * samples_;
  if (first < 0 || count < 0 || first + count > samples_ ||
      offset + samples_ > static_cast<int64_t>(data_.size())) {
    throw std::out_of_range("BlockSource::read outside the channel");
  }
  std::memcpy(out, data_.data() + offset + first, static_cast<std::size_t>(count) * sizeof(float));
}

void addDiagnostic(Diagnostics& d, Severity s, std::string code, std::string message) {
  for (const auto& e : d) {
    if (e.code == code && e.message == message) return;
  }
  d.push_back({s, std::move(code), std::move(message)});
}

}  // namespace modescope
