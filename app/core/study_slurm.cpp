#include "app/core/study_slurm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include "app/core/study_process.h"
#include "app/core/study_status.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/core/provenance.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

// Single quotes for a shell word (paths with spaces).
std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string firstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

const char* kInstall =
    "Install Slurm's client and point it at your cluster (Debian: apt-get install slurm-client; "
    "a one-machine cluster: slurm-wlm munge), or run on this machine with --executor local";

}  // namespace

SlurmOptions readSlurmProfile(const std::string& path, SlurmOptions o) {
  const JsonValue j = readJsonFile(path);
  if (j.kind() != JsonValue::Kind::Object) {
    throw InvalidInputError(path, "(top level)", j.kindName(), "an object of Slurm options");
  }
  for (const auto& [key, v] : j.members()) {
    auto str = [&, &key = key, &v = v]() {
      if (v.kind() != JsonValue::Kind::String)
        throw InvalidInputError(path, key, v.kindName(), "a string");
      return v.asString();
    };
    auto integer = [&, &key = key, &v = v]() {
      if (v.kind() != JsonValue::Kind::Number)
        throw InvalidInputError(path, key, v.kindName(), "a whole number >= 0");
      std::int64_t n = 0;
      try {
        n = v.asInt64();
      } catch (const std::exception&) {
        throw InvalidInputError(path, key, v.numberText(), "a whole number >= 0");
      }
      if (n < 0 || n > 1000000)
        throw InvalidInputError(path, key, v.numberText(), "a whole number >= 0");
      return static_cast<int>(n);
    };
    if (key == "partition") {
      o.partition = str();
    } else if (key == "time") {
      o.time = str();
    } else if (key == "mem") {
      o.mem = str();
    } else if (key == "account") {
      o.account = str();
    } else if (key == "gpus_per_task") {
      o.gpusPerTask = integer();
    } else if (key == "gpus_per_task_option") {
      if (v.kind() != JsonValue::Kind::Bool)
        throw InvalidInputError(path, key, v.kindName(), "true or false");
      o.gpusPerTaskOption = v.asBool();
    } else if (key == "cpus_per_task") {
      o.cpusPerTask = integer();
    } else if (key == "max_parallel") {
      o.maxParallel = integer();
    } else if (key == "poll_s") {
      if (v.kind() != JsonValue::Kind::Number || v.asDouble() <= 0)
        throw InvalidInputError(path, key, v.kindName(), "a number of seconds > 0");
      o.pollSeconds = v.asDouble();
    } else if (key == "extra") {
      if (v.kind() != JsonValue::Kind::Array)
        throw InvalidInputError(path, key, v.kindName(), "an array of strings");
      for (const JsonValue& e : v.asArray()) {
        if (e.kind() != JsonValue::Kind::String)
          throw InvalidInputError(path, "extra", e.kindName(), "an array of strings");
        o.extra.push_back(e.asString());
      }
    } else {
      throw InvalidInputError(path, key, "an unknown field",
                              "one of partition, time, mem, account, gpus_per_task, "
                              "gpus_per_task_option, cpus_per_task, max_parallel, extra, poll_s");
    }
  }
  return o;
}

std::string slurmArrayRange(std::vector<int> tasks) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::string s;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(tasks[i]);
    if (j > i) s += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  return s;
}

std::string slurmScript(const StudyManifest& m, const std::vector<int>& tasks,
                        const SlurmOptions& o) {
  std::string array = slurmArrayRange(tasks);
  if (o.maxParallel > 0) array += "%" + std::to_string(o.maxParallel);
  std::string s = "#!/bin/bash\n";
  s += "# modescope-cli study: one array task per recording (docs/study.md)\n";
  s += "#SBATCH --job-name=modescope-study\n";
  s += "#SBATCH --array=" + array + "\n";
  s += "#SBATCH --output=" + (fs::path(studyDir(m.root)) / "logs" / "slurm-%A_%a.out").string() +
       "\n";
  s += "#SBATCH --ntasks=1\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  if (!o.mem.empty()) s += "#SBATCH --mem=" + o.mem + "\n";
  if (!o.account.empty()) s += "#SBATCH --account=" + o.account + "\n";
  if (o.cpusPerTask > 0) s += "#SBATCH --cpus-per-task=" + std::to_string(o.cpusPerTask) + "\n";
  if (o.gpusPerTask > 0) {
    s += o.gpusPerTaskOption ? "#SBATCH --gpus-per-task=" + std::to_string(o.gpusPerTask) + "\n"
                             : "#SBATCH --gres=gpu:" + std::to_string(o.gpusPerTask) + "\n";
  }
  for (const std::string& e : o.extra) s += "#SBATCH " + e + "\n";
  s += "exec " + shellQuote(selfExecutable()) + " study task " + shellQuote(m.root) +
       " --index \"$SLURM_ARRAY_TASK_ID\" --executor slurm\n";
  return s;
}

std::string writeSlurmScript(const StudyManifest& m, const std::vector<int>& tasks,
                             const SlurmOptions& o) {
  const fs::path dir = fs::path(studyDir(m.root)) / "slurm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  int n = 1;
  while (fs::exists(dir / ("array-" + std::to_string(n) + ".sbatch"), ec)) ++n;
  const std::string path = (dir / ("array-" + std::to_string(n) + ".sbatch")).string();
  writeTextAtomically(path, slurmScript(m, tasks, o), "the Slurm batch script");
  return path;
}

std::string submitSlurm(const std::string& script) {
  if (findOnPath("sbatch").empty()) {
    throw InvalidParameterError("--executor", "slurm, but Slurm's sbatch is not on PATH",
                                "a machine with Slurm's commands (sbatch, squeue)", kInstall);
  }
  std::string out, err;
  const int st = runCaptured({"sbatch", "--parsable", script}, &out, &err);
  if (st != 0) {
    throw InvalidParameterError(
        "--executor", "slurm, but sbatch refused the job: " + firstLine(err.empty() ? out : err),
        "a submission Slurm accepts",
        "Check the partition, time and memory options (or the profile); "
        "the script is " +
            script);
  }
  std::string id = firstLine(out);
  id = id.substr(0, id.find(';'));  // "<id>;<cluster>" on federated sites
  return id;
}

int followSlurm(const StudyManifest& m, const std::string& jobId, const std::vector<int>& tasks,
                const SlurmOptions& o, bool quiet, const std::function<bool()>& stopRequested) {
  int lastDone = -1;
  bool cancelled = false;
  while (true) {
    if (!cancelled && stopRequested && stopRequested()) {
      runCaptured({"scancel", jobId}, nullptr, nullptr);
      cancelled = true;
    }
    std::string out, err;
    const int st = runCaptured({"squeue", "-h", "-j", jobId, "-o", "%i %T"}, &out, &err);
    // squeue forgets a finished job ("Invalid job id"): then nothing is left to wait for.
    bool active = false;
    if (st == 0) {
      for (std::size_t from = 0; from < out.size();) {
        std::size_t nl = out.find('\n', from);
        if (nl == std::string::npos) nl = out.size();
        const std::string line = out.substr(from, nl - from);
        for (const char* s : {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                              "REQUEUED", "RESIZING"}) {
          if (line.find(s) != std::string::npos) active = true;
        }
        from = nl + 1;
      }
    }
    const StudySummary sum = summarizeStudy(m);
    if (!quiet && sum.done != lastDone) {
      std::fprintf(stderr,
                   "modescope-cli: study: Slurm job %s: %d/%d done, %d failed, %d running\n",
                   jobId.c_str(), sum.done, sum.total, sum.failed, sum.running);
      lastDone = sum.done;
    }
    if (!active) break;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<long long>(o.pollSeconds * 1000)));
  }
  // Slurm's word on each task where accounting is on (sacct fails without it).
  std::map<int, std::string> slurmState;
  std::string out, err;
  if (runCaptured({"sacct", "-n", "-X", "-P", "-j", jobId, "-o", "JobID,State,ExitCode"}, &out,
                  &err) == 0) {
    for (std::size_t from = 0; from < out.size();) {
      std::size_t nl = out.find('\n', from);
      if (nl == std::string::npos) nl = out.size();
      const std::string line = out.substr(from, nl - from);
      const std::size_t us = line.find('_'), bar = line.find('|');
      if (us != std::string::npos && bar != std::string::npos && us < bar) {
        try {
          slurmState[std::stoi(line.substr(us + 1, bar - us - 1))] = line.substr(bar + 1);
        } catch (const std::exception&) {
        }
      }
      from = nl + 1;
    }
  }
  int failed = 0;
  for (int task : tasks) {
    auto s = readTaskStatus(m.root, task);
    const std::string& hash = m.tasks[static_cast<std::size_t>(task)].hash;
    const bool final = s && s->hash == hash &&
                       (s->state == TaskState::Done || s->state == TaskState::Failed ||
                        s->state == TaskState::Interrupted);
    if (!final) {
      TaskStatus dead = s.value_or(TaskStatus{});
      dead.state = TaskState::Failed;
      dead.hash = hash;
      dead.executor = "slurm";
      dead.slurmJob = jobId + "_" + std::to_string(task);
      const auto it = slurmState.find(task);
      dead.message = "the Slurm task " + dead.slurmJob + " ended without a result (" +
                     (it != slurmState.end() ? "Slurm state " + it->second
                                             : std::string("cancelled, killed, out of time or "
                                                           "node failure")) +
                     "); see " + (fs::path(studyDir(m.root)) / "logs").string() + "/slurm-" +
                     dead.slurmJob + ".out";
      dead.finishedAt = utcNowIso8601();
      writeTaskStatus(m.root, task, dead);
      s = dead;
    }
    if (s->state != TaskState::Done) ++failed;
  }
  return failed;
}

}  // namespace modescope
