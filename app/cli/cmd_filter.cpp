// `filter IN -o OUT --filter SPEC... [--reference R] [--channels] [--start] [--duration]
//  [--backend]`
#include <chrono>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/core/channel_selection.h"
#include "app/core/gpu_backend.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/dsp/filter_param_table.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

CommandSpec filterSpec() {
  CommandSpec s;
  s.name = "filter";
  s.usage = "IN -o OUT --filter SPEC [--filter SPEC]... [--reference REF] [options]";
  s.brief = "Re-reference and filter (zero-phase FIR); write with provenance";
  s.summary =
      "Re-reference and filter (zero-phase FIR) a recording and write the result with its "
      "provenance.";
  s.description =
      "The re-reference is applied first, then the filters in the order given. Filters are "
      "linear-phase FIR (Hamming window) applied forwards with the group delay removed, so they "
      "do not shift the signal; transition bands and lengths follow MNE-Python's 'auto' rules.\n\n"
      "Filter specs: " +
      filterSyntaxHelp() +
      "\n\n"
      "Reference: " +
      referenceSyntaxHelp() +
      "\n\n"
      "Without --channels, every channel except trigger/status channels is used, restricted to "
      "the sample rate most channels share. The output (HDF5 recommended: it stores the "
      "provenance: method, parameters, backend, input file, selection, wall time, version) holds "
      "the filtered channels and the annotations of the range.";
  s.options = {outputOption("The file to write.", true),
               {"filter", 0, "SPEC", filterSyntaxText() + ". Repeat to chain filters.", true},
               {"reference", 0, "REF", referenceSyntaxText() + " (default none)."},
               channelsOption(),
               startOption(),
               durationOption(),
               backendOption(),
               quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli filter rec.edf -o clean.h5 --filter bandpass:1-40 --filter notch:50 "
      "--reference average\n"
      "  modescope-cli filter rec.edf -o c34.edf --filter highpass:0.5 --channels C3,C4,Cz "
      "--start 10 --duration 60 --backend cpu\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runFilter(const Args& argv) {
  const CommandSpec spec = filterSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string input = args.positionals.front();
  const std::string output = readOutputPath(args, spec);
  const SelectionArgs sel = readSelection(args);
  const bool quiet = args.has("quiet");

  PreprocessSpec pre;
  try {
    for (const std::string& f : args.values("filter")) pre.filters.push_back(parseFilterSpec(f));
  } catch (const InvalidParameterError& e) {
    throw InvalidParameterError("--filter", e.found(), e.expected(), e.remedy());
  }
  try {
    if (auto r = args.value("reference")) pre.reference = parseReferenceSpec(*r);
  } catch (const InvalidParameterError& e) {
    throw InvalidParameterError("--reference", e.found(), e.expected(), e.remedy());
  }
  if (pre.filters.empty() && pre.reference.kind == ReferenceKind::AsRecorded) {
    throw UsageError(
        "'filter' has nothing to do: give at least one --filter SPEC or a "
        "--reference other than none");
  }
  checkOutputPath(output, input);
  const OutputFormat format = outputFormatForPath(output);
  const BackendChoice choice = readBackendChoice(args);
  std::string backendNote;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote);
  const std::string backendText = backend->info().describe();
  // A CPU-only build always computes on the CPU: say so only where a GPU was possible.
  if (!backendNote.empty() && !quiet && gpuFactory()) printNote(backendNote);

  std::size_t channelCount = 0;
  double duration = 0.0, computeSeconds = 0.0;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "filter");
  const JobOutcome outcome = runCliJob(
      "filter " + input,
      [&](JobContext& ctx) -> void {
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> rec = openRecording(input);
        ctx.checkpoint();
        printDiagnostics(*rec, display);
        std::string note;
        const auto channels =
            resolveChannels(*rec, sel, defaultMethodChannels(*rec, &note, BadChannels::Keep));
        if (!sel.channels && !note.empty()) display.message(std::string(kProgram) + ": " + note);
        noteTruncatedRange(*rec, sel, display);

        Provenance prov;
        const auto t0 = std::chrono::steady_clock::now();
        JobContext computeCtx = ctx.sub(0.05, 0.8);
        std::shared_ptr<const Recording> result =
            preprocess(*rec, channels, sel.start, sel.duration, pre, *backend, computeCtx, &prov);
        computeSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (prov.method.empty()) prov.method = "preprocess";
        if (prov.parameters.empty()) {
          prov.parameters.emplace_back("reference", describe(pre.reference));
          for (const auto& f : pre.filters) prov.parameters.emplace_back("filter", describe(f));
        }
        if (prov.backend.empty()) prov.backend = backendText;
        prov.softwareVersion = softwareVersion();
        prov.inputFile = input;
        prov.selection = describeSelection(*rec, channels, sel.start, sel.duration);
        prov.createdAt = utcNowIso8601();
        prov.wallSeconds = computeSeconds;
        channelCount = result->channelCount();
        duration = result->duration();
        JobContext writeCtx = ctx.sub(0.8, 1.0);
        writeRecording(*result, output, format, prov, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet) {
    std::printf("filtered %zu channels x %s s on %s in %s; wrote %s\n", channelCount,
                formatNumber(duration).c_str(), backendText.c_str(),
                formatSeconds(computeSeconds).c_str(), output.c_str());
  }
  return code;
}

}  // namespace modescope::cli
