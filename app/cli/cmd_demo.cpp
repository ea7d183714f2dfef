// `demo [--json] [--backend B] [-o OUT]`: the headless equivalent of the GUI's demo.
#include <chrono>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"
#include "app/core/recording_selection.h"
#include "app/core/recording_summary.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/recording_io.h"
#include "resources/embedded_resources.h"

namespace modescope::cli {

CommandSpec demoSpec() {
  CommandSpec s;
  s.name = "demo";
  s.usage = "[options]";
  s.brief = "Run the demo headless: summary, then band-pass + average reference";
  s.summary =
      "Run the demo without a window: open the embedded demo recording, show its summary, "
      "then band-pass 1-40 Hz and average-reference it on the chosen backend and report "
      "the time taken.";
  s.description =
      "The demo recording is built into the program (PhysioNet EEG Motor Movement/Imagery, "
      "subject 1, run 3: 64 EEG channels at 160 Hz, 125 s). Nothing is written unless -o is "
      "given.";
  s.options = {jsonOption("the summary, the backend and the timing"), backendOption(),
               outputOption("Also write the filtered recording.", false), quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli demo\n"
      "  modescope-cli demo --backend cpu --json\n"
      "  modescope-cli demo -o demo-filtered.h5\n";
  s.maxPositionals = 0;
  return s;
}

int runDemo(const Args& argv) {
  const CommandSpec spec = demoSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  if (!args.positionals.empty()) {
    throw UsageError("'demo' takes no input file (found '" + args.positionals.front() + "')");
  }
  const bool json = args.has("json");
  const bool quiet = args.has("quiet");
  const std::optional<std::string> output = args.value("output");
  if (output) checkOutputPath(*output);
  const BackendChoice choice = readBackendChoice(args);
  std::string backendNote;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote);
  const std::string backendText = backend->info().describe();
  const bool onGpu = backend->info().kind == BackendKind::Cuda;

  const std::string path = materializeDemoRecording();
  const std::string displayPath = std::string("(embedded) ") + kDemoResource;
  std::shared_ptr<const Recording> rec = openRecording(path);

  PreprocessSpec pre;
  pre.reference.kind = ReferenceKind::Average;
  FilterSpec band;
  band.kind = FilterKind::BandPass;
  band.lowHz = 1.0;
  band.highHz = 40.0;
  pre.filters.push_back(band);
  const std::vector<std::size_t> channels = allChannels(*rec);

  if (!json) {
    std::fputs(formatRecordingSummary(*rec, displayPath).c_str(), stdout);
    std::printf("\n%s\n", wrapText(kDemoAttribution, 100).c_str());
    std::fflush(stdout);
  }
  if (!backendNote.empty() && !quiet && gpuFactory()) printNote(backendNote);

  double computeSeconds = 0.0;
  std::size_t samples = 0;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "demo");
  const JobOutcome outcome = runCliJob(
      "demo",
      [&](JobContext& ctx) -> void {
        Provenance prov;
        const auto t0 = std::chrono::steady_clock::now();
        JobContext computeCtx = output ? ctx.sub(0.0, 0.7) : ctx;
        auto result = preprocess(*rec, channels, 0.0, -1.0, pre, *backend, computeCtx, &prov);
        computeSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        samples = result->channels.empty() ? 0 : result->channels.front().sampleCount;
        if (output) {
          if (prov.method.empty()) prov.method = "preprocess";
          if (prov.backend.empty()) prov.backend = backendText;
          prov.softwareVersion = softwareVersion();
          prov.inputFile = kDemoResource;
          prov.selection = describeSelection(*rec, channels, 0.0, -1.0);
          prov.createdAt = utcNowIso8601();
          prov.wallSeconds = computeSeconds;
          JobContext writeCtx = ctx.sub(0.7, 1.0);
          writeRecording(*result, *output, outputFormatForPath(*output), prov, writeCtx);
        }
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;

  const std::string what = describe(band) + " + " + describe(pre.reference);
  if (json) {
    JsonWriter w;
    w.beginObject();
    w.key("input");
    writeRecordingJson(w, *rec, displayPath);
    w.field("attribution", kDemoAttribution);
    w.key("backend").beginObject();
    w.field("choice", args.value("backend").value_or("auto"));
    w.field("kind", onGpu ? "cuda" : "cpu");
    w.field("description", backendText);
    if (backendNote.empty())
      w.nullField("note");
    else
      w.field("note", backendNote);
    w.endObject();
    w.key("preprocess").beginObject();
    w.field("steps", what);
    w.field("channels", channels.size());
    w.field("samples_per_channel", samples);
    w.field("wall_s", computeSeconds);
    w.endObject();
    if (output)
      w.field("output", *output);
    else
      w.nullField("output");
    w.endObject();
    std::fputs(w.str().c_str(), stdout);
  } else {
    std::printf("Backend:     %s\n", backendText.c_str());
    std::printf("Preprocess:  %s on %zu channels x %zu samples: %s\n", what.c_str(),
                channels.size(), samples, formatSeconds(computeSeconds).c_str());
    if (output) std::printf("Wrote:       %s\n", output->c_str());
  }
  return 0;
}

}  // namespace modescope::cli
