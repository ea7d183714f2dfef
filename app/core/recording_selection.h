// A lazy cut of a recording: chosen channels over a time range, samples still read on demand from
// the original source (a `convert --channels ... --start ... --duration ...` of a long file does
// not load it into memory). Unlike extractBlock(), channels may keep different sample rates.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

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

// The checks every method job (EMD, ICA) makes on its selection before any work: each index
// names a channel of `rec`, the channels share one positive sample rate, and 0 <= startSeconds
// < rec.duration(). Throws InvalidParameterError ("channels", "start") naming the value found.
// Returns the shared sample rate (Hz). `channels` must not be empty (the caller words that
// refusal for its method).
double checkMethodSelection(const Recording& rec, const std::vector<std::size_t>& channels,
                            double startSeconds);

// The channel checks of the GUI's AR and entropy jobs: each index names a channel of `rec` (the
// message gives the 0-based index) and all share one sample rate. Throws InvalidParameterError
// ("channels"); `nameChannel`: the mixed-rate message also names the channel at the second rate.
// Returns the shared rate (0 for no channels).
double checkJobChannelRates(const Recording& rec, const std::vector<std::size_t>& channels,
                            bool nameChannel);

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
