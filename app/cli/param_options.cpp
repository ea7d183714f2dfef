#include "app/cli/param_options.h"

namespace modescope::cli {
namespace {

std::string valueName(const ParamDecl& d) {
  switch (d.kind) {
    case ParamKind::Flag:
      return "";
    case ParamKind::Integer:
      return "N";
    case ParamKind::Real:
      return "X";
    case ParamKind::Seed:
      return "SEED";
    case ParamKind::Choice: {
      std::string s;
      for (const ParamChoice& c : d.choices) s += (s.empty() ? "" : "|") + c.name;
      return s;
    }
  }
  return "VALUE";
}

std::string sentence(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

OptionSpec paramOption(const ParamDecl& d, const std::string& defaultText) {
  std::string help = d.label + ": " + d.help + ".";
  if (d.kind != ParamKind::Flag) help += " " + sentence(expectedText(d)) + ".";
  if (!d.appliesTo.empty()) help += " " + sentence(d.appliesTo) + ".";
  help += " Default " + defaultText + ".";
  return {d.cli, 0, valueName(d), help};
}

OptionSpec negatedFlagOption(const ParamDecl& d) {
  return {"no-" + d.cli, 0, "", "Turn --" + d.cli + " off."};
}

std::optional<ParamValue> paramArgument(const ParsedArgs& args, const ParamDecl& d) {
  if (d.kind == ParamKind::Flag) {
    const bool on = args.has(d.cli), off = args.has("no-" + d.cli);
    if (on && off) {
      throw UsageError("--" + d.cli + " and --no-" + d.cli + " contradict each other; give one");
    }
    if (on) return ParamValue(true);
    if (off) return ParamValue(false);
    return std::nullopt;
  }
  const auto text = args.value(d.cli);
  if (!text) return std::nullopt;
  return parseValue(d, *text, "--" + d.cli);
}

}  // namespace modescope::cli
