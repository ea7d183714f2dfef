// Pieces every modescope-cli subcommand shares: messages, the common options (spelled the same
// everywhere, DESIGN.md "Command line"), selections and output checks.
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
#include "engine/core/recording.h"

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

// The -o/--output path; UsageError when required and missing.
std::string readOutputPath(const ParsedArgs& args, const CommandSpec& spec);

// Fails before any long work when the output cannot be written: OutputError (exit 2) when its
// folder does not exist, is not writable or the path names a folder; InvalidParameterError
// (exit 1) for an unknown extension or when it is the input file itself.
void checkOutputPath(const std::string& output, const std::string& input = {});

// Prints the reader's warnings (e.g. the BioSig fallback; not its informational notes) through
// the display (nothing when it is Off, i.e. --quiet), so they do not garble a progress bar.
void printDiagnostics(const Recording& rec, ProgressDisplay& display);

// "1.23 s" / "850 ms".
std::string formatSeconds(double s);

}  // namespace modescope::cli
