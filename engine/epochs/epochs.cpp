#include "engine/epochs/epochs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

bool startsWithBad(const std::string& text) {
  if (text.size() < 3) return false;
  return std::tolower(static_cast<unsigned char>(text[0])) == 'b' &&
         std::tolower(static_cast<unsigned char>(text[1])) == 'a' &&
         std::tolower(static_cast<unsigned char>(text[2])) == 'd';
}

std::string joinTypes(const std::vector<std::pair<std::string, std::size_t>>& types) {
  if (types.empty()) return "none (the recording has no annotations)";
  std::string out;
  for (std::size_t i = 0; i < types.size() && i < 12; ++i)
    out += (i ? ", '" : "'") + types[i].first + "' (" + std::to_string(types[i].second) + ")";
  if (types.size() > 12) out += ", ...";
  return out;
}

void checkChannels(const Recording& rec, const EpochSpec& spec) {
  if (spec.channels.empty())
    throw InvalidParameterError("channels", "none", "at least one channel to epoch");
  for (std::size_t c : spec.channels)
    if (c >= rec.channelCount())
      throw InvalidParameterError(
          "channels", "index " + std::to_string(c),
          "a channel of the recording (0.." + std::to_string(rec.channelCount() - 1) + ")");
  const double rate = rec.channels[spec.channels.front()].sampleRate;
  for (std::size_t c : spec.channels)
    if (rec.channels[c].sampleRate != rate)
      throw InvalidParameterError(
          "channels",
          rec.channels[c].name + " at " + formatNumber(rec.channels[c].sampleRate) + " Hz",
          "channels of one sample rate (" + rec.channels[spec.channels.front()].name + ": " +
              formatNumber(rate) + " Hz)",
          "select channels of one rate (--channels)");
}

bool overlapsBad(const std::vector<TimeSpan>& bad, double t0, double t1) {
  for (const TimeSpan& s : bad)
    if (s.onset < t1 && s.onset + s.duration > t0) return true;
  return false;
}

// Steps 2 and 3 of epochs.h, which need no samples: the epoch [first, last] of a recording of
// `length` samples.
EpochFate windowFate(const EpochSpec& spec, int64_t first, int64_t last, int64_t length,
                     double sampleRate) {
  if (first < 0 || last >= length) return EpochFate::OutsideData;
  if (spec.params.rejectBadSegments &&
      overlapsBad(spec.badSegments, static_cast<double>(first) / sampleRate,
                  static_cast<double>(last + 1) / sampleRate))
    return EpochFate::BadSegment;
  return EpochFate::Kept;
}

int64_t commonLength(const Recording& rec, const std::vector<std::size_t>& channels) {
  int64_t length = rec.channels[channels.front()].sampleCount;
  for (std::size_t c : channels) length = std::min(length, rec.channels[c].sampleCount);
  return length;
}

}  // namespace

EpochPreview previewEpochs(const Recording& rec, const EpochSpec& spec) {
  EpochPreview p;
  try {
    checkEpochSpec(rec, spec);
  } catch (const InvalidParameterError&) {
    return p;
  }
  const double fs = rec.channels[spec.channels.front()].sampleRate;
  const EpochWindow window = epochWindow(spec.params, fs);
  const int64_t length = commonLength(rec, spec.channels);
  for (const Annotation& a : rec.annotations) {
    if (std::find(spec.eventTypes.begin(), spec.eventTypes.end(), a.text) == spec.eventTypes.end())
      continue;
    ++p.events;
    const int64_t sample = std::llround(a.onset * fs);
    const EpochFate f = windowFate(spec, sample + window.first, sample + window.last, length, fs);
    p.outsideData += f == EpochFate::OutsideData;
    p.badSegment += f == EpochFate::BadSegment;
  }
  return p;
}

const char* epochFateName(EpochFate f) {
  switch (f) {
    case EpochFate::Kept:
      return "kept";
    case EpochFate::OutsideData:
      return "outside the data";
    case EpochFate::BadSegment:
      return "bad segment";
    case EpochFate::PeakToPeak:
      return "peak-to-peak";
  }
  return "?";
}

std::size_t EpochSet::keptCount(int conditionIndex) const {
  return static_cast<std::size_t>(std::count(condition.begin(), condition.end(), conditionIndex));
}

std::size_t EpochSet::droppedCount(EpochFate fate) const {
  return static_cast<std::size_t>(std::count_if(
      log.begin(), log.end(), [&](const EpochLogEntry& e) { return e.fate == fate; }));
}

std::vector<TimeSpan> badSegmentsFromAnnotations(const Recording& rec) {
  std::vector<TimeSpan> out;
  for (const Annotation& a : rec.annotations)
    if (startsWithBad(a.text)) out.push_back({a.onset, a.duration});
  return out;
}

std::vector<std::pair<std::string, std::size_t>> eventTypeCounts(const Recording& rec) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::map<std::string, std::size_t> where;
  for (const Annotation& a : rec.annotations) {
    auto [it, inserted] = where.emplace(a.text, out.size());
    if (inserted) out.emplace_back(a.text, 0);
    ++out[it->second].second;
  }
  return out;
}

void checkEpochSpec(const Recording& rec, const EpochSpec& spec) {
  checkChannels(rec, spec);
  if (spec.eventTypes.empty())
    throw InvalidParameterError(
        "event types", "none",
        "at least one annotation text to epoch around: " + joinTypes(eventTypeCounts(rec)));
  const auto types = eventTypeCounts(rec);
  for (const std::string& t : spec.eventTypes) {
    const bool known =
        std::any_of(types.begin(), types.end(), [&](const auto& p) { return p.first == t; });
    if (!known)
      throw InvalidParameterError("event type", "'" + t + "'",
                                  "an annotation text of the recording: " + joinTypes(types),
                                  "name the events exactly as the annotations spell them");
  }
  epochWindow(spec.params, rec.channels[spec.channels.front()].sampleRate);
}

EpochSet extractEpochs(const Recording& rec, const EpochSpec& spec, JobContext& ctx) {
  checkEpochSpec(rec, spec);
  EpochSet set;
  set.conditions = spec.eventTypes;
  set.channels = spec.channels;
  set.sampleRate = rec.channels[spec.channels.front()].sampleRate;
  set.params = spec.params;
  set.window = epochWindow(spec.params, set.sampleRate);
  set.samples = set.window.samples();
  for (std::size_t c : spec.channels) {
    set.channelNames.push_back(rec.channels[c].name);
    set.units.push_back(rec.channels[c].unit);
  }
  const int64_t length = commonLength(rec, spec.channels);

  const std::size_t C = spec.channels.size();
  const auto S = static_cast<std::size_t>(set.samples);
  std::vector<float> epoch(C * S);
  const double baselineCount =
      static_cast<double>(set.window.baselineLast - set.window.baselineFirst + 1);
  for (std::size_t i = 0; i < rec.annotations.size(); ++i) {
    if (i % 64 == 0) {
      ctx.checkpoint();
      ctx.progress(static_cast<double>(i) / static_cast<double>(rec.annotations.size()),
                   "epoching");
    }
    const Annotation& a = rec.annotations[i];
    const auto it = std::find(spec.eventTypes.begin(), spec.eventTypes.end(), a.text);
    if (it == spec.eventTypes.end()) continue;
    EpochLogEntry entry;
    entry.onset = a.onset;
    entry.sample = std::llround(a.onset * set.sampleRate);
    entry.condition = static_cast<int>(it - spec.eventTypes.begin());
    const int64_t first = entry.sample + set.window.first;
    const int64_t last = entry.sample + set.window.last;
    entry.fate = windowFate(spec, first, last, length, set.sampleRate);
    if (entry.fate == EpochFate::Kept) {
      for (std::size_t c = 0; c < C; ++c) {
        const std::vector<float> x = rec.readChannel(spec.channels[c], first, set.samples);
        float* row = epoch.data() + c * S;
        std::copy(x.begin(), x.end(), row);
        if (spec.params.baseline) {
          double sum = 0.0;
          for (int64_t k = set.window.baselineFirst; k <= set.window.baselineLast; ++k)
            sum += row[k];
          const double mean = sum / baselineCount;
          for (std::size_t k = 0; k < S; ++k)
            row[k] = static_cast<float>(static_cast<double>(row[k]) - mean);
        }
        if (spec.params.rejectPeakToPeak > 0 && entry.fate == EpochFate::Kept) {
          const auto [lo, hi] = std::minmax_element(row, row + S);
          const double p2p = static_cast<double>(*hi) - static_cast<double>(*lo);
          if (p2p > spec.params.rejectPeakToPeak) {
            entry.fate = EpochFate::PeakToPeak;
            entry.channel = set.channelNames[c];
            entry.peakToPeak = p2p;
          }
        }
      }
      if (entry.fate == EpochFate::Kept) {
        set.data.insert(set.data.end(), epoch.begin(), epoch.end());
        set.condition.push_back(entry.condition);
        set.onset.push_back(a.onset);
      }
    }
    set.log.push_back(entry);
  }
  if (set.condition.empty()) {
    std::string why;
    for (EpochFate f : {EpochFate::OutsideData, EpochFate::BadSegment, EpochFate::PeakToPeak})
      if (set.droppedCount(f))
        why += (why.empty() ? "" : ", ") + std::to_string(set.droppedCount(f)) + " " +
               epochFateName(f);
    throw InvalidParameterError(
        "epochs", "none kept of " + std::to_string(set.log.size()) + " events (" + why + ")",
        "at least one epoch", "raise --reject, shorten the window or check the bad segments");
  }
  ctx.progress(1.0, "epoching");
  return set;
}

}  // namespace modescope
