// A recording whose samples are those of another except on some channels over one range of
// samples, where new samples replace them (cleaning by EMD row or ICA component rejection). The
// original is read lazily; only the replaced samples are held in memory.
//
// Thread rules: the result is immutable and as thread-safe as the base recording's source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// Channel index -> its replacement samples, all starting at `firstSample` and all the same
// length, at `sampleRate`. Throws InvalidParameterError (with `remedy`) when a channel does not
// exist, has another sample rate, or the range does not lie inside it; when base is null.
std::shared_ptr<Recording> patchedRecording(std::shared_ptr<const Recording> base,
                                            double sampleRate, int64_t firstSample,
                                            std::map<std::size_t, std::vector<float>> replacement,
                                            const std::string& remedy);

}  // namespace modescope
