// The user's bad marks as the engine sees them, following MNE-Python's model: bad channels are a
// flag of the channel (ChannelInfo::bad, MNE's info["bads"]); bad segments are annotations whose
// text begins with "bad" in any case ("BAD_muscle", "bad segment": MNE's reject_by_annotation
// convention), so they travel with the annotations through EDF+/BDF+ and HDF5 files.
//
// Thread rules: pure functions on values; safe from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// The text a bad segment marked in the window gets ("BAD_" prefix, as MNE's raw.plot()).
inline constexpr const char* kBadSegmentText = "BAD_segment";

bool isBadSegment(const Annotation& a);
// The bad segments among `annotations`, sorted by onset.
std::vector<Annotation> badSegments(const std::vector<Annotation>& annotations);
// Indices of the channels flagged bad, ascending.
std::vector<std::size_t> badChannelIndices(const Recording& rec);

// The parts of [start, end) (seconds) outside every segment, in order; seconds covered by the
// segments within [start, end) in `covered` (overlaps counted once).
struct TimeRange {
  double start = 0.0, end = 0.0;
};
std::vector<TimeRange> goodRanges(const std::vector<Annotation>& segments, double start, double end,
                                  double* covered = nullptr);

// Removes from `block` every sample whose time (firstSample + i) / sampleRate lies in a bad
// segment, joining what is left (MNE's reject_by_annotation="omit"). Returns the samples removed.
int64_t dropBadSamples(SignalBlock& block, const std::vector<Annotation>& segments);

// A copy of `rec` (sharing its samples) carrying the user's marks: each channel's flag set to
// whether its name or label is in `badChannels` (case-insensitive), and the bad segments among
// `userAnnotations` added to the annotations (kept sorted by onset). What the window hands to
// methods and exports, so that they see the marks as they would see a file's.
std::shared_ptr<const Recording> withBadMarks(const Recording& rec,
                                              const std::vector<std::string>& badChannels,
                                              const std::vector<Annotation>& userAnnotations);

}  // namespace modescope
