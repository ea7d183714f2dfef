// Runs one job on a JobQueue's engine thread and waits for it on the calling thread, the way a
// command-line program uses the queue: the caller polls for a cancel request (a Ctrl-C flag) and
// refreshes a progress display while it waits. The GUI does not need this (its event loop waits);
// the CLI and integration tests do.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "engine/core/job_queue.h"

namespace modescope {

struct JobWaitHooks {
  // Called on the engine thread for every progress report; must not block.
  std::function<void(double fraction, std::string_view stage)> progress;
  // Polled on the calling thread every `pollInterval`; returning true cancels the job (once).
  std::function<bool()> shouldCancel;
  // Called on the calling thread every `pollInterval` while the job runs (redraw a clock).
  std::function<void()> tick;
  std::chrono::milliseconds pollInterval{50};
};

// Submits fn, waits until it finished, returns its outcome (state Cancelled after a cancel that
// the job honoured). `cancelRequested`, if given, is set when shouldCancel() fired.
JobOutcome runJobAndWait(std::string title, JobFunction fn, const JobWaitHooks& hooks,
                         bool* cancelRequested = nullptr);

}  // namespace modescope
