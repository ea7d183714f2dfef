// One task of a study, run in its own process (`modescope-cli study task ROOT --index I`, started
// by the local executor or by a Slurm array task): it runs the pipeline on the task's recording
// in a child `modescope-cli run`, so a crash, a damaged file, a sticky GPU fault or a timeout ends
// only that child, and records how it ended in the task's status file. On success the step
// outputs move to their derivative names with a JSON sidecar each, then the status becomes
// "done": the status is written last, so a task cut short anywhere before is redone, never taken
// as complete.
#pragma once

#include <functional>
#include <string>

namespace modescope {

struct TaskRunOptions {
  std::string executor = "local";  // recorded in the status
  std::string slurmJob;            // "1234_5"
  // Polled while `run` works; true stops it (SIGTERM) and records the task as interrupted.
  std::function<bool()> stopRequested;
};

// Runs task `index` of the study at `root`; returns 0 when done, 1 when it failed, 130 when
// interrupted. Throws only when the study files cannot be read or the status cannot be written.
int runStudyTask(const std::string& root, int index, const TaskRunOptions& options);

}  // namespace modescope
