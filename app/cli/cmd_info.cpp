// `info FILE... [--json] [--annotations] [--channels-table]`
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/core/json_writer.h"
#include "app/core/recording_summary.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

CommandSpec infoSpec() {
  CommandSpec s;
  s.name = "info";
  s.usage = "FILE... [options]";
  s.brief = "Summarise recordings (format, channels, rates, annotations, warnings)";
  s.summary =
      "Show what a recording holds: format, reader, patient and recording fields, start "
      "time, duration, channels, sample rates, units, annotations and reader warnings.";
  s.description =
      "Reads only the headers and annotations, not the samples. Files EDFlib refuses are read "
      "through BioSig when possible, and the warning says what was not compliant.\n\n"
      "With several files, each is shown in turn; a file that cannot be read is reported and the "
      "others are still shown (the exit code is then 2). With --json, one file gives one JSON "
      "object and several files give an array of objects.";
  s.options = {jsonOption("the summary"),
               {"annotations", 0, "", "List every annotation (default: the first 5)."},
               {"channels-table", 0, "", "Add a table with one row per channel."},
               quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli info recording.edf\n"
      "  modescope-cli info recording.edf --channels-table --annotations\n"
      "  modescope-cli info *.edf --json > summary.json\n";
  s.minPositionals = 1;
  return s;
}

int runInfo(const Args& argv) {
  const CommandSpec spec = infoSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const bool json = args.has("json");
  SummaryOptions options;
  options.allAnnotations = args.has("annotations");
  options.channelTable = args.has("channels-table");

  const bool many = args.positionals.size() > 1;
  JsonWriter w;
  if (json && many) w.beginArray();
  int exitCode = 0;
  bool first = true;
  for (const std::string& path : args.positionals) {
    std::shared_ptr<const Recording> rec;
    try {
      rec = openRecording(path);
    } catch (const Error& e) {
      printError(e.what());
      if (exitCode == 0) exitCode = e.exitCode();
      continue;
    }
    if (json) {
      writeRecordingJson(w, *rec, path);
    } else {
      if (!first) std::fputs("\n", stdout);
      std::fputs(formatRecordingSummary(*rec, path, options).c_str(), stdout);
    }
    first = false;
  }
  if (json) {
    if (many) w.endArray();
    if (w.complete()) std::fputs(w.str().c_str(), stdout);
  }
  return exitCode;
}

}  // namespace modescope::cli
