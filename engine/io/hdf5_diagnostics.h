// Internal: the "diagnostics" group of the recording, AR, ICA and entropy files
// (docs/hdf5-schema.md): string datasets severity ("info" / "warning"), code and message, one
// row a diagnostic. (The EMD file adds a "stage" column and keeps its own code.) Callers hold
// h5::hdf5Mutex().
#pragma once

#include <H5Cpp.h>

#include "engine/core/diagnostics.h"
#include "engine/io/hdf5_util.h"

namespace modescope::h5 {

// Creates `parent`/diagnostics (which must not exist yet). Throws H5::Exception.
void writeDiagnostics(H5::Group& parent, const Diagnostics& diagnostics);

// Reads `parent`/diagnostics. A missing group gives no diagnostics, or, when `required`, the
// reader's missing-group error; code and message must have as many rows as severity (the
// reader's error otherwise); a severity other than "warning" reads as info.
Diagnostics readDiagnostics(const Reader& reader, const H5::Group& parent, bool required = false);

}  // namespace modescope::h5
