// Runs a helper program in a child process with a time limit, so a crash or hang of a third-party
// reader cannot take the app down.
#pragma once

#include <string>
#include <vector>

namespace modescope {

struct ChildResult {
  enum class Outcome { Exited, Crashed, TimedOut, CouldNotStart } outcome = Outcome::CouldNotStart;
  int exitCode = -1;       // for Exited
  int signal = 0;          // for Crashed
  std::string stderrText;  // last few KiB of the child's stderr
};

ChildResult runChildProcess(const std::string& executable, const std::vector<std::string>& args,
                            double timeoutSeconds);

// The directory of the running executable (from /proc/self/exe).
std::string currentExecutableDir();

}  // namespace modescope
