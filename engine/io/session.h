// The session file (HDF5, docs/hdf5-schema.md, "/modescope_session"): the opened recording, the
// view state, the jobs run with their results, marks and provenance. Reopens as it was saved.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/provenance.h"
#include "engine/core/recording.h"

namespace modescope {

struct ViewState {
  double pageStart = 0.0;               // s
  double pageLength = 10.0;             // s
  double microvoltsPerDivision = 50.0;  // amplitude scale: one channel spacing in uV
  int firstVisibleChannel = 0;
  int visibleChannelCount = 32;
  std::vector<std::string> selectedChannels;  // normalised names
  std::string montage = "as recorded";  // "as recorded", "average", "linked mastoids", "ref:Cz"
  std::string displayFilter = "none";   // e.g. "bandpass 1-40 Hz", "notch 50 Hz"
};

struct JobRecord {
  std::string title;
  std::string state;    // jobStateName()
  std::string message;  // error text for failed jobs
  Provenance provenance;
  // The job's result when it is a recording (e.g. a filtered copy); null otherwise.
  std::shared_ptr<const Recording> resultRecording;
};

struct Marks {
  std::vector<std::string> badChannels;     // normalised names
  std::vector<Annotation> userAnnotations;  // added in the GUI, kept apart from the file's
  // Added in ModeScope 0.6 (group /marks/file_annotations; older sessions have none): the file's
  // own annotations as the user corrected them (onset, duration, text edited, rows deleted),
  // sorted by onset; absent while they are as read. The file itself is never changed.
  std::optional<std::vector<Annotation>> fileAnnotations;
};

struct IcaFile;  // engine/io/hdf5_ica.h

// An ICA decomposition shown in the component browser, with the user's marks (marks
// belong to the session, not to the result, which stays immutable).
struct IcaSessionEntry {
  std::string title;                    // the component browser's tab
  std::shared_ptr<const IcaFile> file;  // the decomposition (never null in a saved session)
  std::vector<int> rejected;            // components marked as artifacts, 0-based, ascending
  std::string icaPath;                  // the ICA file it was opened from or saved to, or ""
};

struct Session {
  std::string recordingPath;  // absolute path of the opened recording ("<demo>" for the demo)
  ViewState view;
  std::vector<JobRecord> jobs;
  Marks marks;
  Provenance provenance;  // who wrote the session and when
  // Added in ModeScope 0.4 (group /ica_results; older sessions have none and read as empty).
  std::vector<IcaSessionEntry> icaResults;
  // Added in ModeScope 0.5 (root attribute "history_pipeline"; older sessions read as ""): the
  // steps run in the GUI as a pipeline file's text (docs/pipelines.md).
  std::string historyPipeline;
};

// Atomic (temporary name, then rename). Throws OutputError.
void saveSession(const Session& session, const std::string& path);
// Throws InvalidInputError for a file that is not a ModeScope session.
Session loadSession(const std::string& path);

}  // namespace modescope
