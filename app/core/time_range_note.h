// What a time range that ends after the recording becomes (issue 19): "the first 600 s" of a
// 125 s recording is not refused (as MNE's raw.crop(tmax) past the end is not, with a warning;
// a start beyond the end is refused, checkSelection), but it is said, in the same words by
// the command line (a note), the dialogs (under the range) and the provenance's selection
// (describeSelection).
//
// Thread rules: pure functions; safe from any thread.
#pragma once

#include <string>

#include "engine/core/recording.h"

namespace modescope {

// "" when [start, start + duration) ends within `recordingSeconds` (+ `toleranceSeconds`, for
// rounding) or duration < 0 (to the end); else "600 s from 100 s asked for, the recording ends
// at 125 s: 100-125 s is used".
std::string truncatedRangeNote(double recordingSeconds, double startSeconds, double durationSeconds,
                               double toleranceSeconds);
// The same for `rec`, with half a sample of its fastest channel as the tolerance.
std::string truncatedRangeNote(const Recording& rec, double startSeconds, double durationSeconds);

}  // namespace modescope
