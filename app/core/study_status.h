// The status file of one study task (<root>/study/status/task-NNNN.json, docs/study.md): what
// the task is doing or how it ended, with the failure's message. Written atomically by the task
// process (study_task.h) and, for a task process that died without writing it, by the executor
// that saw it die. The status is the only thing that says a task is done: outputs without a
// "done" status are never taken as complete.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/core/study_manifest.h"

namespace modescope {

enum class TaskState { Pending, Running, Done, Failed, Interrupted };

const char* taskStateName(TaskState s);  // "pending", "running", "done", "failed", "interrupted"

struct TaskStatus {
  TaskState state = TaskState::Pending;
  std::string hash;     // the manifest hash the task ran with
  std::string message;  // why it failed ("" when done)
  int exitCode = 0;     // of `modescope-cli run`; 128 + signal when killed
  std::string host;
  int pid = 0;                        // of the task process
  std::string gpu;                    // CUDA_VISIBLE_DEVICES of the task ("" = none set)
  std::string startedAt, finishedAt;  // UTC ISO 8601
  double wallSeconds = 0;
  std::string executor;  // "local" or "slurm"
  std::string slurmJob;  // "1234_5" under Slurm
};

// The status of task `index`; nullopt when there is none yet. A damaged file (a crash between
// writes cannot make one: writes are atomic) reads as Failed with the reason.
std::optional<TaskStatus> readTaskStatus(const std::string& root, int index);
void writeTaskStatus(const std::string& root, int index, const TaskStatus& status);

// Writes a "pending" status with the task's hash: set by an executor before it starts the task,
// so a stale status of an earlier run is never read as this run's result.
void markPending(const StudyManifest& m, int task);

// Done with the task's current hash and every output and sidecar present.
bool taskComplete(const StudyManifest& m, const StudyTask& t,
                  const std::optional<TaskStatus>& status);

// The whole study at a glance.
struct StudySummary {
  int total = 0, done = 0, failed = 0, running = 0, pending = 0;
  std::vector<int> failedTasks;  // failed or interrupted, in index order
};
StudySummary summarizeStudy(const StudyManifest& m);

// The last line of `text` that holds "error:" (the CLI's error line), else its last non-empty
// line; trimmed.
std::string lastErrorLine(const std::string& text);

}  // namespace modescope
