#include "app/core/pipeline_montage.h"

#include "app/core/json_writer.h"
#include "app/core/montage_job.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"

namespace modescope {
namespace {

using Kind = JsonValue::Kind;

[[noreturn]] void fail(const std::string& path, const std::string& where, const std::string& field,
                       const JsonValue& at, const std::string& found, const std::string& expected,
                       const std::string& help = {}) {
  std::string remedy;
  if (at.line() > 0)
    remedy =
        "At line " + std::to_string(at.line()) + ", column " + std::to_string(at.column()) + ".";
  if (!help.empty()) remedy += (remedy.empty() ? "" : " ") + help;
  throw InvalidInputError(path, where + ", field " + field, found, expected, remedy);
}

std::string found(const JsonValue& v) {
  switch (v.kind()) {
    case Kind::String:
      return "the string '" + v.asString() + "'";
    case Kind::Number:
      return "the number " + v.numberText();
    case Kind::Bool:
      return v.asBool() ? "true" : "false";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
    default:
      return "null";
  }
}

}  // namespace

PipelineMontageStep readMontageStep(const JsonValue& step, const std::string& path,
                                    const std::string& where) {
  const std::vector<std::string> known = {"step", "montage", "name", "derivations"};
  for (const auto& [name, value] : step.members()) {
    bool ok = false;
    for (const std::string& k : known) ok = ok || k == name;
    if (!ok) {
      fail(path, where, name, value, "an unknown field",
           "one of step, montage, name or derivations",
           "A montage step takes the whole recording: no channels, start, duration or backend");
    }
  }
  PipelineMontageStep s;
  const JsonValue* builtin = step.find("montage");
  const JsonValue* rows = step.find("derivations");
  const std::string builtinExpected = "a built-in montage: " + builtinMontageNames();
  if (builtin && rows) {
    fail(path, where, "montage", *builtin, "both montage and derivations",
         "one of them: a built-in montage, or the derivations with a name");
  }
  if (builtin) {
    if (builtin->kind() != Kind::String)
      fail(path, where, "montage", *builtin, found(*builtin), builtinExpected);
    bool ok = false;
    for (const BuiltinMontage& m : builtinMontages()) ok = ok || builtin->asString() == m.name;
    if (!ok) {
      fail(path, where, "montage", *builtin, found(*builtin), builtinExpected,
           "A montage file's derivations go into the field derivations");
    }
    if (const JsonValue* n = step.find("name"))
      fail(path, where, "name", *n, found(*n), "no name with a built-in montage");
    s.builtin = builtin->asString();
    return s;
  }
  if (!rows) {
    fail(path, where, "montage", step, "neither montage nor derivations",
         builtinExpected + ", or \"derivations\": [\"Fp1-F7: Fp1 - F7\", ...]");
  }
  const std::string rowsExpected =
      "an array of derivations as montage file lines ([\"Fp1-F7: Fp1 - F7\"])";
  if (rows->kind() != Kind::Array || rows->asArray().empty())
    fail(path, where, "derivations", *rows, found(*rows), rowsExpected);
  if (const JsonValue* n = step.find("name")) {
    if (n->kind() != Kind::String) fail(path, where, "name", *n, found(*n), "a string");
    s.montage.name = n->asString();
  }
  for (std::size_t j = 0; j < rows->asArray().size(); ++j) {
    const JsonValue& e = rows->asArray()[j];
    const std::string field = "derivations, item " + std::to_string(j + 1);
    if (e.kind() != Kind::String)
      fail(path, where, field, e, found(e), "a string \"LABEL: EXPRESSION\"");
    DerivationMontage one;
    try {
      one = parseMontageText(e.asString(), path);
    } catch (const InvalidInputError& err) {
      fail(path, where, field, e, err.found(),
           "a derivation \"LABEL: EXPRESSION\" as a montage file line: " + err.expected());
    }
    if (one.rows.size() != 1)
      fail(path, where, field, e, "'" + e.asString() + "'", "exactly one derivation");
    s.montage.rows.push_back(std::move(one.rows.front()));
  }
  return s;
}

DerivationMontage montageStepMontage(const PipelineMontageStep& step, const Recording& rec) {
  if (step.builtin.empty()) return step.montage;
  return builtinMontage(step.builtin, rec).value();
}

void writeMontageStep(JsonWriter& w, const PipelineMontageStep& step) {
  if (!step.builtin.empty()) {
    w.field("montage", step.builtin);
    return;
  }
  if (!step.montage.name.empty()) w.field("name", step.montage.name);
  w.key("derivations").beginArray();
  for (const Derivation& row : step.montage.rows) w.value(formatDerivation(row));
  w.endArray();
}

}  // namespace modescope
