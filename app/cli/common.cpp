#include "app/cli/common.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "app/core/channel_selection.h"
#include "app/core/json_writer.h"
#include "app/core/time_range_note.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

namespace fs = std::filesystem;

MethodArgs readMethodArgs(const CommandSpec& spec, const std::vector<std::string>& argv) {
  MethodArgs m;
  m.args = parseArgs(spec, argv);
  m.input = m.args.positionals.front();
  m.output = readOutputPath(m.args, spec);
  m.selection = readSelection(m.args);
  m.quiet = m.args.has("quiet");
  m.json = m.args.has("json");
  return m;
}

void requireHdf5Output(const std::string& output, const std::string& remedy) {
  if (outputFormatForPath(output) != OutputFormat::Hdf5) {
    throw InvalidParameterError("--output", "'" + output + "'", "a name ending in .h5 or .hdf5",
                                remedy);
  }
}

std::shared_ptr<const Recording> openMethodInput(const std::string& input, const SelectionArgs& sel,
                                                 JobContext& ctx, ProgressDisplay& display,
                                                 std::vector<std::size_t>& channels) {
  ctx.progress(0.0, "reading " + input);
  std::shared_ptr<const Recording> rec = openRecording(input);
  ctx.checkpoint();
  printDiagnostics(*rec, display);
  std::string note;
  channels = resolveChannels(*rec, sel, defaultMethodChannels(*rec, &note));
  if (!sel.channels && !note.empty()) display.message(std::string(kProgram) + ": " + note);
  noteTruncatedRange(*rec, sel, display);
  return rec;
}

void noteTruncatedRange(const Recording& rec, const SelectionArgs& sel, ProgressDisplay& display) {
  const std::string truncated = truncatedRangeNote(rec, sel.start, sel.duration);
  if (!truncated.empty()) display.message(std::string(kProgram) + ": " + truncated);
}

void printError(std::string_view message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %.*s\n", kProgram, static_cast<int>(message.size()),
               message.data());
}

void printWarning(std::string_view message) {
  std::fprintf(stderr, "%s: warning: %.*s\n", kProgram, static_cast<int>(message.size()),
               message.data());
}

void printNote(std::string_view message) {
  std::fprintf(stderr, "%s: %.*s\n", kProgram, static_cast<int>(message.size()), message.data());
}

OptionSpec helpOption() { return {"help", 'h', "", "Show this help and exit."}; }
OptionSpec quietOption() {
  return {"quiet", 'q', "", "No progress and no notes on stderr; errors are still printed."};
}
OptionSpec jsonOption(const std::string& what) {
  return {"json", 0, "", "Print " + what + " as JSON on stdout (structure in docs/cli.md)."};
}
OptionSpec outputOption(const std::string& what, bool required) {
  return {"output", 'o', "OUT",
          what +
              " File type from the extension: .h5/.hdf5 (HDF5, ModeScope schema), .edf "
              "(EDF+), .bdf (BDF+)." +
              (required ? " Required." : "")};
}
OptionSpec channelsOption() {
  return {"channels", 0, "LIST",
          "Channels to use: names or labels and 1-based indices or ranges, comma-separated "
          "(C3,C4,Cz or 1-8,10). Default: all."};
}
OptionSpec startOption() {
  return {"start", 0, "SECONDS",
          "Start of the time range, seconds from the recording start "
          "(default 0)."};
}
OptionSpec durationOption() {
  return {"duration", 0, "SECONDS", "Length of the time range in seconds (default: to the end)."};
}
OptionSpec backendOption() {
  return {"backend", 0, "auto|cpu|cuda",
          "Where to compute: auto (the GPU when one is usable, else the CPU), cpu, or cuda (fail "
          "with exit code 3 when there is no usable GPU). Default auto."};
}

SelectionArgs readSelection(const ParsedArgs& args) {
  SelectionArgs sel;
  sel.channels = args.value("channels");
  if (auto s = args.value("start")) sel.start = parseSeconds("--start", *s, true);
  if (auto d = args.value("duration")) sel.duration = parseSeconds("--duration", *d, false);
  return sel;
}

std::vector<std::size_t> allChannels(const Recording& rec) {
  std::vector<std::size_t> all(rec.channelCount());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

std::vector<std::size_t> resolveChannels(const Recording& rec, const SelectionArgs& sel,
                                         std::vector<std::size_t> fallback) {
  if (sel.channels) return parseChannelSelection(rec, *sel.channels);
  return fallback;
}

BackendChoice readBackendChoice(const ParsedArgs& args) {
  auto b = args.value("backend");
  return b ? parseBackendChoice(*b) : BackendChoice::Auto;
}

int readThreads(const ParsedArgs& args) {
  const auto v = args.value("threads");
  return v ? static_cast<int>(parseInteger("--threads", *v, 1, 1024)) : 0;
}

std::string readOutputPath(const ParsedArgs& args, const CommandSpec& spec) {
  auto out = args.value("output");
  if (!out || out->empty()) {
    throw UsageError("'" + spec.name + "' needs an output file: -o OUT (usage: " + spec.name + " " +
                     spec.usage + ")");
  }
  return *out;
}

void checkOutputPath(const std::string& output, const std::string& input) {
  outputFormatForPath(output);  // the extension first: a usage mistake, exit 1
  const fs::path out(output);
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    throw OutputError(output,
                      "this is a folder; give a file name such as " + (out / "result.h5").string());
  }
  fs::path dir = out.parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    throw OutputError(output, "'" + dir.string() +
                                  (fs::exists(dir, ec) ? "' is not a folder" : "' does not exist") +
                                  "; create the folder first or choose another path");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(output, "no permission to create files in '" + dir.string() +
                                  "'; choose a folder you can write to");
  }
  if (!input.empty() && fs::exists(out, ec) && fs::equivalent(out, fs::path(input), ec)) {
    throw InvalidParameterError("--output", "'" + output + "'", "a file other than the input",
                                "Write the result under a new name");
  }
}

void printDiagnostics(const Recording& rec, ProgressDisplay& display) {
  // Only warnings: informational notes (where an HDF5 file came from, cosmetic header findings)
  // are for `info`, and would clutter every conversion.
  for (const auto& d : rec.diagnostics) {
    if (d.severity == Severity::Warning) {
      display.message(std::string(kProgram) + ": warning: " + d.message);
    }
  }
}

std::string formatSeconds(double s) {
  char buf[32];
  if (s < 1.0)
    std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

void writeDiagnosticsJson(JsonWriter& w, const Diagnostics& diagnostics) {
  w.key("diagnostics").beginArray();
  for (const Diagnostic& d : diagnostics) {
    w.beginObject();
    w.field("severity", severityName(d.severity));
    w.field("code", d.code);
    w.field("message", d.message);
    w.endObject();
  }
  w.endArray();
}

void printJsonLine(const JsonWriter& w) {
  std::fputs(w.str().c_str(), stdout);
  std::fputs("\n", stdout);
}

}  // namespace modescope::cli
