// `annotations export IN -o OUT.csv|OUT.tsv` and `annotations import IN TABLE.csv|.tsv -o
// OUT.edf|.bdf|.h5 [--replace]`: a recording's annotations to and from CSV and BIDS events.tsv
// (engine/io/annotation_files.h, docs/annotations.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/progress.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/io/annotation_files.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

// The rate of the "sample" column of events.tsv: the recording's fastest channel.
double fastestRate(const Recording& rec) {
  double fs = 0.0;
  for (const ChannelInfo& c : rec.channels) fs = std::max(fs, c.sampleRate);
  return fs;
}

int runExport(const ParsedArgs& args, const CommandSpec& spec) {
  if (args.positionals.size() != 2)
    throw UsageError("annotations export takes one recording: annotations export IN -o OUT.csv");
  const std::string input = args.positionals[1];
  const std::string output = readOutputPath(args, spec);
  annotationFormatForPath(output);  // the name first: a usage mistake, before reading
  std::shared_ptr<const Recording> rec = openRecording(input);
  writeAnnotationFile(output, rec->annotations, fastestRate(*rec));
  if (!args.has("quiet"))
    std::printf("wrote %zu annotation(s) of %s to %s\n", rec->annotations.size(), input.c_str(),
                output.c_str());
  return 0;
}

int runImport(const ParsedArgs& args, const CommandSpec& spec) {
  if (args.positionals.size() != 3)
    throw UsageError(
        "annotations import takes a recording and a table: annotations import IN TABLE.csv -o "
        "OUT.edf");
  const std::string input = args.positionals[1], table = args.positionals[2];
  const std::string output = readOutputPath(args, spec);
  checkOutputPath(output, input);
  const OutputFormat format = outputFormatForPath(output);
  const std::vector<Annotation> added = readAnnotationFile(table);
  const bool replace = args.has("replace");
  const bool quiet = args.has("quiet");
  std::size_t total = 0;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "annotations");
  const JobOutcome outcome = runCliJob(
      "annotations import " + input,
      [&](JobContext& ctx) -> void {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> base = openRecording(input);
        printDiagnostics(*base, display);
        const double end = base->duration();
        for (const Annotation& a : added)
          if (a.onset > end)
            throw InvalidInputError(table, "onset",
                                    std::to_string(a.onset) + " s ('" + a.text + "')",
                                    "an onset within the recording's " + std::to_string(end) + " s",
                                    "check that the table belongs to this recording");
        auto rec = std::make_shared<Recording>(*base);
        rec->annotations =
            replace ? mergeAnnotations({}, added) : mergeAnnotations(rec->annotations, added);
        total = rec->annotations.size();
        Provenance prov;
        prov.method = "annotations import";
        prov.parameters = {{"table", table},
                           {"mode", replace ? "replace" : "add"},
                           {"imported", std::to_string(added.size())}};
        stampJobProvenance(
            prov, "", input, *rec, allChannels(*rec), 0.0, -1.0,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        JobContext writeCtx = ctx.sub(0.05, 1.0);
        writeRecording(*rec, output, format, prov, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet)
    std::printf("%s %zu annotation(s) from %s: %zu in all; wrote %s\n",
                replace ? "replaced by" : "added", added.size(), table.c_str(), total,
                output.c_str());
  return code;
}

}  // namespace

CommandSpec annotationsSpec() {
  CommandSpec s;
  s.name = "annotations";
  s.usage = "export IN -o OUT.csv|OUT.tsv | import IN TABLE.csv|TABLE.tsv -o OUT [--replace]";
  s.brief = "Export or import annotations as CSV or BIDS events.tsv";
  s.summary =
      "Write a recording's annotations to a CSV or a BIDS events.tsv file, or add the "
      "annotations of such a table to a recording and write it as EDF+, BDF+ or HDF5.";
  s.description =
      "CSV: a header onset,duration,description (seconds from the recording start; MNE's and "
      "EEGLAB's column names; descriptions with commas are quoted). BIDS events.tsv: onset, "
      "duration and trial_type, tab-separated, with a sample column at the fastest channel's "
      "rate; duration n/a reads as 0. The format follows the file name (.csv or .tsv).\n\n"
      "import keeps the recording's own annotations and adds the table's (--replace drops the "
      "recording's); an onset beyond the recording's end is refused. EDF+ keeps 40 bytes of "
      "each text (docs/annotations.md).";
  s.options = {outputOption("The table (export) or the recording (import) to write.", true),
               {"replace", 0, "", "import: replace the recording's annotations instead of adding."},
               quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli annotations export rec.edf -o rec_events.tsv\n"
      "  modescope-cli annotations import rec.edf marks.csv -o rec_marked.edf\n";
  s.minPositionals = 2;
  s.maxPositionals = 3;
  return s;
}

int runAnnotations(const Args& argv) {
  const CommandSpec spec = annotationsSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string& action = args.positionals.front();
  if (action == "export") return runExport(args, spec);
  if (action == "import") return runImport(args, spec);
  throw UsageError("annotations: unknown action '" + action + "'; use export or import");
}

}  // namespace modescope::cli
