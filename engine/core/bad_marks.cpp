#include "engine/core/bad_marks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/core/text.h"

namespace modescope {

bool isBadSegment(const Annotation& a) { return startsWithIgnoreCase(trim(a.text), "bad"); }

std::vector<Annotation> badSegments(const std::vector<Annotation>& annotations) {
  std::vector<Annotation> out;
  for (const Annotation& a : annotations)
    if (isBadSegment(a)) out.push_back(a);
  std::stable_sort(out.begin(), out.end(),
                   [](const Annotation& x, const Annotation& y) { return x.onset < y.onset; });
  return out;
}

std::vector<std::size_t> badChannelIndices(const Recording& rec) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rec.channels.size(); ++i)
    if (rec.channels[i].bad) out.push_back(i);
  return out;
}

std::vector<TimeRange> goodRanges(const std::vector<Annotation>& segments, double start, double end,
                                  double* covered) {
  std::vector<TimeRange> bad;
  for (const Annotation& a : segments) {
    const double s = std::max(start, a.onset), e = std::min(end, a.onset + a.duration);
    if (e > s) bad.push_back({s, e});
  }
  std::sort(bad.begin(), bad.end(),
            [](const TimeRange& x, const TimeRange& y) { return x.start < y.start; });
  std::vector<TimeRange> good;
  double cursor = start, sum = 0.0;
  for (const TimeRange& b : bad) {
    if (b.start > cursor) good.push_back({cursor, b.start});
    if (b.end > cursor) {
      sum += b.end - std::max(cursor, b.start);
      cursor = b.end;
    }
  }
  if (end > cursor) good.push_back({cursor, end});
  if (covered) *covered = sum;
  return good;
}

int64_t dropBadSamples(SignalBlock& block, const std::vector<Annotation>& segments) {
  if (segments.empty() || block.samples <= 0 || !(block.sampleRate > 0)) return 0;
  const int64_t n = block.samples;
  std::vector<char> keep(static_cast<std::size_t>(n), 1);
  for (const Annotation& a : segments) {
    // Sample i covers time (firstSample + i) / rate; the segment [onset, onset + duration).
    const int64_t first = std::max<int64_t>(
        0, static_cast<int64_t>(std::ceil(a.onset * block.sampleRate)) - block.firstSample);
    const int64_t last = std::min<int64_t>(
        n, static_cast<int64_t>(std::ceil((a.onset + a.duration) * block.sampleRate)) -
               block.firstSample);
    for (int64_t i = first; i < last; ++i) keep[static_cast<std::size_t>(i)] = 0;
  }
  const int64_t kept = std::count(keep.begin(), keep.end(), 1);
  if (kept == n) return 0;
  std::vector<float> data(block.channels.size() * static_cast<std::size_t>(kept));
  for (std::size_t c = 0; c < block.channels.size(); ++c) {
    const float* in = block.channel(c);
    float* out = data.data() + c * static_cast<std::size_t>(kept);
    for (int64_t i = 0; i < n; ++i)
      if (keep[static_cast<std::size_t>(i)]) *out++ = in[i];
  }
  block.data = std::move(data);
  block.samples = kept;
  return n - kept;
}

std::shared_ptr<const Recording> withBadMarks(const Recording& rec,
                                              const std::vector<std::string>& badChannels,
                                              const std::vector<Annotation>& userAnnotations) {
  auto out = std::make_shared<Recording>(rec);
  for (ChannelInfo& c : out->channels) {
    c.bad = false;
    for (const std::string& name : badChannels)
      if (equalsIgnoreCase(name, c.name) || equalsIgnoreCase(name, c.label)) c.bad = true;
  }
  const std::vector<Annotation> segments = badSegments(userAnnotations);
  if (!segments.empty()) {
    out->annotations.insert(out->annotations.end(), segments.begin(), segments.end());
    std::stable_sort(out->annotations.begin(), out->annotations.end(),
                     [](const Annotation& x, const Annotation& y) { return x.onset < y.onset; });
  }
  return out;
}

}  // namespace modescope
