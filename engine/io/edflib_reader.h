// EDF/EDF+/BDF/BDF+ through EDFlib, paged: samples are read on demand (SignalSource).
#pragma once

#include <memory>
#include <string>

#include "engine/core/recording.h"

namespace modescope {

// Result of a strict EDFlib open: a recording, or the EDFlib error code and its meaning.
struct EdflibOpenResult {
  std::shared_ptr<Recording> recording;
  int errorCode = 0;         // EDFlib's code when recording is null
  std::string errorMessage;  // "format errors (EDFLIB_FILE_CONTAINS_FORMAT_ERRORS)"
};

EdflibOpenResult openWithEdflib(const std::string& path);

}  // namespace modescope
