// One parameter of a method, declared once (docs/architecture.md, "Parameters"). The engine's
// validation, the provenance text, the CLI options with their help and errors, pipeline files and
// the dialogs' editors (widgets/param_editor.h) are all produced from these declarations, so they
// accept and refuse exactly the same values.
//
// The model is QGIS Processing's parameter definitions and 3D Slicer's CLI module descriptions: a
// name, a type, a unit, a range, a default, a help line with the paper it comes from, and the
// variants of the method it applies to. Messages follow MNE-Python's _check_option: they name the
// parameter, the value found and what is allowed.
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modescope {

enum class ParamKind {
  Flag,     // on/off
  Integer,  // int64 range
  Real,     // finite double range
  Choice,   // one of a list of names
  Seed,     // unsigned 64-bit key of a counter-based generator (any value)
};

// Flag -> bool, Integer -> int64_t, Real -> double, Choice -> std::string, Seed -> uint64_t.
using ParamValue = std::variant<bool, int64_t, double, std::string, uint64_t>;

struct ParamChoice {
  std::string name;                  // what files and the CLI write: "iceemdan"
  std::string label;                 // what a dialog shows: "ICEEMDAN"
  std::string help;                  // one line, with its source
  std::vector<std::string> aliases;  // other accepted spellings: "snumber"
};

struct ParamDecl {
  std::string key;    // field path in the engine's parameter struct: "stop.threshold1"
  std::string cli;    // long CLI option without dashes: "ensemble"; "" = not on the command line
  std::string label;  // dialog label without colon: "Ensemble size"
  ParamKind kind = ParamKind::Real;
  std::string unit;  // shown after values: "Hz", "deg", "x std(x)", "sifts"; "" = dimensionless
  // Integer and Real: the allowed interval. A bound that is absent is unbounded (Real values must
  // still be finite).
  std::optional<double> min, max;
  bool minInclusive = true, maxInclusive = true;
  // A value outside the interval that is also accepted, with its meaning: 0 = "automatic".
  std::optional<double> special;
  std::string specialText;           // "automatic"; CLI and pipelines also accept this word for it
  std::vector<ParamChoice> choices;  // Choice
  std::string help;                  // one line with the paper or reference code it comes from
  std::string appliesTo;             // "" = every variant; else the variants in words: "EEMD only"
  int decimals = 3;                  // Real: digits a dialog shows
  double step = 0.0;                 // dialog step; 0 = a sensible one from the range
  // The HDF5 attribute that stores the value in result files; "" = the key in snake case
  // (fileAttributeName). Set only where a file schema predates the declaration ("f_min_hz").
  std::string fileName;

  // Chained setters so a declaration reads as one sentence:
  //   realParam("noiseStd", "noise", "Noise std").in("x std(x)").above(0).atMost(100)
  ParamDecl& in(std::string u) {
    unit = std::move(u);
    return *this;
  }
  ParamDecl& above(double v) {
    min = v;
    minInclusive = false;
    return *this;
  }
  ParamDecl& atLeast(double v) {
    min = v;
    minInclusive = true;
    return *this;
  }
  ParamDecl& below(double v) {
    max = v;
    maxInclusive = false;
    return *this;
  }
  ParamDecl& atMost(double v) {
    max = v;
    maxInclusive = true;
    return *this;
  }
  ParamDecl& orSpecial(double v, std::string text) {
    special = v;
    specialText = std::move(text);
    return *this;
  }
  ParamDecl& because(std::string h) {
    help = std::move(h);
    return *this;
  }
  ParamDecl& onlyFor(std::string variants) {
    appliesTo = std::move(variants);
    return *this;
  }
  ParamDecl& storedAs(std::string attribute) {
    fileName = std::move(attribute);
    return *this;
  }
  ParamDecl& shown(int digits, double stepSize) {
    decimals = digits;
    step = stepSize;
    return *this;
  }
};

ParamDecl flagParam(std::string key, std::string cli, std::string label);
ParamDecl integerParam(std::string key, std::string cli, std::string label);
ParamDecl realParam(std::string key, std::string cli, std::string label);
ParamDecl seedParam(std::string key, std::string cli, std::string label);
ParamDecl choiceParam(std::string key, std::string cli, std::string label,
                      std::vector<ParamChoice> choices);

// "an integer from 1 to 1048576", "a number in (0, 0.1], or 0 (automatic)", "one of rilling,
// fixed, s-number", "on or off", "an integer from 0 to 18446744073709551615".
std::string expectedText(const ParamDecl& d);

// Whether v is a value of d's kind inside d's range (or d's special value).
bool acceptsValue(const ParamDecl& d, const ParamValue& v);

// Throws InvalidParameterError(name, value found, expectedText(d), remedy naming the default
// when known). `name` is how the caller's user knows the parameter: the key in the engine and in
// pipelines, "--ensemble" on the command line.
void checkValue(const ParamDecl& d, const ParamValue& v, const std::string& name,
                const std::optional<ParamValue>& defaultValue = std::nullopt);

// Text to value, for the CLI and pipeline files. Accepts the special word ("auto" and the
// specialText), choice names, labels and aliases (any case), yes/no/true/false/on/off/1/0 for
// flags, and plain integers (no fraction or exponent) for Integer and Seed. Then checks the range
// (checkValue). Throws InvalidParameterError naming `name`.
ParamValue parseValue(const ParamDecl& d, std::string_view text, const std::string& name);

// Value to text that parseValue reads back exactly ("0.2", "automatic", "iceemdan", "on").
std::string formatValue(const ParamDecl& d, const ParamValue& v);
// formatValue with the unit, for provenance and tooltips: "0.2 x std(x)", "2000 sifts".
std::string describeValue(const ParamDecl& d, const ParamValue& v);

// The attribute name in result files: d.fileName, else the key in snake case with '.' as '_'
// ("stop.maxSifts" -> "stop_max_sifts", "ensembleSize" -> "ensemble_size").
std::string fileAttributeName(const ParamDecl& d);
// The snake-case rule alone: "noiseStop.rule" -> "noise_stop_rule".
std::string snakeCaseKey(std::string_view key);

// The choice with this name (or alias/label, any case); nullptr when none.
const ParamChoice* findChoice(const ParamDecl& d, std::string_view text);

}  // namespace modescope
