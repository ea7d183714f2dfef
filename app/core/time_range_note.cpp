#include "app/core/time_range_note.h"

#include <algorithm>

#include "engine/core/text.h"

namespace modescope {

std::string truncatedRangeNote(double recordingSeconds, double startSeconds, double durationSeconds,
                               double toleranceSeconds) {
  if (durationSeconds < 0 || startSeconds + durationSeconds <= recordingSeconds + toleranceSeconds)
    return {};
  return formatNumber(durationSeconds) + " s from " + formatNumber(startSeconds) +
         " s asked for, the recording ends at " + formatNumber(recordingSeconds) +
         " s: " + formatNumber(startSeconds) + "-" + formatNumber(recordingSeconds) + " s is used";
}

std::string truncatedRangeNote(const Recording& rec, double startSeconds, double durationSeconds) {
  double fastest = 0.0;
  for (const ChannelInfo& c : rec.channels) fastest = std::max(fastest, c.sampleRate);
  return truncatedRangeNote(rec.duration(), startSeconds, durationSeconds,
                            fastest > 0 ? 0.5 / fastest : 0.0);
}

}  // namespace modescope
