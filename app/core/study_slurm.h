// The Slurm executor of a study (docs/study.md): one sbatch job array, one array task per
// recording (`--array=0-99%K`; a retry submits only the failed indices), each array task running
// `modescope-cli study task ROOT --index $SLURM_ARRAY_TASK_ID`. The study follows the job with
// squeue until it leaves the queue, then records every task that ended without a result (cancelled,
// killed, node failure, time limit) as failed, with Slurm's state from sacct where accounting is
// on. Slurm, not ModeScope, schedules across nodes; a failing task never stops the others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/core/study_manifest.h"

namespace modescope {

struct SlurmOptions {
  std::string partition, time, mem, account;  // "" = the cluster's default
  int gpusPerTask = 0;  // > 0: one GPU per task through --gres=gpu:N (or --gpus-per-task)
  bool gpusPerTaskOption = false;  // write --gpus-per-task instead of --gres
  int cpusPerTask = 0;             // 0 = the default
  int maxParallel = 0;             // the array's %K; 0 = no limit
  std::vector<std::string> extra;  // more "#SBATCH" options, verbatim ("--qos=short")
  double pollSeconds = 5;          // squeue interval
};

// Reads a profile file (JSON: partition, time, mem, account, gpus_per_task, gpus_per_task_option,
// cpus_per_task, max_parallel, extra, poll_s) over `base`. InvalidInputError names the field.
SlurmOptions readSlurmProfile(const std::string& path, SlurmOptions base);

// "0-9", "1,3,5-7": the array indices of `tasks` (sorted).
std::string slurmArrayRange(std::vector<int> tasks);

// The batch script text.
std::string slurmScript(const StudyManifest& m, const std::vector<int>& tasks,
                        const SlurmOptions& o);
// Writes <root>/study/slurm/array-<N>.sbatch (N counts submissions) and returns its path.
std::string writeSlurmScript(const StudyManifest& m, const std::vector<int>& tasks,
                             const SlurmOptions& o);

// Submits the script with `sbatch --parsable`; returns the job id. Without sbatch on PATH:
// InvalidParameterError saying how to install Slurm or to use --executor local; a refused
// submission: InvalidParameterError with sbatch's message.
std::string submitSlurm(const std::string& script);

// Follows job `jobId` until none of its tasks is queued or running, printing the study's
// progress, then records tasks without a result as failed. Returns how many of `tasks` failed.
int followSlurm(const StudyManifest& m, const std::string& jobId, const std::vector<int>& tasks,
                const SlurmOptions& o, bool quiet, const std::function<bool()>& stopRequested);

}  // namespace modescope
