// Runs a subcommand's long work on the engine thread (the same JobQueue the GUI uses) with a
// progress display on stderr and Ctrl-C as cancel.
#pragma once

#include <string>

#include "app/cli/progress.h"
#include "engine/core/job_queue.h"

namespace modescope::cli {

// Runs fn and waits. A SIGINT/SIGTERM during the run cancels the job; a job that then ends in any
// way other than success is reported as Cancelled (exit code 130), because the user asked it to
// stop (a reader that cannot be interrupted may fail instead of honouring the stop).
// `display` shows the progress; finish() is called on it before returning.
JobOutcome runCliJob(const std::string& title, JobFunction fn, ProgressDisplay& display);

// Prints the outcome's error (if any) and returns its exit code: 0, 1, 2, 3 or 130.
int reportOutcome(const JobOutcome& outcome);

}  // namespace modescope::cli
