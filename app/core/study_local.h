// The local executor of a study (docs/study.md): task processes on this machine, one per GPU
// (each sees only its GPU through CUDA_VISIBLE_DEVICES) or N CPU workers, with the progress of
// the whole study on stderr. Each task is its own process (`modescope-cli study task`), which
// runs `modescope-cli run` in a child, so a crash ends one task only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/core/study_manifest.h"

namespace modescope {

struct LocalExecutorOptions {
  // One worker per entry, each with CUDA_VISIBLE_DEVICES set to it; empty = CPU workers.
  std::vector<std::string> gpus;
  int cpuWorkers = 1;
  bool quiet = false;
  std::function<bool()> stopRequested;  // true: stop starting tasks, stop the running ones
};

// CUDA_VISIBLE_DEVICES's entries when it is set, else the GPUs the driver shows
// (/proc/driver/nvidia/gpus, or `nvidia-smi -L`); empty on a machine without an NVIDIA driver.
std::vector<std::string> detectGpus();

// Runs `tasks` (indices into m.tasks); returns how many failed or were interrupted. A task
// process that dies before it writes its final status (killed, out of host memory) is recorded
// as failed with how it ended.
int runLocalExecutor(const StudyManifest& m, const std::vector<int>& tasks,
                     const LocalExecutorOptions& options);

}  // namespace modescope
