// CLI options produced from a method's parameter declarations (engine/method/param_table.h):
// each declared field with a CLI name becomes `--NAME VALUE` (`--NAME` / `--no-NAME` for a
// flag), its help says the range, unit, default and the variants it applies to, and a value is
// read with the same parser and range check the engine and pipeline files use, so the command
// line accepts and refuses exactly what the engine does.
#pragma once

#include <string>
#include <vector>

#include "app/cli/args.h"
#include "engine/method/param_table.h"

namespace modescope::cli {

// The option for one declared field; `defaultText` is the default shown in the help.
OptionSpec paramOption(const ParamDecl& d, const std::string& defaultText);
// The value-less `--no-NAME` partner of a flag field.
OptionSpec negatedFlagOption(const ParamDecl& d);

// One option per field with a CLI name, defaults taken from `defaults`, in declaration order.
template <class P>
std::vector<OptionSpec> paramOptions(const ParamTable<P>& table, const P& defaults) {
  std::vector<OptionSpec> out;
  for (const auto& f : table.fields()) {
    if (f.decl.cli.empty()) continue;
    out.push_back(paramOption(f.decl, describeValue(f.decl, f.get(defaults))));
    if (f.decl.kind == ParamKind::Flag) out.push_back(negatedFlagOption(f.decl));
  }
  return out;
}

// The value given for a field on the command line, or nothing: --NAME VALUE, or for a flag
// --NAME / --no-NAME (both at once is a UsageError). Values are parsed and range-checked with
// errors naming "--NAME".
std::optional<ParamValue> paramArgument(const ParsedArgs& args, const ParamDecl& d);

// Every given option written over `p` (the preset or the defaults), in declaration order.
template <class P>
void applyParamOptions(const ParsedArgs& args, const ParamTable<P>& table, P& p) {
  for (const auto& f : table.fields()) {
    if (f.decl.cli.empty()) continue;
    if (auto v = paramArgument(args, f.decl)) f.set(p, *v);
  }
}

// table.validate(p) with errors that name a declared field named by its option ("--fmin", not
// "fMin"), so a rule between fields speaks the command line's language.
template <class P>
void validateAsOptions(const ParamTable<P>& table, const P& p) {
  try {
    table.validate(p);
  } catch (const InvalidParameterError& e) {
    const ParamField<P>* f = table.find(e.parameter());
    if (!f || f->decl.cli.empty()) throw;
    throw InvalidParameterError("--" + f->decl.cli, e.found(), e.expected(), e.remedy());
  }
}

}  // namespace modescope::cli
