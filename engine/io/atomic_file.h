// Write-then-rename: outputs appear under their final name only when complete.
#pragma once

#include <string>

namespace modescope {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string finalPath);  // picks "<dir>/.<name>.partial-<pid>-<n>"
  ~AtomicOutput();                               // removes the temporary file unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& temporaryPath() const { return tmp_; }
  const std::string& finalPath() const { return final_; }
  void commit();  // fsync + rename; throws OutputError

 private:
  std::string final_, tmp_;
  bool committed_ = false;
};

// `text` under `path` through an AtomicOutput: a reader never sees half of it. Throws
// OutputError naming `path` and `what` ("the run summary") when it cannot be written.
void writeTextAtomically(const std::string& path, const std::string& text,
                         const std::string& what = "the file");

}  // namespace modescope
