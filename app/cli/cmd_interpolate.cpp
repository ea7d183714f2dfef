// `interpolate IN [OUT | -o OUT] (--bad LIST | --auto-bad) [spline and criteria options]
//  [--backend]`: spherical-spline interpolation of bad channels (docs/bad-channels.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/bad_channel_job.h"
#include "app/core/channel_selection.h"
#include "app/core/gpu_backend.h"
#include "app/core/interpolation_job.h"
#include "engine/core/bad_marks.h"
#include "engine/core/text.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

CommandSpec interpolateSpec() {
  CommandSpec s;
  s.name = "interpolate";
  s.usage = "IN OUT [--bad LIST] [--auto-bad] [options]";
  s.brief = "Interpolate bad channels (spherical splines); suggest bad channels";
  s.summary =
      "Replace bad EEG channels by the spherical-spline interpolation of the good ones (Perrin et "
      "al. 1989, as MNE's interpolate_bads and EEGLAB's eeg_interp 'spherical') and write the "
      "recording with its provenance.";
  s.description =
      "The channels interpolated are those the file marks bad (the HDF5 channel status, or a BIDS "
      "channels.tsv beside an EDF/BDF file), those of --bad, and with --auto-bad the suggested "
      "ones. The good channels are every EEG channel with an electrode position that is not bad "
      "and "
      "shares the bad channels' sample rate; other channels are copied unchanged. Defaults are "
      "MNE's (order 4, 50 Legendre terms, lambda 1e-5); --terms 7 --lambda 0 follows EEGLAB.\n\n"
      "--auto-bad first measures every EEG channel of the main sample rate with the PREP "
      "pipeline's criteria (flat; deviation and high-frequency noise by robust z-score; low "
      "correlation with every other channel), prints each measure with its threshold, and "
      "interpolates the suggested channels together with those of --bad. With --list nothing is "
      "written: the suggestions are printed and the command ends.\n\n"
      "The output is given as the second argument or with -o (HDF5 keeps the provenance).";
  s.options = {outputOption("The file to write (or the second argument).", false),
               {"bad", 0, "LIST",
                "Channels to interpolate: names, labels or 1-based indices, comma-separated "
                "(C3,C4)."},
               {"auto-bad", 0, "", "Add the channels the bad-channel criteria suggest."},
               {"list", 0, "",
                "With --auto-bad: print the suggestions and their measures only; write nothing."}};
  for (OptionSpec& o : paramOptions(splineInterpolationParamTable(), SplineInterpolationParams{}))
    s.options.push_back(std::move(o));
  for (OptionSpec& o : paramOptions(badChannelCriteriaParamTable(), BadChannelCriteria{}))
    s.options.push_back(std::move(o));
  s.options.push_back(backendOption());
  s.options.push_back(quietOption());
  s.options.push_back(helpOption());
  s.examples =
      "  modescope-cli interpolate rec.edf fixed.h5 --bad C3,C4\n"
      "  modescope-cli interpolate rec.edf fixed.h5 --auto-bad --deviation-z 4\n"
      "  modescope-cli interpolate rec.edf --auto-bad --list\n";
  s.minPositionals = 1;
  s.maxPositionals = 2;
  return s;
}

namespace {

// A measure for the table: two decimals, "-" where it was not computed.
std::string cell(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

void printSuggestions(const Recording& rec, const BadChannelReport& report) {
  std::printf("bad-channel criteria over %zu channels, %d windows:\n", report.channels.size(),
              report.windows);
  for (const std::string& line : report.thresholdLines()) std::printf("  %s\n", line.c_str());
  for (const std::string& note : report.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("%-10s %12s %10s %10s %12s  %s\n", "channel", "robust SD", "dev z", "hf z",
              "low-r share", "suggested");
  for (const ChannelQuality& q : report.channels) {
    std::printf("%-10s %12s %10s %10s %12s  %s\n",
                sanitizeUtf8(rec.channels[q.channel].name).c_str(), cell(q.robustSd).c_str(),
                cell(q.deviationZ).c_str(), cell(q.highFrequencyZ).c_str(),
                cell(q.lowCorrelationFraction).c_str(),
                q.suggested() ? q.explanation(report.criteria).c_str() : "-");
  }
  const auto bad = report.suggested();
  std::printf("suggested: %s\n", bad.empty() ? "none" : describeChannels(rec, bad).c_str());
}

}  // namespace

int runInterpolate(const Args& argv) {
  const CommandSpec spec = interpolateSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string input = args.positionals.front();
  const bool autoBad = args.has("auto-bad");
  const bool listOnly = args.has("list");
  const bool quiet = args.has("quiet");
  if (listOnly && !autoBad) throw UsageError("--list shows the --auto-bad suggestions: add it");
  std::string output;
  if (args.positionals.size() == 2 && args.has("output")) {
    throw UsageError("give the output once: as the second argument or with -o, not both");
  }
  if (args.positionals.size() == 2) output = args.positionals[1];
  if (auto o = args.value("output")) output = *o;
  if (output.empty() && !listOnly) {
    throw UsageError("'interpolate' needs an output file: IN OUT or -o OUT (usage: interpolate " +
                     spec.usage + ")");
  }
  SplineInterpolationParams params;
  applyParamOptions(args, splineInterpolationParamTable(), params);
  validateAsOptions(splineInterpolationParamTable(), params);
  BadChannelCriteria criteria;
  applyParamOptions(args, badChannelCriteriaParamTable(), criteria);
  validateAsOptions(badChannelCriteriaParamTable(), criteria);
  if (!listOnly) checkOutputPath(output, input);

  std::string backendNote;
  std::unique_ptr<ComputeBackend> backend = chooseBackend(readBackendChoice(args), &backendNote);
  const std::string backendText = backend->info().describe();
  if (!backendNote.empty() && !quiet && gpuFactory()) printNote(backendNote);

  std::string summary;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "interpolate");
  const JobOutcome outcome = runCliJob(
      "interpolate " + input,
      [&](JobContext& ctx) -> void {
        ctx.progress(0.0, "reading " + input);
        std::shared_ptr<const Recording> rec = openRecording(input);
        printDiagnostics(*rec, display);
        // The channels the file marks bad (HDF5 status, a BIDS channels.tsv beside an EDF),
        // then --bad, then the suggestions: all of them are interpolated, as MNE's
        // interpolate_bads interpolates every channel of info["bads"].
        std::vector<std::size_t> bad = badChannelIndices(*rec);
        auto addBad = [&bad](std::size_t i) {
          if (std::find(bad.begin(), bad.end(), i) == bad.end()) bad.push_back(i);
        };
        if (auto list = args.value("bad"))
          for (std::size_t i : parseChannelSelection(*rec, *list)) addBad(i);
        if (autoBad) {
          JobContext suggestCtx = ctx.sub(0.0, 0.4);
          const BadChannelReport report =
              suggestBadChannelsOf(*rec, criteria, *backend, suggestCtx);
          if (!quiet || listOnly) printSuggestions(*rec, report);
          for (std::size_t i : report.suggested()) addBad(i);
          if (listOnly) return;
          if (bad.empty()) {
            throw InvalidParameterError("--auto-bad", "no channel suggested",
                                        "at least one channel to interpolate",
                                        "nothing to do: the recording needs no interpolation by "
                                        "these criteria (or loosen them, e.g. --deviation-z 3)");
          }
        }
        if (bad.empty()) {
          throw InvalidParameterError("--bad", "no channel given and none marked bad in " + input,
                                      "at least one channel to interpolate",
                                      "name them with --bad C3,C4 or use --auto-bad");
        }
        InterpolationJobSpec job;
        job.bad = bad;
        job.params = params;
        job.inputFile = input;
        JobContext interpCtx = ctx.sub(autoBad ? 0.4 : 0.0, 0.85);
        InterpolationJobResult result = runInterpolationJob(rec, job, *backend, interpCtx);
        JobContext writeCtx = ctx.sub(0.85, 1.0);
        writeRecording(*result.recording, output, outputFormatForPath(output), result.provenance,
                       writeCtx);
        summary = "interpolated " + describeChannels(*rec, result.plan.bad) + " from " +
                  std::to_string(result.plan.sources.size()) + " channels on " + backendText +
                  " in " + formatSeconds(result.wallSeconds) + "; wrote " + output;
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet && !summary.empty()) std::printf("%s\n", summary.c_str());
  return code;
}

}  // namespace modescope::cli
