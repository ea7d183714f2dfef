// `study PIPELINE.json (--bids ROOT | --inputs LIST | --input REC...) [-o OUT] [options]`, and
// `study retry|status|report OUT`: a pipeline over a whole study, locally or as a Slurm job array
// (app/core/study_*.h, docs/study.md). `study task OUT --index I` is the per-recording worker the
// executors start; it is not meant to be typed.
#include <sys/statvfs.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/interrupt.h"
#include "app/core/pipeline.h"
#include "app/core/study_local.h"
#include "app/core/study_manifest.h"
#include "app/core/study_process.h"
#include "app/core/study_report.h"
#include "app/core/study_scan.h"
#include "app/core/study_slurm.h"
#include "app/core/study_status.h"
#include "app/core/study_task.h"

namespace modescope::cli {
namespace {

namespace fs = std::filesystem;

std::string absoluteRoot(const std::string& p) {
  std::string s = fs::absolute(fs::path(p)).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A full disk stops the study before any task starts, with the free space in the message.
void checkFreeSpace(const std::string& root) {
  struct statvfs v {};
  if (::statvfs(root.c_str(), &v) != 0) return;
  const unsigned long long freeBytes =
      static_cast<unsigned long long>(v.f_bavail) * static_cast<unsigned long long>(v.f_frsize);
  constexpr unsigned long long kMinimum = 4ull << 20;  // the study files and one task's logs
  if (freeBytes < kMinimum) {
    throw OutputError(root, "the disk is full (" + std::to_string(freeBytes / 1024) +
                                " KiB free, at least " + std::to_string(kMinimum >> 10) +
                                " KiB needed before the first task); free space or choose "
                                "another output folder with -o");
  }
}

int intOption(const ParsedArgs& a, const char* name, int64_t min, int64_t max, int fallback) {
  const auto v = a.value(name);
  return v ? static_cast<int>(parseInteger(std::string("--") + name, *v, min, max)) : fallback;
}

SlurmOptions slurmOptions(const ParsedArgs& a) {
  SlurmOptions o;
  if (const auto p = a.value("slurm-profile")) o = readSlurmProfile(*p, o);
  if (const auto v = a.value("partition")) o.partition = *v;
  if (const auto v = a.value("time")) o.time = *v;
  if (const auto v = a.value("mem")) o.mem = *v;
  if (const auto v = a.value("account")) o.account = *v;
  o.gpusPerTask = intOption(a, "gpus-per-task", 0, 64, o.gpusPerTask);
  o.cpusPerTask = intOption(a, "cpus-per-task", 0, 4096, o.cpusPerTask);
  o.maxParallel = intOption(a, "max-parallel", 0, 1000000, o.maxParallel);
  if (const auto v = a.value("poll")) o.pollSeconds = parseSeconds("--poll", *v, false);
  return o;
}

std::string executorOf(const ParsedArgs& a) {
  const std::string e = a.value("executor").value_or("local");
  if (e != "local" && e != "slurm") {
    throw InvalidParameterError("--executor", "'" + e + "'", "local or slurm",
                                "local runs on this machine; slurm submits a job array");
  }
  return e;
}

// Runs `tasks` with the executor the options ask for, then writes the report and prints the
// summary. Exit code: 0 all done, 2 some failed (their messages are in the summary).
int execute(const StudyManifest& m, const std::vector<int>& tasks, const ParsedArgs& a) {
  const bool quiet = a.has("quiet");
  const std::string executor = executorOf(a);
  InterruptGuard guard;
  auto stop = [] { return InterruptGuard::requested(); };
  if (executor == "slurm") {
    const SlurmOptions o = slurmOptions(a);
    const std::string script = writeSlurmScript(m, tasks, o);
    if (a.has("dry-run")) {
      std::printf("wrote %s (%zu task(s)); submit it with: sbatch %s\n", script.c_str(),
                  tasks.size(), script.c_str());
      return 0;
    }
    for (int t : tasks) markPending(m, t);
    const std::string job = submitSlurm(script);
    if (!quiet) printNote("submitted Slurm job " + job + " (" + script + ")");
    followSlurm(m, job, tasks, o, quiet, stop);
  } else {
    if (a.has("dry-run")) {
      for (int t : tasks)
        std::printf("would run task %d: %s\n", t,
                    m.tasks[static_cast<std::size_t>(t)].recording.path.c_str());
      return 0;
    }
    LocalExecutorOptions o;
    o.quiet = quiet;
    o.stopRequested = stop;
    o.cpuWorkers = intOption(a, "workers", 1, 1024, 1);
    const std::string gpus = a.value("gpus").value_or(m.backend == "cpu" ? "none" : "auto");
    if (gpus == "auto") {
      o.gpus = detectGpus();
    } else if (gpus != "none") {
      std::string item;
      for (char c : gpus + ",") {
        if (c == ',') {
          if (!item.empty()) o.gpus.push_back(item);
          item.clear();
        } else {
          item += c;
        }
      }
    }
    runLocalExecutor(m, tasks, o);
  }
  const std::string report = writeStudyReport(m);
  const StudySummary sum = summarizeStudy(m);
  if (InterruptGuard::requested()) {
    printError("study stopped (Ctrl-C): " + std::to_string(sum.done) + " of " +
               std::to_string(sum.total) + " done; run the same command again to resume");
    return 130;
  }
  if (!quiet) {
    std::printf("%d of %d recordings done, %d failed; report: %s\n", sum.done, sum.total,
                sum.failed, report.c_str());
    for (int t : sum.failedTasks) {
      const auto s = readTaskStatus(m.root, t);
      std::printf("  failed: %s: %s\n", m.tasks[static_cast<std::size_t>(t)].label().c_str(),
                  s ? s->message.c_str() : "no status");
    }
  }
  if (sum.failed > 0) {
    printError(std::to_string(sum.failed) + " of " + std::to_string(sum.total) +
               " recordings failed (messages above and in " + report +
               "); run 'modescope-cli study retry " + m.root + "' to redo only those");
    return 2;
  }
  return 0;
}

int runNewStudy(const ParsedArgs& a) {
  const std::string pipelinePath = a.positionals.front();
  // 1. The pipeline, completely, before anything else (exit 2 naming step and field).
  std::vector<std::string> notes;
  const Pipeline pipeline = readPipelineFile(pipelinePath, &notes);
  if (!a.has("quiet")) {
    for (const std::string& n : notes) printWarning(n);
  }
  const std::string backend = a.value("backend").value_or("auto");
  if (backend != "auto" && backend != "cpu" && backend != "cuda") {
    throw InvalidParameterError("--backend", "'" + backend + "'", "auto, cpu or cuda");
  }
  executorOf(a);
  // 2. The recordings.
  const bool bids = a.has("bids");
  const bool list = a.has("inputs") || a.has("input");
  if (bids == list) {
    throw UsageError(
        bids ? "give either --bids or --inputs/--input, not both"
             : "'study' needs the recordings: --bids ROOT, --inputs LIST or --input REC");
  }
  StudyFilter filter;
  filter.subjects = a.values("subject");
  filter.sessions = a.values("session");
  filter.tasks = a.values("task");
  filter.runs = a.values("run");
  std::vector<StudyRecording> recordings;
  std::string root;
  if (bids) {
    recordings = scanBids(*a.value("bids"), filter);
    root = a.has("output") ? *a.value("output")
                           : (fs::path(*a.value("bids")) / "derivatives" / "modescope").string();
  } else {
    if (!filter.empty()) {
      throw UsageError("--subject, --session, --task and --run filter a BIDS dataset (--bids)");
    }
    std::vector<std::string> files = a.values("input");
    if (const auto l = a.value("inputs")) {
      const auto more = readRecordingList(*l);
      files.insert(files.end(), more.begin(), more.end());
    }
    recordings = listRecordings(files);
    if (!a.has("output")) throw UsageError("'study' with --inputs/--input needs -o OUTDIR");
    root = *a.value("output");
  }
  root = absoluteRoot(root);
  const std::string desc =
      studyDescLabel(a.value("desc").value_or(fs::path(pipelinePath).stem().string()));
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec || !fs::is_directory(root, ec)) {
    throw OutputError(root, "the output folder could not be created (" + ec.message() + ")");
  }
  checkFreeSpace(root);
  // 3. The plan: the hash uses the pipeline as written back (formatting does not count).
  StudyManifest m =
      planStudy(pipeline, writePipelineJson(pipeline), std::move(recordings), root, desc, backend);
  m.pipelineSource = pipelinePath;
  m.inputKind = bids ? "bids" : "list";
  if (bids) m.bidsRoot = absoluteRoot(*a.value("bids"));
  if (const auto t = a.value("timeout")) m.timeoutSeconds = parseSeconds("--timeout", *t, false);
  writeStudyFiles(m, readWholeFile(pipelinePath));
  // 4. What is complete and identical is skipped.
  std::vector<int> todo;
  for (const StudyTask& t : m.tasks) {
    if (!taskComplete(m, t, readTaskStatus(root, t.index))) todo.push_back(t.index);
  }
  if (!a.has("quiet")) {
    printNote(std::to_string(m.tasks.size()) + " recording(s); " +
              std::to_string(m.tasks.size() - todo.size()) +
              " already done with these "
              "parameters, " +
              std::to_string(todo.size()) + " to run; output " + root);
  }
  if (todo.empty()) {
    const std::string report = writeStudyReport(m);
    if (!a.has("quiet")) std::printf("nothing to do; report: %s\n", report.c_str());
    return 0;
  }
  return execute(m, todo, a);
}

int runRetry(const ParsedArgs& a) {
  if (a.positionals.size() != 2)
    throw UsageError("'study retry' needs the study folder: study retry OUT");
  const StudyManifest m = readManifest(a.positionals[1]);
  const StudySummary sum = summarizeStudy(m);
  if (sum.failedTasks.empty()) {
    if (!a.has("quiet")) std::printf("no failed task in %s\n", m.root.c_str());
    return 0;
  }
  if (!a.has("quiet")) {
    printNote("retrying " + std::to_string(sum.failedTasks.size()) +
              " failed task(s): " + slurmArrayRange(sum.failedTasks));
  }
  return execute(m, sum.failedTasks, a);
}

int runStatus(const ParsedArgs& a) {
  if (a.positionals.size() != 2) throw UsageError("'study status' needs the study folder");
  const StudyManifest m = readManifest(a.positionals[1]);
  for (const StudyTask& t : m.tasks) {
    const auto s = readTaskStatus(m.root, t.index);
    const bool complete = taskComplete(m, t, s);
    const char* state = complete                            ? "done"
                        : !s || s->state == TaskState::Done ? "pending"
                                                            : taskStateName(s->state);
    std::printf("%4d  %-12s %s%s%s\n", t.index, state, t.label().c_str(),
                s && !complete && !s->message.empty() ? ": " : "",
                s && !complete ? s->message.c_str() : "");
  }
  const StudySummary sum = summarizeStudy(m);
  std::printf("%d of %d done, %d failed, %d running, %d pending\n", sum.done, sum.total, sum.failed,
              sum.running, sum.pending);
  return 0;
}

int runTask(const ParsedArgs& a) {
  if (a.positionals.size() != 2 || !a.has("index")) {
    throw UsageError("'study task' needs the study folder and --index I");
  }
  TaskRunOptions o;
  o.executor = executorOf(a);
  if (o.executor == "slurm") {
    const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
    const char* idx = std::getenv("SLURM_ARRAY_TASK_ID");
    if (job && idx) o.slurmJob = std::string(job) + "_" + idx;
  }
  InterruptGuard guard;
  o.stopRequested = [] { return InterruptGuard::requested(); };
  return runStudyTask(absoluteRoot(a.positionals[1]), intOption(a, "index", 0, 100000000, 0), o);
}

}  // namespace

CommandSpec studySpec() {
  CommandSpec s;
  s.name = "study";
  s.usage =
      "PIPELINE.json (--bids ROOT | --inputs LIST | --input REC ...) [-o OUT] [options]\n"
      "       modescope-cli study retry|status|report OUT [options]";
  s.brief = "Run a pipeline over a study (BIDS or a list), locally or on Slurm";
  s.summary =
      "Run a pipeline file (docs/pipelines.md) over every recording of a BIDS dataset or a list, "
      "each recording in its own process, on this machine's GPUs or CPUs or as a Slurm job "
      "array; results go to a BIDS Derivatives folder with a sidecar per file and an HTML "
      "report (docs/study.md).";
  s.description =
      "The pipeline is checked completely first (exit 2 naming the step and field). With --bids "
      "the recordings are sub-*/[ses-*/]eeg|meg|ieeg/*_eeg.* files, filtered by --subject, "
      "--session, --task and --run; outputs go to ROOT/derivatives/modescope/ unless -o. Each "
      "output keeps the source entities and adds _desc-LABEL (--desc, default the pipeline "
      "file's name): sub-01_task-rest_desc-LABEL_imf.h5 (emd), _ica.h5 (ica), _eeg.h5 (filter), "
      "each with a .json sidecar (Sources, parameters, backend).\n\n"
      "The study is resumable: OUT/study/ holds the manifest and one status file per task. Running "
      "the same command again skips recordings done with identical parameters and redoes those "
      "whose pipeline, backend or file changed, or that were interrupted. A failing recording "
      "(damaged file, crash, GPU out of memory, --timeout) is recorded with its message and the "
      "study goes on; 'study retry OUT' runs only the failed ones. 'study status OUT' lists every "
      "task; 'study report OUT' writes OUT/study/report.html again.\n\n"
      "--executor local (default) runs one worker per GPU (CUDA_VISIBLE_DEVICES; --gpus) or "
      "--workers CPU workers. --executor slurm writes OUT/study/slurm/array-N.sbatch, submits it "
      "with sbatch and follows it with squeue; --dry-run only writes it.\n\n"
      "Exit codes: 0 every recording done, 2 some failed (listed), 130 stopped by Ctrl-C (run "
      "again to resume), others as for 'run'.";
  s.options = {
      {"bids", 0, "ROOT", "A BIDS dataset's top folder."},
      {"inputs", 0, "LIST", "A text file with one recording per line ('#' comments)."},
      {"input", 0, "REC", "A recording (repeat for several).", true},
      {"output", 'o', "OUT",
       "The derivatives folder (default with --bids: ROOT/derivatives/modescope)."},
      {"subject", 0, "LABEL", "Only this subject (repeatable).", true},
      {"session", 0, "LABEL", "Only this session (repeatable).", true},
      {"task", 0, "LABEL", "Only this task (repeatable).", true},
      {"run", 0, "INDEX", "Only this run (repeatable).", true},
      {"desc", 0, "LABEL", "The _desc-LABEL of the outputs (letters and digits)."},
      {"backend", 0, "auto|cpu|cuda", "Passed to each 'run' (--backend cpu repeats bit for bit)."},
      {"timeout", 0, "SECONDS", "Stop a recording that runs longer and record it as failed."},
      {"executor", 0, "local|slurm", "Where the tasks run (default local)."},
      {"workers", 0, "N", "CPU workers of the local executor without GPUs (default 1)."},
      {"gpus", 0, "LIST|auto|none",
       "GPUs of the local executor, one worker each (default auto: every GPU the driver shows; "
       "none with --backend cpu)."},
      {"partition", 0, "NAME", "Slurm partition."},
      {"time", 0, "LIMIT", "Slurm time limit per task (e.g. 01:00:00)."},
      {"mem", 0, "SIZE", "Slurm memory per task (e.g. 16G)."},
      {"account", 0, "NAME", "Slurm account."},
      {"gpus-per-task", 0, "N", "GPUs per Slurm task (--gres=gpu:N; default 0)."},
      {"cpus-per-task", 0, "N", "CPUs per Slurm task."},
      {"max-parallel", 0, "K", "At most K Slurm tasks at once (--array=...%K)."},
      {"slurm-profile", 0, "FILE", "A JSON file of Slurm options (docs/study.md); options win."},
      {"poll", 0, "SECONDS", "How often squeue is asked (default 5)."},
      {"dry-run", 0, "", "Write the Slurm script (or list the tasks) without running anything."},
      {"index", 0, "I", "The task ('study task' only)."},
      quietOption(),
      helpOption()};
  s.examples =
      "  modescope-cli study examples/pipelines/filter-ica.json --bids ds004584 --task rest\n"
      "  modescope-cli study p.json --inputs recordings.txt -o out --backend cpu --workers 2\n"
      "  modescope-cli study p.json --bids ds --executor slurm --gpus-per-task 1 "
      "--max-parallel 8 --partition gpu --time 01:00:00 --mem 16G\n"
      "  modescope-cli study retry ds/derivatives/modescope\n";
  s.minPositionals = 1;
  s.maxPositionals = 2;
  return s;
}

int runStudy(const Args& argv) {
  const CommandSpec spec = studySpec();
  const ParsedArgs a = parseArgs(spec, argv);
  const std::string& first = a.positionals.front();
  if (first == "retry") return runRetry(a);
  if (first == "status") return runStatus(a);
  if (first == "task") return runTask(a);
  if (first == "report") {
    if (a.positionals.size() != 2) throw UsageError("'study report' needs the study folder");
    const std::string path = writeStudyReport(readManifest(a.positionals[1]));
    std::printf("%s\n", path.c_str());
    return 0;
  }
  if (a.positionals.size() != 1) {
    throw UsageError("'study' takes one pipeline file (found '" + a.positionals[1] + "')");
  }
  return runNewStudy(a);
}

}  // namespace modescope::cli
