// Ctrl-C (SIGINT) and SIGTERM turn into a cancel request while a job runs: the job stops at its
// next checkpoint, writers remove their temporary files, and the program exits with 130. A second
// signal is not caught (SA_RESETHAND), so a second Ctrl-C ends the program at once.
#pragma once

namespace modescope::cli {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers and clears the flag
  ~InterruptGuard();  // restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // True once SIGINT or SIGTERM arrived while a guard was installed.
  static bool requested() noexcept;
};

}  // namespace modescope::cli
