// `run PIPELINE.json --input REC -o OUTDIR [--overwrite] [--backend B] [--bad-segments FILE]
// [--bad-channels FILE] [--json] [--quiet]`: replays a pipeline file (app/core/pipeline.h,
// docs/pipelines.md) on one recording, headless.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/core/channel_selection.h"
#include "app/core/emd_job.h"
#include "app/core/entropy_job.h"
#include "app/core/epoch_job.h"
#include "app/core/gpu_backend.h"
#include "app/core/ica_flags_job.h"
#include "app/core/ica_job.h"
#include "app/core/interpolation_job.h"
#include "app/core/json_writer.h"
#include "app/core/memd_job.h"
#include "app/core/montage_job.h"
#include "app/core/pipeline.h"
#include "app/core/pipeline_montage.h"
#include "app/core/recording_selection.h"
#include "app/core/reviewed_marks_files.h"
#include "app/core/tf_job.h"
#include "engine/core/bad_marks.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_emd.h"
#include "engine/io/hdf5_entropy.h"
#include "engine/io/hdf5_epochs.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_memd.h"
#include "engine/io/hdf5_tf.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kRunSummaryName = "run.json";

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What one finished step did, for the terminal, --json and run.json.
struct StepReport {
  std::string kind;
  std::string input;   // the recording it read: the input, or an earlier filter step's file
  std::string output;  // the file it wrote
  std::string backend;
  bool onGpu = false;
  std::string selection;
  std::size_t channels = 0;
  int64_t samples = 0;
  double sampleRate = 0.0;
  double wallSeconds = 0.0;
  std::vector<std::pair<std::string, std::string>> parameters;  // the provenance's
  // emd
  std::string method;
  std::vector<int> imfCounts;
  // ica
  int components = 0, icaSteps = 0;
  bool converged = false;
  std::optional<std::vector<int>> rejected;  // 0-based, when the step's flags reject labels
  // xapen
  std::string measure;
  int64_t epochs = 0;
  // epoch
  int64_t epochsKept = 0, events = 0;
  // tfr
  std::string tfOrder;
  int64_t tfColumns = 0, tfBins = 0;
};

// A step's channels, resolved against the recording it will read.
struct PlannedStep {
  std::vector<std::size_t> channels;
  std::string note;  // why the default channels leave some out ("" when none are left out)
};

std::string stripTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

BackendChoice stepBackend(const PipelineStep& step, const std::optional<BackendChoice>& option) {
  if (option) return *option;
  return stepSelection(step).backend.value_or(BackendChoice::Auto);
}

const char* choiceName(BackendChoice c) {
  switch (c) {
    case BackendChoice::Auto:
      return "auto";
    case BackendChoice::Cpu:
      return "cpu";
    case BackendChoice::Cuda:
      return "cuda";
  }
  return "auto";
}

EmdJobSpec emdJobSpec(const PipelineEmdStep& s, const std::vector<std::size_t>& channels,
                      const std::string& inputFile) {
  EmdJobSpec job;
  job.channels = channels;
  job.startSeconds = s.selection.start;
  job.durationSeconds = s.selection.duration;
  job.params = s.params;
  job.presetName = emdStepPresetName(s);
  if (s.hht) {
    // The emd command's default transform: no per-sample series (--keep-instantaneous).
    HhtParams h;
    h.keepInstantaneous = false;
    job.hht = h;
  }
  job.inputFile = inputFile;
  return job;
}

MemdJobSpec memdJobSpec(const PipelineMemdStep& s, const std::vector<std::size_t>& channels,
                        const std::string& inputFile) {
  MemdJobSpec job;
  job.channels = channels;
  job.startSeconds = s.selection.start;
  job.durationSeconds = s.selection.duration;
  job.params = s.params;
  job.presetName = s.preset;
  job.inputFile = inputFile;
  return job;
}

EntropyJobSpec entropyJobSpec(const PipelineEntropyStep& s,
                              const std::vector<std::size_t>& channels) {
  EntropyJobSpec job;
  job.channels = channels;
  job.startSeconds = s.selection.start;
  job.durationSeconds = s.selection.duration;
  job.params = s.params;
  return job;
}

IcaJobSpec icaJobSpec(const PipelineIcaStep& s, const std::vector<std::size_t>& channels,
                      const std::string& inputFile, BackendChoice backend) {
  IcaJobSpec job;
  job.channels = channels;
  job.startSeconds = s.selection.start;
  job.durationSeconds = s.selection.duration;
  job.params = s.params;
  job.presetName = icaStepPresetName(s);
  job.inputFile = inputFile;
  job.backend = backend;
  return job;
}

TfJobSpec tfJobSpec(const PipelineTfStep& s, const std::vector<std::size_t>& channels) {
  TfJobSpec job;
  job.channels = channels;
  job.startSeconds = s.selection.start;
  job.durationSeconds = s.selection.duration;
  job.params = s.params;
  job.readout = s.readout;
  return job;
}

EpochJobSpec epochJobSpec(const PipelineEpochStep& s, const std::vector<std::size_t>& channels) {
  EpochJobSpec job;
  job.epochs.channels = channels;
  job.epochs.eventTypes = s.events;
  job.epochs.params = s.params;
  job.differences = s.differences;
  job.keepEpochs = s.epochs;
  return job;
}

// Every step's selection checked against the recording it will read, before anything runs: a
// filter step's output has the filter's channels over its range, as selectRecording() cuts them
// (lazily: no sample is read here).
std::vector<PlannedStep> planSteps(const Pipeline& pipeline, const std::string& pipelinePath,
                                   std::shared_ptr<const Recording> shape,
                                   const std::string& input) {
  std::vector<PlannedStep> plan;
  for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
    const PipelineStep& step = pipeline.steps[i];
    const StepSelection& sel = stepSelection(step);
    PlannedStep ps;
    try {
      const auto* interpolate = std::get_if<PipelineInterpolateStep>(&step);
      const auto* montage = std::get_if<PipelineMontageStep>(&step);
      ps.channels = sel.channels  ? parseChannelSelection(*shape, sel.channelsText())
                    : interpolate ? badChannelIndices(*shape)
                    : montage     ? std::vector<std::size_t>{}
                                  : defaultMethodChannels(*shape, &ps.note);
      if (montage) {
        // The derived channels, lazily: the later steps' selections refer to them.
        shape = montageRecording(shape, montageStepMontage(*montage, *shape));
      } else if (interpolate) {
        planChannelInterpolation(shape->channels, ps.channels, interpolate->params);
        // The next steps read the same channels, the interpolated ones good again.
        auto next = std::make_shared<Recording>(*shape);
        for (std::size_t c : ps.channels) next->channels[c].bad = false;
        shape = std::move(next);
      } else if (const auto* f = std::get_if<PipelineFilterStep>(&step)) {
        const double rate =
            checkSelection(*shape, Selection{ps.channels, sel.start, sel.duration}).sampleRate;
        planReference(*shape, ps.channels, f->spec.reference);
        for (const FilterSpec& spec : f->spec.filters) designFir(spec, rate);
        shape = selectRecording(shape, ps.channels, sel.start, sel.duration);
      } else if (const auto* e = std::get_if<PipelineEmdStep>(&step)) {
        checkEmdJob(*shape, emdJobSpec(*e, ps.channels, input));
      } else if (const auto* d = std::get_if<PipelineMemdStep>(&step)) {
        checkMemdJob(*shape, memdJobSpec(*d, ps.channels, input));
      } else if (const auto* c = std::get_if<PipelineIcaStep>(&step)) {
        checkIcaJob(*shape, icaJobSpec(*c, ps.channels, input, BackendChoice::Cpu));
      } else if (const auto* x = std::get_if<PipelineEntropyStep>(&step)) {
        checkEntropyJob(*shape, entropyJobSpec(*x, ps.channels));
      } else if (const auto* p = std::get_if<PipelineEpochStep>(&step)) {
        checkEpochSpec(*shape, epochJobSpec(*p, ps.channels).epochs);
      } else if (const auto* t = std::get_if<PipelineTfStep>(&step)) {
        checkTfJob(*shape, tfJobSpec(*t, ps.channels));
      }
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      throw PipelineStepError("'" + pipelinePath + "', " + stepLabel(i, step), e);
    }
    plan.push_back(std::move(ps));
  }
  return plan;
}

// Refuses, before anything runs, an output folder that cannot be used: a file of that name, a
// folder that cannot be created or written, outputs that exist (without --overwrite), an output
// that would replace the input recording or the pipeline file.
void checkOutputFolder(const std::string& outDir, const std::vector<std::string>& names,
                       const std::vector<std::string>& protectedFiles, bool overwrite) {
  const fs::path dir(outDir);
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      throw OutputError(outDir,
                        "this is a file, not a folder; give the folder for the step "
                        "outputs and run.json");
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw OutputError(outDir,
                        "no permission to create files in this folder; choose a folder "
                        "you can write to");
    }
    for (const std::string& name : names) {
      const fs::path f = dir / name;
      if (!fs::exists(f, ec)) continue;
      for (const std::string& keep : protectedFiles) {
        if (fs::equivalent(f, fs::path(keep), ec)) {
          throw InvalidParameterError("--output",
                                      "'" + outDir + "', whose " + name + " is '" + keep + "'",
                                      "a folder where no output replaces the input recording or "
                                      "the pipeline file",
                                      "Write the run to another folder");
        }
      }
      if (fs::is_directory(f, ec)) {
        throw OutputError(f.string(),
                          "a folder has the name of an output; remove it or choose "
                          "another output folder");
      }
      if (!overwrite) {
        throw InvalidParameterError("--output", "'" + outDir + "', which already holds " + name,
                                    "a folder without this pipeline's outputs",
                                    "Add --overwrite to replace them, or choose another folder");
      }
    }
    return;
  }
  // Created when the run starts: the nearest existing folder above it must be writable.
  fs::path parent = dir.parent_path();
  while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) {
    throw OutputError(outDir, "'" + parent.string() +
                                  "' is not a folder; choose another output "
                                  "folder");
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(outDir, "no permission to create it in '" + parent.string() +
                                  "'; choose a folder you can write to");
  }
}

void createOutputFolder(const std::string& outDir) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec || !fs::is_directory(outDir, ec)) {
    throw OutputError(outDir, "the folder could not be created (" + ec.message() + ")");
  }
}

// A context whose stage texts say which step runs ("step 2/3 emd: sifting ...").
JobContext stepContext(const JobContext& ctx, double begin, double end, std::string prefix) {
  const JobContext parent = ctx.sub(begin, end);
  return JobContext(ctx.stopToken(),
                    [parent, prefix = std::move(prefix)](double f, std::string_view stage) {
                      parent.progress(f, prefix + std::string(stage));
                    });
}

// What every step's report has: where it read, what ran, the selection and parameters of its
// provenance, and the shape of what it wrote.
StepReport stepReport(const std::string& input, const std::string& backendText,
                      const ComputeBackend& backend, const Provenance& prov, std::size_t channels,
                      int64_t samples, double rate) {
  StepReport r;
  r.input = input;
  r.backend = backendText;
  r.onGpu = backend.info().kind == BackendKind::Cuda;
  r.selection = prov.selection;
  r.parameters = prov.parameters;
  r.channels = channels;
  r.samples = samples;
  r.sampleRate = rate;
  return r;
}

// The report of a step that wrote a recording (filter, interpolate).
StepReport recordingStepReport(const std::string& input, const std::string& backendText,
                               const ComputeBackend& backend, const Provenance& prov,
                               const Recording& written) {
  const ChannelInfo* first = written.channels.empty() ? nullptr : &written.channels.front();
  return stepReport(input, backendText, backend, prov, written.channelCount(),
                    first ? first->sampleCount : 0, first ? first->sampleRate : 0.0);
}

StepReport runFilterStep(const PipelineFilterStep& s, const std::vector<std::size_t>& channels,
                         std::shared_ptr<const Recording>& current, std::string& currentPath,
                         const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  const StepSelection& sel = s.selection;
  Provenance prov;
  const auto t0 = Clock::now();
  JobContext computeCtx = ctx.sub(0.0, 0.8);
  std::shared_ptr<const Recording> result =
      preprocess(*current, channels, sel.start, sel.duration, s.spec, backend, computeCtx, &prov);
  const double computeSeconds = secondsSince(t0);
  // The provenance `modescope-cli filter` writes.
  if (prov.method.empty()) prov.method = "preprocess";
  if (prov.parameters.empty()) {
    prov.parameters.emplace_back("reference", describe(s.spec.reference));
    for (const auto& f : s.spec.filters) prov.parameters.emplace_back("filter", describe(f));
  }
  if (prov.backend.empty()) prov.backend = backend.info().describe();
  prov.softwareVersion = softwareVersion();
  prov.inputFile = currentPath;
  prov.selection = describeSelection(*current, channels, sel.start, sel.duration);
  prov.createdAt = utcNowIso8601();
  prov.wallSeconds = computeSeconds;
  JobContext writeCtx = ctx.sub(0.8, 1.0);
  writeRecording(*result, output, OutputFormat::Hdf5, prov, writeCtx);

  StepReport r = recordingStepReport(currentPath, prov.backend, backend, prov, *result);
  current = result;
  currentPath = output;
  return r;
}

StepReport runInterpolateStep(const PipelineInterpolateStep& s,
                              const std::vector<std::size_t>& channels,
                              std::shared_ptr<const Recording>& current, std::string& currentPath,
                              const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  InterpolationJobSpec spec;
  spec.bad = channels;
  spec.params = s.params;
  spec.inputFile = currentPath;
  JobContext computeCtx = ctx.sub(0.0, 0.8);
  InterpolationJobResult job = runInterpolationJob(current, spec, backend, computeCtx);
  JobContext writeCtx = ctx.sub(0.8, 1.0);
  writeRecording(*job.recording, output, OutputFormat::Hdf5, job.provenance, writeCtx);
  StepReport r =
      recordingStepReport(currentPath, job.backend, backend, job.provenance, *job.recording);
  current = job.recording;
  currentPath = output;
  return r;
}

StepReport runMontageStep(const PipelineMontageStep& s, std::shared_ptr<const Recording>& current,
                          std::string& currentPath, const std::string& output, JobContext& ctx,
                          ProgressDisplay& display) {
  MontageJobSpec spec;
  spec.montage = montageStepMontage(s, *current);
  spec.source = s.builtin.empty() ? "the pipeline's derivations" : s.builtin;
  spec.inputFile = currentPath;
  JobContext computeCtx = ctx.sub(0.0, 0.8);
  MontageJobResult job = runMontageJob(current, spec, computeCtx);
  for (const std::string& skipped : job.skipped)
    display.message(std::string(kProgram) + ": montage: left out " + skipped);
  JobContext writeCtx = ctx.sub(0.8, 1.0);
  writeRecording(*job.recording, output, OutputFormat::Hdf5, job.provenance, writeCtx);
  StepReport r;
  r.input = currentPath;
  r.backend = job.provenance.backend;
  r.selection = job.provenance.selection;
  r.parameters = job.provenance.parameters;
  r.channels = job.recording->channelCount();
  r.samples = job.recording->channels.front().sampleCount;
  r.sampleRate = job.recording->channels.front().sampleRate;
  current = job.recording;
  currentPath = output;
  return r;
}

// The report of a step that produced modes (EMD family or MEMD).
StepReport modesStepReport(const std::string& input, const std::string& backendText,
                           const ComputeBackend& backend, const Provenance& prov,
                           const std::vector<EmdChannelModes>& channels, int64_t samples,
                           double rate, const std::string& method) {
  StepReport r = stepReport(input, backendText, backend, prov, channels.size(), samples, rate);
  r.method = method;
  for (const EmdChannelModes& c : channels) r.imfCounts.push_back(c.imfCount());
  return r;
}

StepReport runEmdStep(const PipelineEmdStep& s, const std::vector<std::size_t>& channels,
                      const Recording& current, const std::string& currentPath,
                      const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  const EmdJobSpec job = emdJobSpec(s, channels, currentPath);
  JobContext computeCtx = ctx.sub(0.0, 0.9);
  const EmdJobResult result = runEmdJob(current, job, backend, computeCtx);
  JobContext writeCtx = ctx.sub(0.9, 1.0);
  writeEmdFile(output, current, *result.modes, result.hht.get(), writeCtx);

  const EmdResult& m = *result.modes;
  return modesStepReport(currentPath, result.backend, backend, m.provenance, m.channels, m.samples,
                         m.sampleRate, emdMethodName(m.params.method));
}

StepReport runMemdStep(const PipelineMemdStep& s, const std::vector<std::size_t>& channels,
                       const Recording& current, const std::string& currentPath,
                       const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  JobContext computeCtx = ctx.sub(0.0, 0.9);
  const MemdJobResult result =
      runMemdJob(current, memdJobSpec(s, channels, currentPath), backend, computeCtx);
  JobContext writeCtx = ctx.sub(0.9, 1.0);
  writeMemdFile(output, current, *result.modes, writeCtx);
  const MemdResult& m = *result.modes;
  return modesStepReport(currentPath, result.backend, backend, m.provenance, m.channels, m.samples,
                         m.sampleRate, m.provenance.method);
}

StepReport runIcaStep(const PipelineIcaStep& s, const std::vector<std::size_t>& channels,
                      const Recording& current, const std::string& currentPath,
                      const std::string& output, ComputeBackend& backend, BackendChoice choice,
                      JobContext& ctx, ProgressDisplay& display) {
  const IcaJobSpec job = icaJobSpec(s, channels, currentPath, choice);
  JobContext computeCtx = ctx.sub(0.0, 0.95);
  const IcaJobResult result = runIcaJob(current, job, backend, computeCtx);
  for (const Diagnostic& d : result.file->result.diagnostics) {
    if (d.severity == Severity::Warning)
      display.message(std::string(kProgram) + ": warning: " + d.message);
  }
  JobContext writeCtx = ctx.sub(0.95, 1.0);
  writeIcaFile(output, *result.file, writeCtx);
  const IcaFile& f = *result.file;
  StepReport r = stepReport(currentPath, result.backend, backend, f.provenance, f.channels.size(),
                            f.samples, f.sampleRate);
  if (s.flags) {
    JobContext flagCtx = ctx.sub(0.95, 1.0);
    const IcaFlags flags = flagIcaFile(current, *result.file, s.flags->params, flagCtx);
    writeIcaFlagsTsv(defaultFlagsPath(output), flags);
    // What the session's "Mark flagged" chose: the labels and the confidence it recorded.
    if (!s.flags->reject.empty())
      r.rejected = flaggedComponents(flags, s.flags->reject, s.flags->minConfidence);
  }
  r.onGpu = result.onGpu;  // the ICA job may fall back from the GPU (ica_job.h)
  r.components = f.result.components;
  r.icaSteps = f.result.steps;
  r.converged = f.result.converged;
  return r;
}

StepReport runEntropyStep(const PipelineEntropyStep& s, const std::vector<std::size_t>& channels,
                          const Recording& current, const std::string& currentPath,
                          const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  JobContext computeCtx = ctx.sub(0.0, 0.95);
  const EntropyJobResult result =
      runEntropyJob(current, entropyJobSpec(s, channels), backend, computeCtx);
  // One recording, as `modescope-cli xapen` writes a single input (its group mean is itself).
  EntropyFile file;
  file.recordings.push_back(*result.run);
  file.recordings.front().inputFile = currentPath;
  file.recordings.front().provenance.inputFile = currentPath;
  file.groups = entropyGroupMeans(file.recordings);
  JobContext writeCtx = ctx.sub(0.95, 1.0);
  writeEntropyFile(output, file, writeCtx);

  const EntropyFileRecording& run = file.recordings.front();
  StepReport r = stepReport(currentPath, result.backend, backend, run.provenance,
                            run.channels.size(), run.selectionSamples, run.result.sampleRate);
  r.measure = entropyMeasureName(run.result.params.measure);
  r.epochs = static_cast<int64_t>(run.result.epochCount());
  return r;
}

StepReport runEpochStep(const PipelineEpochStep& s, const std::vector<std::size_t>& channels,
                        const Recording& current, const std::string& currentPath,
                        const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  JobContext computeCtx = ctx.sub(0.0, 0.9);
  const EpochJobResult result =
      runEpochJob(current, epochJobSpec(s, channels), backend, computeCtx);
  JobContext writeCtx = ctx.sub(0.9, 1.0);
  writeEpochFile(output, *result.file, writeCtx);
  const EpochSet& set = result.file->set;
  StepReport r = stepReport(currentPath, result.backend, backend, result.file->provenance,
                            set.channelCount(), set.samples, set.sampleRate);
  r.epochsKept = static_cast<int64_t>(set.epochCount());
  r.events = static_cast<int64_t>(set.log.size());
  return r;
}

StepReport runTfStep(const PipelineTfStep& s, const std::vector<std::size_t>& channels,
                     const Recording& current, const std::string& currentPath,
                     const std::string& output, ComputeBackend& backend, JobContext& ctx) {
  const TfJobSpec job = tfJobSpec(s, channels);
  TfJobResult result;
  if (tfJobStreams(job)) {  // as `tfr`: the image goes to the file tile by tile
    result = runTfJobToFile(current, job, backend, output, tfStorage(job.readout), ctx);
  } else {
    JobContext computeCtx = ctx.sub(0.0, 0.85);
    result = runTfJob(current, job, backend, computeCtx);
    JobContext writeCtx = ctx.sub(0.85, 1.0);
    writeTfFile(output, *result.run, tfStorage(job.readout), writeCtx);
  }
  const TfFile& file = *result.run;
  StepReport r = stepReport(currentPath, result.backend, backend, file.provenance,
                            file.channels.size(), file.result.samples, file.result.sampleRate);
  r.tfOrder = tfOrderName(file.result.params.order);
  r.tfColumns = file.result.columns;
  r.tfBins = file.result.bins;
  return r;
}

std::string summaryJson(const Pipeline& pipeline, const std::string& pipelinePath,
                        const std::string& input, const std::string& outDir,
                        const std::optional<BackendChoice>& backendOption,
                        const std::vector<StepReport>& steps, double wallSeconds,
                        const std::string& reviewedMarks) {
  JsonWriter w;
  w.beginObject();
  w.field("modescope_run", 1);
  w.field("pipeline", pipelinePath);
  w.field("pipeline_version", pipeline.version);
  w.field("description", pipeline.description);
  w.field("input", input);
  w.field("output_dir", outDir);
  if (!reviewedMarks.empty()) w.field("reviewed_marks", reviewedMarks);
  if (backendOption)
    w.field("backend_option", choiceName(*backendOption));
  else
    w.nullField("backend_option");
  w.field("software_version", softwareVersion());
  w.field("finished_at", utcNowIso8601());
  w.field("wall_s", wallSeconds);
  w.key("steps").beginArray();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepReport& s = steps[i];
    w.beginObject();
    w.field("step", static_cast<int64_t>(i + 1));
    w.field("kind", s.kind);
    w.field("input", s.input);
    w.field("output", s.output);
    w.field("file", fs::path(s.output).filename().string());
    w.key("backend").beginObject();
    w.field("kind", s.onGpu ? "cuda" : "cpu");
    w.field("description", s.backend);
    w.endObject();
    w.field("selection", s.selection);
    w.field("channels", static_cast<int64_t>(s.channels));
    w.field("samples", s.samples);
    w.field("sample_rate", s.sampleRate);
    w.field("wall_s", s.wallSeconds);
    if (s.kind == "emd" || s.kind == "memd") {
      w.field("method", s.method);
      w.key("imf_counts").beginArray();
      for (int k : s.imfCounts) w.value(k);
      w.endArray();
    } else if (s.kind == "ica") {
      w.field("components", s.components);
      w.field("ica_steps", s.icaSteps);
      w.field("converged", s.converged);
      if (s.rejected) {
        w.key("rejected_components").beginArray();  // 0-based, as components.tsv numbers them
        for (int k : *s.rejected) w.value(k);
        w.endArray();
      }
    } else if (s.kind == "xapen") {
      w.field("measure", s.measure);
      w.field("epochs", s.epochs);
    } else if (s.kind == "epoch") {
      w.field("epochs_kept", s.epochsKept);
      w.field("events", s.events);
    } else if (s.kind == "tfr") {
      w.field("order", s.tfOrder);
      w.field("columns", s.tfColumns);
      w.field("bins", s.tfBins);
    }
    // A list, not an object: a filter step has one "filter" entry per filter.
    w.key("parameters").beginArray();
    for (const auto& [name, value] : s.parameters) {
      w.beginObject();
      w.field("name", name);
      w.field("value", value);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

void printStepLine(std::size_t index, std::size_t count, const StepReport& s) {
  std::string what =
      std::to_string(s.channels) + " channels x " +
      formatNumber(s.sampleRate > 0 ? static_cast<double>(s.samples) / s.sampleRate : 0.0) + " s";
  if (s.kind == "emd" || s.kind == "memd") {
    what = s.method + " of " + what;
  } else if (s.kind == "ica") {
    what = "ICA of " + what + ", " + std::to_string(s.components) + " components" +
           (s.converged ? "" : " (NOT converged)");
  } else if (s.kind == "xapen") {
    what = s.measure + " matrix of " + what + ", " + std::to_string(s.epochs) + " epoch(s)";
  } else if (s.kind == "epoch") {
    what = std::to_string(s.epochsKept) + " epoch(s) of " + std::to_string(s.events) +
           " event(s), " + std::to_string(s.channels) + " channels";
  } else if (s.kind == "tfr") {
    what = "order " + s.tfOrder + " image of " + what + ", " + std::to_string(s.tfColumns) +
           " columns x " + std::to_string(s.tfBins) + " bins";
  } else if (s.kind == "interpolate") {
    what = "bad channels interpolated in " + what;
  } else if (s.kind == "montage") {
    what = "montage of " + std::to_string(s.channels) + " derivations x " +
           formatNumber(s.sampleRate > 0 ? static_cast<double>(s.samples) / s.sampleRate : 0.0) +
           " s";
  } else {
    what = "filtered " + what;
  }
  std::printf("step %zu/%zu %s: %s on %s in %s; wrote %s\n", index + 1, count, s.kind.c_str(),
              what.c_str(), s.backend.c_str(), formatSeconds(s.wallSeconds).c_str(),
              s.output.c_str());
}

}  // namespace

CommandSpec runSpec() {
  CommandSpec s;
  s.name = "run";
  s.usage = "PIPELINE.json --input REC -o OUTDIR [--overwrite] [--backend B] [options]";
  s.brief = "Replay a pipeline file (filter, EMD, ICA steps) on one recording";
  s.summary =
      "Run the steps of a pipeline file (docs/pipelines.md) on one recording, headless, "
      "and write each step's result and a run summary into a folder.";
  s.description =
      "The pipeline file is read and checked completely before anything runs: a newer format "
      "version, an unknown step, field or parameter, a wrong type or a value out of range stops "
      "the run with exit code 2 and a message naming the file, the step and the field, and the "
      "output folder is not touched. Then the recording is opened once and every step's "
      "selection is checked against the recording it will read (a channel that is not there "
      "stops the run with exit code 1, still before anything is written).\n\n"
      "Steps run in order. A filter step's recording becomes the input of every later step, so "
      "their --channels, start and duration refer to it. Each step writes NN-KIND.h5 in OUTDIR "
      "(01-filter.h5: the filtered recording; 02-emd.h5, 03-ica.h5: the schemas of the emd and "
      "ica commands) with the same writers and provenance as the single commands, so a step gives "
      "the same datasets as running that command by hand with the same options. run.json, "
      "written when every step is done, lists the pipeline, the input, each step's file, backend, "
      "parameters and wall time.\n\n"
      "OUTDIR is created when missing. Existing outputs are refused unless --overwrite. Every "
      "file is written under a temporary name and renamed when complete: Ctrl-C stops the "
      "running step and leaves no partial file (the files of completed steps stay; run.json is "
      "not written).";
  s.options = {
      {"input", 0, "REC", "The recording to process (any format 'info' reads)."},
      {"output", 'o', "OUTDIR",
       "The folder for the step outputs (NN-KIND.h5) and run.json; created when missing."},
      {"overwrite", 0, "", "Replace outputs of an earlier run in OUTDIR."},
      {"backend", 0, "auto|cpu|cuda",
       "Where every step computes, over the steps' own \"backend\" fields (default: each step's "
       "field, else auto). --backend cpu repeats a run bit for bit."},
      {"bad-segments", 0, "FILE",
       "Reviewed bad segments: an annotation table (.csv or BIDS events.tsv, as the "
       "'annotations' command and File > Export annotations write it) whose rows with a text "
       "beginning with 'bad' (MNE's convention) are added to the recording's own; every step "
       "honours them as it honours a file's (docs/pipelines.md)."},
      {"bad-channels", 0, "FILE",
       "Reviewed bad channels: a BIDS channels.tsv whose rows of status 'bad' are flagged bad "
       "besides those the recording has; steps leave them out by default."},
      jsonOption("the run summary (the content of run.json)"),
      quietOption(),
      helpOption()};
  s.examples =
      "  modescope-cli run examples/pipelines/iceemdan-c3.json --input rec.edf -o rec-run\n"
      "  modescope-cli run examples/pipelines/filter-ica.json --input rec.bdf -o out "
      "--backend cpu --overwrite --json\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runRun(const Args& argv) {
  const CommandSpec spec = runSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string pipelinePath = args.positionals.front();
  const auto inputArg = args.value("input");
  if (!inputArg || inputArg->empty()) {
    throw UsageError("'run' needs the recording to process: --input REC");
  }
  const std::string input = *inputArg;
  const std::string outDir = stripTrailingSlashes(readOutputPath(args, spec));
  const bool quiet = args.has("quiet");
  const bool json = args.has("json");
  const bool overwrite = args.has("overwrite");
  std::optional<BackendChoice> backendOption;
  if (args.has("backend")) backendOption = readBackendChoice(args);

  // 1. The whole file, before anything else (exit 2 naming file, step and field).
  std::vector<std::string> notes;
  const Pipeline pipeline = readPipelineFile(pipelinePath, &notes);
  // The reviewed marks' files too (exit 2 naming the file and line); checked against the
  // recording when it is open, still before anything is written.
  const ReviewedMarksFiles reviewed = readReviewedMarksFiles(
      args.value("bad-segments").value_or(""), args.value("bad-channels").value_or(""));
  if (!quiet) {
    for (const std::string& n : notes) printWarning(n);
  }

  // 2. The output folder and every name in it.
  std::vector<std::string> names;
  for (std::size_t i = 0; i < pipeline.steps.size(); ++i)
    names.push_back(stepOutputName(i, pipeline.steps[i]));
  names.push_back(kRunSummaryName);
  checkOutputFolder(outDir, names, {input, pipelinePath}, overwrite);
  auto outPath = [&](const std::string& name) { return (fs::path(outDir) / name).string(); };

  // 3. One backend per choice, as the single commands choose it (a missing GPU: exit 3 now).
  std::map<BackendChoice, std::unique_ptr<ComputeBackend>> backends;
  for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
    const BackendChoice choice = stepBackend(pipeline.steps[i], backendOption);
    if (backends.count(choice)) continue;
    std::string note;
    try {
      backends[choice] = chooseBackend(choice, &note);
    } catch (const Error& e) {
      throw PipelineStepError("'" + pipelinePath + "', " + stepLabel(i, pipeline.steps[i]), e);
    }
    if (!note.empty() && !quiet && gpuFactory()) printNote(note);
  }

  std::vector<StepReport> reports;
  std::string summary;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "run");
  const auto started = Clock::now();
  JobOutcome outcome = runCliJob(
      "run " + pipelinePath,
      [&](JobContext& ctx) -> void {
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> current = openRecording(input);
        ctx.checkpoint();
        printDiagnostics(*current, display);
        if (!reviewed.empty()) {
          current = withReviewedMarks(*current, reviewed);
          if (!quiet)
            display.message(std::string(kProgram) + ": " + describeReviewedMarks(reviewed));
        }
        const std::vector<PlannedStep> plan = planSteps(pipeline, pipelinePath, current, input);
        createOutputFolder(outDir);

        std::string currentPath = input;
        const std::size_t n = pipeline.steps.size();
        const double first = 0.02, share = (1.0 - first) / static_cast<double>(n);
        for (std::size_t i = 0; i < n; ++i) {
          const PipelineStep& step = pipeline.steps[i];
          const std::string label = stepLabel(i, step);
          const std::string output = outPath(names[i]);
          const BackendChoice choice = stepBackend(step, backendOption);
          ComputeBackend& backend = *backends.at(choice);
          const PlannedStep& planned = plan[i];
          if (!stepSelection(step).channels && !planned.note.empty())
            display.message(std::string(kProgram) + ": " + label + ": " + planned.note);
          JobContext stepCtx = stepContext(ctx, first + share * static_cast<double>(i),
                                           first + share * static_cast<double>(i + 1),
                                           "step " + std::to_string(i + 1) + "/" +
                                               std::to_string(n) + " " + stepKind(step) + ": ");
          const auto t0 = Clock::now();
          StepReport report;
          try {
            if (const auto* f = std::get_if<PipelineFilterStep>(&step)) {
              report = runFilterStep(*f, planned.channels, current, currentPath, output, backend,
                                     stepCtx);
            } else if (const auto* e = std::get_if<PipelineEmdStep>(&step)) {
              report =
                  runEmdStep(*e, planned.channels, *current, currentPath, output, backend, stepCtx);
            } else if (const auto* d = std::get_if<PipelineMemdStep>(&step)) {
              report = runMemdStep(*d, planned.channels, *current, currentPath, output, backend,
                                   stepCtx);
            } else if (const auto* b = std::get_if<PipelineInterpolateStep>(&step)) {
              report = runInterpolateStep(*b, planned.channels, current, currentPath, output,
                                          backend, stepCtx);
            } else if (const auto* c = std::get_if<PipelineIcaStep>(&step)) {
              report = runIcaStep(*c, planned.channels, *current, currentPath, output, backend,
                                  choice, stepCtx, display);
            } else if (const auto* x = std::get_if<PipelineEntropyStep>(&step)) {
              report = runEntropyStep(*x, planned.channels, *current, currentPath, output, backend,
                                      stepCtx);
            } else if (const auto* g = std::get_if<PipelineMontageStep>(&step)) {
              report = runMontageStep(*g, current, currentPath, output, stepCtx, display);
            } else if (const auto* p = std::get_if<PipelineEpochStep>(&step)) {
              report = runEpochStep(*p, planned.channels, *current, currentPath, output, backend,
                                    stepCtx);
            } else if (const auto* t = std::get_if<PipelineTfStep>(&step)) {
              report =
                  runTfStep(*t, planned.channels, *current, currentPath, output, backend, stepCtx);
            }
          } catch (const Cancelled&) {
            throw;
          } catch (const Error& e) {
            throw PipelineStepError("'" + pipelinePath + "', " + label, e);
          }
          report.kind = stepKind(step);
          report.output = output;
          report.wallSeconds = secondsSince(t0);
          reports.push_back(std::move(report));
          ctx.checkpoint();
        }
        summary = summaryJson(pipeline, pipelinePath, input, outDir, backendOption, reports,
                              secondsSince(started), describeReviewedMarks(reviewed));
        writeTextAtomically(outPath(kRunSummaryName), summary, "the run summary");
        ctx.progress(1.0, "done");
        return;
      },
      display);
  if (outcome.state == JobState::Cancelled && !reports.empty())
    outcome.message = "cancelled by the user; the running step left no file";
  const int code = reportOutcome(outcome);
  if (code != 0) {
    if (!reports.empty() && !quiet) {
      std::string kept;
      for (const StepReport& r : reports) kept += (kept.empty() ? "" : ", ") + r.output;
      printNote("the files of the " + std::to_string(reports.size()) +
                " completed step(s) stay: " + kept + "; " + kRunSummaryName + " was not written");
    }
    return code;
  }
  if (json) {
    std::fputs(summary.c_str(), stdout);
  } else if (!quiet) {
    for (std::size_t i = 0; i < reports.size(); ++i) printStepLine(i, reports.size(), reports[i]);
    std::printf("%zu steps in %s; wrote %s\n", reports.size(),
                formatSeconds(secondsSince(started)).c_str(), outPath(kRunSummaryName).c_str());
  }
  return 0;
}

}  // namespace modescope::cli
