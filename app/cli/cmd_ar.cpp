// `ar IN -o OUT.h5 [--preset NAME] [AR parameters] [--spatial FILTER] [--classes A,B]
//  [--channels] [--start] [--duration] [--backend] [--threads] [--json] [--quiet]`: Burg AR
// spectra of the selection over sliding windows (after an optional spatial filter) and, with two
// event classes, the channel x bin r^2 map between them, written to HDF5 (docs/ar.md).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/channel_selection.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"
#include "app/core/recording_selection.h"
#include "engine/ar/ar_params.h"
#include "engine/ar/event_features.h"
#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_ar.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope::cli {
namespace {

constexpr const char* kSpatialKeywords = "none, car, small-laplacian, large-laplacian";

std::string presetList() {
  std::string s;
  for (const BurgArPreset& p : burgArPresets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// --window / --step LENGTH: "0.5" or "0.5s" (seconds), "250ms" (milliseconds) or "80samples".
// The number is handed on as the declared option's value, so its range errors name the option;
// the suffix says the unit, which has no option of its own. Nothing when the option is absent.
std::optional<ArLengthUnit> splitLength(const ParsedArgs& args, const std::string& option,
                                        ParsedArgs& given) {
  const auto raw = args.value(option);
  if (!raw) return std::nullopt;
  const std::string text = toLower(trim(*raw));
  const auto endsWith = [&](const std::string& suffix) {
    return text.size() > suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  const auto before = [&](std::size_t suffix) {
    return trim(text.substr(0, text.size() - suffix));
  };
  if (endsWith("samples")) {
    given.add(option, before(7));
    return ArLengthUnit::Samples;
  }
  if (endsWith("ms")) {
    double ms = 0;
    try {
      ms = parseNumber("--" + option, before(2));
    } catch (const InvalidParameterError&) {
      throw InvalidParameterError(
          "--" + option, "'" + *raw + "'",
          "a length > 0: seconds (0.5 or 0.5s), milliseconds (250ms) or samples (80samples)");
    }
    const ParamDecl& d = burgArParamTable().find(option)->decl;
    if (!acceptsValue(d, ms / 1000.0))
      throw InvalidParameterError("--" + option, "'" + *raw + "'", expectedText(d) + " s", d.help);
    given.add(option, formatValue(d, ms / 1000.0));
    return ArLengthUnit::Seconds;
  }
  given.add(option, endsWith("s") ? before(1) : text);
  return ArLengthUnit::Seconds;
}

// --bins FIRST:LAST:WIDTH is a shorthand for --first-bin, --last-bin and --bin-width.
void splitBins(const ParsedArgs& args, ParsedArgs& given) {
  const auto text = args.value("bins");
  if (!text) return;
  const std::vector<std::string> parts = split(*text, ':');
  if (parts.size() != 3) {
    throw InvalidParameterError("--bins", "'" + *text + "'",
                                "FIRST:LAST:WIDTH in Hz (bin centres and width), e.g. 0:30:3");
  }
  const char* const options[] = {"first-bin", "last-bin", "bin-width"};
  for (int i = 0; i < 3; ++i) {
    if (args.has(options[i]))
      throw UsageError(std::string("--bins and --") + options[i] + " both set it; give one");
    parseValue(burgArParamTable().findCli(options[i])->decl, parts[i], "--bins");
    given.add(options[i], trim(parts[i]));
  }
}

bool isSpatialKeyword(const std::string& s) {
  return s == "none" || s == "car" || s == "small-laplacian" || s == "large-laplacian";
}

// The engine names its parameters by field ("window", "lastBinCenter"); the user typed options.
// An engine refusal is restated with the option added, keeping its exit code (1).
class OptionRefusal : public Error {
 public:
  explicit OptionRefusal(std::string message) : Error(std::move(message)) {}
  int exitCode() const noexcept override { return 1; }
};

// The option that set the engine's parameter `key`; "" when none did.
std::string optionFor(const std::string& key, const ParsedArgs& args) {
  const ParamTable<BurgArParams>& table = burgArParamTable();
  const bool binField = key == "firstBinCenter" || key == "lastBinCenter" || key == "binWidth";
  if (binField && args.has("bins")) return "--bins";
  // "window.unit": the unit is written after the --window number.
  const auto* f = table.find(key.substr(0, key.find('.')));
  if (f && !f->decl.cli.empty()) return "--" + f->decl.cli;
  static const std::vector<std::pair<std::string, std::string>> kOthers = {
      {"preset", "--preset"},
      {"class", "--classes"},
      {"offset", "--trial-offset"},
      {"length", "--trial-length"}};
  for (const auto& [field, option] : kOthers)
    if (key == field) return option;
  return "";
}

[[noreturn]] void restateWithOption(const InvalidParameterError& e, const ParsedArgs& args) {
  const std::string option = optionFor(e.parameter(), args);
  if (option.empty()) throw e;
  std::string m = e.what();
  const std::string quoted = "'" + e.parameter() + "'";
  const auto at = m.find(quoted);
  if (at != std::string::npos) m.insert(at + quoted.size(), " (" + option + ")");
  throw OptionRefusal(m);
}

struct ArRequest {
  BurgArParams params;
  std::string presetName;
  std::string spatial = "none";
  LaplacianWeighting weighting = LaplacianWeighting::Equal;
  std::optional<std::pair<std::string, std::string>> classes;
  double trialOffset = 0.0;
  double trialLength = 0.0;  // <= 0: the annotations' durations
  BackendChoice backend = BackendChoice::Auto;
  int threads = 0;
};

// The preset (default bci2000), then every option given over it (declared once in
// burgArParamTable(), with the --window/--step suffixes and --bins as shorthands). Checks what can
// be checked without the sample rate; validateBurgArParams runs once the recording is open.
ArRequest readRequest(const ParsedArgs& args) {
  ArRequest q;
  q.presetName = args.value("preset").value_or("bci2000");
  BurgArParams& p = q.params;
  p = burgArPreset(q.presetName);
  ParsedArgs given = args;
  const std::optional<ArLengthUnit> windowUnit = splitLength(args, "window", given);
  const std::optional<ArLengthUnit> stepUnit = splitLength(args, "step", given);
  splitBins(args, given);
  applyParamOptions(given, burgArParamTable(), p);
  if (windowUnit) p.window.unit = *windowUnit;
  if (stepUnit) p.step.unit = *stepUnit;
  burgArParamTable().validate(p);
  if (auto v = args.value("spatial")) {
    q.spatial = trim(*v);
    if (isSpatialKeyword(toLower(q.spatial))) q.spatial = toLower(q.spatial);
  }
  if (auto v = args.value("laplacian-weights")) {
    const std::string w = toLower(trim(*v));
    if (w == "equal")
      q.weighting = LaplacianWeighting::Equal;
    else if (w == "inverse-distance")
      q.weighting = LaplacianWeighting::InverseDistance;
    else
      throw InvalidParameterError("--laplacian-weights", "'" + *v + "'",
                                  "equal or inverse-distance");
  }
  if (auto v = args.value("classes")) {
    const std::vector<std::string> c = split(*v, ',');
    if (c.size() != 2 || trim(c[0]).empty() || trim(c[1]).empty()) {
      throw InvalidParameterError("--classes", "'" + *v + "'",
                                  "two annotation texts separated by a comma, e.g. T1,T2");
    }
    q.classes = std::make_pair(trim(c[0]), trim(c[1]));
    if (q.classes->first == q.classes->second) {
      throw InvalidParameterError("--classes", "'" + *v + "'", "two different classes");
    }
    if (p.output == ArOutput::Coefficients) {
      throw InvalidParameterError(
          "--values", "coefficients with --classes",
          "power or amplitude: r^2 compares band features, and coefficients have no bins",
          "Drop --values coefficients, or compute the coefficients in a separate run");
    }
  }
  if (auto v = args.value("trial-offset")) q.trialOffset = parseNumber("--trial-offset", *v);
  if (auto v = args.value("trial-length"))
    q.trialLength = parseSeconds("--trial-length", *v, false);
  if ((args.has("trial-offset") || args.has("trial-length")) && !q.classes) {
    throw UsageError("--trial-offset and --trial-length apply to --classes; give --classes A,B");
  }
  q.backend = readBackendChoice(args);
  q.threads = readThreads(args);
  return q;
}

// The filter over the selection, inputs bound to recording channels; nullopt for none.
std::optional<SpatialFilter> buildSpatialFilter(const Recording& rec,
                                                const std::vector<std::size_t>& channels,
                                                const ArRequest& q, std::string* spec) {
  const std::string weights =
      q.weighting == LaplacianWeighting::Equal ? "equal weights" : "inverse-distance weights";
  if (q.spatial == "none") return std::nullopt;
  if (q.spatial == "car") {
    *spec = "car";
    return commonAverageReference(rec.channels, channels);
  }
  if (q.spatial == "small-laplacian" || q.spatial == "large-laplacian") {
    *spec = q.spatial + ", " + weights;
    return surfaceLaplacian(
        rec.channels, channels,
        q.spatial == "small-laplacian" ? LaplacianSize::Small : LaplacianSize::Large, q.weighting);
  }
  SpatialFilter f = loadSpatialFilter(q.spatial);
  bindSpatialFilter(f, rec.channels, channels);
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < f.inputChannels.size(); ++i) {
    if (std::find(channels.begin(), channels.end(), f.inputChannels[i]) == channels.end())
      missing.push_back(rec.channels[f.inputChannels[i]].name);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw InvalidParameterError("--spatial", "inputs " + list + " outside the selection",
                                "every input of the filter among the selected channels",
                                "Add them to --channels or leave --channels out");
  }
  *spec = "file " + q.spatial;
  return f;
}

// The recording as the event comparison sees it: with a time range, only the annotations whose
// trial segment lies inside it (the rest are counted in a diagnostic). `index` maps the view's
// annotations back to the recording's.
Recording eventView(const Recording& rec, const SelectionArgs& sel, const ArRequest& q,
                    std::vector<std::size_t>& index, Diagnostics& diagnostics) {
  Recording view = rec;
  index.clear();
  if (!sel.any() || (sel.start == 0.0 && sel.duration < 0)) {
    for (std::size_t i = 0; i < rec.annotations.size(); ++i) index.push_back(i);
    return view;
  }
  const double begin = sel.start;
  const double end =
      sel.duration < 0 ? std::numeric_limits<double>::infinity() : sel.start + sel.duration;
  view.annotations.clear();
  std::size_t outside = 0;
  for (std::size_t i = 0; i < rec.annotations.size(); ++i) {
    const Annotation& a = rec.annotations[i];
    const bool isClass = a.text == q.classes->first || a.text == q.classes->second;
    const double t0 = a.onset + q.trialOffset;
    const double t1 = t0 + (q.trialLength > 0 ? q.trialLength : a.duration);
    // 1e-9 s: onsets and durations in files are decimal and need not land on a float exactly.
    if (t0 >= begin - 1e-9 && t1 <= end + 1e-9) {
      view.annotations.push_back(a);
      index.push_back(i);
    } else if (isClass) {
      ++outside;
    }
  }
  if (outside > 0) {
    addDiagnostic(diagnostics, Severity::Info, "events.trialOutsideRange",
                  std::to_string(outside) + " trial(s) of " + q.classes->first + "/" +
                      q.classes->second + " lie outside the time range " + formatNumber(begin) +
                      "-" + (std::isfinite(end) ? formatNumber(end) : std::string("end")) +
                      " s and were left out");
  }
  return view;
}

std::vector<std::pair<std::string, std::string>> provenanceParameters(const ArFile& f,
                                                                      const ArRequest& q) {
  const ArSpectrumResult& s = f.spectra;
  const BurgArParams& p = s.params;
  std::vector<std::pair<std::string, std::string>> v;
  if (!q.presetName.empty()) v.emplace_back("preset", q.presetName);
  for (auto& entry : burgArParamTable().describe(p)) v.push_back(std::move(entry));
  v.emplace_back("ran.window",
                 std::to_string(s.windowSamples) + " samples (" +
                     formatNumber(static_cast<double>(s.windowSamples) / s.sampleRate) + " s)");
  v.emplace_back("ran.step", std::to_string(s.stepSamples) + " samples (" +
                                 formatNumber(static_cast<double>(s.stepSamples) / s.sampleRate) +
                                 " s)");
  v.emplace_back("spatial_filter", f.spatialFilter ? f.spatialFilterSpec : std::string("none"));
  if (f.events) {
    v.emplace_back("classes", f.events->classA + " vs " + f.events->classB);
    v.emplace_back("trial_offset", formatNumber(f.trialOffsetSeconds) + " s");
    v.emplace_back("trial_length", f.trialLengthSeconds > 0
                                       ? formatNumber(f.trialLengthSeconds) + " s"
                                       : std::string("the annotations' durations"));
  }
  return v;
}

std::string commandLine(const Args& argv) {
  std::string s = std::string(kProgram) + " ar";
  for (const auto& a : argv) s += " " + a;
  return s;
}

struct BestFeature {
  std::size_t row = 0, bin = 0;
  double r2 = -1.0, signedR2 = 0.0;
};

BestFeature bestFeature(const EventR2Result& e) {
  BestFeature b;
  for (std::size_t r = 0; r < e.channelCount(); ++r)
    for (std::size_t k = 0; k < e.binCount(); ++k)
      if (e.r2[e.index(r, k)] > b.r2) b = {r, k, e.r2[e.index(r, k)], e.signedR2[e.index(r, k)]};
  return b;
}

void printJson(const ArFile& f, const std::string& input, const std::string& output,
               const std::string& backendChoice, const std::string& backend, bool onGpu,
               const std::string& note, double seconds) {
  const ArSpectrumResult& s = f.spectra;
  JsonWriter w;
  w.beginObject();
  w.field("input", input);
  w.field("output", output);
  w.field("preset", f.presetName);
  w.key("backend").beginObject();
  w.field("choice", backendChoice);
  w.field("kind", onGpu ? "cuda" : "cpu");
  w.field("description", backend);
  if (note.empty())
    w.nullField("note");
  else
    w.field("note", note);
  w.endObject();
  w.key("parameters").beginObject();
  for (const auto& [name, value] : f.provenance.parameters) w.field(name, value);
  w.endObject();
  w.field("sample_rate", s.sampleRate);
  w.field("window_samples", s.windowSamples);
  w.field("step_samples", s.stepSamples);
  w.field("rows", static_cast<int64_t>(s.channelCount()));
  w.field("windows", static_cast<int64_t>(s.windowCount()));
  w.field("values_per_window", static_cast<int64_t>(s.valuesPerWindow()));
  w.field("units", arValueUnit(s.params.output, f.signalUnit));
  w.field("seconds", seconds);
  if (f.events) {
    const EventR2Result& e = *f.events;
    const BestFeature b = bestFeature(e);
    w.key("events").beginObject();
    w.field("class_a", e.classA);
    w.field("class_b", e.classB);
    w.field("trials_a", static_cast<int64_t>(e.trialsA));
    w.field("trials_b", static_cast<int64_t>(e.trialsB));
    w.field("best_row", e.rowNames[b.row]);
    w.field("best_bin_hz", e.binCenters[b.bin]);
    w.field("best_r2", b.r2);
    w.field("best_signed_r2", b.signedR2);
    w.endObject();
  } else {
    w.nullField("events");
  }
  writeDiagnosticsJson(w, f.diagnostics);
  w.endObject();
  printJsonLine(w);
}

void printText(const ArFile& f, const std::string& output, const std::string& backend,
               double seconds) {
  const ArSpectrumResult& s = f.spectra;
  std::printf(
      "Burg AR (order %d) of %zu %s x %zu windows of %lld samples: %zu %s per window "
      "(%s%s) on %s: %s; wrote %s\n",
      s.params.order, s.channelCount(), f.spatialFilter ? "filter outputs" : "channels",
      s.windowCount(), static_cast<long long>(s.windowSamples), s.valuesPerWindow(),
      s.params.output == ArOutput::Coefficients ? "coefficients" : "bins",
      arOutputName(s.params.output),
      s.params.output == ArOutput::Coefficients
          ? ""
          : (", " + arValueUnit(s.params.output, f.signalUnit)).c_str(),
      backend.c_str(), formatSeconds(seconds).c_str(), output.c_str());
  if (f.events) {
    const EventR2Result& e = *f.events;
    const BestFeature b = bestFeature(e);
    std::printf("r^2 %s (%zu trials) vs %s (%zu trials): largest r^2 = %.3f (%s) at %s, %s Hz\n",
                e.classA.c_str(), e.trialsA, e.classB.c_str(), e.trialsB, b.r2,
                b.signedR2 >= 0 ? (e.classA + " higher").c_str() : (e.classB + " higher").c_str(),
                e.rowNames[b.row].c_str(), formatNumber(e.binCenters[b.bin]).c_str());
  }
}

// The engine names rows of a block "channel N" (N: the block's channel entry, a recording index
// or a filter output index); the user knows them by name. Rewrites each "channel N:" whose N is
// one of `rows` into that row's name.
std::string nameRows(const std::string& message, const std::vector<std::size_t>& rows,
                     const std::vector<std::string>& names) {
  std::string out;
  std::size_t i = 0;
  const std::string key = "channel ";
  while (i < message.size()) {
    const std::size_t at = message.find(key, i);
    if (at == std::string::npos) break;
    std::size_t j = at + key.size();
    while (j < message.size() && std::isdigit(static_cast<unsigned char>(message[j]))) ++j;
    out += message.substr(i, at - i);
    const std::size_t digits = j - at - key.size();
    const auto it = digits > 0 && digits <= 18 && j < message.size() && message[j] == ':'
                        ? std::find(rows.begin(), rows.end(),
                                    std::stoull(message.substr(at + key.size(), digits)))
                        : rows.end();
    if (it != rows.end()) {
      out += names[static_cast<std::size_t>(it - rows.begin())];
    } else {
      out += message.substr(at, j - at);
    }
    i = j;
  }
  return out + message.substr(std::min(i, message.size()));
}

// Warnings on stderr: the first few of each code, then a count (a flat channel gives one per
// trial; all of them are in the file's /diagnostics).
void showWarnings(const Diagnostics& diagnostics, ProgressDisplay& display) {
  constexpr int kPerCode = 4;
  std::vector<std::pair<std::string, int>> seen;
  for (const Diagnostic& d : diagnostics) {
    if (d.severity != Severity::Warning) continue;
    auto it =
        std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == d.code; });
    if (it == seen.end()) {
      seen.emplace_back(d.code, 0);
      it = seen.end() - 1;
    }
    if (++it->second <= kPerCode)
      display.message(std::string(kProgram) + ": warning: " + d.message);
  }
  for (const auto& [code, n] : seen) {
    if (n > kPerCode) {
      display.message(std::string(kProgram) + ": warning: " + std::to_string(n - kPerCode) +
                      " more '" + code + "' warning(s) in the output's /diagnostics");
    }
  }
}

}  // namespace

CommandSpec arSpec() {
  CommandSpec s;
  s.name = "ar";
  s.usage = "IN -o OUT.h5 [--preset NAME] [AR parameters] [--spatial F] [--classes A,B] [options]";
  s.brief = "Burg AR spectra (BCI features) and event r^2 maps to HDF5";
  s.summary =
      "Estimate Burg (maximum entropy) AR spectra of the selected channels over sliding "
      "windows, optionally after a spatial filter, and with --classes the channel x "
      "frequency r^2 map between two event classes; write everything to HDF5.";
  s.description =
      "The parameters start from --preset (default bci2000; presets: " + presetList() +
      ") and every option given overrides the preset's value. Lengths (--window, --step) are "
      "seconds (0.5 or 0.5s), milliseconds (250ms) or samples (80samples); seconds are rounded "
      "to the nearest sample. The model order is limited to " +
      std::to_string(kArMaxOrder) +
      " (this implementation's limit) and the window must hold at least order + 1 samples."
      "\n\nWith --classes A,B the trials are the annotations whose text is exactly A or B (T1,T2 "
      "on the PhysioNet motor task); each trial's segment starts at onset + --trial-offset and "
      "lasts --trial-length (default: the annotation's own duration). A trial's feature is its "
      "bin value averaged over the windows inside it; r^2 is the squared point-biserial "
      "correlation between feature and class per row x bin. With --start/--duration, only the "
      "trials inside the range are used."
      "\n\nThe output is an HDF5 file (schema modescope-ar/1, docs/ar.md \"HDF5 file\"): the "
      "spectra (rows x windows x bins), the prediction error power, bin centres, window times, "
      "the spatial filter matrix, the r^2, signed r^2 and per-class mean maps, every trial's "
      "onset and features, diagnostics and provenance. Without --channels, every channel except "
      "trigger/status channels is used, restricted to the sample rate most channels share.";
  s.options = {
      outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
      {"preset", 0, "NAME", "Start from a named parameter set: " + presetList() + "."},
      {"bins", 0, "FIRST:LAST:WIDTH",
       "Shorthand for --first-bin, --last-bin and --bin-width in Hz (bci2000: 0:30:3, "
       "wilson2009: 1:29:2)."},
      {"spatial", 0, "FILTER",
       "Spatial filter before the spectra: none (default), car (common average reference), "
       "small-laplacian, large-laplacian (neighbours from the montage positions), or a matrix "
       "file (docs/spatial-filters.md; write ./car for a file literally named car)."},
      {"laplacian-weights", 0, "equal|inverse-distance",
       "Neighbour weights of a Laplacian (default equal, Hjorth)."},
      {"classes", 0, "A,B", "Compare two annotation classes (e.g. T1,T2): r^2 per row x bin."},
      {"trial-offset", 0, "SECONDS",
       "Trial start relative to the annotation onset (default 0; "
       "may be negative)."},
      {"trial-length", 0, "SECONDS", "Trial length (default: each annotation's duration)."},
      channelsOption(),
      startOption(),
      durationOption(),
      {"threads", 0, "N", "CPU threads (default: all cores)."},
      backendOption(),
      jsonOption("a summary (sizes, backend, parameters, the largest r^2)"),
      quietOption(),
      helpOption()};
  // The method's parameters come from their declarations (burgArParamTable()), defaults
  // bci2000's; a length also takes a unit after its number.
  std::vector<OptionSpec> params = paramOptions(burgArParamTable(), burgArPreset("bci2000"));
  for (OptionSpec& o : params) {
    if (o.name != "window" && o.name != "step") continue;
    o.valueName = "LENGTH";
    o.help += " LENGTH is seconds (0.5 or 0.5s), milliseconds (250ms) or samples (80samples).";
  }
  s.options.insert(s.options.begin() + 2, params.begin(), params.end());
  s.examples =
      "  modescope-cli ar S001R03.edf -o ar.h5 --classes T1,T2 --spatial car\n"
      "  modescope-cli ar rec.edf -o ar.h5 --preset wilson2009 --channels C3,C4,Cz --detrend "
      "linear\n"
      "  modescope-cli ar rec.edf -o ar.h5 --order 20 --window 128samples --step 16samples "
      "--bins 2:40:2 --values amplitude\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runAr(const Args& argv) {
  const MethodArgs m = readMethodArgs(arSpec(), argv);
  const ParsedArgs& args = m.args;
  const std::string& input = m.input;
  const std::string& output = m.output;
  const SelectionArgs& sel = m.selection;

  // Every parameter that does not need the sample rate is checked before the recording is read.
  ArRequest q;
  try {
    q = readRequest(args);
  } catch (const InvalidParameterError& e) {
    restateWithOption(e, args);
  }
  if (!isSpatialKeyword(q.spatial) && !std::filesystem::is_regular_file(q.spatial)) {
    throw InvalidParameterError("--spatial", "'" + q.spatial + "'",
                                std::string(kSpatialKeywords) + " or an existing matrix file",
                                "Check the spelling or the file's path");
  }
  requireHdf5Output(output, "The spectra and r^2 maps are written to HDF5");
  checkOutputPath(output, input);

  ArFile file;
  std::string backendText, note;
  bool onGpu = false;
  double seconds = 0.0;
  ProgressDisplay display(ProgressDisplay::modeFor(m.quiet), "ar");
  const auto runArJob = [&](JobContext& ctx) -> void {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> channels;
    const std::shared_ptr<const Recording> rec =
        openMethodInput(input, sel, ctx, display, channels);
    const double fs = checkSelection(*rec, Selection{channels, sel.start, sel.duration}).sampleRate;
    validateBurgArParams(q.params, fs);

    std::unique_ptr<ComputeBackend> backend = chooseBackend(q.backend, &note, q.threads);
    backendText = backend->info().describe();
    onGpu = backend->info().kind == BackendKind::Cuda;

    std::optional<SpatialFilter> filter =
        buildSpatialFilter(*rec, channels, q, &file.spatialFilterSpec);

    ctx.progress(0.02, "reading the selection");
    const SignalBlock block = extractBlock(*rec, channels, sel.start, sel.duration);
    ctx.checkpoint();
    JobContext spectraCtx = ctx.sub(0.05, q.classes ? 0.45 : 0.95);
    file.spectra =
        backend->filteredArSpectra(filter ? &*filter : nullptr, block, q.params, spectraCtx);
    file.inputFile = input;
    file.presetName = q.presetName;
    file.channels = icaFileChannels(*rec, channels);
    file.signalUnit = rec->channels[channels.front()].unit;
    if (filter) {
      file.rowNames = filter->outputNames;
    } else {
      for (std::size_t c : channels) file.rowNames.push_back(rec->channels[c].name);
    }
    for (const Diagnostic& d : file.spectra.diagnostics)
      addDiagnostic(file.diagnostics, d.severity, d.code,
                    nameRows(d.message, file.spectra.channels, file.rowNames));

    if (q.classes) {
      std::vector<std::size_t> annotationIndex;
      const Recording view = eventView(*rec, sel, q, annotationIndex, file.diagnostics);
      EventFeatureOptions options;
      options.offsetSeconds = q.trialOffset;
      options.lengthSeconds = q.trialLength;
      if (filter) options.spatialFilter = std::make_shared<const SpatialFilter>(*filter);
      JobContext eventCtx = ctx.sub(0.45, 0.95);
      EventR2Result e = computeEventR2(view, channels, q.classes->first, q.classes->second,
                                       q.params, options, *backend, eventCtx);
      for (ClassFeatures* c : {&e.featuresA, &e.featuresB})
        for (TrialSegment& t : c->trials) t.annotationIndex = annotationIndex[t.annotationIndex];
      for (const Diagnostic& d : e.diagnostics)
        addDiagnostic(file.diagnostics, d.severity, d.code,
                      nameRows(d.message, file.spectra.channels, file.rowNames));
      file.events = std::move(e);
      file.trialOffsetSeconds = q.trialOffset;
      file.trialLengthSeconds = q.trialLength;
    }
    file.spatialFilter = std::move(filter);
    showWarnings(file.diagnostics, display);

    Provenance& prov = file.provenance;
    prov.method = "ar";
    prov.parameters = provenanceParameters(file, q);
    prov.parameters.emplace_back("command_line", commandLine(argv));
    prov.backend = backendText;
    prov.softwareVersion = softwareVersion();
    prov.inputFile = input;
    prov.selection = describeSelection(*rec, channels, sel.start, sel.duration);
    prov.createdAt = utcNowIso8601();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    prov.wallSeconds = seconds;
    JobContext writeCtx = ctx.sub(0.95, 1.0);
    writeArFile(output, file, writeCtx);
    return;
  };
  const JobOutcome outcome = runCliJob(
      "ar " + input,
      [&](JobContext& ctx) -> void {
        try {
          return runArJob(ctx);
        } catch (const InvalidParameterError& e) {
          restateWithOption(e, args);
        }
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (m.json) {
    printJson(file, input, output, args.value("backend").value_or("auto"), backendText, onGpu, note,
              seconds);
  } else if (!m.quiet) {
    printText(file, output, backendText, seconds);
  }
  if (!note.empty() && !m.quiet && !m.json) printNote(note);
  return 0;
}

}  // namespace modescope::cli
