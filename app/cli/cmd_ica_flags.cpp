// `ica-flags ICA.h5 [-i REC] [-o FLAGS.tsv] [thresholds] [--json] [--quiet]`: the automatic
// artifact flags of a decomposition (engine/ica/ica_flags.h), printed and written as
// mne-icalabel's components.tsv.
#include <cstdio>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/ica_file_inputs.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/ica_flags_job.h"
#include "app/core/json_writer.h"

namespace modescope::cli {

// The TSV beside the ICA file: rec-ica.h5 -> rec-ica_components.tsv (BIDS derivatives' suffix).
std::string defaultFlagsPath(const std::string& icaPath) {
  std::string stem = icaPath;
  for (const char* ext : {".h5", ".hdf5"}) {
    const std::string e(ext);
    if (stem.size() > e.size() && stem.compare(stem.size() - e.size(), e.size(), e) == 0) {
      stem.resize(stem.size() - e.size());
      break;
    }
  }
  return stem + "_components.tsv";
}

CommandSpec icaFlagsSpec() {
  CommandSpec s;
  s.name = "ica-flags";
  s.usage = "ICA.h5 [-i REC] [-o FLAGS.tsv] [thresholds] [options]";
  s.brief = "automatic eye/heart/muscle/line/channel flags for ICA components";
  s.summary =
      "Label each independent component eye, heart, muscle, line, channel or brain-or-other "
      "with published detectors, print the labels with their reasons and write them as "
      "mne-icalabel's components.tsv.";
  s.description =
      "Detectors (docs/ica.md, \"Automatic flags\"): eye - MNE find_bads_eog's EOG correlation "
      "z-score (frontal sites when there is no EOG channel) and the ADJUST blink and eye-movement "
      "rules (Mognon et al. 2011); heart - MNE find_bads_ecg's correlation z-score and "
      "cross-trial phase statistic with an ECG channel, the heartbeat periodicity of the "
      "activation without one; muscle - MNE find_bads_muscle; line - a narrow 50/60 Hz peak "
      "holding a share of the power; channel - a map on one electrode or ADJUST's generic "
      "discontinuity. The recording is the one named in the ICA file unless --input names it. "
      "Components are numbered from 1 on screen and from 0 in the TSV, as mne-icalabel does; "
      "give the labels to 'ica-apply --reject-flagged'.";
  s.options = {
      {"input", 'i', "REC", "The recording decomposed (default: the one the file names)."},
      outputOption("The TSV to write (default: ICA_components.tsv beside the ICA file).", false),
      jsonOption("every component's label, confidence and reasons"),
      quietOption(),
      helpOption()};
  const std::vector<OptionSpec> params = paramOptions(icaFlagParamTable(), IcaFlagParams{});
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  s.examples =
      "  modescope-cli ica-flags rec-ica.h5\n"
      "  modescope-cli ica-flags rec-ica.h5 -i rec.edf -o flags.tsv --eog-z 2.5 --json\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runIcaFlags(const Args& argv) {
  const CommandSpec spec = icaFlagsSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string icaPath = args.positionals.front();
  const std::string output = args.value("output").value_or(defaultFlagsPath(icaPath));
  const bool quiet = args.has("quiet");
  const bool json = args.has("json");
  IcaFlagParams params;
  applyParamOptions(args, icaFlagParamTable(), params);
  validateIcaFlagParams(params);
  refuseOutputOverIcaFile(output, icaPath);

  IcaFlags flags;
  std::string input;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "ica-flags");
  const JobOutcome outcome = runCliJob(
      "ica-flags " + icaPath,
      [&](JobContext& ctx) -> void {
        const IcaWithRecording loaded =
            readIcaWithRecording(icaPath, args.value("input").value_or(""), ctx);
        input = loaded.input;
        JobContext sub = ctx.sub(0.05, 0.95);
        flags = icaFlagsOf(loaded, std::nullopt, params, sub);
        writeIcaFlagsTsv(output, flags);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (json) {
    JsonWriter w;
    w.beginObject();
    w.field("ica", icaPath);
    w.field("input", input);
    w.field("output", output);
    w.key("components").beginArray();
    for (std::size_t k = 0; k < flags.components.size(); ++k) {
      const IcaComponentFlags& c = flags.components[k];
      w.beginObject();
      w.field("component", static_cast<int64_t>(k + 1));
      w.field("label", icaFlagLabelName(c.label));
      w.field("ic_type", icaFlagIcType(c.label));
      w.field("confidence", c.confidence);
      w.key("reasons").beginArray();
      for (const IcaDetectorVerdict& v : c.verdicts)
        if (v.flagged) w.value(v.reason);
      w.endArray();
      // Every rule that ran, with its features: what the properties view shows.
      w.key("rules").beginArray();
      for (const IcaDetectorVerdict& v : c.verdicts) {
        w.beginObject();
        w.field("rule", v.rule);
        w.field("label", icaFlagLabelName(v.label));
        w.field("flagged", v.flagged);
        w.field("confidence", v.confidence);
        w.key("features").beginObject();
        for (const IcaFlagFeature& f : v.features) w.field(f.key, f.value);
        w.endObject();
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    w.endArray();
    w.key("notes").beginArray();
    for (const std::string& n : flags.notes) w.value(n);
    w.endArray();
    w.endObject();
    printJsonLine(w);
  } else if (!quiet) {
    for (std::size_t k = 0; k < flags.components.size(); ++k) {
      const IcaComponentFlags& c = flags.components[k];
      std::printf("IC%-3zu %-8s %.2f", k + 1, icaFlagLabelName(c.label), c.confidence);
      std::string reasons = c.reasons();
      for (char& ch : reasons)
        if (ch == '\n') ch = ';';
      std::printf("%s%s\n", reasons.empty() ? "" : "  ", reasons.c_str());
    }
    for (const std::string& n : flags.notes) std::printf("note: %s\n", n.c_str());
    std::printf("wrote %s\n", output.c_str());
  }
  return 0;
}

}  // namespace modescope::cli
