// Reviewed marks from files, for headless runs (issue 19, item 2): a study's pipeline honours the
// bad segments and bad channels a reviewer marked, exchanged as the window and the `annotations`
// command write them.
//
//  - bad segments: an annotation table (CSV or BIDS events.tsv, engine/io/annotation_files.h);
//    its rows whose text begins with "bad" in any case (isBadSegment, MNE's reject_by_annotation
//    convention: "BAD_muscle", "bad") are the segments, the other rows are ignored;
//  - bad channels: a BIDS channels.tsv (engine/io/bids_channels.h): the rows of status "bad".
//
// Reading checks the file alone (the exit-2 errors of a run, before anything is written);
// applying checks it against the recording: a segment that ends beyond the recording, or a
// channel it does not have, names the file and the line or the name (InvalidInputError).
//
// Thread rules: pure functions on values; safe from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"
#include "engine/io/annotation_files.h"

namespace modescope {

struct ReviewedMarksFiles {
  std::string badSegmentsPath;             // "" for none
  std::string badChannelsPath;             // "" for none
  std::vector<AnnotationRow> badSegments;  // read from badSegmentsPath, in the file's order
  std::vector<std::string> badChannels;    // read from badChannelsPath
  bool empty() const { return badSegmentsPath.empty() && badChannelsPath.empty(); }
};

// Reads both files (either path may be ""). Throws InvalidInputError naming the file (and the
// line and column) for a missing or unreadable file or a malformed table.
ReviewedMarksFiles readReviewedMarksFiles(const std::string& badSegmentsPath,
                                          const std::string& badChannelsPath);

// A copy of `rec` (sharing its samples) with the marks added to its own: the segments to its
// annotations, the channels flagged bad (those already flagged stay so). Throws
// InvalidInputError for a segment that ends after the recording (by more than half a sample of
// its fastest channel) or a channel name that is neither a name nor a label of `rec`.
std::shared_ptr<const Recording> withReviewedMarks(const Recording& rec,
                                                   const ReviewedMarksFiles& marks);

// "3 bad segments (41.5 s) from marks.tsv; 2 bad channels (T7, T8) from rec_channels.tsv", or
// "" for no files: said in the run's output and summary.
std::string describeReviewedMarks(const ReviewedMarksFiles& marks);

}  // namespace modescope
