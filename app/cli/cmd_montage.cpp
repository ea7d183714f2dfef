// `montage IN -o OUT --montage NAME|FILE`: a derivation montage applied as a new recording
// (docs/montages.md, "Applying a montage").
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/core/montage_job.h"
#include "engine/core/text.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

CommandSpec montageSpec() {
  CommandSpec s;
  s.name = "montage";
  s.usage = "IN -o OUT --montage NAME|FILE [options]";
  s.brief = "Apply a derivation montage (bipolar, Laplacian, a montage file) as a new recording";
  s.summary =
      "Compute a derivation montage into a new recording whose channels are the derivations "
      "(Fp1-F7 = Fp1 - F7, ...) and write it with its provenance, which names the montage and "
      "lists every derivation.";
  std::string builtins;
  for (const BuiltinMontage& m : builtinMontages())
    builtins += std::string("  ") + m.name + ": " + m.description + "\n";
  s.description =
      "--montage is a built-in montage or a montage file (one derivation per line, \"label: "
      "expression\", as the window's montage editor saves it; docs/montages.md). Built-in "
      "montages:\n" +
      builtins +
      "\nThe derivations are the sums the signal browser draws for the same montage, computed "
      "once in single precision, so the window's \"Apply montage as new recording\" and a "
      "pipeline's montage step give the same samples. A derivation whose channels the recording "
      "lacks (or that mixes sample rates) is left out and named on stderr; none formed is an "
      "error. A derivation using a channel marked bad is marked bad itself. The annotations are "
      "kept (bad segments too). HDF5 output keeps the provenance.";
  s.options = {outputOption("The file to write.", true),
               {"montage", 0, "NAME|FILE",
                "A built-in montage (" + builtinMontageNames() + ") or a montage file."},
               quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli montage rec.edf -o banana.h5 --montage double-banana\n"
      "  modescope-cli montage rec.edf -o lap.h5 --montage laplacian\n"
      "  modescope-cli montage rec.edf -o mine.edf --montage my.montage\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runMontage(const Args& argv) {
  const CommandSpec spec = montageSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string input = args.positionals.front();
  const std::string output = readOutputPath(args, spec);
  const bool quiet = args.has("quiet");
  const auto montageArg = args.value("montage");
  if (!montageArg || trim(*montageArg).empty()) {
    throw UsageError("'montage' needs the montage to apply: --montage NAME|FILE (" +
                     builtinMontageNames() + ", or a montage file)");
  }
  checkMontageArgument(*montageArg);
  checkOutputPath(output, input);
  const OutputFormat format = outputFormatForPath(output);

  MontageJobResult result;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "montage");
  const JobOutcome outcome = runCliJob(
      "montage " + input,
      [&](JobContext& ctx) -> void {
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> rec = openRecording(input);
        ctx.checkpoint();
        printDiagnostics(*rec, display);
        MontageJobSpec job;
        job.montage = resolveMontage(*montageArg, *rec);
        job.source = trim(*montageArg);
        job.inputFile = input;
        JobContext computeCtx = ctx.sub(0.05, 0.8);
        result = runMontageJob(rec, job, computeCtx);
        for (const std::string& s : result.skipped)
          display.message(std::string(kProgram) + ": left out " + s);
        JobContext writeCtx = ctx.sub(0.8, 1.0);
        writeRecording(*result.recording, output, format, result.provenance, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet) {
    std::printf("derived %zu channels (%s) x %s s in %s; wrote %s\n",
                result.recording->channelCount(),
                result.provenance.parameters.front().second.c_str(),
                formatNumber(result.recording->duration()).c_str(),
                formatSeconds(result.wallSeconds).c_str(), output.c_str());
  }
  return code;
}

}  // namespace modescope::cli
