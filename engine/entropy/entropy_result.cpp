// Channel names for an entropy result (entropy_result.h).
#include "engine/entropy/entropy_result.h"

#include <string>

#include "engine/core/error.h"

namespace modescope {

void nameEntropyChannels(EntropyMatrixResult& result, const Recording& recording) {
  std::vector<std::string> names;
  names.reserve(result.channels.size());
  for (std::size_t c : result.channels) {
    if (c >= recording.channelCount())
      throw InvalidParameterError("channels", "index " + std::to_string(c),
                                  "an index below " + std::to_string(recording.channelCount()),
                                  "name the result against the recording it was computed from");
    names.push_back(recording.channels[c].name.empty() ? recording.channels[c].label
                                                       : recording.channels[c].name);
  }
  result.channelNames = std::move(names);
}

}  // namespace modescope
