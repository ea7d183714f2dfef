// `convert IN -o OUT [--channels LIST] [--start S] [--duration S]`
#include <chrono>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/core/recording_selection.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

const char* formatName(OutputFormat f) {
  switch (f) {
    case OutputFormat::Hdf5:
      return "HDF5";
    case OutputFormat::EdfPlus:
      return "EDF+";
    case OutputFormat::BdfPlus:
      return "BDF+";
  }
  return "?";
}

}  // namespace

CommandSpec convertSpec() {
  CommandSpec s;
  s.name = "convert";
  s.usage = "IN -o OUT [options]";
  s.brief = "Convert to HDF5, EDF+ or BDF+, optionally cutting channels and time";
  s.summary =
      "Convert a recording to HDF5, EDF+ or BDF+, optionally cutting out channels and a "
      "time range.";
  s.description =
      "Reads any supported input (EDF/EDF+/BDF/BDF+, ModeScope HDF5, and what BioSig reads) and "
      "writes all channels and annotations, or the selection. Channels keep their own sample "
      "rates. The output is written under a temporary name and renamed when complete, so a "
      "failed or cancelled conversion (Ctrl-C) leaves no output file.\n\n"
      "Annotations whose onset lies in the selected range are kept, shifted to the new start. "
      "EDF+ stores 16-bit samples and BDF+ 24-bit samples, scaled to each channel's range in the "
      "data; both store whole data records, so a selection that does not fill the last record is "
      "padded with zeros (HDF5 keeps float32 samples and the exact length).";
  s.options = {outputOption("The file to write.", true),
               channelsOption(),
               startOption(),
               durationOption(),
               quietOption(),
               helpOption()};
  s.examples =
      "  modescope-cli convert recording.edf -o recording.h5\n"
      "  modescope-cli convert recording.bdf -o part.edf --channels Fp1,Fp2,Cz --start 60 "
      "--duration 30\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runConvert(const Args& argv) {
  const CommandSpec spec = convertSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string input = args.positionals.front();
  const std::string output = readOutputPath(args, spec);
  const SelectionArgs sel = readSelection(args);
  const bool quiet = args.has("quiet");
  checkOutputPath(output, input);
  const OutputFormat format = outputFormatForPath(output);

  std::size_t channelCount = 0;
  double duration = 0.0;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "convert");
  const JobOutcome outcome = runCliJob(
      "convert " + input,
      [&](JobContext& ctx) -> void {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> rec = openRecording(input);
        ctx.checkpoint();
        printDiagnostics(*rec, display);
        Provenance prov;
        prov.method = "convert";
        prov.parameters = {{"output_format", formatName(format)}};
        prov.softwareVersion = softwareVersion();
        prov.inputFile = input;
        if (sel.any()) {
          const auto channels = resolveChannels(*rec, sel, allChannels(*rec));
          prov.selection = describeSelection(*rec, channels, sel.start, sel.duration);
          noteTruncatedRange(*rec, sel, display);
          rec = selectRecording(rec, channels, sel.start, sel.duration);
        } else {
          prov.selection = describeSelection(*rec, allChannels(*rec), 0.0, -1.0);
        }
        prov.createdAt = utcNowIso8601();
        prov.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        channelCount = rec->channelCount();
        duration = rec->duration();
        JobContext writeCtx = ctx.sub(0.02, 1.0);
        writeRecording(*rec, output, format, prov, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet) {
    std::printf("wrote %s (%s, %zu channels, %s s) in %s\n", output.c_str(), formatName(format),
                channelCount, formatNumber(duration).c_str(),
                formatSeconds(outcome.wallSeconds).c_str());
  }
  return code;
}

}  // namespace modescope::cli
