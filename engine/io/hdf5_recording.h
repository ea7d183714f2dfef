// Recordings in HDF5, ModeScope schema (docs/hdf5-schema.md). Reading is paged (hyperslabs).
#pragma once

#include <memory>
#include <string>

#include "engine/core/job_context.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"

namespace H5 {
class Group;
}

namespace modescope {

// True if the file has the ModeScope recording schema (attribute "modescope_schema").
bool isModeScopeHdf5(const std::string& path);

// Throws InvalidInputError for HDF5 of another schema ("/modescope_schema attribute missing:
// this HDF5 file was not written by ModeScope; convert it with ...").
std::shared_ptr<Recording> openHdf5Recording(const std::string& path);

// Writes `rec` into `group` (used for whole files and for job results inside a session file).
void writeRecordingToGroup(const Recording& rec, H5::Group& group, const Provenance& provenance,
                           JobContext& ctx);
// Reads a recording written by writeRecordingToGroup (samples loaded into memory).
std::shared_ptr<Recording> readRecordingFromGroup(const H5::Group& group, const std::string& path);

}  // namespace modescope
