#include "app/core/recording_selection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "app/core/channel_selection.h"
#include "app/core/time_range_note.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

class SelectionSource final : public SignalSource {
 public:
  SelectionSource(std::shared_ptr<const SignalSource> base, std::vector<std::size_t> map,
                  std::vector<int64_t> offsets)
      : base_(std::move(base)), map_(std::move(map)), offsets_(std::move(offsets)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    base_->read(map_.at(channel), offsets_.at(channel) + first, count, out);
  }

 private:
  std::shared_ptr<const SignalSource> base_;
  std::vector<std::size_t> map_;
  std::vector<int64_t> offsets_;
};

}  // namespace

CheckedSelection checkSelection(const Recording& rec, const Selection& selection,
                                const SelectionNeeds& needs) {
  const std::vector<std::size_t>& channels = selection.channels;
  const std::size_t fewest = std::max<std::size_t>(needs.minChannels, 1);
  if (channels.size() < fewest) {
    throw InvalidParameterError(
        "channels",
        channels.empty() ? std::string("none") : std::to_string(channels.size()) + " channel(s)",
        "at least " + std::to_string(fewest) + (fewest == 1 ? " channel" : " channels") +
            (needs.why.empty() ? std::string() : " (" + needs.why + ")"),
        needs.remedy.empty() ? std::string("select more channels") : needs.remedy);
  }
  for (std::size_t ch : channels) {
    if (ch >= rec.channelCount()) {
      throw InvalidParameterError(
          "channels", "channel " + std::to_string(ch + 1),
          "a channel of the recording, 1.." + std::to_string(rec.channelCount()),
          "select channels of this recording");
    }
  }
  const ChannelInfo& first = rec.channels[channels.front()];
  for (std::size_t ch : channels) {
    const ChannelInfo& other = rec.channels[ch];
    if (other.sampleRate != first.sampleRate) {
      throw InvalidParameterError("channels",
                                  "mixed sample rates (" + first.name + " at " +
                                      formatNumber(first.sampleRate) + " Hz, " + other.name +
                                      " at " + formatNumber(other.sampleRate) + " Hz)",
                                  "one sample rate", "select channels that share a sample rate");
    }
  }
  const double rate = first.sampleRate;
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    throw InvalidParameterError(
        "channels", "a sample rate of " + formatNumber(rate) + " Hz (" + first.name + ")",
        "a positive sample rate");
  }
  const double start = selection.startSeconds;
  if (!std::isfinite(start) || start < 0.0 || start >= rec.duration()) {
    throw InvalidParameterError("start", formatNumber(start) + " s",
                                "0 to " + formatNumber(rec.duration()) + " s",
                                "start the range inside the recording");
  }
  const double duration = selection.durationSeconds;
  if (!std::isfinite(duration) || duration == 0.0) {
    throw InvalidParameterError("duration", formatNumber(duration) + " s",
                                "a positive length, or a negative value for 'to the end'");
  }
  // The same rounding as extractBlock: what the check counts is what the method will see.
  int64_t available = first.sampleCount;
  for (std::size_t ch : channels) available = std::min(available, rec.channels[ch].sampleCount);
  available -= std::llround(start * rate);
  const int64_t samples =
      duration < 0.0 ? available : std::min<int64_t>(available, std::llround(duration * rate));
  if (samples <= 0) {
    throw InvalidParameterError("duration", formatNumber(duration) + " s",
                                "a range that holds at least one sample",
                                "select a longer range or an earlier start");
  }
  return {rate, samples};
}

void stampJobProvenance(Provenance& prov, const std::string& backend, const std::string& inputFile,
                        const Recording& rec, const std::vector<std::size_t>& channels,
                        double startSeconds, double durationSeconds, double wallSeconds,
                        BadSegmentUse segments) {
  prov.backend = backend;
  prov.softwareVersion = softwareVersion();
  prov.inputFile = inputFile;
  prov.selection = describeSelection(rec, channels, startSeconds, durationSeconds);
  prov.createdAt = utcNowIso8601();
  prov.wallSeconds = wallSeconds;

  std::vector<std::size_t> leftOut, usedBad;
  for (std::size_t i : badChannelIndices(rec)) {
    const bool used = std::find(channels.begin(), channels.end(), i) != channels.end();
    (used ? usedBad : leftOut).push_back(i);
  }
  std::string badChannels;
  if (!leftOut.empty()) badChannels = "left out: " + describeChannels(rec, leftOut);
  if (!usedBad.empty()) {
    badChannels += (badChannels.empty() ? "" : "; ") + std::string("used although marked bad: ") +
                   describeChannels(rec, usedBad);
  }
  if (!badChannels.empty()) prov.parameters.emplace_back("badChannels", badChannels);

  const double end = durationSeconds < 0 ? rec.duration() : startSeconds + durationSeconds;
  std::size_t inRange = 0;
  const std::vector<Annotation> bad = badSegments(rec.annotations);
  for (const Annotation& a : bad)
    if (a.onset < end && a.onset + a.duration > startSeconds) ++inRange;
  if (inRange > 0) {
    double covered = 0.0;
    goodRanges(bad, startSeconds, end, &covered);
    prov.parameters.emplace_back(
        "badSegments", std::to_string(inRange) + " in the range (" + formatNumber(covered) +
                           " s), " +
                           (segments == BadSegmentUse::Skipped
                                ? std::string("skipped (their samples left out)")
                                : std::string("kept: the method needs contiguous samples")));
  }
}

std::string shiftIsoDateTime(const std::string& iso, double seconds) {
  int y, mo, d, h, mi, s, consumed = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &consumed) !=
          6 ||
      consumed < 19) {
    return {};
  }
  double frac = 0.0;
  const std::string rest = iso.substr(static_cast<std::size_t>(consumed));
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2 ||
        rest.find_first_not_of("0123456789", 1) != std::string::npos) {
      return {};
    }
    frac = std::stod("0" + rest);
  }
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  // The time is local as written in the file; UTC arithmetic shifts it without time-zone rules.
  const std::time_t base = timegm(&tm);
  if (base == static_cast<std::time_t>(-1)) return {};
  // Keep 100 ns resolution: EDF+ stores the start's fraction of a second in 100 ns units.
  const double total = frac + seconds;
  const double whole = std::floor(total);
  std::time_t t = base + static_cast<std::time_t>(whole);
  long long ticks = std::llround((total - whole) * 1e7);
  if (ticks >= 10000000) ++t, ticks -= 10000000;
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &out);
  std::string r = buf;
  if (ticks != 0) {
    char f[32];
    std::snprintf(f, sizeof f, ".%07lld", ticks);
    std::string digits = f;
    while (digits.back() == '0') digits.pop_back();
    r += digits;
  }
  return r;
}

std::shared_ptr<const Recording> selectRecording(const std::shared_ptr<const Recording>& rec,
                                                 const std::vector<std::size_t>& channels,
                                                 double startSeconds, double durationSeconds) {
  if (channels.empty()) {
    throw InvalidParameterError("channels", "an empty selection", "at least one channel");
  }
  const double total = rec->duration();
  if (!(startSeconds >= 0.0) || startSeconds >= total) {
    throw InvalidParameterError("start", formatNumber(startSeconds) + " s",
                                "a time from 0 to below " + formatNumber(total) + " s",
                                "The recording is " + formatNumber(total) + " s long");
  }
  if (durationSeconds == 0.0 || std::isnan(durationSeconds)) {
    throw InvalidParameterError("duration", formatNumber(durationSeconds) + " s",
                                "a positive number of seconds");
  }
  const double end = durationSeconds < 0 ? total : std::min(total, startSeconds + durationSeconds);

  auto out = std::make_shared<Recording>();
  out->sourcePath = rec->sourcePath;
  out->info = rec->info;
  out->diagnostics = rec->diagnostics;
  if (startSeconds > 0 && !rec->info.startDateTime.empty()) {
    out->info.startDateTime = shiftIsoDateTime(rec->info.startDateTime, startSeconds);
  }
  std::vector<int64_t> offsets;
  for (std::size_t ch : channels) {
    if (ch >= rec->channels.size()) {
      throw InvalidParameterError("channels", "index " + std::to_string(ch + 1),
                                  "1-" + std::to_string(rec->channels.size()));
    }
    ChannelInfo c = rec->channels[ch];
    const int64_t first =
        std::min<int64_t>(c.sampleCount, std::llround(startSeconds * c.sampleRate));
    const int64_t last = std::min<int64_t>(c.sampleCount, std::llround(end * c.sampleRate));
    if (last <= first) {
      throw InvalidParameterError(
          "duration",
          formatNumber(end - startSeconds) + " s from " + formatNumber(startSeconds) + " s",
          "a range holding at least one sample of channel '" + c.name + "' (" +
              formatNumber(c.sampleRate) + " Hz, " +
              formatNumber(static_cast<double>(c.sampleCount) / c.sampleRate) + " s)",
          "Choose a longer range or leave this channel out");
    }
    c.sampleCount = last - first;
    out->channels.push_back(std::move(c));
    offsets.push_back(first);
  }
  for (const auto& a : rec->annotations) {
    if (a.onset >= startSeconds && a.onset < end) {
      out->annotations.push_back({a.onset - startSeconds, a.duration, a.text});
    }
  }
  out->source = std::make_shared<SelectionSource>(rec->source, channels, std::move(offsets));
  return out;
}

std::string describeSelection(const Recording& rec, const std::vector<std::size_t>& channels,
                              double startSeconds, double durationSeconds) {
  bool all = channels.size() == rec.channelCount();
  for (std::size_t i = 0; all && i < channels.size(); ++i) all = channels[i] == i;
  std::string s = all ? "all " + std::to_string(channels.size()) + " channels"
                      : "channels " + describeChannels(rec, channels);
  const double end = durationSeconds < 0 ? rec.duration()
                                         : std::min(rec.duration(), startSeconds + durationSeconds);
  s += "; " + formatNumber(startSeconds) + "-" + formatNumber(end) + " s";
  const std::string truncated = truncatedRangeNote(rec, startSeconds, durationSeconds);
  if (!truncated.empty()) s += " (" + truncated + ")";
  return s;
}

}  // namespace modescope
