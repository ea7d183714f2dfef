// `epoch IN -o OUT.h5 --events A,B [--tmin S] [--tmax S] [--no-baseline] [--baseline-start S]
//  [--baseline-end S] [--reject X] [--no-reject-bad-segments] [--confidence L]
//  [--difference A-B]... [--bad-segments FILE] [--channels] [--backend] [--json] [--quiet]` and
//  `average` (the same,
// writing the averages without the epochs): epochs around events and their averages per
// condition to HDF5 (docs/epochs.md).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/epoch_job.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"
#include "engine/core/bad_marks.h"
#include "engine/core/corrected_annotations.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/annotation_files.h"
#include "engine/io/session.h"

namespace modescope::cli {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

CommandSpec epochLikeSpec(bool keepEpochs) {
  CommandSpec s;
  s.name = keepEpochs ? "epoch" : "average";
  s.usage = "IN -o OUT.h5 --events A[,B...] [parameters] [options]";
  s.brief = keepEpochs ? "Epochs around events, with their averages, to HDF5"
                       : "Averaged ERPs per event type with confidence bands to HDF5";
  s.summary =
      keepEpochs
          ? "Cut epochs of the chosen channels around the annotations of the chosen event types, "
            "correct their baseline, reject epochs by peak-to-peak amplitude and bad segments, and "
            "write the epochs with their averages per condition to HDF5."
          : "Epoch around the chosen event types as `epoch` does and write only the averages per "
            "condition (the ERPs), their standard errors and difference waves to HDF5.";
  s.description =
      "Each event type is a condition; its events are the annotations whose text is exactly "
      "that type, at sample round(onset fs). The window runs from round(tmin fs) to "
      "round(tmax fs) samples around each event, both included (mne.Epochs). Epochs that reach "
      "outside the recording are dropped, as are epochs overlapping a bad segment (annotations "
      "whose text begins with 'bad', MNE's convention, and those of --bad-segments: the segments "
      "marked in the window, from its annotation export or a saved session) unless "
      "--no-reject-bad-segments. The "
      "baseline mean of each channel is subtracted, then epochs whose peak-to-peak amplitude on "
      "any channel exceeds --reject (in the channels' unit, uV for EEG) are dropped.\n\n"
      "Averages: mean and standard error (sample SD / sqrt(n)) per condition, channel and "
      "sample; the confidence band is mean +- z SE, z the normal quantile of --confidence. "
      "--difference A-B adds the difference wave A - B with SE sqrt(SE_A^2 + SE_B^2). The file "
      "(schema modescope-epochs/1, docs/epochs.md) also lists every event considered and why it "
      "was dropped.";
  s.options = {
      outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
      {"events", 0, "LIST", "Event types (annotation texts) to epoch around, comma-separated."},
      {"difference", 0, "A-B", "A difference wave of two conditions (repeatable).", true},
      {"bad-segments", 0, "FILE",
       "More bad segments: the rows beginning with 'bad' of an annotation table (.csv or "
       "events.tsv, as the window's annotation export writes them) or the marked segments of a "
       "saved session (.h5), whose corrections of the file's own annotations then apply too."},
      channelsOption(),
      backendOption(),
      {"threads", 0, "N", "CPU threads (default: all cores)."},
      jsonOption("a summary (epochs kept and dropped per condition, backend)"),
      quietOption(),
      helpOption()};
  const std::vector<OptionSpec> params = paramOptions(epochParamTable(), EpochParams{});
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  s.examples = keepEpochs ? "  modescope-cli epoch rec.edf -o epochs.h5 --events T1,T2 --tmin -0.2 "
                            "--tmax 0.8 --reject 150\n"
                          : "  modescope-cli average rec.edf -o erp.h5 --events T1,T2 --difference "
                            "T1-T2 --reject 150\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

// What a --bad-segments file adds: the rows beginning with "bad" of an annotation table, or a
// saved session's marked segments; a session also brings the file's own annotations as the user
// corrected them in the window (Marks::fileAnnotations, absent when uncorrected), which replace
// the recording's for the events and its bad segments alike, as in the window.
struct BadSegmentInput {
  std::vector<TimeSpan> segments;
  std::optional<std::vector<Annotation>> correctedAnnotations;
  std::string sessionRecording;  // the recording the session was saved for ("" for a table)
};

BadSegmentInput readBadSegmentFile(const std::string& path) {
  const std::string ext = toLower(std::filesystem::path(path).extension().string());
  BadSegmentInput in;
  std::vector<Annotation> rows;
  if (ext == ".csv" || ext == ".tsv") {
    rows = readAnnotationFile(path);
  } else {
    Session session = loadSession(path);
    rows = std::move(session.marks.userAnnotations);
    in.correctedAnnotations = std::move(session.marks.fileAnnotations);
    in.sessionRecording = session.recordingPath;
  }
  for (const Annotation& a : badSegments(rows)) in.segments.push_back({a.onset, a.duration});
  return in;
}

// "bad segments: 3 honoured, 4 epoch(s) overlapping them rejected".
std::string badSegmentLine(const EpochJobResult& run, const EpochSet& set) {
  const std::string count = std::to_string(run.badSegments);
  if (!set.params.rejectBadSegments)
    return "bad segments: " + count + ", kept (--no-reject-bad-segments)";
  return "bad segments: " + count + " honoured, " +
         std::to_string(set.droppedCount(EpochFate::BadSegment)) +
         " epoch(s) overlapping them rejected";
}

// The backend's fallback note went to stderr with the progress (display.message).
void printJson(const EpochJobResult& run, const std::string& output) {
  const EpochSet& set = run.file->set;
  JsonWriter w;
  w.beginObject();
  w.field("output", output);
  w.field("backend", run.backend);
  w.field("channels", static_cast<int64_t>(set.channelCount()));
  w.field("samples", set.samples);
  w.field("sample_rate", set.sampleRate);
  w.key("conditions").beginArray();
  for (std::size_t k = 0; k < set.conditions.size(); ++k) {
    w.beginObject();
    w.field("name", set.conditions[k]);
    w.field("kept", static_cast<int64_t>(set.keptCount(static_cast<int>(k))));
    w.endObject();
  }
  w.endArray();
  w.field("events", static_cast<int64_t>(set.log.size()));
  w.field("dropped_peak_to_peak", static_cast<int64_t>(set.droppedCount(EpochFate::PeakToPeak)));
  w.field("dropped_bad_segment", static_cast<int64_t>(set.droppedCount(EpochFate::BadSegment)));
  w.field("bad_segments", static_cast<int64_t>(run.badSegments));
  w.field("dropped_outside_data", static_cast<int64_t>(set.droppedCount(EpochFate::OutsideData)));
  w.field("wall_s", run.wallSeconds);
  w.endObject();
  printJsonLine(w);
}

int runEpochLike(bool keepEpochs, const Args& argv) {
  const CommandSpec spec = epochLikeSpec(keepEpochs);
  const MethodArgs m = readMethodArgs(spec, argv);
  const ParsedArgs& args = m.args;
  EpochJobSpec job;
  job.keepEpochs = keepEpochs;
  applyParamOptions(args, epochParamTable(), job.epochs.params);
  validateAsOptions(epochParamTable(), job.epochs.params);
  const auto events = args.value("events");
  if (!events || splitList(*events).empty())
    throw InvalidParameterError("--events", events ? "'" + *events + "'" : "missing",
                                "one or more event types, comma-separated",
                                "list the annotation texts to epoch around (modescope-cli info "
                                "IN --annotations shows them), e.g. --events T1,T2");
  job.epochs.eventTypes = splitList(*events);
  job.differences = args.values("difference");
  const std::string badFile = args.value("bad-segments").value_or("");
  BadSegmentInput badInput;
  if (!badFile.empty()) badInput = readBadSegmentFile(badFile);
  job.epochs.badSegments = badInput.segments;
  requireHdf5Output(m.output,
                    "Epochs and averages are written to HDF5 (schema modescope-epochs/1)");
  checkOutputPath(m.output, m.input);
  const BackendChoice choice = readBackendChoice(args);
  const int threads = readThreads(args);

  EpochJobResult run;
  std::string backendNote;
  ProgressDisplay display(ProgressDisplay::modeFor(m.quiet), spec.name);
  const JobOutcome outcome = runCliJob(
      spec.name + " " + m.input,
      [&](JobContext& ctx) -> void {
        std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote, threads);
        if (!backendNote.empty()) display.message(std::string(kProgram) + ": " + backendNote);
        std::shared_ptr<const Recording> rec =
            openMethodInput(m.input, m.selection, ctx, display, job.epochs.channels);
        if (badInput.correctedAnnotations) {
          rec = withFileAnnotations(*rec, badInput.correctedAnnotations);
          std::string note = std::string(kProgram) + ": the file's annotations as corrected in " +
                             badFile + " (" + std::to_string(rec->annotations.size()) + ")";
          if (std::filesystem::path(badInput.sessionRecording).filename() !=
              std::filesystem::path(m.input).filename())
            note += "; the session was saved for " + badInput.sessionRecording;
          display.message(note);
        }
        JobContext work = ctx.sub(0.02, 0.9);
        run = runEpochJob(*rec, job, *backend, work);
        if (!badFile.empty() && job.epochs.badSegments.empty())
          display.message(std::string(kProgram) + ": warning: " + badFile +
                          " holds no bad segment (no row beginning with 'bad')");
        JobContext writeCtx = ctx.sub(0.9, 1.0);
        writeEpochFile(m.output, *run.file, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (m.json) {
    printJson(run, m.output);
  } else if (!m.quiet) {
    const EpochSet& set = run.file->set;
    for (const std::string& line : epochSummaryLines(set)) std::printf("%s\n", line.c_str());
    std::printf("%s\n", badSegmentLine(run, set).c_str());
    std::printf("%zu channel(s), %lld samples per epoch (%s to %s s) on %s in %s; wrote %s\n",
                set.channelCount(), static_cast<long long>(set.samples),
                formatNumber(set.time(0)).c_str(), formatNumber(set.time(set.samples - 1)).c_str(),
                run.backend.c_str(), formatSeconds(run.wallSeconds).c_str(), m.output.c_str());
  }
  return 0;
}

}  // namespace

CommandSpec epochSpec() { return epochLikeSpec(true); }
int runEpoch(const Args& argv) { return runEpochLike(true, argv); }
CommandSpec averageSpec() { return epochLikeSpec(false); }
int runAverage(const Args& argv) { return runEpochLike(false, argv); }

}  // namespace modescope::cli
