// Command-line parsing for modescope-cli: one CommandSpec per subcommand describes its options,
// and the same spec produces the help text, so help and parser never disagree.
//
// Accepted spellings: `--name value`, `--name=value`, `-o value`, `-ovalue`, flags `--json`, `-q`,
// and `--` to end options (everything after it is positional). A value-taking option consumes
// the next argument even when it starts with '-' (`--start -1` reaches the range check).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace modescope::cli {

inline constexpr const char* kProgram = "modescope-cli";

// Wrong command line (unknown option, missing argument): exit code 1, and the usage is shown.
class UsageError : public Error {
 public:
  using Error::Error;
  int exitCode() const noexcept override { return 1; }
};

struct OptionSpec {
  std::string name;       // long name without dashes: "channels"
  char shortName = 0;     // 'o' for -o; 0 for none
  std::string valueName;  // "" for a flag, else what the value is: "LIST", "SECONDS"
  std::string help;       // one or more sentences; wrapped in the help text
  bool repeatable = false;
};

struct CommandSpec {
  std::string name;         // "convert"
  std::string usage;        // after the program and command name: "IN -o OUT [options]"
  std::string brief;        // a few words for the main help's command list
  std::string summary;      // one or two sentences at the top of the command's help
  std::string description;  // paragraphs for the command's help
  std::vector<OptionSpec> options;
  std::string examples;                                // lines, shown verbatim
  std::size_t minPositionals = 0, maxPositionals = 0;  // maxPositionals 0 = no limit
};

class ParsedArgs {
 public:
  std::vector<std::string> positionals;

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;  // repeatable options, in order
  void add(const std::string& name, std::string value) {
    values_[name].push_back(std::move(value));
  }

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

// Throws UsageError for unknown options, missing values, repeated single options and a wrong
// number of positional arguments. Does not handle --help (see wantsHelp).
ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args);

// True if -h/--help appears before any "--".
bool wantsHelp(const std::vector<std::string>& args);

std::string formatCommandHelp(const CommandSpec& spec);
// Word-wraps text to `width` columns; every line ends in '\n'.
std::string wrapText(const std::string& text, std::size_t width);
// "Usage: modescope-cli convert IN -o OUT [options]\nRun 'modescope-cli convert --help' ...".
std::string formatUsageHint(const CommandSpec& spec);

// Value parsers; they throw InvalidParameterError naming "--option" (exit code 1).
double parseNumber(const std::string& option, const std::string& text);
double parseSeconds(const std::string& option, const std::string& text, bool allowZero);
int64_t parseInteger(const std::string& option, const std::string& text, int64_t min, int64_t max);
uint64_t parseUnsigned(const std::string& option, const std::string& text);

}  // namespace modescope::cli
