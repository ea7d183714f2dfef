// BioSig import, run only in a child process (`modescope-cli biosig-import IN OUT.h5`): reads any
// format BioSig knows and writes a ModeScope HDF5 file (docs/hdf5-schema.md). The parent process
// (openRecording) starts the child with a time limit and reads the HDF5 file.
#pragma once

#include <string>

namespace modescope {

// Returns 0 on success; on failure prints one line to stderr and returns 2.
int runBiosigImport(const std::string& inputPath, const std::string& outputHdf5Path);

}  // namespace modescope
