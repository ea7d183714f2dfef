// Channel selections as users type them, shared by the CLI (`--channels`) and the GUI's
// selection field.
//
// Syntax: comma-separated items, each one of
//   - a 1-based index:            "5"
//   - a 1-based inclusive range:  "1-8"
//   - a channel name or label:    "Cz", "EEG Fp1-REF" (case-insensitive; the normalised 10-05 name
//                                 is tried first, then the label as stored in the file)
// A pure number is always an index. An item like "1-8" is a range unless a channel is literally
// labelled so. Order is kept as written; an empty item or a channel listed twice is an error.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// Throws InvalidParameterError (parameter "channels") naming the item that did not match, the
// valid index range, and how to list the channels.
std::vector<std::size_t> parseChannelSelection(const Recording& rec, const std::string& text);

// Short human text for provenance and messages: "Cz, C3, C4" for up to 8 channels, else
// "64 channels (Fc5 ... Iz)".
std::string describeChannels(const Recording& rec, const std::vector<std::size_t>& channels);
// "10 s from 5 s", or "from 5 s to the end" for durationSeconds < 0 (job titles and tabs).
std::string describeTimeRange(double startSeconds, double durationSeconds);

// The channels a per-channel method uses when the user gave no selection: every channel that is
// not a trigger/status (STIM) channel nor marked bad (ChannelInfo::bad), restricted to the sample
// rate most of them share (methods need one rate). `note` receives a sentence when channels were
// left out, else "".
// Filters pass BadChannels::Keep: a filtered recording keeps every channel, bad ones included
// (as MNE's raw.filter does), so that they can still be inspected or interpolated.
enum class BadChannels { LeaveOut, Keep };
std::vector<std::size_t> defaultMethodChannels(const Recording& rec, std::string* note = nullptr,
                                               BadChannels bad = BadChannels::LeaveOut);

}  // namespace modescope
