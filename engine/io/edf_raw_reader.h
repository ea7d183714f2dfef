// Digital samples of one EDF/BDF signal read straight from the file, using a header checked by
// checkEdfHeader. Used for trigger channels: EDFlib clips samples to the digital range, but a
// trigger word is not a measurement and is used as stored (as MNE does).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/io/edf_header.h"
#include "engine/io/trigger_channel.h"

namespace modescope {

// `signal` indexes h.signals (annotation signals included). The reader reads samples of the
// first h.recordsInFile records, 16-bit (EDF) or 24-bit (BDF) little-endian two's complement,
// and converts them to trigger codes: the digital value for BDF, the physical value rounded to an
// integer for EDF (see trigger_channel.h). Throws InvalidInputError on a short read.
TriggerCodeReader edfRawTriggerReader(const std::string& path, const EdfHeader& h,
                                      std::size_t signal);

}  // namespace modescope
