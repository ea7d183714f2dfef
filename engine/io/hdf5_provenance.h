// Internal: a Provenance stored as the group "provenance" of a result or session group
// (docs/hdf5-schema.md, "Provenance"). Callers hold h5::hdf5Mutex().
#pragma once

#include <H5Cpp.h>

#include "engine/core/provenance.h"
#include "engine/io/hdf5_util.h"

namespace modescope::h5 {

// Creates `parent`/provenance (which must not exist yet). Throws H5::Exception.
void writeProvenance(H5::Group& parent, const Provenance& p);

// Reads `parent`/provenance; a missing group gives an empty Provenance (older or foreign
// writers), a malformed one an InvalidInputError.
Provenance readProvenance(const Reader& reader, const H5::Group& parent);

}  // namespace modescope::h5
