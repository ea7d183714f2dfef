// Annotations as text tables, for exchange with other tools (docs/annotations.md):
//
// - CSV: a header "onset,duration,description" (MNE's Annotations.to_data_frame / EEGLAB event
//   export column names; "text", "annotation", "label" and "trial_type" are also read as the
//   description), onset and duration in seconds from the recording start, RFC 4180 quoting
//   (descriptions with commas, quotes or line breaks are quoted, quotes doubled).
// - BIDS events.tsv (BIDS 1.9, "Task events"): tab-separated, "onset", "duration" required and
//   "trial_type" for the text; "n/a" as a duration reads as 0; written with a "sample" column
//   (round(onset fs)) when a sample rate is given.
//
// Thread rules: pure functions.
#pragma once

#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

enum class AnnotationTableFormat { Csv, BidsEvents };

// By name: "*.tsv" (events.tsv) -> BidsEvents, "*.csv" -> Csv. Throws InvalidParameterError for
// other names, saying which names are understood.
AnnotationTableFormat annotationFormatForPath(const std::string& path);

// The table's text. sampleRate > 0 adds BIDS's "sample" column.
std::string formatAnnotationTable(const std::vector<Annotation>& annotations,
                                  AnnotationTableFormat format, double sampleRate = 0.0);

// Parses a table; `source` names it in errors. Throws InvalidInputError naming the line and
// column for a missing header column, a number that does not parse, a negative duration or
// onset, or a wrong count of fields. The result is sorted by onset (stable).
std::vector<Annotation> parseAnnotationTable(const std::string& text, AnnotationTableFormat format,
                                             const std::string& source);

// The same rows in the file's order, each with the line it starts on (for errors about a row
// that only the caller can judge, such as an onset beyond the recording).
struct AnnotationRow {
  Annotation annotation;
  int line = 0;
};
std::vector<AnnotationRow> parseAnnotationRows(const std::string& text,
                                               AnnotationTableFormat format,
                                               const std::string& source);

// File forms: atomic write (OutputError), read (InvalidInputError when unreadable).
void writeAnnotationFile(const std::string& path, const std::vector<Annotation>& annotations,
                         double sampleRate = 0.0);
std::vector<Annotation> readAnnotationFile(const std::string& path);
std::vector<AnnotationRow> readAnnotationFileRows(const std::string& path);

// `base` plus `added`, sorted by onset (stable: at equal onsets the base's come first).
std::vector<Annotation> mergeAnnotations(std::vector<Annotation> base,
                                         const std::vector<Annotation>& added);

}  // namespace modescope
