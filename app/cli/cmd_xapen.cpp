// `xapen IN... -o OUT.h5 [--study LIST] [--measure apen|sampen] [-m N] [-r X] [--epoch LEN]
//  [--bias zero|max] [--sd population|sample] [--channels] [--start] [--duration | --range A:B]
//  [--threads] [--backend] [--csv FILE] [--json] [--quiet]`: ApEn / Cross-ApEn or SampEn /
// cross-SampEn matrices of one recording or a study (docs/entropy.md).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/channel_selection.h"
#include "app/core/entropy_job.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/entropy/entropy_csv.h"
#include "engine/entropy/entropy_params.h"
#include "engine/io/atomic_file.h"
#include "engine/io/hdf5_entropy.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {
namespace {

namespace fs = std::filesystem;

struct StudyEntry {
  std::string path;
  std::string group;
};

// A positional: "FILE", or "GROUP=FILE" when the whole argument is not an existing file.
StudyEntry parsePositional(const std::string& arg) {
  std::error_code ec;
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || fs::exists(arg, ec)) return {arg, ""};
  return {arg.substr(eq + 1), arg.substr(0, eq)};
}

// The --study list: one recording per line, "FILE" or "FILE<TAB>GROUP"; blank lines and lines
// starting with '#' are skipped; relative paths are relative to the list's folder.
std::vector<StudyEntry> readStudyList(const std::string& list) {
  std::ifstream in(list);
  if (!in)
    throw InvalidInputError(list, "file", "a file that cannot be opened",
                            "a text file listing one recording per line",
                            "check the path given to --study");
  std::vector<StudyEntry> out;
  std::string line;
  int number = 0;
  const fs::path base = fs::path(list).parent_path();
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    StudyEntry e;
    const auto tab = line.rfind('\t');
    e.path = trim(tab == std::string::npos ? line : line.substr(0, tab));
    if (tab != std::string::npos) e.group = trim(line.substr(tab + 1));
    if (e.path.empty())
      throw InvalidInputError(list, "line " + std::to_string(number), "'" + line + "'",
                              "FILE or FILE<TAB>GROUP");
    if (fs::path(e.path).is_relative() && !base.empty()) e.path = (base / e.path).string();
    out.push_back(std::move(e));
  }
  if (out.empty())
    throw InvalidInputError(list, "file", "no recordings", "at least one line naming a recording");
  return out;
}

// "--epoch": "all" (the selection), seconds ("4", "4s", "2.5 s") or samples ("1024samples",
// "1024 samples", "1024smp"). Seconds become samples once the recording's rate is known.
struct EpochArg {
  bool all = true;
  bool inSamples = false;
  double value = 0.0;
};

EpochArg parseEpoch(const std::string& text) {
  std::string t = toLower(trim(text));
  EpochArg e;
  if (t == "all" || t.empty()) return e;
  e.all = false;
  for (const char* suffix : {"samples", "sample", "smp"}) {
    const std::string s(suffix);
    if (t.size() > s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0) {
      e.inSamples = true;
      // The declared epoch length (entropyParamTable()), with errors naming --epoch.
      const ParamDecl& d = entropyParamTable().find("epoch")->decl;
      e.value = static_cast<double>(
          std::get<int64_t>(parseValue(d, trim(t.substr(0, t.size() - s.size())), "--epoch")));
      return e;
    }
  }
  if (!t.empty() && t.back() == 's') t = trim(t.substr(0, t.size() - 1));
  e.value = parseSeconds("--epoch", t, false);
  return e;
}

int64_t epochSamplesFor(const EpochArg& e, double rate) {
  if (e.all) return 0;
  if (e.inSamples) return static_cast<int64_t>(e.value);
  const double n = std::round(e.value * rate);
  if (n < 1)
    throw InvalidParameterError("--epoch", formatNumber(e.value) + " s",
                                "at least one sample at " + formatNumber(rate) + " Hz");
  return static_cast<int64_t>(n);
}

// The parameters declared once in entropyParamTable(), over the defaults; an epoch given in
// samples is checked with them (one in seconds once each recording's rate is known).
EntropyParams readEntropyParams(const ParsedArgs& args, const EpochArg& epoch) {
  EntropyParams p;
  applyParamOptions(args, entropyParamTable(), p);
  if (!epoch.all && epoch.inSamples) p.epochSamples = static_cast<int64_t>(epoch.value);
  validateEntropyParams(p);
  p.epochSamples = 0;  // set per recording (epochSamplesFor)
  return p;
}

void checkCsvPath(const std::string& csv) {
  if (csv.size() < 5 || !equalsIgnoreCase(std::string_view(csv).substr(csv.size() - 4), ".csv"))
    throw InvalidParameterError("--csv", "'" + csv + "'", "a file name ending in .csv");
  fs::path dir = fs::path(csv).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK | X_OK) != 0)
    throw OutputError(csv, "cannot create files in '" + dir.string() +
                               "'; create the folder first or choose another path");
}

struct RecordingRun {
  EntropyFileRecording rec;
  std::string backend;
};

double meanOf(const EntropyMatrixResult& r, bool diagonal) {
  double s = 0;
  int n = 0;
  const std::size_t c = r.channelCount();
  for (std::size_t u = 0; u < c; ++u)
    for (std::size_t v = 0; v < c; ++v)
      if ((u == v) == diagonal && std::isfinite(r.averageAt(u, v))) {
        s += r.averageAt(u, v);
        ++n;
      }
  return n ? s / n : std::nan("");
}

void printJson(const EntropyFile& f, const std::string& output, const std::string& csv,
               const std::string& backend, const std::string& note) {
  JsonWriter w;
  w.beginObject();
  w.field("output", output);
  if (csv.empty())
    w.nullField("csv");
  else
    w.field("csv", csv);
  w.field("backend", backend);
  if (note.empty())
    w.nullField("backend_note");
  else
    w.field("backend_note", note);
  const EntropyParams& p = f.recordings.front().result.params;
  w.key("parameters").beginObject();
  w.field("measure", entropyMeasureName(p.measure));
  w.field("m", p.m);
  w.field("r", p.r);
  w.field("sd", sdConventionName(p.sd));
  w.field("bias", apEnBiasName(p.bias));
  w.endObject();
  w.key("recordings").beginArray();
  for (const EntropyFileRecording& rec : f.recordings) {
    const EntropyMatrixResult& r = rec.result;
    w.beginObject();
    w.field("input", rec.inputFile);
    w.field("group", rec.group);
    w.field("channels", static_cast<int64_t>(r.channelCount()));
    w.field("epochs", static_cast<int64_t>(r.epochCount()));
    w.field("epoch_samples", r.epochSamples);
    w.field("mean_diagonal", meanOf(r, true));
    w.field("mean_off_diagonal", meanOf(r, false));
    w.field("wall_s", rec.provenance.wallSeconds);
    writeDiagnosticsJson(w, r.diagnostics);
    w.endObject();
  }
  w.endArray();
  w.key("groups").beginArray();
  for (const EntropyGroupMean& g : f.groups) {
    w.beginObject();
    w.field("label", g.label);
    w.field("recordings", static_cast<int64_t>(g.members.size()));
    w.endObject();
  }
  w.endArray();
  w.endObject();
  printJsonLine(w);
}

}  // namespace

CommandSpec xapenSpec() {
  CommandSpec s;
  s.name = "xapen";
  s.usage = "IN... -o OUT.h5 [--study LIST] [parameters] [options]";
  s.brief = "Cross-ApEn / cross-SampEn channel matrices to HDF5";
  s.summary =
      "Compute approximate entropy (ApEn) of every channel and Cross-ApEn of every ordered "
      "channel pair (or SampEn and cross-SampEn), per epoch and averaged over epochs, for "
      "one recording or a study, and write the matrices to HDF5.";
  s.description =
      "Each series is z-scored by its own mean and SD in every epoch, so r is in SD units; "
      "templates of m samples match when their Chebyshev distance is <= r; logs are natural; "
      "templates never cross an epoch boundary (Martinez-Zarzuela et al. 2013; Richman and "
      "Moorman 2000 for SampEn). Matrix entry [u][v] is Cross-ApEn(v||u): row = template channel "
      "u, column = target channel v. Cross-ApEn is not symmetric; the full ordered matrix is "
      "computed. --bias chooses how a template without any match in the other channel is "
      "counted (zero: it contributes 0; max: it contributes ln(N - m + 1)). An undefined SampEn "
      "entry (no matches) is NaN and counted in a warning.\n\n"
      "A study is several inputs: give them on the command line (GROUP=FILE assigns a group "
      "label) or list them in a text file with --study (one FILE or FILE<TAB>GROUP per line, '#' "
      "comments). Every recording uses the same channels by name (--channels) and parameters; "
      "the file then also holds the mean matrix of each group.\n\n"
      "The output is an HDF5 file (schema modescope-entropy/1, docs/entropy.md). --csv also "
      "writes the average matrix of a single recording as CSV with channel names as the header "
      "and first column. Without --channels, every channel except trigger/status channels is "
      "used, restricted to the sample rate most channels share.";
  s.options = {
      outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
      {"study", 0, "LIST",
       "A text file listing the recordings of a study (FILE or FILE<TAB>GROUP "
       "per line); adds to the inputs on the command line."},
      {"epoch", 0, "LEN",
       "Epoch length: seconds (4, 4s) or samples (1024samples); 'all' (default) uses the whole "
       "selection as one epoch. The tail that does not fill an epoch is not used."},
      channelsOption(),
      startOption(),
      durationOption(),
      {"range", 0, "A:B", "The time range from A to B seconds (instead of --start/--duration)."},
      {"threads", 0, "N", "CPU threads (default: all cores)."},
      backendOption(),
      {"csv", 0, "FILE", "Also write the average matrix of the (single) recording as CSV."},
      jsonOption("a summary (parameters, per recording: channels, epochs, mean ApEn, mean "
                 "Cross-ApEn, diagnostics; groups)"),
      quietOption(),
      helpOption()};
  // The method's parameters come from their declarations (entropyParamTable()); -m and -r are
  // the short spellings of --m and --r.
  std::vector<OptionSpec> params = paramOptions(entropyParamTable(), EntropyParams{});
  for (OptionSpec& o : params)
    if (o.name == "m" || o.name == "r") o.shortName = o.name[0];
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  s.examples =
      "  modescope-cli xapen rec.edf -o rec-xapen.h5 --epoch 1024samples -m 1 -r 0.2\n"
      "  modescope-cli xapen rec.edf -o x.h5 --channels Fz,Cz,Pz --range 10:70 --epoch 4 --csv "
      "x.csv\n"
      "  modescope-cli xapen young=a.edf young=b.edf old=c.edf -o study.h5 --epoch 1024samples\n"
      "  modescope-cli xapen --study subjects.txt -o study.h5 --measure sampen -m 2\n";
  s.minPositionals = 0;
  s.maxPositionals = 0;
  return s;
}

int runXapen(const Args& argv) {
  const CommandSpec spec = xapenSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  const std::string output = readOutputPath(args, spec);
  SelectionArgs sel = readSelection(args);
  const bool quiet = args.has("quiet"), json = args.has("json");
  if (auto v = args.value("range")) {
    if (args.has("start") || args.has("duration"))
      throw UsageError("--range and --start/--duration contradict each other; give one");
    const auto colon = v->find(':');
    if (colon == std::string::npos)
      throw InvalidParameterError("--range", "'" + *v + "'", "START:END in seconds, e.g. 10:70");
    sel.start = parseSeconds("--range", v->substr(0, colon), true);
    const double end = parseSeconds("--range", v->substr(colon + 1), false);
    if (!(end > sel.start))
      throw InvalidParameterError("--range", "'" + *v + "'", "an end after the start");
    sel.duration = end - sel.start;
  }
  // Every parameter is checked before any recording is opened (exit 1 at once).
  const EpochArg epoch = parseEpoch(args.value("epoch").value_or("all"));
  const EntropyParams baseParams = readEntropyParams(args, epoch);
  const BackendChoice backendChoice = readBackendChoice(args);
  const int threads = readThreads(args);
  std::vector<StudyEntry> entries;
  for (const std::string& a : args.positionals) entries.push_back(parsePositional(a));
  if (auto list = args.value("study"))
    for (StudyEntry& e : readStudyList(*list)) entries.push_back(std::move(e));
  if (entries.empty()) throw UsageError("no input: give one or more recordings, or --study LIST");
  requireHdf5Output(output, "The matrices are written to HDF5; --csv adds a CSV of the average");
  for (const StudyEntry& e : entries) checkOutputPath(output, e.path);
  const std::string csv = args.value("csv").value_or("");
  if (!csv.empty()) {
    if (entries.size() > 1)
      throw InvalidParameterError("--csv", std::to_string(entries.size()) + " recordings",
                                  "a single recording",
                                  "read the study's matrices from the HDF5 file instead");
    checkCsvPath(csv);
  }

  EntropyFile file;
  std::string backendText, backendNote;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "xapen");
  const JobOutcome outcome = runCliJob(
      "xapen " + entries.front().path,
      [&](JobContext& ctx) -> void {
        std::unique_ptr<ComputeBackend> backend =
            chooseBackend(backendChoice, &backendNote, threads);
        backendText = backend->info().describe();
        if (!backendNote.empty()) display.message(std::string(kProgram) + ": " + backendNote);
        const double count = static_cast<double>(entries.size());
        for (std::size_t k = 0; k < entries.size(); ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          const StudyEntry& e = entries[k];
          const std::string tag = entries.size() > 1 ? "recording " + std::to_string(k + 1) + "/" +
                                                           std::to_string(entries.size()) + ": "
                                                     : std::string();
          // Progress over recordings x (epochs x pairs): recording k fills [k, k + 1) / count.
          JobContext recCtx(ctx.stopToken(), [&, k](double f, std::string_view stage) {
            ctx.progress((static_cast<double>(k) + 0.97 * f) / count, tag + std::string(stage));
          });
          std::vector<std::size_t> channels;
          std::shared_ptr<const Recording> rec =
              openMethodInput(e.path, sel, recCtx, display, channels);
          const double rate =
              checkSelection(*rec, Selection{channels, sel.start, sel.duration}).sampleRate;
          SignalBlock block = extractBlock(*rec, channels, sel.start, sel.duration);
          EntropyParams params = baseParams;
          params.epochSamples = epochSamplesFor(epoch, rate);
          const int64_t selectedSamples = block.samples;
          std::vector<int64_t> keptStarts;
          const auto badSegmentLines = excludeBadSegmentEpochs(*rec, block, params, &keptStarts);
          checkEntropyBlock(*rec, block, e.path);
          // One parameter set per study: an epoch in seconds at another rate is another N, and
          // ApEn values are comparable only at equal (m, r, N).
          if (!file.recordings.empty() &&
              file.recordings.front().result.params.epochSamples != params.epochSamples)
            throw InvalidParameterError(
                "--epoch",
                e.path + " at " + formatNumber(rate) + " Hz gives " +
                    std::to_string(params.epochSamples) + " samples per epoch",
                std::to_string(file.recordings.front().result.params.epochSamples) +
                    " samples as for " + file.recordings.front().inputFile,
                "give the epoch in samples (e.g. 1024samples) or resample the recordings to one "
                "rate");
          EntropyFileRecording out;
          out.result = backend->entropyMatrices(block, params, recCtx);
          nameEntropyChannels(out.result, *rec);
          if (!keptStarts.empty()) out.result.epochStarts = keptStarts;
          out.inputFile = e.path;
          out.group = e.group;
          out.channels = entropyFileChannels(*rec, out.result.channels);
          out.selectionSamples = selectedSamples;
          for (const Diagnostic& d : out.result.diagnostics)
            if (d.severity == Severity::Warning)
              display.message(std::string(kProgram) + ": warning: " + e.path + ": " + d.message);
          Provenance& prov = out.provenance;
          prov.method = "xapen";
          prov.parameters = entropyProvenanceParameters(out.result);
          prov.parameters.insert(prov.parameters.end(), badSegmentLines.begin(),
                                 badSegmentLines.end());
          prov.backend = backendText;
          prov.softwareVersion = softwareVersion();
          prov.inputFile = e.path;
          prov.selection = describeSelection(*rec, channels, sel.start, sel.duration);
          prov.createdAt = utcNowIso8601();
          prov.wallSeconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          file.recordings.push_back(std::move(out));
        }
        file.groups = entropyGroupMeans(file.recordings);
        ctx.progress(0.98, "writing " + output);
        JobContext writeCtx = ctx.sub(0.98, 1.0);
        writeEntropyFile(output, file, writeCtx);
        if (!csv.empty()) {
          const EntropyMatrixResult& r = file.recordings.front().result;
          AtomicOutput out(csv);
          {
            std::ofstream os(out.temporaryPath(), std::ios::binary);
            os << entropyMatrixCsv(r.channelNames, r.average);
            os.flush();
            if (!os) throw OutputError(csv, "writing failed (disk full?)");
          }
          ctx.checkpoint();
          out.commit();
        }
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (json) {
    printJson(file, output, csv, backendText, backendNote);
  } else if (!quiet) {
    for (const EntropyFileRecording& rec : file.recordings) {
      const EntropyMatrixResult& r = rec.result;
      const bool apen = r.params.measure == EntropyMeasure::ApproximateEntropy;
      std::printf("%s%s%s: %zu channels x %zu epochs of %lld samples: mean %s %.4f, mean %s %.4f\n",
                  rec.inputFile.c_str(), rec.group.empty() ? "" : " [",
                  rec.group.empty() ? "" : (rec.group + "]").c_str(), r.channelCount(),
                  r.epochCount(), static_cast<long long>(r.epochSamples), apen ? "ApEn" : "SampEn",
                  meanOf(r, true), apen ? "Cross-ApEn" : "cross-SampEn", meanOf(r, false));
    }
    const EntropyParams& p = file.recordings.front().result.params;
    std::printf("%s, m = %d, r = %s SD%s on %s; wrote %s%s%s\n",
                p.measure == EntropyMeasure::ApproximateEntropy ? "Cross-ApEn" : "cross-SampEn",
                p.m, formatNumber(p.r).c_str(),
                p.measure == EntropyMeasure::ApproximateEntropy
                    ? (std::string(", bias ") + apEnBiasName(p.bias)).c_str()
                    : "",
                backendText.c_str(), output.c_str(), csv.empty() ? "" : " and ", csv.c_str());
  }
  return 0;
}

}  // namespace modescope::cli
