// `memd IN -o OUT.h5 [--preset NAME] [parameters] [--directions-file F] [--noise-file F]
//  [--channels] [--start] [--duration] [--backend] [--drop-imfs LIST --cleaned OUT] [--json]
//  [--quiet]`
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/imf_cleaning_options.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/gpu_backend.h"
#include "app/core/imf_reconstruction.h"
#include "app/core/json_writer.h"
#include "app/core/memd_job.h"
#include "engine/core/text.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_memd.h"
#include "engine/io/recording_io.h"
#include "engine/memd/memd_directions.h"

namespace modescope::cli {
namespace {

std::string presetList() {
  std::string s;
  for (const auto& p : memdPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// The preset (or memd.m's defaults), then every option given over it (memdParamTable()), then
// the supplied direction and noise files.
MemdParams readMemdParams(const ParsedArgs& args, std::string* presetName) {
  MemdParams p;
  if (auto v = args.value("preset")) {
    p = memdPreset(*v);
    *presetName = *v;
  }
  applyParamOptions(args, memdParamTable(), p);
  // --sifts and --s-number choose their rule when --stop does not say.
  if (!args.has("stop")) {
    if (args.has("sifts") && args.has("s-number"))
      throw UsageError(
          "--sifts (fixed sifting) and --s-number (fix_h rule) choose different stopping rules; "
          "give one, or say which with --stop");
    if (args.has("sifts")) p.stop = MemdStopKind::Fixed;
    if (args.has("s-number")) p.stop = MemdStopKind::FixH;
  }
  if (auto f = args.value("directions-file")) {
    const TextMatrix m = readTextMatrix(*f);
    p.supplied.directions = m.values;
    p.supplied.directionCount = m.rows;
  }
  if (auto f = args.value("noise-file")) p.supplied.noise = readTextMatrix(*f).values;
  return p;
}

struct MemdRun {
  std::shared_ptr<const Recording> rec;
  std::vector<std::size_t> channels;
  MemdJobResult result;
  std::vector<std::string> cleaningNotes;
  double writeSeconds = 0.0;
};

void printJson(const MemdRun& run, const ParsedArgs& args, const std::string& input,
               const std::string& output, const std::optional<EmdCleaning>& cleaning,
               const std::string& presetName, bool onGpu, const std::string& backendNote) {
  const MemdResult& m = *run.result.modes;
  JsonWriter w;
  w.beginObject();
  w.field("input", input);
  w.field("output", output);
  w.field("method", m.provenance.method);
  if (presetName.empty())
    w.nullField("preset");
  else
    w.field("preset", presetName);
  if (m.provenance.seed.empty())
    w.nullField("seed");
  else
    w.field("seed", m.params.seed);
  w.key("parameters").beginObject();
  for (const auto& [name, value] : m.provenance.parameters) w.field(name, value);
  w.endObject();
  w.key("backend").beginObject();
  w.field("choice", args.value("backend").value_or("auto"));
  w.field("kind", onGpu ? "cuda" : "cpu");
  w.field("description", run.result.backend);
  if (backendNote.empty())
    w.nullField("note");
  else
    w.field("note", backendNote);
  w.endObject();
  w.field("sample_rate", m.sampleRate);
  w.field("first_sample", m.firstSample);
  w.field("samples", m.samples);
  w.field("selection", m.provenance.selection);
  w.field("directions", m.directions);
  w.field("noise_channels", m.params.noiseChannels);
  w.field("imf_count", m.imfCount());
  w.key("sifts").beginArray();
  for (int s : m.sifts) w.value(s);
  w.endArray();
  w.field("decompose_s", run.result.decomposeSeconds);
  w.field("write_s", run.writeSeconds);
  w.field("wall_s", run.result.wallSeconds + run.writeSeconds);
  w.key("channels").beginArray();
  for (const EmdChannelModes& c : m.channels) {
    const ChannelInfo& info = run.rec->channels[c.channel];
    w.beginObject();
    w.field("index", c.channel + 1);
    w.field("name", info.name);
    w.field("unit", info.unit);
    w.endObject();
  }
  w.endArray();
  if (cleaning) {
    w.key("cleaned").beginObject();
    w.field("output", *args.value("cleaned"));
    w.field("removed", describeCleaning(*cleaning));
    w.key("notes").beginArray();
    for (const auto& n : run.cleaningNotes) w.value(n);
    w.endArray();
    w.endObject();
  } else {
    w.nullField("cleaned");
  }
  w.key("diagnostics").beginArray();
  for (const Diagnostic& x : m.diagnostics) {
    w.beginObject();
    w.field("severity", severityName(x.severity));
    w.field("code", x.code);
    w.field("message", x.message);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  printJsonLine(w);
}

}  // namespace

CommandSpec memdSpec() {
  CommandSpec s;
  s.name = "memd";
  s.usage = "IN -o OUT.h5 [--preset NAME] [parameters] [options]";
  s.brief = "Multivariate EMD (MEMD, NA-MEMD) of channels together to HDF5";
  s.summary =
      "Decompose the selected channels together with multivariate EMD (Rehman and Mandic's "
      "memd.m), so IMF k is the same scale on every channel, and write the modes to HDF5.";
  s.description =
      "The channels are projected on K directions (memd.m's Hammersley set, or --directions-file) "
      "every sift; the envelopes of every channel are splined at each projection's extrema and "
      "averaged over the directions. Every channel gets the same number of IMFs; the rows sum to "
      "the input. With --noise-channels, white-noise channels are decomposed with the data "
      "(NA-MEMD) and dropped from the output. Parameters start from --preset (or memd.m's "
      "defaults) and every option given overrides it. Presets: " +
      presetList() +
      ".\n\nThe output is an HDF5 file (schema modescope-memd/1, docs/memd.md). With --drop-imfs "
      "and --cleaned, the recording is also written with the dropped modes removed.";
  s.options = {outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
               {"preset", 0, "NAME", "Start from a named parameter set: " + presetList() + "."},
               {"directions-file", 0, "FILE",
                "Directions to project on instead of the Hammersley set: one direction per line, "
                "one value per channel (noise channels last), as MATLAB writematrix writes it."},
               {"noise-file", 0, "FILE",
                "NA-MEMD noise to use instead of generated noise: one noise channel per line, "
                "draw after draw (--ensemble x --noise-channels lines of the selection's length)."},
               channelsOption(),
               startOption(),
               durationOption(),
               backendOption()};
  const std::vector<OptionSpec> params = paramOptions(memdParamTable(), MemdParams{});
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  const std::vector<OptionSpec> cleaning = imfCleaningOptions();
  s.options.insert(s.options.end(), cleaning.begin(), cleaning.end());
  s.options.push_back(jsonOption("a summary (channels, IMFs, sifts, timing)"));
  s.options.push_back(quietOption());
  s.options.push_back(helpOption());
  s.examples =
      "  modescope-cli memd rec.edf -o rec-memd.h5 --channels Fz,Cz,Pz,Oz --duration 30\n"
      "  modescope-cli memd rec.edf -o memd.h5 --preset na-memd --noise-channels 8 --json\n"
      "  modescope-cli memd rec.edf -o memd.h5 --stop fixed --sifts 10 --max-imfs 8 "
      "--directions 64 --backend cuda\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runMemd(const Args& argv) {
  const MethodArgs m = readMethodArgs(memdSpec(), argv);
  const ParsedArgs& args = m.args;
  const std::string& input = m.input;
  const std::string& output = m.output;
  const SelectionArgs& sel = m.selection;
  const bool quiet = m.quiet, json = m.json;

  std::string presetName;
  const MemdParams params = readMemdParams(args, &presetName);
  validateAsOptions(memdParamTable(), params);  // cross-field errors name the --option
  const std::optional<EmdCleaning> cleaning = readImfCleaning(args);
  if (cleaning) checkCleaningAgainstMaxImfs(*cleaning, params.maxImfs);
  requireHdf5Output(output, "The modes are written to HDF5; use --cleaned for an EDF/BDF copy");
  checkOutputPath(output, input);
  CleanedOutput cleaned;
  if (cleaning) cleaned = checkCleanedOutput(args, input, output);

  const BackendChoice choice = readBackendChoice(args);
  std::string backendNote;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote);
  const bool onGpu = backend->info().kind == BackendKind::Cuda;
  if (!backendNote.empty() && !quiet && gpuFactory()) printNote(backendNote);

  MemdRun run;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "memd");
  const JobOutcome outcome = runCliJob(
      "memd " + input,
      [&](JobContext& ctx) -> void {
        run.rec = openMethodInput(input, sel, ctx, display, run.channels);
        MemdJobSpec job;
        job.channels = run.channels;
        job.startSeconds = sel.start;
        job.durationSeconds = sel.duration;
        job.params = params;
        job.presetName = presetName;
        job.inputFile = input;
        job.directionFile = args.value("directions-file").value_or("");
        job.noiseFile = args.value("noise-file").value_or("");
        JobContext computeCtx = ctx.sub(0.02, 0.9);
        run.result = runMemdJob(*run.rec, job, *backend, computeCtx);
        const auto t0 = std::chrono::steady_clock::now();
        JobContext writeCtx = ctx.sub(0.9, cleaning ? 0.95 : 1.0);
        if (!cleaning) {
          writeMemdFile(output, *run.rec, *run.result.modes, writeCtx);
        } else {
          JobContext cleanCtx = ctx.sub(0.95, 1.0);
          writeResultAndCleaned(
              output, cleaned, run.rec, memdModesAsEmd(*run.result.modes), *cleaning,
              run.result.modes->provenance.method,
              [&](const std::string& path) {
                writeMemdFile(path, *run.rec, *run.result.modes, writeCtx);
              },
              display, run.cleaningNotes, cleanCtx);
        }
        run.writeSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (json) {
    printJson(run, args, input, output, cleaning, presetName, onGpu, backendNote);
  } else if (!quiet) {
    const MemdResult& r = *run.result.modes;
    std::printf(
        "%s of %zu channels x %lld samples (%s), %d directions, on %s: %d IMFs + residue "
        "on every channel in %s; wrote %s\n",
        r.provenance.method.c_str(), r.channels.size(), static_cast<long long>(r.samples),
        r.provenance.selection.c_str(), r.directions, run.result.backend.c_str(), r.imfCount(),
        formatSeconds(run.result.decomposeSeconds).c_str(), output.c_str());
    if (cleaning)
      std::printf("removed %s; wrote the cleaned recording %s\n",
                  describeCleaning(*cleaning).c_str(), cleaned.path.c_str());
  }
  return 0;
}

}  // namespace modescope::cli
