// A view of a recording restricted to some of its channels, without copying samples: what the
// browser shows when the user unticks channels in the channel table.
#pragma once

#include <memory>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct ChannelSubset {
  std::shared_ptr<const Recording> recording;  // the full one itself when every channel is kept
  std::vector<int> toFull;                     // subset channel index -> full channel index
  // Full channel index -> subset index, or -1 when the channel is hidden.
  int toSubset(int fullIndex) const;
};

// keep[i] says whether channel i stays; a shorter `keep` keeps the remaining channels. Samples are
// read through the full recording's source (which the subset keeps alive).
ChannelSubset makeChannelSubset(std::shared_ptr<const Recording> full,
                                const std::vector<bool>& keep);

}  // namespace modescope
