// The IMF cleaning options that `emd` and `memd` share (--drop-imfs LIST --cleaned OUT), and the
// comma-list splitter they both read lists with.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "app/cli/progress.h"
#include "app/core/imf_reconstruction.h"
#include "engine/io/recording_io.h"

namespace modescope::cli {

// "a, b ,c" -> {"a", "b", "c"} (items trimmed; empty items kept).
std::vector<std::string> splitList(const std::string& text);

// --drop-imfs and --cleaned, with their help.
std::vector<OptionSpec> imfCleaningOptions();

// The cleaning asked for, or nothing. UsageError when only one of the two options is given;
// InvalidParameterError for a bad IMF number or one given twice.
std::optional<EmdCleaning> readImfCleaning(const ParsedArgs& args);

// InvalidParameterError when an IMF to drop exceeds a fixed --max-imfs (0 = automatic: no check).
void checkCleaningAgainstMaxImfs(const EmdCleaning& cleaning, int maxImfs);

// Where the cleaned recording goes (--cleaned), checked before anything runs: a writable path
// other than the input and the -o output, in a format its extension names.
struct CleanedOutput {
  std::string path;
  OutputFormat format = OutputFormat::Hdf5;
};
CleanedOutput checkCleanedOutput(const ParsedArgs& args, const std::string& input,
                                 const std::string& output);

// Writes the result file (writeResult(path)) and the cleaned recording as one: each under a
// temporary name, both renamed only when both are complete. `decomposition` (when not empty)
// replaces the cleaning provenance's "decomposition" entry (the method that made the modes).
// The cleaning's notes are shown on `display` and returned in `notes`.
void writeResultAndCleaned(const std::string& output, const CleanedOutput& cleaned,
                           const std::shared_ptr<const Recording>& rec, const EmdResult& modes,
                           const EmdCleaning& cleaning, const std::string& decomposition,
                           const std::function<void(const std::string&)>& writeResult,
                           ProgressDisplay& display, std::vector<std::string>& notes,
                           JobContext& ctx);

}  // namespace modescope::cli
