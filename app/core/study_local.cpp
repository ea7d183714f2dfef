#include "app/core/study_local.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <thread>

#include "app/core/study_process.h"
#include "app/core/study_status.h"
#include "engine/core/provenance.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Running {
  int task = 0;
  std::size_t slot = 0;
  Clock::time_point started;
};

}  // namespace

std::vector<std::string> detectGpus() {
  std::vector<std::string> gpus;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s = visible, item;
    for (char c : s + ",") {
      if (c == ',') {
        if (!item.empty()) gpus.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
    return gpus;
  }
  std::error_code ec;
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    (void)e;
    gpus.push_back(std::to_string(n++));
  }
  if (gpus.empty() && !findOnPath("nvidia-smi").empty()) {
    // Containers may hide /proc/driver/nvidia; nvidia-smi -L prints one "GPU k: ..." line each.
    std::string out;
    if (runCaptured({"nvidia-smi", "-L"}, &out, nullptr) == 0) {
      for (std::size_t at = out.find("GPU "); at != std::string::npos;
           at = out.find("\nGPU ", at + 1))
        gpus.push_back(std::to_string(n++));
    }
  }
  return gpus;
}

int runLocalExecutor(const StudyManifest& m, const std::vector<int>& tasks,
                     const LocalExecutorOptions& o) {
  const std::size_t slots =
      o.gpus.empty() ? static_cast<std::size_t>(std::max(1, o.cpuWorkers)) : o.gpus.size();
  std::vector<bool> busy(slots, false);
  std::deque<int> queue(tasks.begin(), tasks.end());
  std::map<pid_t, Running> running;
  const std::size_t total = tasks.size();
  std::size_t finished = 0, failed = 0;
  const auto t0 = Clock::now();
  bool stopping = false;
  const std::string exe = selfExecutable();
  if (!o.quiet) {
    std::fprintf(stderr, "modescope-cli: study: %zu task(s) on %zu %s worker(s)\n", total, slots,
                 o.gpus.empty() ? "CPU" : "GPU");
  }
  while (!queue.empty() || !running.empty()) {
    if (!stopping && o.stopRequested && o.stopRequested()) {
      stopping = true;
      queue.clear();
      for (const auto& [pid, r] : running) ::kill(pid, SIGTERM);  // each records "interrupted"
    }
    // Fill free slots.
    for (std::size_t s = 0; s < slots && !queue.empty() && !stopping; ++s) {
      if (busy[s]) continue;
      const int task = queue.front();
      queue.pop_front();
      markPending(m, task);
      std::vector<std::string> env;
      if (!o.gpus.empty()) env.push_back("CUDA_VISIBLE_DEVICES=" + o.gpus[s]);
      const pid_t pid =
          spawnLogged({exe, "study", "task", m.root, "--index", std::to_string(task)}, env, "");
      running[pid] = Running{task, s, Clock::now()};
      busy[s] = true;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running r = it->second;
    running.erase(it);
    busy[r.slot] = false;
    ++finished;
    auto st = readTaskStatus(m.root, r.task);
    const bool final = st && st->hash == m.tasks[static_cast<std::size_t>(r.task)].hash &&
                       (st->state == TaskState::Done || st->state == TaskState::Failed ||
                        st->state == TaskState::Interrupted);
    if (!final) {
      // The task process itself died (SIGKILL, out of memory): say so in its status.
      TaskStatus dead = st.value_or(TaskStatus{});
      dead.state = stopping ? TaskState::Interrupted : TaskState::Failed;
      dead.hash = m.tasks[static_cast<std::size_t>(r.task)].hash;
      dead.exitCode = exitCodeOf(status);
      dead.message = "the task process " + describeWaitStatus(status) +
                     " before it recorded a result; see " + taskLogPath(m.root, r.task);
      dead.finishedAt = utcNowIso8601();
      dead.executor = "local";
      writeTaskStatus(m.root, r.task, dead);
      st = dead;
    }
    const bool ok = st->state == TaskState::Done;
    if (!ok) ++failed;
    if (!o.quiet) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      const double eta = finished < total ? elapsed / static_cast<double>(finished) *
                                                static_cast<double>(total - finished)
                                          : 0.0;
      std::fprintf(stderr,
                   "modescope-cli: study: [%zu/%zu] %s %s in %.1f s%s%s (failed %zu; about %.0f s "
                   "left)\n",
                   finished, total, m.tasks[static_cast<std::size_t>(r.task)].label().c_str(),
                   taskStateName(st->state), st->wallSeconds, ok ? "" : ": ",
                   ok ? "" : st->message.c_str(), failed, eta);
    }
  }
  return static_cast<int>(failed);
}

}  // namespace modescope
