#include "app/core/study_task.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/core/json_writer.h"
#include "app/core/study_manifest.h"
#include "app/core/study_process.h"
#include "app/core/study_status.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/core/provenance.h"
#include "engine/core/version.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// The BIDS URI of what step `o` read: the recording, or the derivative of an earlier filter step
// ("bids::" = this derivative dataset).
std::string sourceOf(const StudyManifest& m, const StudyTask& t, const StudyOutput& o) {
  if (o.inputStep == 0) return t.recording.source;
  const StudyOutput& in = t.outputs[static_cast<std::size_t>(o.inputStep - 1)];
  return m.inputKind == "bids" ? "bids::" + in.file : (fs::path(m.root) / in.file).string();
}

// The JSON sidecar of one output (BIDS Derivatives "common data types": Sources, plus what made
// it), from the step's entry in run.json.
std::string sidecarJson(const StudyManifest& m, const StudyTask& t, const StudyOutput& o,
                        const JsonValue* step) {
  JsonWriter w;
  w.beginObject();
  w.field("Description", "Step " + std::to_string(o.step) + " (" + o.kind +
                             ") of the study pipeline: " + m.description);
  w.key("Sources").beginArray().value(sourceOf(m, t, o)).endArray();
  w.key("GeneratedBy").beginArray().beginObject();
  w.field("Name", "modescope");
  w.field("Version", kVersionString);
  w.endObject().endArray();
  w.field("PipelineStep", o.step);
  w.field("PipelineStepKind", o.kind);
  w.field("Pipeline", "study/pipeline.json");
  w.field("ParameterHash", t.hash);
  if (step) {
    const JsonValue* backend = step->find("backend");
    if (backend && backend->kind() == JsonValue::Kind::Object) {
      const JsonValue* d = backend->find("description");
      const JsonValue* k = backend->find("kind");
      w.key("Backend").beginObject();
      w.field("Kind", k && k->kind() == JsonValue::Kind::String ? k->asString() : "");
      w.field("Description", d && d->kind() == JsonValue::Kind::String ? d->asString() : "");
      w.endObject();
    }
    const JsonValue* sel = step->find("selection");
    if (sel && sel->kind() == JsonValue::Kind::String) w.field("Selection", sel->asString());
    const JsonValue* params = step->find("parameters");
    w.key("Parameters").beginArray();
    if (params && params->kind() == JsonValue::Kind::Array) {
      for (const JsonValue& p : params->asArray()) {
        const JsonValue* n = p.find("name");
        const JsonValue* v = p.find("value");
        if (!n || !v || n->kind() != JsonValue::Kind::String ||
            v->kind() != JsonValue::Kind::String)
          continue;
        w.beginObject().field("Name", n->asString()).field("Value", v->asString()).endObject();
      }
    }
    w.endArray();
  }
  w.endObject();
  return w.str() + "\n";
}

// Moves the finished step files to their derivative names and writes their sidecars. Each rename
// is atomic (same file system); the status written after this is what marks the task complete.
void collectOutputs(const StudyManifest& m, const StudyTask& t, const std::string& work) {
  const std::string runJson = (fs::path(work) / "run.json").string();
  const JsonValue summary = readJsonFile(runJson);
  const JsonValue* steps = summary.find("steps");
  for (const StudyOutput& o : t.outputs) {
    const JsonValue* step = nullptr;
    if (steps && steps->kind() == JsonValue::Kind::Array &&
        static_cast<std::size_t>(o.step) <= steps->asArray().size())
      step = &steps->asArray()[static_cast<std::size_t>(o.step - 1)];
    const fs::path dest = fs::path(m.root) / o.file;
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec)
      throw OutputError(dest.parent_path().string(),
                        "cannot create the folder (" + ec.message() + ")");
    writeTextAtomically((fs::path(m.root) / o.sidecar).string(), sidecarJson(m, t, o, step),
                        "the sidecar");
    fs::rename(fs::path(work) / o.runName, dest, ec);
    if (ec)
      throw OutputError(dest.string(), "cannot move the result into place (" + ec.message() + ")");
  }
  std::error_code ec;
  fs::rename(runJson, taskRunSummaryPath(m.root, t.index), ec);
  if (ec) {
    throw OutputError(taskRunSummaryPath(m.root, t.index),
                      "cannot move the run summary into place (" + ec.message() + ")");
  }
}

void removeOutputs(const StudyManifest& m, const StudyTask& t) {
  std::error_code ec;
  for (const StudyOutput& o : t.outputs) {
    fs::remove(fs::path(m.root) / o.file, ec);
    fs::remove(fs::path(m.root) / o.sidecar, ec);
  }
  fs::remove(taskRunSummaryPath(m.root, t.index), ec);
}

}  // namespace

int runStudyTask(const std::string& root, int index, const TaskRunOptions& options) {
  const StudyManifest m = readManifest(root);
  if (index < 0 || index >= static_cast<int>(m.tasks.size())) {
    throw InvalidParameterError("--index", std::to_string(index),
                                "a task index from 0 to " + std::to_string(m.tasks.size() - 1));
  }
  const StudyTask& t = m.tasks[static_cast<std::size_t>(index)];
  TaskStatus st;
  st.state = TaskState::Running;
  st.hash = t.hash;
  st.host = hostName();
  st.pid = static_cast<int>(::getpid());
  if (const char* gpu = std::getenv("CUDA_VISIBLE_DEVICES")) st.gpu = gpu;
  st.startedAt = utcNowIso8601();
  st.executor = options.executor;
  st.slurmJob = options.slurmJob;
  // Outputs of an earlier version of this task go first: nothing stale stays under a final name.
  removeOutputs(m, t);
  writeTaskStatus(root, index, st);

  const std::string work = taskWorkDir(root, index);
  const std::string log = taskLogPath(root, index);
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work, ec);
  {
    std::ofstream(log, std::ios::app) << "== " << st.startedAt << " task " << index << " on "
                                      << st.host << ": " << t.recording.path << "\n";
  }
  std::vector<std::string> argv = {
      selfExecutable(), "run",    studyPipelinePath(root), "--input", t.recording.path, "-o", work,
      "--overwrite",    "--quiet"};
  if (m.backend != "auto") {
    argv.push_back("--backend");
    argv.push_back(m.backend);
  }
  const auto t0 = Clock::now();
  int status = 0;
  bool timedOut = false, stopped = false;
  std::string failure;
  try {
    const pid_t pid = spawnLogged(argv, {}, log);
    const auto deadline =
        m.timeoutSeconds > 0
            ? t0 + std::chrono::milliseconds(static_cast<long long>(m.timeoutSeconds * 1000))
            : Clock::time_point::max();
    bool signalled = false;
    while (true) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (!signalled && options.stopRequested && options.stopRequested()) {
        ::kill(pid, SIGTERM);  // `run` removes its temporary file and exits with 130
        stopped = signalled = true;
      }
      if (!signalled && Clock::now() >= deadline) {
        ::kill(pid, SIGKILL);
        timedOut = signalled = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (const Error& e) {
    failure = e.what();
    status = 1 << 8;  // as "exit code 1"
  }
  st.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  st.exitCode = exitCodeOf(status);

  if (failure.empty() && !timedOut && !stopped && st.exitCode == 0) {
    try {
      collectOutputs(m, t, work);
      fs::remove_all(work, ec);
      st.state = TaskState::Done;
    } catch (const Error& e) {
      failure = std::string("collecting the outputs failed: ") + e.what();
      st.exitCode = e.exitCode();
      removeOutputs(m, t);
    }
  }
  if (st.state != TaskState::Done) {
    if (timedOut) {
      failure = "timed out after " + std::to_string(static_cast<long long>(m.timeoutSeconds)) +
                " s (--timeout); the run was killed";
    } else if (stopped) {
      st.state = TaskState::Interrupted;
      failure = "interrupted (the study was stopped); a new run of the study redoes it";
    } else if (failure.empty()) {
      const std::string err = lastErrorLine(fileTail(log));
      failure =
          "modescope-cli run: " + describeWaitStatus(status) + (err.empty() ? "" : ": " + err);
    }
    if (st.state != TaskState::Interrupted) st.state = TaskState::Failed;
    fs::remove_all(work, ec);  // `run` left no partial file; its completed steps are not results
    st.message = failure;
    std::ofstream(log, std::ios::app)
        << "== task " << index << " " << taskStateName(st.state) << ": " << failure << "\n";
  }
  st.finishedAt = utcNowIso8601();
  writeTaskStatus(root, index, st);
  if (st.state == TaskState::Done) return 0;
  return st.state == TaskState::Interrupted ? 130 : 1;
}

}  // namespace modescope
