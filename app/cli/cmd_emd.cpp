// `emd IN -o OUT.h5 [--method M] [--preset NAME] [parameters] [--channels] [--start] [--duration]
//  [--backend] [HHT options] [--drop-imfs LIST --cleaned OUT] [--json] [--quiet]`
#include <algorithm>
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
#include "app/core/channel_selection.h"
#include "app/core/emd_job.h"
#include "app/core/gpu_backend.h"
#include "app/core/imf_reconstruction.h"
#include "app/core/json_writer.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_emd.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

// The command line's Hilbert-spectrum defaults: the declarations' (hhtParamTable()), except that
// the per-sample series, which double the file size for every IMF, are kept only on request.
HhtParams cliHhtDefaults() {
  HhtParams h;
  h.keepInstantaneous = false;
  return h;
}

// Whether any option of the Hilbert-Huang transform was given (refused with --no-hht).
std::optional<std::string> givenHhtOption(const ParsedArgs& args) {
  if (args.has("energy")) return std::string("energy");
  for (const auto& f : hhtParamTable().fields()) {
    if (args.has(f.decl.cli)) return f.decl.cli;
    if (f.decl.kind == ParamKind::Flag && args.has("no-" + f.decl.cli)) return "no-" + f.decl.cli;
  }
  return std::nullopt;
}

std::string presetList() {
  std::string s;
  for (const EmdPreset& p : emdPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// The decomposition parameters: the preset (or the defaults of emd_params.h), then every option
// given on the command line over it (declared once in emdParamTable()).
EmdParams readEmdParams(const ParsedArgs& args, std::string* presetName) {
  EmdParams p;
  if (auto v = args.value("preset")) {
    p = emdPreset(*v);
    *presetName = *v;
  }
  // --thresholds T1,T2,A is a shorthand for --theta1, --theta2 and --alpha.
  ParsedArgs given = args;
  if (auto v = args.value("thresholds")) {
    const std::vector<std::string> t = splitList(*v);
    const char* const keys[] = {"stop.threshold1", "stop.threshold2", "stop.tolerance"};
    const char* const options[] = {"theta1", "theta2", "alpha"};
    const std::string expected =
        "three numbers THETA1,THETA2,ALPHA with 0 < THETA1 <= THETA2 "
        "and 0 < ALPHA < 1 (Rilling's 0.05,0.5,0.05)";
    if (t.size() != 3) throw InvalidParameterError("--thresholds", "'" + *v + "'", expected);
    double values[3];
    for (int i = 0; i < 3; ++i) {
      if (args.has(options[i])) {
        throw UsageError(std::string("--thresholds and --") + options[i] + " both set it");
      }
      const ParamDecl& d = emdParamTable().find(keys[i])->decl;
      values[i] = std::get<double>(parseValue(d, t[i], "--thresholds"));
      given.add(options[i], t[i]);
    }
    if (values[0] > values[1])
      throw InvalidParameterError("--thresholds", "'" + *v + "'", expected);
  }
  applyParamOptions(given, emdParamTable(), p);
  // --sifts and --s-number choose their rule when --stop does not say.
  if (!args.has("stop")) {
    if (args.has("sifts") && args.has("s-number")) {
      throw UsageError(
          "--sifts (fixed sifting) and --s-number (S-number rule) choose "
          "different stopping rules; give one, or say which with --stop");
    }
    if (args.has("sifts")) p.stop.kind = StopRuleKind::FixedSifts;
    if (args.has("s-number")) p.stop.kind = StopRuleKind::SNumber;
  }
  if (!args.has("noise-stop")) {
    if (args.has("noise-sifts")) p.noiseStop.kind = StopRuleKind::FixedSifts;
    if (args.has("noise-s-number")) p.noiseStop.kind = StopRuleKind::SNumber;
  }
  return p;
}

std::optional<HhtParams> readHhtParams(const ParsedArgs& args) {
  if (args.has("no-hht")) {
    if (const auto o = givenHhtOption(args)) {
      throw UsageError("--" + *o +
                       " sets up the Hilbert-Huang transform, which --no-hht turns off; drop one "
                       "of them");
    }
    return std::nullopt;
  }
  HhtParams h = cliHhtDefaults();
  // --energy is the short form of --quantity energy.
  if (args.has("energy") && args.has("quantity")) {
    throw UsageError("--energy and --quantity both choose the quantity; give one");
  }
  if (args.has("energy")) h.quantity = HhtQuantity::Energy;
  applyParamOptions(args, hhtParamTable(), h);
  // Rules between fields here; those that need the data run in the job.
  validateAsOptions(hhtParamTable(), h);
  return h;
}

void writeParametersJson(JsonWriter& w, const Provenance& prov) {
  w.key("parameters").beginObject();
  for (const auto& [name, value] : prov.parameters) w.field(name, value);
  w.endObject();
}

// What the job hands back to the main thread for the summary.
struct EmdRun {
  std::shared_ptr<const Recording> rec;
  std::vector<std::size_t> channels;
  EmdJobResult result;
  std::vector<std::string> cleaningNotes;
  double writeSeconds = 0.0;
};

void printJson(const EmdRun& run, const ParsedArgs& args, const std::string& input,
               const std::string& output, const std::optional<EmdCleaning>& cleaning,
               const std::string& presetName, bool onGpu, const std::string& backendNote) {
  const EmdResult& m = *run.result.modes;
  const HhtResult* h = run.result.hht.get();
  JsonWriter w;
  w.beginObject();
  w.field("input", input);
  w.field("output", output);
  w.field("method", emdMethodName(m.params.method));
  if (presetName.empty())
    w.nullField("preset");
  else
    w.field("preset", presetName);
  if (m.provenance.seed.empty())
    w.nullField("seed");
  else
    w.field("seed", m.params.seed);
  writeParametersJson(w, m.provenance);
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
  w.field("start_s", m.sampleRate > 0 ? static_cast<double>(m.firstSample) / m.sampleRate : 0.0);
  w.field("samples", m.samples);
  w.field("selection", m.provenance.selection);
  w.field("decompose_s", run.result.decomposeSeconds);
  if (h)
    w.field("hht_s", run.result.hhtSeconds);
  else
    w.nullField("hht_s");
  w.field("write_s", run.writeSeconds);
  w.field("wall_s", run.result.wallSeconds + run.writeSeconds);
  w.key("channels").beginArray();
  for (std::size_t i = 0; i < m.channels.size(); ++i) {
    const EmdChannelModes& c = m.channels[i];
    const ChannelInfo& info = run.rec->channels[c.channel];
    w.beginObject();
    w.field("index", c.channel + 1);
    w.field("name", info.name);
    w.field("label", info.label);
    w.field("unit", info.unit);
    w.field("imf_count", c.imfCount());
    w.field("degenerate_members", c.degenerateMembers);
    w.key("imfs").beginArray();
    for (int k = 0; k < c.imfCount(); ++k) {
      w.beginObject();
      w.field("imf", k + 1);
      if (static_cast<std::size_t>(k) < c.sifts.size())
        w.field("sifts", c.sifts[static_cast<std::size_t>(k)]);
      else
        w.nullField("sifts");
      const HhtImf* found = nullptr;
      if (h && i < h->channels.size()) {
        for (const HhtImf& x : h->channels[i].imfs) {
          if (x.row == k) found = &x;
        }
      }
      if (found) {
        w.field("mean_frequency_hz", found->meanFrequencyHz);
        w.field("energy", found->energy);
      } else {
        w.nullField("mean_frequency_hz");
        w.nullField("energy");
      }
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  if (cleaning) {
    w.key("cleaned").beginObject();
    w.field("output", *args.value("cleaned"));
    w.field("removed", describeCleaning(*cleaning));
    w.key("imfs").beginArray();
    for (int k : cleaning->dropImfs) w.value(k);
    w.endArray();
    w.field("residue", cleaning->dropResidue);
    w.key("notes").beginArray();
    for (const auto& n : run.cleaningNotes) w.value(n);
    w.endArray();
    w.endObject();
  } else {
    w.nullField("cleaned");
  }
  w.key("diagnostics").beginArray();
  auto diag = [&](const Diagnostics& d, const char* stage) {
    for (const Diagnostic& x : d) {
      w.beginObject();
      w.field("stage", stage);
      w.field("severity", severityName(x.severity));
      w.field("code", x.code);
      w.field("message", x.message);
      w.endObject();
    }
  };
  diag(m.diagnostics, "emd");
  if (h) diag(h->diagnostics, "hht");
  w.endArray();
  w.endObject();
  printJsonLine(w);
}

void printText(const EmdRun& run, const std::string& output,
               const std::optional<EmdCleaning>& cleaning, const std::string& cleanedPath) {
  const EmdResult& m = *run.result.modes;
  const HhtResult* h = run.result.hht.get();
  for (std::size_t i = 0; i < m.channels.size(); ++i) {
    const EmdChannelModes& c = m.channels[i];
    std::string line =
        run.rec->channels[c.channel].name + ": " + std::to_string(c.imfCount()) + " IMFs + residue";
    if (h && i < h->channels.size() && !h->channels[i].imfs.empty()) {
      line += "; mean frequency";
      for (const HhtImf& x : h->channels[i].imfs) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %.3g", x.meanFrequencyHz);
        line += buf;
      }
      line += " Hz";
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("%s of %zu channels x %lld samples (%s) on %s: %s", emdMethodName(m.params.method),
              m.channels.size(), static_cast<long long>(m.samples), m.provenance.selection.c_str(),
              run.result.backend.c_str(), formatSeconds(run.result.decomposeSeconds).c_str());
  if (h) std::printf(", Hilbert-Huang %s", formatSeconds(run.result.hhtSeconds).c_str());
  std::printf("; wrote %s\n", output.c_str());
  if (cleaning) {
    std::printf("removed %s; wrote the cleaned recording %s\n", describeCleaning(*cleaning).c_str(),
                cleanedPath.c_str());
  }
}

}  // namespace

CommandSpec emdSpec() {
  CommandSpec s;
  s.name = "emd";
  s.usage = "IN -o OUT.h5 [--method M] [--preset NAME] [parameters] [options]";
  s.brief = "EMD/EEMD/CEEMDAN/ICEEMDAN and Hilbert-Huang spectra to HDF5";
  s.summary =
      "Decompose channels into intrinsic mode functions (EMD, EEMD, CEEMDAN or ICEEMDAN), compute "
      "their Hilbert-Huang spectra, and write modes, spectra and provenance to HDF5.";
  s.description =
      "Every selected channel is decomposed on its own into IMF 1 (the fastest oscillation) ... "
      "IMF K and a residue; the rows sum to the input. The parameters start from --preset (or "
      "the defaults: ICEEMDAN, 100 members, noise 0.2, Rilling's stopping rule) and every option "
      "given overrides the preset's value, wherever it stands on the line. Presets: " +
      presetList() +
      ".\n\n"
      "Then the Hilbert-Huang transform of the IMFs (unless --no-hht): instantaneous amplitude and "
      "frequency from the analytic signal, the Hilbert spectrum on a frequency x time grid, the "
      "marginal spectrum, and each IMF's mean frequency and energy (docs/emd.md).\n\n"
      "The output is an HDF5 file (schema modescope-emd/1, docs/hdf5-schema.md). With "
      "--drop-imfs and --cleaned, the recording is also written with the decomposed channels, "
      "over the decomposed range, replaced by the sum of the modes that were kept.\n\n"
      "Without --channels, every channel except trigger/status channels is used, restricted to "
      "the sample rate most channels share.";
  s.options = {outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
               // The decomposition's parameters come from their declarations (emdParamTable()).
               {"preset", 0, "NAME", "Start from a named parameter set: " + presetList() + "."},
               {"thresholds", 0, "T1,T2,A",
                "Rilling's thresholds theta_1, theta_2 and tolerance alpha at once (default "
                "0.05,0.5,0.05)."},
               channelsOption(),
               startOption(),
               durationOption(),
               backendOption(),
               {"no-hht", 0, "", "Skip the Hilbert-Huang transform (only the modes are written)."},
               {"energy", 0, "", "Short for --quantity energy."},
               jsonOption("a summary (channels, IMFs, mean frequencies, energies, timing)"),
               quietOption(),
               helpOption()};
  const std::vector<OptionSpec> params = paramOptions(emdParamTable(), EmdParams{});
  s.options.insert(s.options.begin() + 3, params.begin(), params.end());
  // The Hilbert spectrum's options, from hhtParamTable(), after --no-hht.
  const std::vector<OptionSpec> hhtOptions = paramOptions(hhtParamTable(), cliHhtDefaults());
  const auto afterNoHht = std::find_if(s.options.begin(), s.options.end(),
                                       [](const OptionSpec& o) { return o.name == "no-hht"; }) +
                          1;
  s.options.insert(afterNoHht, hhtOptions.begin(), hhtOptions.end());
  // The cleaning options, shared with `memd` (imf_cleaning_options.h), before --json.
  const std::vector<OptionSpec> cleaning = imfCleaningOptions();
  s.options.insert(s.options.end() - 3, cleaning.begin(), cleaning.end());
  s.examples =
      "  modescope-cli emd rec.edf -o rec-imfs.h5 --channels Cz --start 10 --duration 20\n"
      "  modescope-cli emd rec.edf -o imfs.h5 --preset iceemdan-colominas --ensemble 500 "
      "--seed 7 --fmax 40 --edge 0.5\n"
      "  modescope-cli emd rec.edf -o imfs.h5 --method emd --stop fixed --sifts 10 --max-imfs 8 "
      "--no-hht --json\n"
      "  modescope-cli emd rec.edf -o imfs.h5 --channels Fp1,Fp2 --drop-imfs residue,8 "
      "--cleaned cleaned.edf\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runEmd(const Args& argv) {
  const MethodArgs m = readMethodArgs(emdSpec(), argv);
  const ParsedArgs& args = m.args;
  const std::string& input = m.input;
  const std::string& output = m.output;
  const SelectionArgs& sel = m.selection;
  const bool quiet = m.quiet, json = m.json;

  // Every parameter is checked before the recording is opened (exit 1 at once).
  std::string presetName;
  const EmdParams params = readEmdParams(args, &presetName);
  validateEmdParams(params);
  const std::optional<HhtParams> hht = readHhtParams(args);
  const std::optional<EmdCleaning> cleaning = readImfCleaning(args);
  if (cleaning) checkCleaningAgainstMaxImfs(*cleaning, params.maxImfs);
  requireHdf5Output(output,
                    "The modes and spectra are written to HDF5; use --cleaned for an EDF/BDF "
                    "copy of the cleaned recording");
  checkOutputPath(output, input);
  CleanedOutput cleaned;
  if (cleaning) cleaned = checkCleanedOutput(args, input, output);

  const BackendChoice choice = readBackendChoice(args);
  std::string backendNote;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote);
  const bool onGpu = backend->info().kind == BackendKind::Cuda;
  if (!backendNote.empty() && !quiet && gpuFactory()) printNote(backendNote);

  EmdRun run;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "emd");
  const JobOutcome outcome = runCliJob(
      "emd " + input,
      [&](JobContext& ctx) -> void {
        run.rec = openMethodInput(input, sel, ctx, display, run.channels);

        EmdJobSpec job;
        job.channels = run.channels;
        job.startSeconds = sel.start;
        job.durationSeconds = sel.duration;
        job.params = params;
        job.presetName = presetName;
        job.hht = hht;
        job.inputFile = input;
        JobContext computeCtx = ctx.sub(0.02, 0.85);
        run.result = runEmdJob(*run.rec, job, *backend, computeCtx);

        const auto t0 = std::chrono::steady_clock::now();
        JobContext writeCtx = ctx.sub(0.85, cleaning ? 0.93 : 1.0);
        if (!cleaning) {
          writeEmdFile(output, *run.rec, *run.result.modes, run.result.hht.get(), writeCtx);
        } else {
          JobContext cleanCtx = ctx.sub(0.93, 1.0);
          writeResultAndCleaned(
              output, cleaned, run.rec, *run.result.modes, *cleaning, "",
              [&](const std::string& path) {
                writeEmdFile(path, *run.rec, *run.result.modes, run.result.hht.get(), writeCtx);
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
    printText(run, output, cleaning, cleaned.path);
  }
  return 0;
}

}  // namespace modescope::cli
