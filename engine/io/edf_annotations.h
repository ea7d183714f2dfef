// EDF+/BDF+ annotations (TALs, EDF+ spec 2.2.2-2.2.4) read with positioned reads of only the
// annotation signals' bytes of each data record.
//
// Why not EDFlib's own annotation pass: on a cold cache it reads far more than those bytes; for a
// 1.84 GB file (256 channels x 1 h x 1 kHz, 10,000 annotations) EDFlib took 3.4 s to open with
// annotations and 3 ms without, while these positioned reads take about 0.2 s. The browser's
// first page must show in under a second.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/io/edf_header.h"

namespace modescope {

// "+12.5" -> 125000000 (100 ns ticks). Onsets need a sign (EDF+ 2.2.2); durations have none.
std::optional<long long> parseTalTime(const std::string& text, bool needSign);

// Every annotation of the first h.recordsInFile records, onsets relative to the recording start
// (the first record's time-keeping onset, h.startOffset, is subtracted), sorted by onset.
// Time-keeping TALs (empty text) are not annotations. A malformed TAL ends the scan of that
// signal in that record (the file was accepted by EDFlib, which checks TAL syntax). Throws
// InvalidInputError if the file cannot be read.
std::vector<Annotation> readEdfAnnotations(const std::string& path, const EdfHeader& h);

}  // namespace modescope
