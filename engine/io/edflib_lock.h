// EDFlib keeps its open files in one process-wide table: edfopen_*/edfclose_file are not
// thread-safe against each other, and reads of one handle move that handle's position. The
// reader and the writer share this one lock (a page read or a record write is milliseconds).
#pragma once

#include <mutex>

namespace modescope {

inline std::mutex& edflibMutex() {
  static std::mutex m;
  return m;
}

}  // namespace modescope
