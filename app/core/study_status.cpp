#include "app/core/study_status.h"

#include <filesystem>

#include "app/core/json_writer.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/io/atomic_file.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

TaskState stateFromName(const std::string& s) {
  for (TaskState t : {TaskState::Pending, TaskState::Running, TaskState::Done, TaskState::Failed,
                      TaskState::Interrupted}) {
    if (s == taskStateName(t)) return t;
  }
  return TaskState::Failed;
}

std::string text(const JsonValue& j, const char* key) {
  const JsonValue* v = j.find(key);
  return v && v->kind() == JsonValue::Kind::String ? v->asString() : std::string();
}

double number(const JsonValue& j, const char* key) {
  const JsonValue* v = j.find(key);
  return v && v->kind() == JsonValue::Kind::Number ? v->asDouble() : 0.0;
}

}  // namespace

const char* taskStateName(TaskState s) {
  switch (s) {
    case TaskState::Pending:
      return "pending";
    case TaskState::Running:
      return "running";
    case TaskState::Done:
      return "done";
    case TaskState::Failed:
      return "failed";
    case TaskState::Interrupted:
      return "interrupted";
  }
  return "failed";
}

std::optional<TaskStatus> readTaskStatus(const std::string& root, int index) {
  const std::string path = taskStatusPath(root, index);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  TaskStatus s;
  try {
    const JsonValue j = readJsonFile(path);
    if (j.kind() != JsonValue::Kind::Object) throw InvalidInputError(path, "", "", "an object");
    s.state = stateFromName(text(j, "state"));
    s.hash = text(j, "hash");
    s.message = text(j, "message");
    s.exitCode = static_cast<int>(number(j, "exit_code"));
    s.host = text(j, "host");
    s.pid = static_cast<int>(number(j, "pid"));
    s.gpu = text(j, "gpu");
    s.startedAt = text(j, "started_at");
    s.finishedAt = text(j, "finished_at");
    s.wallSeconds = number(j, "wall_s");
    s.executor = text(j, "executor");
    s.slurmJob = text(j, "slurm_job");
  } catch (const Error& e) {
    s.state = TaskState::Failed;
    s.message = std::string("the status file is damaged: ") + e.what();
  }
  return s;
}

void writeTaskStatus(const std::string& root, int index, const TaskStatus& s) {
  JsonWriter w;
  w.beginObject();
  w.field("task", index);
  w.field("state", taskStateName(s.state));
  w.field("hash", s.hash);
  w.field("message", s.message);
  w.field("exit_code", s.exitCode);
  w.field("host", s.host);
  w.field("pid", s.pid);
  w.field("gpu", s.gpu);
  w.field("started_at", s.startedAt);
  w.field("finished_at", s.finishedAt);
  w.field("wall_s", s.wallSeconds);
  w.field("executor", s.executor);
  w.field("slurm_job", s.slurmJob);
  w.endObject();
  writeTextAtomically(taskStatusPath(root, index), w.str() + "\n", "the task status");
}

void markPending(const StudyManifest& m, int task) {
  TaskStatus p;
  p.state = TaskState::Pending;
  p.hash = m.tasks[static_cast<std::size_t>(task)].hash;
  writeTaskStatus(m.root, task, p);
}

bool taskComplete(const StudyManifest& m, const StudyTask& t,
                  const std::optional<TaskStatus>& status) {
  if (!status || status->state != TaskState::Done || status->hash != t.hash) return false;
  std::error_code ec;
  for (const StudyOutput& o : t.outputs) {
    if (!fs::is_regular_file(fs::path(m.root) / o.file, ec) ||
        !fs::is_regular_file(fs::path(m.root) / o.sidecar, ec))
      return false;
  }
  return true;
}

StudySummary summarizeStudy(const StudyManifest& m) {
  StudySummary sum;
  sum.total = static_cast<int>(m.tasks.size());
  for (const StudyTask& t : m.tasks) {
    const auto s = readTaskStatus(m.root, t.index);
    if (taskComplete(m, t, s)) {
      ++sum.done;
    } else if (s && (s->state == TaskState::Failed || s->state == TaskState::Interrupted)) {
      ++sum.failed;
      sum.failedTasks.push_back(t.index);
    } else if (s && s->state == TaskState::Running) {
      ++sum.running;
    } else {
      ++sum.pending;
    }
  }
  return sum;
}

std::string lastErrorLine(const std::string& text) {
  std::string best, lastLine;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t nl = text.find('\n', from);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(from, nl - from);
    // Progress bars rewrite a line with '\r': keep what was written last.
    const std::size_t cr = line.find_last_of('\r');
    if (cr != std::string::npos) line = line.substr(cr + 1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (!line.empty()) {
      lastLine = line;
      if (line.find("error:") != std::string::npos) best = line;
    }
    from = nl + 1;
  }
  return best.empty() ? lastLine : best;
}

}  // namespace modescope
