// The recordings of a study (docs/study.md): found under a BIDS root (sub-<label>/[ses-<label>/]
// <eeg|meg|ieeg>/sub-..._<eeg|meg|ieeg>.<ext>, filtered by subject, session, task and run) or
// given as a list of files. Each recording gets the name stem its derivatives keep (all source
// entities, BIDS Derivatives "file naming") and the folder they go to.
//
// Thread rules: plain values; the functions only read the file system.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace modescope {

struct StudyRecording {
  std::string path;    // the recording, absolute
  std::string source;  // "bids:raw:sub-01/eeg/sub-01_task-rest_eeg.edf", or `path` for a list
  std::string folder;  // the derivative folder, relative to the output root ("sub-01/eeg", "")
  std::string stem;    // "sub-01_task-rest_run-1": the entities the derivatives keep
  std::string suffix;  // "eeg", "meg", "ieeg" (BIDS), "" for a list entry without entities
  std::vector<std::pair<std::string, std::string>> entities;  // in file order: {"sub","01"}, ...
  std::string entity(const std::string& key) const;           // "" when absent
};

// Entity values to keep; an empty list keeps every value. Values are given without the key
// ("01", not "sub-01"; a "sub-" prefix is accepted and dropped).
struct StudyFilter {
  std::vector<std::string> subjects, sessions, tasks, runs;
  bool empty() const;
  std::string describe() const;  // "subject 01, 02; task rest"
};

// Splits "sub-01_ses-a_task-rest_run-1_eeg.edf" into its entities and suffix; false when the name
// is not a BIDS data file name (no sub- entity first, a part without '-').
bool parseBidsName(const std::string& fileName,
                   std::vector<std::pair<std::string, std::string>>* entities, std::string* suffix);

// Every recording under `root`, sorted by path. Throws InvalidInputError when `root` is not a
// folder, holds no sub-* folder, or when nothing is left after `filter` (the message lists the
// entity values that are there).
std::vector<StudyRecording> scanBids(const std::string& root, const StudyFilter& filter);

// The listed recordings, in the order given. A file named like BIDS keeps its entities; any
// other gets its file stem (non-alphanumerics dropped) as "rec-<stem>". Throws InvalidInputError
// for a missing file or two files that would give the same derivative names.
std::vector<StudyRecording> listRecordings(const std::vector<std::string>& files);

// The lines of a list file ("#" comments and blank lines skipped; relative paths are relative to
// the list file's folder).
std::vector<std::string> readRecordingList(const std::string& listFile);

}  // namespace modescope
