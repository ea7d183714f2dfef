// A lazy cut of a recording: chosen channels over a time range, samples still read on demand from
// the original source (a `convert --channels ... --start ... --duration ...` of a long file does
// not load it into memory). Unlike extractBlock(), channels may keep different sample rates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/core/selection.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"

namespace modescope {

// `channels`: indices into rec (in output order). The range is [startSeconds, startSeconds +
// durationSeconds); durationSeconds < 0 means to the end. Per channel the first sample is
// round(start * rate) and the last one before round((start + duration) * rate). Annotations whose
// onset lies in the range are kept, shifted to the new start; the start date-time moves by
// `startSeconds` when it is a parseable ISO 8601 time. Throws InvalidParameterError (parameters
// "channels", "start", "duration") for an empty selection, a start outside the recording, a
// non-positive duration, or a range that leaves a channel without samples.
std::shared_ptr<const Recording> selectRecording(const std::shared_ptr<const Recording>& rec,
                                                 const std::vector<std::size_t>& channels,
                                                 double startSeconds, double durationSeconds);

// What a method adds to the one selection check: the fewest channels it works on, why (the
// message's "expected" part: "at least 2 channels (ICA unmixes several channels)") and what to do.
struct SelectionNeeds {
  std::size_t minChannels = 1;
  std::string why;     // "" or a reason, shown in parentheses
  std::string remedy;  // "" or what to do instead
};

// What the check found: the channels' one sample rate and the samples extractBlock will cut for
// the range (the same rounding: first round(start * rate), at most round(duration * rate), ending
// at the shortest channel).
struct CheckedSelection {
  double sampleRate = 0.0;  // Hz
  int64_t samples = 0;
};

// The one check every method job (EMD family, MEMD, ICA, AR spectra, entropy, time-frequency,
// epochs) and the command line make on a Selection before any sample is read, in this order:
//  - "channels": at least needs.minChannels, each naming a channel of `rec` (the message counts
//    channels from 1, as --channels and pipeline files do), all at one positive sample rate (the
//    message names a channel at each rate);
//  - "start": finite, 0 <= start < rec.duration();
//  - "duration": finite and not 0 (< 0 means to the end), and a range holding at least one sample.
// Each refusal is an InvalidParameterError naming the parameter, the value found and what is
// allowed (MNE's _check_option shape). Methods check their own minimum length on `samples`.
CheckedSelection checkSelection(const Recording& rec, const Selection& selection,
                                const SelectionNeeds& needs = {});

// For provenance: "channels Fc5, Fc3; 10-20 s" / "all 64 channels; 0-125 s", and what a range
// ending after the recording became ("...; 100-125 s (600 s from 100 s asked for, ...)",
// truncatedRangeNote).
std::string describeSelection(const Recording& rec, const std::vector<std::size_t>& channels,
                              double startSeconds, double durationSeconds);

// How a method treated the bad segments (engine/core/bad_marks.h) in its range: kept (methods
// that need contiguous samples: EMD, MEMD, time-frequency, entropy) or skipped (ICA, as MNE's
// reject_by_annotation).
enum class BadSegmentUse { Kept, Skipped };

// What every method job records of its run besides method and parameters: the backend, this
// software's version, the input file, the selection in words (describeSelection), the time now
// and the wall time; and, where the recording has them, the bad marks: "badChannels" (those left
// out of `channels`, and any used although marked bad) and "badSegments" (how many lie in the
// range, their seconds, and `segments`).
void stampJobProvenance(Provenance& prov, const std::string& backend, const std::string& inputFile,
                        const Recording& rec, const std::vector<std::size_t>& channels,
                        double startSeconds, double durationSeconds, double wallSeconds,
                        BadSegmentUse segments = BadSegmentUse::Kept);

// Adds `seconds` to an ISO 8601 local time "YYYY-MM-DDTHH:MM:SS[.f...]" (fraction kept to
// 100 ns, trailing zeros dropped); returns "" when `iso` does not parse.
std::string shiftIsoDateTime(const std::string& iso, double seconds);

}  // namespace modescope
