// What `modescope-cli info` prints and the GUI's file-information panel shows: a readable summary
// of a recording and a JSON document with a stable structure (docs/cli.md, "info --json").
//
// The JSON object (key order fixed; new keys may be added, existing keys keep their meaning):
//   info_version  1
//   file          the path as given
//   format        "EDF+", "BDF", "HDF5 (ModeScope)", ...
//   reader        "EDFlib", "BioSig", "HDF5", "memory"
//   start_time    ISO 8601 as written in the file, or null when unknown
//   duration_s    seconds (the longest channel)
//   patient       {name, code, sex, birthdate}   strings, "" when absent
//   recording     {id, technician, equipment, admin_code}
//   channel_count, annotation_count
//   channels      [{index (1-based), label, name, type, unit, sample_rate (Hz), samples,
//                   physical_min, physical_max, prefilter, transducer,
//                   position: {x, y, z} on the unit sphere or null}]
//   annotations   [{onset (s from start), duration (s), text}]   all of them
//   diagnostics   [{severity ("info"|"warning"), code, message}]
#pragma once

#include <cstddef>
#include <string>

#include "app/core/json_writer.h"
#include "engine/core/recording.h"

namespace modescope {

struct SummaryOptions {
  bool allAnnotations = false;  // list every annotation, not only the first `annotationPreview`
  std::size_t annotationPreview = 5;
  bool channelTable = false;  // append one row per channel
};

// Multi-line text, every line ending in '\n'. `displayPath` is what the user passed.
std::string formatRecordingSummary(const Recording& rec, const std::string& displayPath,
                                   const SummaryOptions& options = {});

// Writes the object described above as the writer's next value.
void writeRecordingJson(JsonWriter& w, const Recording& rec, const std::string& displayPath);

// "160 Hz (64 channels)" or "512 Hz (32 channels), 1 Hz (1 channel)": rates grouped, the most
// common first.
std::string describeSampleRates(const Recording& rec);

// "0:02:05" or "1:00:00.500": hours, minutes, seconds (milliseconds when not whole).
std::string formatClockDuration(double seconds);

}  // namespace modescope
