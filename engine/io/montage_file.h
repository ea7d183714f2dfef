// Montage files (the format is described in engine/montage/derivations.h and docs/montages.md):
// read with line-numbered errors, written atomically (a montage never appears half-written).
#pragma once

#include <string>

#include "engine/montage/derivations.h"

namespace modescope {

// Throws InvalidInputError when the file cannot be read or is not a montage.
DerivationMontage readMontageFile(const std::string& path);
// Throws OutputError when it cannot be written.
void writeMontageFile(const DerivationMontage& montage, const std::string& path);

}  // namespace modescope
