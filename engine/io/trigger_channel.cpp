#include "engine/io/trigger_channel.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "engine/core/text.h"

namespace modescope {
namespace {

constexpr int64_t kCodeMask = 0xFFFF;
constexpr int64_t kPageSamples = 1 << 16;  // bounded memory for hour-long channels

}  // namespace

bool isTriggerChannelLabel(const std::string& label) {
  const std::string l = toLower(trim(label));
  if (l == "status" || l == "trigger" || l == "triggers") return true;
  if (l.rfind("sti", 0) == 0 && l.size() > 3) {
    std::size_t i = 3;
    if (l[i] == ' ' || l[i] == '_') ++i;
    if (i == l.size()) return false;
    for (; i < l.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(l[i]))) return false;
    }
    return true;
  }
  return false;
}

std::vector<TriggerEvent> decodeTriggerEvents(int64_t sampleCount, const TriggerCodeReader& read,
                                              bool* truncated) {
  std::vector<TriggerEvent> events;
  if (truncated) *truncated = false;
  std::vector<int64_t> page;
  int64_t previous = 0;  // so a non-zero first sample is an event (initial_event=True)
  for (int64_t first = 0; first < sampleCount; first += kPageSamples) {
    const int64_t n = std::min(kPageSamples, sampleCount - first);
    page.resize(static_cast<std::size_t>(n));
    read(first, n, page.data());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t code = page[static_cast<std::size_t>(i)] & kCodeMask;
      if (code != previous && code != 0) {
        if (events.size() == kMaxTriggerEvents) {
          if (truncated) *truncated = true;
          return events;
        }
        events.push_back({first + i, code});
      }
      previous = code;
    }
  }
  return events;
}

TriggerCodeReader physicalTriggerReader(const Recording& rec, std::size_t channel, bool isBdf) {
  const ChannelInfo c = rec.channels.at(channel);
  auto source = rec.source;
  const double physSpan = c.physicalMax - c.physicalMin;
  const double digSpan = static_cast<double>(c.digitalMax) - c.digitalMin;
  const bool reconstruct = isBdf && physSpan != 0 && digSpan != 0;
  return [source, channel, c, physSpan, digSpan, reconstruct](int64_t first, int64_t count,
                                                              int64_t* out) {
    std::vector<float> buf(static_cast<std::size_t>(count));
    source->read(channel, first, count, buf.data());
    for (int64_t i = 0; i < count; ++i) {
      double v = buf[static_cast<std::size_t>(i)];
      if (reconstruct) v = (v - c.physicalMin) * digSpan / physSpan + c.digitalMin;
      out[i] = std::isfinite(v) ? static_cast<int64_t>(std::llround(v)) : 0;
    }
  };
}

void addTriggerAnnotations(Recording& rec,
                           const std::function<TriggerCodeReader(std::size_t channel)>& readerFor) {
  std::vector<std::size_t> triggers;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    auto& c = rec.channels[i];
    if (c.type == ChannelType::STIM || isTriggerChannelLabel(c.label)) {
      c.type = ChannelType::STIM;
      triggers.push_back(i);
    }
  }
  for (std::size_t ch : triggers) {
    const ChannelInfo& c = rec.channels[ch];
    if (c.sampleRate <= 0 || c.sampleCount <= 0) continue;
    bool truncated = false;
    const auto events = decodeTriggerEvents(c.sampleCount, readerFor(ch), &truncated);
    const std::string suffix = triggers.size() > 1 ? " (" + c.label + ")" : "";
    for (const auto& e : events) {
      rec.annotations.push_back({static_cast<double>(e.sample) / c.sampleRate, 0.0,
                                 "trigger " + std::to_string(e.code) + suffix});
    }
    if (truncated) {
      addDiagnostic(rec.diagnostics, Severity::Warning, "trigger.tooManyEvents",
                    "Trigger channel '" + c.label + "' changes value more than " +
                        std::to_string(kMaxTriggerEvents) +
                        " times; only the first events were turned into annotations (is it a "
                        "trigger channel?)");
    }
  }
  std::stable_sort(rec.annotations.begin(), rec.annotations.end(),
                   [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
}

}  // namespace modescope
