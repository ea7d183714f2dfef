// The channel table that ModeScope's result files share (AR, ICA and entropy results;
// docs/hdf5-schema.md): a group `channels` with the 1-D datasets recording_index (int64, 0-based
// channel index in the input recording), name, label, type and unit, in matrix order, and, where
// the schema stores electrode positions, `position` (C x 3 doubles, x right, y nose, z up on the
// unit sphere; NaN rows where unknown).
//
// Thread rules: callers hold the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/io/hdf5_util.h"

namespace modescope {

// A channel a result was computed on, as a reader needs it without the recording.
struct ResultFileChannel {
  std::size_t recordingIndex = 0;     // 0-based channel index in the input recording
  std::string name;                   // normalised name ("Fp1")
  std::string label;                  // as stored in the input file ("EEG Fp1-REF")
  std::string type;                   // channelTypeName ("EEG", "EOG", ...)
  std::string unit;                   // physical unit ("uV")
  std::optional<Position3> position;  // unit-sphere montage position when known
};

enum class ChannelPositions { Omit, Store };

// Creates `parent`/channels. With ChannelPositions::Omit no position dataset is written.
void writeChannelTable(H5::Group& parent, const std::vector<ResultFileChannel>& channels,
                       ChannelPositions positions);

// Reads `parent`/channels: at least one channel, indices >= 0, every dataset of the same length
// (and positions C x 3 with ChannelPositions::Store). A failure names the object and `remedy`.
std::vector<ResultFileChannel> readChannelTable(const h5::Reader& r, const H5::Group& parent,
                                                ChannelPositions positions,
                                                const std::string& remedy);

}  // namespace modescope
