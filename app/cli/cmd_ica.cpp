// `ica IN -o OUT.h5 [--preset NAME] [parameters] [--channels] [--start] [--duration] [--threads]
//  [--backend] [--json] [--quiet]` and `ica-apply IN --ica ICA.h5 --reject LIST -o CLEAN`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/ica_file_inputs.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/channel_selection.h"
#include "app/core/ica_cleaning.h"
#include "app/core/ica_flags_job.h"
#include "app/core/ica_job.h"
#include "app/core/ica_metrics.h"
#include "app/core/json_writer.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

std::string presetList() {
  std::string s;
  for (const IcaPreset& p : icaPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// The preset (default eeglab-runica), then every option given over it (declared once in
// icaParamTable()).
IcaParams readIcaParams(const ParsedArgs& args, std::string* presetName) {
  *presetName = args.value("preset").value_or("eeglab-runica");
  IcaParams p = icaPreset(*presetName);
  applyParamOptions(args, icaParamTable(), p);
  validateIcaParams(p);
  return p;
}

// For each component, the EOG/ECG channel its activation correlates with most (|r|).
struct ArtifactCorrelation {
  std::string channel;
  double r = 0.0;
};

std::vector<ArtifactCorrelation> artifactCorrelations(const Recording& rec, const IcaFile& f) {
  std::vector<std::size_t> refs;
  for (std::size_t i = 0; i < rec.channelCount(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    if ((c.type == ChannelType::EOG || c.type == ChannelType::ECG) &&
        c.sampleRate == f.sampleRate && c.sampleCount >= f.firstSample + f.samples)
      refs.push_back(i);
  }
  std::vector<ArtifactCorrelation> out(static_cast<std::size_t>(f.result.components));
  if (refs.empty()) return out;
  std::vector<std::size_t> chans;
  for (const auto& c : f.channels) chans.push_back(c.recordingIndex);
  const double start = f.startSeconds(), dur = static_cast<double>(f.samples) / f.sampleRate;
  const SignalBlock block = extractBlock(rec, chans, start, dur);
  const SignalBlock ref = extractBlock(rec, refs, start, dur);
  const std::vector<float> act = icaActivations(f.result, block);
  const int64_t n = std::min(block.samples, ref.samples);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const float* a = act.data() + k * static_cast<std::size_t>(block.samples);
    for (std::size_t j = 0; j < refs.size(); ++j) {
      const double r = pearsonCorrelation(a, ref.channel(j), n);
      if (std::fabs(r) > std::fabs(out[k].r)) out[k] = {rec.channels[refs[j]].name, r};
    }
  }
  return out;
}

void printIcaJson(const IcaFile& f, const std::string& input, const std::string& output,
                  const std::string& preset, const std::string& backendChoice,
                  const std::string& backend, bool onGpu, const std::string& note,
                  const std::vector<ArtifactCorrelation>& corr) {
  const IcaResult& r = f.result;
  JsonWriter w;
  w.beginObject();
  w.field("input", input);
  w.field("output", output);
  w.field("preset", preset);
  w.key("backend").beginObject();
  w.field("choice", backendChoice);
  w.field("kind", onGpu ? "cuda" : "cpu");
  w.field("description", backend);
  if (note.empty())
    w.nullField("note");
  else
    w.field("note", note);
  w.endObject();
  w.field("seed", r.params.seed);
  w.key("parameters").beginObject();
  for (const auto& [name, value] : f.provenance.parameters) w.field(name, value);
  w.endObject();
  w.field("sample_rate", f.sampleRate);
  w.field("start_s", f.startSeconds());
  w.field("samples", f.samples);
  w.field("channels", static_cast<int64_t>(f.channels.size()));
  w.field("rank", r.components);
  w.field("detected_rank", r.detectedRank);
  w.field("steps", r.steps);
  w.field("restarts", r.restarts);
  w.field("converged", r.converged);
  w.field("stop_reason", r.stopReason);
  w.field("ica_s", r.seconds);
  w.key("components").beginArray();
  for (int k = 0; k < r.components; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    w.beginObject();
    w.field("component", k + 1);
    w.field("variance_percent", 100.0 * r.varianceFraction[kk]);
    w.field("sign", r.signs[kk]);
    if (corr[kk].channel.empty()) {
      w.nullField("artifact_channel");
      w.nullField("artifact_correlation");
    } else {
      w.field("artifact_channel", corr[kk].channel);
      w.field("artifact_correlation", corr[kk].r);
    }
    w.endObject();
  }
  w.endArray();
  writeDiagnosticsJson(w, r.diagnostics);
  w.endObject();
  printJsonLine(w);
}

void printIcaText(const IcaFile& f, const std::string& output, const std::string& backend,
                  const std::vector<ArtifactCorrelation>& corr) {
  const IcaResult& r = f.result;
  for (int k = 0; k < r.components; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    std::printf("component %d: %.2f %% of the variance%s", k + 1, 100.0 * r.varianceFraction[kk],
                r.signs[kk] < 0 ? ", sub-Gaussian" : "");
    if (!corr[kk].channel.empty())
      std::printf(", r = %+.2f with %s", corr[kk].r, corr[kk].channel.c_str());
    std::printf("\n");
  }
  std::printf(
      "%s Infomax of %zu channels x %lld samples: %d components (detected rank %d), %d "
      "steps, %s on %s: %s; wrote %s\n",
      r.params.extended ? "extended" : "logistic", f.channels.size(),
      static_cast<long long>(f.samples), r.components, r.detectedRank, r.steps,
      r.converged ? "converged" : "NOT converged", backend.c_str(),
      formatSeconds(r.seconds).c_str(), output.c_str());
}

}  // namespace

CommandSpec icaSpec() {
  CommandSpec s;
  s.name = "ica";
  s.usage = "IN -o OUT.h5 [--preset NAME] [parameters] [options]";
  s.brief = "extended Infomax ICA (runica/MNE presets) to HDF5";
  s.summary =
      "Decompose the selected channels into independent components with (extended) "
      "Infomax, as EEGLAB's runica or MNE's infomax compute it, and write the "
      "decomposition to HDF5.";
  s.description =
      "The parameters start from --preset (default eeglab-runica; presets: " + presetList() +
      ") and every option given overrides the preset's value. Rank-deficient data (average "
      "reference, interpolated channels) is reduced by PCA to its rank automatically and a "
      "warning says so; --rank N forces a reduction. Components are sorted by the variance they "
      "back-project, and numbered from 1 as printed; give those numbers to 'ica-apply --reject'."
      "\n\nThe output is an HDF5 file (schema modescope-ica/1, docs/hdf5-schema.md): mean, "
      "sphere, weights, unmixing and mixing matrices, variance per component, convergence "
      "history, parameters and provenance.\n\nOn the GPU (--backend cuda, or auto when one is "
      "present) the passes run on tensor cores (--gpu-math) and the covariance and sphering on "
      "the device in double; the rank, the sphere, the step control and the sorting are the "
      "CPU's own code, so both backends follow one procedure (docs/ica.md)."
      "\n\nWithout --channels, every channel "
      "except trigger/status channels is used, restricted to the sample rate most channels share.";
  s.options = {
      outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
      {"preset", 0, "NAME", "Start from a named parameter set: " + presetList() + "."},
      channelsOption(),
      startOption(),
      durationOption(),
      {"threads", 0, "N",
       "CPU threads: the data passes and each block update's products (default: all cores)."},
      backendOption(),
      jsonOption("a summary (rank, steps, convergence, variance per component, EOG/ECG "
                 "correlations)"),
      quietOption(),
      helpOption()};
  // The method's parameters come from their declarations (icaParamTable()), defaults runica's.
  const std::vector<OptionSpec> params = paramOptions(icaParamTable(), icaPreset("eeglab-runica"));
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  s.examples =
      "  modescope-cli ica rec.edf -o rec-ica.h5\n"
      "  modescope-cli ica rec.edf -o rec-ica.h5 --preset mne-infomax --rank 30 --seed 7 --json\n"
      "  modescope-cli ica rec.edf -o ica.h5 --channels Fp1,Fp2,F3,F4,C3,C4 --start 10 "
      "--duration 60\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runIca(const Args& argv) {
  const MethodArgs m = readMethodArgs(icaSpec(), argv);
  const ParsedArgs& args = m.args;
  const std::string& input = m.input;
  const std::string& output = m.output;
  const SelectionArgs& sel = m.selection;
  const bool quiet = m.quiet, json = m.json;

  // Every parameter is checked before the recording is opened (exit 1 at once).
  IcaJobSpec job;
  job.params = readIcaParams(args, &job.presetName);
  job.backend = readBackendChoice(args);
  job.threads = readThreads(args);
  requireHdf5Output(output,
                    "The decomposition is written to HDF5; use ica-apply for a cleaned EDF/BDF "
                    "recording");
  checkOutputPath(output, input);
  job.startSeconds = sel.start;
  job.durationSeconds = sel.duration;
  job.inputFile = input;

  std::shared_ptr<const Recording> rec;
  IcaJobResult result;
  std::vector<ArtifactCorrelation> corr;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "ica");
  const JobOutcome outcome = runCliJob(
      "ica " + input,
      [&](JobContext& ctx) -> void {
        rec = openMethodInput(input, sel, ctx, display, job.channels);
        JobContext computeCtx = ctx.sub(0.0, 0.95);
        result = runIcaJob(*rec, job, computeCtx);
        for (const Diagnostic& d : result.file->result.diagnostics) {
          if (d.severity == Severity::Warning)
            display.message(std::string(kProgram) + ": warning: " + d.message);
        }
        JobContext writeCtx = ctx.sub(0.95, 1.0);
        writeIcaFile(output, *result.file, writeCtx);
        corr = artifactCorrelations(*rec, *result.file);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (json) {
    printIcaJson(*result.file, input, output, job.presetName,
                 args.value("backend").value_or("auto"), result.backend, result.onGpu,
                 result.backendNote, corr);
  } else if (!quiet) {
    printIcaText(*result.file, output, result.backend, corr);
  }
  return 0;
}

CommandSpec icaApplySpec() {
  CommandSpec s;
  s.name = "ica-apply";
  s.usage = "IN --ica ICA.h5 --reject LIST -o CLEAN.(edf|bdf|h5) [options]";
  s.brief = "remove ICA components (back-projection) and write the cleaned recording";
  s.summary =
      "Write the recording with the rejected independent components removed from the "
      "channels and the time range the ICA file was computed on.";
  s.description =
      "The channels and the range come from the ICA file (written by 'modescope-cli ica'); the "
      "recording must be the one it was computed from (same channel labels and sample rate), "
      "else the command refuses. Cleaned = x - mixing(:, rejected) * activations(rejected); the "
      "other channels, the samples outside the range and the annotations are copied unchanged. "
      "The provenance records the ICA file and the rejected components.";
  s.options = {
      outputOption("The cleaned recording to write (.edf, .bdf, .h5).", true),
      {"ica", 0, "ICA.h5", "The decomposition written by 'modescope-cli ica'."},
      {"reject", 0, "LIST",
       "Components to remove: 1-based numbers as 'ica' prints them, comma-separated (1,3,7); "
       "'none' writes the back-projection of everything."},
      {"reject-flagged", 0, "LABELS",
       "Also remove the components flagged with these labels (eye, heart, muscle, line, "
       "channel; comma-separated) at confidence >= 0.5, as 'ica-flags' labels them."},
      {"flags", 0, "FLAGS.tsv",
       "With --reject-flagged: read the labels from this components.tsv ('ica-flags' or "
       "mne-icalabel) instead of running the detectors with their default thresholds."},
      jsonOption("a summary (the file, the removed components)"),
      quietOption(),
      helpOption()};
  s.examples =
      "  modescope-cli ica-apply rec.edf --ica rec-ica.h5 --reject 1,3 -o rec-clean.edf\n"
      "  modescope-cli ica-apply rec.bdf --ica rec-ica.h5 --reject 2 -o rec-clean.h5 --json\n"
      "  modescope-cli ica-apply rec.edf --ica rec-ica.h5 --reject-flagged eye,heart -o "
      "clean.edf\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runIcaApply(const Args& argv) {
  const CommandSpec spec = icaApplySpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string input = args.positionals.front();
  const std::string output = readOutputPath(args, spec);
  const bool quiet = args.has("quiet");
  const bool json = args.has("json");
  const auto icaPath = args.value("ica");
  const auto rejectText = args.value("reject");
  if (!icaPath) throw UsageError("--ica ICA.h5 is required: the decomposition to apply");
  const auto flaggedText = args.value("reject-flagged");
  const auto flagsPath = args.value("flags");
  if (!rejectText && !flaggedText) {
    throw UsageError(
        "--reject LIST or --reject-flagged LABELS is required: the components to remove (1,3,7, "
        "or 'none'), or the automatic labels to remove (eye,heart)");
  }
  if (flagsPath && !flaggedText)
    throw UsageError("--flags FLAGS.tsv is read for --reject-flagged LABELS: give both");
  const std::vector<IcaFlagLabel> flaggedLabels =
      flaggedText ? parseIcaFlagLabels(*flaggedText, "--reject-flagged")
                  : std::vector<IcaFlagLabel>{};
  const OutputFormat format = outputFormatForPath(output);
  checkOutputPath(output, input);
  refuseOutputOverIcaFile(output, *icaPath);

  IcaFile ica;
  std::vector<int> rejected;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "ica-apply");
  const JobOutcome outcome = runCliJob(
      "ica-apply " + input,
      [&](JobContext& ctx) -> void {
        const IcaWithRecording loaded = readIcaWithRecording(*icaPath, input, ctx);
        ica = loaded.ica;
        const std::shared_ptr<const Recording>& rec = loaded.recording;
        rejected = parseRejectList(rejectText.value_or("none"), ica.result.components);
        if (flaggedText) {
          JobContext flagCtx = ctx.sub(0.0, 0.05);
          const IcaFlags flags = icaFlagsOf(loaded, flagsPath, IcaFlagParams{}, flagCtx);
          for (int k : rejectedByFlags(flags, flaggedLabels))
            if (std::find(rejected.begin(), rejected.end(), k) == rejected.end())
              rejected.push_back(k);
          std::sort(rejected.begin(), rejected.end());
        }
        printDiagnostics(*rec, display);
        ctx.progress(0.05, "back-projecting");
        const auto cleaned = icaCleanedRecording(rec, ica, rejected, *icaPath);
        const Provenance prov = icaCleaningProvenance(ica, rejected, *icaPath);
        JobContext writeCtx = ctx.sub(0.1, 1.0);
        writeRecording(*cleaned, output, format, prov, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (json) {
    JsonWriter w;
    w.beginObject();
    w.field("input", input);
    w.field("ica", *icaPath);
    w.field("output", output);
    w.field("components", ica.result.components);
    w.key("rejected").beginArray();
    for (int k : rejected) w.value(k + 1);
    w.endArray();
    w.field("channels", static_cast<int64_t>(ica.channels.size()));
    w.field("start_s", ica.startSeconds());
    w.field("duration_s", static_cast<double>(ica.samples) / ica.sampleRate);
    w.endObject();
    printJsonLine(w);
  } else if (!quiet) {
    std::printf("removed %s of %d from %zu channels over %s-%s s; wrote %s\n",
                describeRejected(rejected).c_str(), ica.result.components, ica.channels.size(),
                formatNumber(ica.startSeconds()).c_str(),
                formatNumber(ica.startSeconds() + static_cast<double>(ica.samples) / ica.sampleRate)
                    .c_str(),
                output.c_str());
  }
  return 0;
}

}  // namespace modescope::cli
