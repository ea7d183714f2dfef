// The activations of an ICA decomposition as a recording, so that the signal browser shows them
// (scrolling, zoom, annotations, export) like any channels: channel k is "IC k+1", its samples
// s_k = unmixing(k, :) * (x - mean) computed on demand from the original recording over its whole
// length (the unmixing applies outside the decomposed range too; EEGLAB and MNE show it so).
//
// Thread rules: the recording is immutable; its source is safe to read from several threads (a
// mutex guards a one-page cache of the original channels, because a browser asks for the
// components one by one over the same range and each needs all the channels).
#pragma once

#include <memory>

#include "engine/core/recording.h"
#include "engine/io/hdf5_ica.h"

namespace modescope {

// `base`: the recording `file` was computed on (checked as ica-apply checks it; throws
// InvalidParameterError otherwise). Channels "IC 1".."IC r" of type MISC, unit "a.u.", at the
// decomposition's rate, as long as the shortest decomposed channel; base's annotations and
// start time; one Info diagnostic naming the decomposition.
std::shared_ptr<const Recording> icaActivationRecording(std::shared_ptr<const Recording> base,
                                                        std::shared_ptr<const IcaFile> file);

}  // namespace modescope
