// Internal to the EDF header checker: checks the annotation signals of an EDF+/BDF+ file
// (EDF+ spec 2.2.2-2.2.4): every data record's first annotation signal starts with a
// time-keeping TAL ("+<onset>\x14\x14\0"), record onsets advance by the record duration in a
// continuous (+C) file, TALs are well formed, and each annotation signal ends with a 0 byte.
// EDFlib refuses files that break these rules; MNE and BioSig read them.
#pragma once

#include <istream>
#include <vector>

#include "engine/io/edf_header.h"

namespace modescope {

// Reads the annotation signals of the first `h.recordsInFile` records from `in` (the open file).
// Returns one finding per kind of problem (with the number of records affected); never throws
// for bad content. Sets h.startOffset from the first record's time-keeping TAL.
std::vector<EdfFinding> checkAnnotationSignals(std::istream& in, EdfHeader& h);

}  // namespace modescope
