// Pieces every modescope-cli subcommand shares: messages, the common options (spelled the same
// everywhere, docs/cli.md "Common options"), selections and output checks.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/args.h"
#include "app/cli/progress.h"
#include "engine/compute/backend.h"
#include "engine/core/diagnostics.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {
class JsonWriter;
}

namespace modescope::cli {

// "modescope-cli: error: <message>" on stderr.
void printError(std::string_view message);
// "modescope-cli: warning: <message>" on stderr.
void printWarning(std::string_view message);
// "modescope-cli: <message>" on stderr (notes, not results).
void printNote(std::string_view message);

// The common options.
OptionSpec helpOption();
OptionSpec quietOption();
OptionSpec jsonOption(const std::string& what);
OptionSpec outputOption(const std::string& what, bool required);
OptionSpec channelsOption();
OptionSpec startOption();
OptionSpec durationOption();
OptionSpec backendOption();

// --channels/--start/--duration as given (not yet checked against a recording).
struct SelectionArgs {
  std::optional<std::string> channels;
  double start = 0.0;
  double duration = -1.0;  // < 0: to the end
  bool any() const { return channels || start != 0.0 || duration >= 0.0; }
};
SelectionArgs readSelection(const ParsedArgs& args);

// The chosen channels: --channels resolved against rec, or `fallback` when absent.
std::vector<std::size_t> resolveChannels(const Recording& rec, const SelectionArgs& sel,
                                         std::vector<std::size_t> fallback);
std::vector<std::size_t> allChannels(const Recording& rec);

BackendChoice readBackendChoice(const ParsedArgs& args);
// --threads N (1-1024); 0 when absent (all cores).
int readThreads(const ParsedArgs& args);

// The -o/--output path; UsageError when required and missing.
std::string readOutputPath(const ParsedArgs& args, const CommandSpec& spec);

// Fails before any long work when the output cannot be written: OutputError (exit 2) when its
// folder does not exist, is not writable or the path names a folder; InvalidParameterError
// (exit 1) for an unknown extension or when it is the input file itself.
void checkOutputPath(const std::string& output, const std::string& input = {});

// Prints the reader's warnings (e.g. the BioSig fallback; not its informational notes) through
// the display (nothing when it is Off, i.e. --quiet), so they do not garble a progress bar.
void printDiagnostics(const Recording& rec, ProgressDisplay& display);
// Says through the display when --start/--duration end after the recording, which is then cut to
// it (app/core/time_range_note.h: the same words as the dialogs and the provenance).
void noteTruncatedRange(const Recording& rec, const SelectionArgs& sel, ProgressDisplay& display);

// The arguments every method command (emd, ica) starts from: IN, -o, the selection, --quiet and
// --json, parsed against `spec` (UsageError on a bad command line).
struct MethodArgs {
  ParsedArgs args;
  std::string input;   // the recording (the one positional)
  std::string output;  // -o (required)
  SelectionArgs selection;
  bool quiet = false;
  bool json = false;
};
MethodArgs readMethodArgs(const CommandSpec& spec, const std::vector<std::string>& argv);

// InvalidParameterError for --output unless `output` ends in .h5/.hdf5; `remedy` says where
// the other formats come from.
void requireHdf5Output(const std::string& output, const std::string& remedy);

// A method command's first step inside its job: opens `input` (progress 0, "reading IN"),
// shows the reader's warnings, and sets `channels` to the selection, or the method's default
// channels with a note on the display when --channels was not given.
std::shared_ptr<const Recording> openMethodInput(const std::string& input, const SelectionArgs& sel,
                                                 JobContext& ctx, ProgressDisplay& display,
                                                 std::vector<std::size_t>& channels);

// The --json summaries: `"diagnostics": [{"severity", "code", "message"}, ...]` into the open
// object of `w`, and the finished text of `w` with a newline on stdout.
void writeDiagnosticsJson(JsonWriter& w, const Diagnostics& diagnostics);
void printJsonLine(const JsonWriter& w);

// "1.23 s" / "850 ms".
std::string formatSeconds(double s);

}  // namespace modescope::cli
