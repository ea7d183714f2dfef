// BIDS `*_channels.tsv` (BIDS specification, "Electroencephalography": "Channels description"),
// the sidecar that carries what EDF/BDF have no place for: each channel's status, "good" or
// "bad" (MNE-BIDS writes and reads info["bads"] through it). ModeScope writes it beside an EDF+/
// BDF+ export when a channel is marked bad, and reads it back when it opens such a file.
//
// Columns written: name, type, units, sampling_frequency, low_cutoff, high_cutoff, status,
// status_description. Types use BIDS's codes (EEG, EOG, ECG, EMG, TRIG, MISC); cut-offs are "n/a"
// (EDF keeps its prefilter text in the header).
//
// Thread rules: free functions without shared state.
#pragma once

#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// The sidecar's path for a recording file, by BIDS naming: "sub-01_task-rest_eeg.edf" ->
// "sub-01_task-rest_channels.tsv" (the modality suffix _eeg/_ieeg/_meg is replaced), "rec.edf"
// -> "rec_channels.tsv".
std::string bidsChannelsPathFor(const std::string& recordingPath);

// The table's text. One row per channel; status "bad" with the description "marked bad in
// ModeScope" for ChannelInfo::bad, else "good".
std::string bidsChannelsTsv(const Recording& rec);
// Written atomically (engine/io/atomic_file.h). Throws OutputError.
void writeBidsChannelsTsv(const Recording& rec, const std::string& path);

// The names of the rows whose status is "bad". Throws InvalidInputError naming the file and
// line for a table without a "name" column or a row with fewer cells than the header.
std::vector<std::string> readBidsBadChannels(const std::string& path);

// Flags the channels named bad in `path` (matching name or label, case-insensitive); returns how
// many were flagged. Names not in the recording are ignored (a sidecar of another selection).
std::size_t applyBidsChannelStatus(Recording& rec, const std::string& path);

// When `recordingPath`'s sidecar (bidsChannelsPathFor) exists: applies its status and adds an
// Info diagnostic naming the sidecar and the channels flagged; a sidecar that cannot be read
// becomes a Warning diagnostic (the recording still opens).
void applyBidsSidecarIfPresent(Recording& rec, const std::string& recordingPath);

}  // namespace modescope
