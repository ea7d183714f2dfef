#include "app/core/reviewed_marks_files.h"

#include <algorithm>

#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/bids_channels.h"

namespace modescope {

ReviewedMarksFiles readReviewedMarksFiles(const std::string& badSegmentsPath,
                                          const std::string& badChannelsPath) {
  ReviewedMarksFiles out;
  out.badSegmentsPath = badSegmentsPath;
  out.badChannelsPath = badChannelsPath;
  if (!badSegmentsPath.empty()) {
    for (AnnotationRow& row : readAnnotationFileRows(badSegmentsPath))
      if (isBadSegment(row.annotation)) out.badSegments.push_back(std::move(row));
  }
  if (!badChannelsPath.empty()) out.badChannels = readBidsBadChannels(badChannelsPath);
  return out;
}

std::shared_ptr<const Recording> withReviewedMarks(const Recording& rec,
                                                   const ReviewedMarksFiles& marks) {
  double fastest = 0.0;
  for (const ChannelInfo& c : rec.channels) fastest = std::max(fastest, c.sampleRate);
  // A segment ending on the last sample's edge is within the recording; rounding of a table's
  // 12 significant digits must not refuse it.
  const double end = rec.duration() + (fastest > 0 ? 0.5 / fastest : 0.0);
  std::vector<Annotation> segments;
  for (const AnnotationRow& row : marks.badSegments) {
    const Annotation& a = row.annotation;
    if (a.onset + a.duration > end)
      throw InvalidInputError(
          marks.badSegmentsPath, "line " + std::to_string(row.line),
          "'" + a.text + "' from " + formatNumber(a.onset) + " s to " +
              formatNumber(a.onset + a.duration) + " s",
          "a segment within the recording's " + formatNumber(rec.duration()) + " s",
          "check that the table belongs to " +
              (rec.sourcePath.empty() ? std::string("this recording") : rec.sourcePath));
    segments.push_back(a);
  }
  std::vector<std::string> bad;
  for (std::size_t i : badChannelIndices(rec)) bad.push_back(rec.channels[i].name);
  for (const std::string& name : marks.badChannels) {
    const bool known = std::any_of(rec.channels.begin(), rec.channels.end(), [&](const auto& c) {
      return equalsIgnoreCase(name, c.name) || equalsIgnoreCase(name, c.label);
    });
    if (!known)
      throw InvalidInputError(
          marks.badChannelsPath, "column 'name'",
          "'" + name + "' (status bad), not a channel of the recording",
          "the name or label of one of its " + std::to_string(rec.channelCount()) + " channels",
          "check that the table belongs to " +
              (rec.sourcePath.empty() ? std::string("this recording") : rec.sourcePath));
    bad.push_back(name);
  }
  // withBadMarks adds the bad segments among its list to the recording's own annotations.
  return withBadMarks(rec, bad, segments);
}

std::string describeReviewedMarks(const ReviewedMarksFiles& marks) {
  std::string out;
  if (!marks.badSegmentsPath.empty()) {
    double seconds = 0.0;
    for (const AnnotationRow& row : marks.badSegments) seconds += row.annotation.duration;
    out = std::to_string(marks.badSegments.size()) + " bad segment(s) (" + formatNumber(seconds) +
          " s) from " + marks.badSegmentsPath;
  }
  if (!marks.badChannelsPath.empty()) {
    std::string names;
    for (const std::string& n : marks.badChannels) names += (names.empty() ? "" : ", ") + n;
    out += (out.empty() ? "" : "; ") + std::to_string(marks.badChannels.size()) +
           " bad channel(s)" + (names.empty() ? "" : " (" + names + ")") + " from " +
           marks.badChannelsPath;
  }
  return out;
}

}  // namespace modescope
