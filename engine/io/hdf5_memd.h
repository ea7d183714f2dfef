// MEMD / NA-MEMD results in HDF5, schema "modescope-memd/1" (docs/memd.md, "File"): every data
// channel's modes as one IMF-major array (IMF k across all channels is one slice, the multichannel
// view's unit), the sift counts, the direction set used (so a run can be repeated), the
// parameters, diagnostics and provenance. `modescope-cli memd` and the pipeline step write it.
//
// Thread rules: takes the process-wide HDF5 lock (engine/io/hdf5_util.h).
#pragma once

#include <string>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/memd/memd.h"

namespace modescope {

inline constexpr const char* kMemdSchema = "modescope-memd/1";

// Writes `modes` to `path` atomically (a temporary name renamed when complete: a failure or a
// cancel leaves nothing under `path`). `rec` gives the channels' names, labels, types and units
// and must hold every modes.channels[i].channel. Throws OutputError, InvalidParameterError
// (inconsistent arguments), Cancelled.
void writeMemdFile(const std::string& path, const Recording& rec, const MemdResult& modes,
                   JobContext& ctx);

// True if `path` is an HDF5 file whose root says modescope_schema = "modescope-memd/<n>".
bool isMemdFile(const std::string& path);

}  // namespace modescope
