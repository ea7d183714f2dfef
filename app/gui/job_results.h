// What the GUI's own jobs return (Workspace::submitJob hands each over as std::shared_ptr<const
// T>), one type per kind of job.
#pragma once

#include <memory>
#include <string>

#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/io/session.h"

namespace modescope {

// Open, Open demo: the file and what was read from it.
struct OpenedRecording {
  std::string path;
  bool demo = false;
  std::shared_ptr<const Recording> recording;
};

// Synthetic recording, filter/re-reference: a new in-memory recording and where it came from.
struct DerivedRecording {
  std::shared_ptr<const Recording> recording;
  Provenance provenance;
};

// Open session: the session and its recording (null when the session names none).
struct LoadedSession {
  Session session;
  std::string recordingPath;  // resolved ("<demo>" becomes the demo's temporary file)
  bool demo = false;
  std::shared_ptr<const Recording> recording;
};

}  // namespace modescope
