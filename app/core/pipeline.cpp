#include "app/core/pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "app/core/json_writer.h"
#include "app/core/method_registry.h"
#include "app/core/pipeline_montage.h"
#include "engine/core/json_value.h"
#include "engine/core/text.h"
#include "engine/dsp/filter_param_table.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Kind = JsonValue::Kind;

constexpr const char* kIcaDefaultPreset = "eeglab-runica";

// ---------------------------------------------------------------------------------------------
// Reading

// Where a field lives: the file and, inside a step, "step 2 (emd)".
struct Where {
  const std::string& path;
  std::string step;  // "" at the top level
};

std::string fieldText(const Where& w, const std::string& field) {
  if (w.step.empty()) return field.empty() ? std::string() : "field " + field;
  return field.empty() ? w.step : w.step + ", field " + field;
}

[[noreturn]] void fail(const Where& w, const std::string& field, const JsonValue* at,
                       const std::string& found, const std::string& expected,
                       const std::string& help = {}) {
  std::string remedy;
  if (at && at->line() > 0) {
    remedy =
        "At line " + std::to_string(at->line()) + ", column " + std::to_string(at->column()) + ".";
  }
  if (!help.empty()) remedy += (remedy.empty() ? "" : " ") + help;
  throw InvalidInputError(w.path, fieldText(w, field), found, expected, remedy);
}

std::string shortened(const std::string& s) {
  constexpr std::size_t kMax = 60;
  return s.size() <= kMax ? s : s.substr(0, kMax) + "...";
}

// A value as the messages show it: 0, true, 'fixed', an array.
std::string valueText(const JsonValue& v) {
  switch (v.kind()) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return v.asBool() ? "true" : "false";
    case Kind::Number:
      return v.numberText();
    case Kind::String:
      return "'" + shortened(v.asString()) + "'";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
  }
  return "a value";
}

// A value of the wrong JSON type: the string '50', the number 3, true, null, an object.
std::string typeText(const JsonValue& v) {
  switch (v.kind()) {
    case Kind::String:
      return "the string " + valueText(v);
    case Kind::Number:
      return "the number " + valueText(v);
    default:
      return valueText(v);
  }
}

void requireKind(const Where& w, const std::string& field, const JsonValue& v, Kind kind,
                 const std::string& expected) {
  if (v.kind() != kind) fail(w, field, &v, typeText(v), expected);
}

// The found-and-expected part of an engine InvalidParameterError ("parameter 'x': got F,
// expected E. R" -> "F, expected E. R"), so it can be re-worded as a field of the file.
std::string afterGot(const InvalidParameterError& e) {
  const std::string m = e.what();
  const std::string marker = ": got ";
  const auto pos = m.find(marker);
  return pos == std::string::npos ? m : m.substr(pos + marker.size());
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) s += i + 1 == names.size() ? " or " : ", ";
    s += names[i];
  }
  return s;
}

void refuseUnknownFields(const Where& w, const JsonValue& object,
                         const std::vector<std::string>& known) {
  for (const auto& [name, value] : object.members()) {
    bool ok = false;
    for (const std::string& k : known) ok = ok || k == name;
    if (!ok) fail(w, name, &value, "an unknown field", "one of " + joinNames(known));
  }
}

const char* backendChoiceName(BackendChoice c) {
  switch (c) {
    case BackendChoice::Auto:
      return "auto";
    case BackendChoice::Cpu:
      return "cpu";
    case BackendChoice::Cuda:
      return "cuda";
  }
  return "auto";
}

bool isIndexText(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::vector<std::string> readChannels(const Where& w, const JsonValue& v) {
  const std::string expected =
      "an array of channel names, labels (strings) or 1-based indices (numbers), or one "
      "comma-separated string as --channels";
  std::vector<std::string> items;
  if (v.kind() == Kind::String) {
    for (const std::string& item : split(v.asString(), ',')) {
      const std::string t = trim(item);
      if (t.empty()) {
        fail(w, "channels", &v, valueText(v), "comma-separated channels without empty items");
      }
      items.push_back(t);
    }
    return items;
  }
  requireKind(w, "channels", v, Kind::Array, expected);
  const auto& elements = v.asArray();
  if (elements.empty()) {
    fail(w, "channels", &v, "an empty array", "at least one channel",
         "Leave the field out for the method's default channels");
  }
  for (std::size_t j = 0; j < elements.size(); ++j) {
    const JsonValue& e = elements[j];
    const std::string field = "channels, item " + std::to_string(j + 1);
    const std::string itemExpected = "a channel name or label (string) or a 1-based index";
    if (e.kind() == Kind::String) {
      const std::string t = trim(e.asString());
      if (t.empty()) fail(w, field, &e, "an empty string", itemExpected);
      items.push_back(t);
    } else if (e.kind() == Kind::Number) {
      int64_t index = 0;
      try {
        index = e.asInt64();
      } catch (const std::range_error&) {
        fail(w, field, &e, valueText(e), itemExpected);
      }
      if (index < 1) fail(w, field, &e, valueText(e), "a 1-based channel index (1 or more)");
      items.push_back(std::to_string(index));
    } else {
      fail(w, field, &e, typeText(e), itemExpected);
    }
  }
  return items;
}

StepSelection readSelection(const Where& w, const JsonValue& step) {
  StepSelection s;
  if (const JsonValue* v = step.find("channels")) s.channels = readChannels(w, *v);
  if (const JsonValue* v = step.find("start")) {
    requireKind(w, "start", *v, Kind::Number, "a time in seconds >= 0 (a JSON number)");
    const double x = v->asDouble();
    if (!std::isfinite(x) || x < 0) fail(w, "start", v, valueText(*v), "a time in seconds >= 0");
    s.start = x;
  }
  if (const JsonValue* v = step.find("duration")) {
    const std::string expected = "a length in seconds > 0";
    const std::string help = "Leave the field out to go to the end of the recording";
    requireKind(w, "duration", *v, Kind::Number, expected + " (a JSON number)");
    const double x = v->asDouble();
    if (!std::isfinite(x) || x <= 0) fail(w, "duration", v, valueText(*v), expected, help);
    s.duration = x;
  }
  if (const JsonValue* v = step.find("backend")) {
    const std::string expected = "one of auto, cpu or cuda";
    requireKind(w, "backend", *v, Kind::String, expected);
    const std::string t = toLower(trim(v->asString()));
    if (t == "auto")
      s.backend = BackendChoice::Auto;
    else if (t == "cpu")
      s.backend = BackendChoice::Cpu;
    else if (t == "cuda")
      s.backend = BackendChoice::Cuda;
    else
      fail(w, "backend", v, valueText(*v), expected);
  }
  return s;
}

// The text parseValue reads for a JSON value of the declared kind; a wrong JSON type fails here.
std::string paramText(const Where& w, const std::string& field, const ParamDecl& d,
                      const JsonValue& v) {
  const std::string expected = expectedText(d);
  switch (d.kind) {
    case ParamKind::Flag:
      requireKind(w, field, v, Kind::Bool, "true or false");
      return v.asBool() ? "true" : "false";
    case ParamKind::Choice:
      requireKind(w, field, v, Kind::String, expected + " (a JSON string)");
      return v.asString();
    case ParamKind::Seed:
      requireKind(w, field, v, Kind::Number, expected + " (a JSON number)");
      return v.numberText();
    case ParamKind::Integer:
    case ParamKind::Real: {
      if (v.kind() == Kind::Number) return v.numberText();
      if (v.kind() == Kind::String && d.special) {
        const std::string t = trim(v.asString());
        if (equalsIgnoreCase(t, "auto") ||
            (!d.specialText.empty() && equalsIgnoreCase(t, d.specialText)))
          return t;
      }
      const std::string how = d.special && !d.specialText.empty()
                                  ? " (a JSON number, or the string \"" + d.specialText + "\")"
                                  : " (a JSON number)";
      fail(w, field, &v, typeText(v), expected + how);
    }
  }
  fail(w, field, &v, typeText(v), expected);
}

template <class P>
std::vector<std::string> keyNames(const ParamTable<P>& table) {
  std::vector<std::string> names;
  for (const auto& f : table.fields()) names.push_back(f.decl.key);
  return names;
}

// `p` with the keys of the JSON object `params` written over it, then the table's validation.
// `object`: how messages name the object ("params", "filters, item 2").
template <class P>
P readParamObject(const Where& w, const JsonValue& params, const ParamTable<P>& table, P p,
                  std::vector<std::string>* notes, const std::string& object) {
  requireKind(w, object, params, Kind::Object,
              "an object of parameter keys and values ({\"seed\": 7})");
  std::vector<std::pair<const ParamField<P>*, std::string>> given;
  for (const auto& [key, v] : params.members()) {
    const std::string field = object + "." + key;
    const ParamField<P>* f = table.find(key);
    if (!f) {
      fail(w, field, &v, "an unknown parameter", "one of " + joinNames(keyNames(table)),
           "docs/pipelines.md lists the keys of each method");
    }
    const std::string text = paramText(w, field, f->decl, v);
    ParamValue value;
    try {
      value = parseValue(f->decl, text, field);
    } catch (const InvalidParameterError&) {
      fail(w, field, &v, valueText(v), expectedText(f->decl), f->decl.help);
    }
    f->set(p, value);
    given.emplace_back(f, key);
  }
  try {
    table.validate(p);
  } catch (const InvalidParameterError& e) {
    const JsonValue* at = params.find(e.parameter());
    fail(w, object + "." + e.parameter(), at ? at : &params, afterGot(e), "");
  }
  if (notes) {
    for (const auto& [f, key] : given) {
      if (f->appliesTo(p)) continue;
      const std::string scope =
          f->decl.appliesTo.empty() ? std::string() : " (it applies to: " + f->decl.appliesTo + ")";
      notes->push_back("'" + w.path + "', " + w.step + ", field " + object + "." + key +
                       ": has no effect with this step's other parameters" + scope +
                       "; the method ignores it");
    }
  }
  return p;
}

// `base` with the step's "params" written over it (readParamObject).
// `object`: the step's field that holds the table's keys ("params"; a TF step's "readout").
template <class P>
P readParams(const Where& w, const JsonValue& step, const ParamTable<P>& table, P p,
             std::vector<std::string>* notes, const std::string& object = "params") {
  const JsonValue* params = step.find(object);
  return params ? readParamObject(w, *params, table, std::move(p), notes, object) : p;
}

std::string readPreset(const Where& w, const JsonValue& step,
                       const std::vector<std::string>& names) {
  const JsonValue* v = step.find("preset");
  if (!v) return {};
  const std::string expected = "one of " + joinNames(names);
  requireKind(w, "preset", *v, Kind::String, expected);
  for (const std::string& n : names)
    if (v->asString() == n) return n;
  fail(w, "preset", v, valueText(*v), expected);
}

PipelineFilterStep readFilterStep(const Where& w, const JsonValue& step) {
  refuseUnknownFields(w, step,
                      {"step", "filters", "reference", "channels", "start", "duration", "backend"});
  PipelineFilterStep f;
  f.selection = readSelection(w, step);
  if (const JsonValue* v = step.find("filters")) {
    requireKind(w, "filters", *v, Kind::Array,
                "an array of filter specs as --filter ([\"highpass:1\", \"notch:50\"])");
    const auto& items = v->asArray();
    for (std::size_t j = 0; j < items.size(); ++j) {
      const JsonValue& e = items[j];
      const std::string field = "filters, item " + std::to_string(j + 1);
      // An object of the declared keys says what the text form cannot (a transition width, a
      // notch without harmonics); it starts from a band-pass with the declared defaults.
      if (e.kind() == Kind::Object) {
        f.spec.filters.push_back(
            readParamObject(w, e, filterParamTable(), FilterSpec{}, nullptr, field));
        continue;
      }
      requireKind(w, field, e, Kind::String,
                  "a filter spec string (" + filterSyntaxText() +
                      ") or an object of filter keys ({\"kind\": \"notch\", \"notchHz\": 50})");
      try {
        f.spec.filters.push_back(parseFilterSpec(e.asString()));
      } catch (const InvalidParameterError& err) {
        fail(w, field, &e, afterGot(err), "");
      }
    }
  }
  if (const JsonValue* v = step.find("reference")) {
    requireKind(w, "reference", *v, Kind::String, referenceSyntaxText());
    try {
      f.spec.reference = parseReferenceSpec(v->asString());
    } catch (const InvalidParameterError& err) {
      fail(w, "reference", v, afterGot(err), "");
    }
  }
  if (f.spec.filters.empty() && f.spec.reference.kind == ReferenceKind::AsRecorded) {
    fail(w, "filters", &step, "no filter and no reference",
         "at least one filter, or a reference other than none",
         "A filter step with nothing to do is refused, as 'modescope-cli filter' refuses it");
  }
  return f;
}

std::vector<std::string> emdPresetNames() {
  std::vector<std::string> names;
  for (const EmdPreset& p : emdPresets()) names.push_back(p.name);
  return names;
}

std::vector<std::string> icaPresetNames() {
  std::vector<std::string> names;
  for (const IcaPreset& p : icaPresets()) names.push_back(p.name);
  return names;
}

PipelineEmdStep readEmdStep(const Where& w, const JsonValue& step,
                            std::vector<std::string>* notes) {
  refuseUnknownFields(
      w, step, {"step", "preset", "params", "channels", "start", "duration", "backend", "hht"});
  PipelineEmdStep e;
  e.selection = readSelection(w, step);
  e.preset = readPreset(w, step, emdPresetNames());
  e.params = readParams(w, step, emdParamTable(), emdStepBase(e.preset), notes);
  if (const JsonValue* v = step.find("hht")) {
    requireKind(w, "hht", *v, Kind::Bool,
                "true (the Hilbert-Huang transform too, the default) or false");
    e.hht = v->asBool();
  }
  return e;
}

std::vector<std::string> memdPresetNames() {
  std::vector<std::string> names;
  for (const auto& p : memdPresets()) names.push_back(p.name);
  return names;
}

PipelineMemdStep readMemdStep(const Where& w, const JsonValue& step,
                              std::vector<std::string>* notes) {
  refuseUnknownFields(w, step,
                      {"step", "preset", "params", "channels", "start", "duration", "backend"});
  PipelineMemdStep s;
  s.selection = readSelection(w, step);
  s.preset = readPreset(w, step, memdPresetNames());
  s.params = readParams(w, step, memdParamTable(), memdStepBase(s.preset), notes);
  return s;
}

PipelineEntropyStep readEntropyStep(const Where& w, const JsonValue& step,
                                    std::vector<std::string>* notes) {
  refuseUnknownFields(w, step, {"step", "params", "channels", "start", "duration", "backend"});
  PipelineEntropyStep s;
  s.selection = readSelection(w, step);
  s.params = readParams(w, step, entropyParamTable(), EntropyParams{}, notes);
  return s;
}

PipelineTfStep readTfStep(const Where& w, const JsonValue& step, std::vector<std::string>* notes) {
  refuseUnknownFields(w, step,
                      {"step", "params", "readout", "channels", "start", "duration", "backend"});
  PipelineTfStep s;
  s.selection = readSelection(w, step);
  s.params = readParams(w, step, tfParamTable(), TfParams{}, notes);
  s.readout = readParams(w, step, tfReadoutParamTable(), TfReadoutParams{}, notes, "readout");
  if (s.readout.reconstruct && s.params.hop != 1) {
    const JsonValue* at = step.find("readout");
    fail(w, "readout.reconstruct", at ? at->find("reconstruct") : &step, "true",
         "false with a hop of " + std::to_string(s.params.hop) + " samples",
         "The whole signal is reconstructed from one column per sample: set params.hop to 1 or "
         "leave reconstruct out");
  }
  return s;
}

std::vector<std::string> readStrings(const Where& w, const JsonValue& step,
                                     const std::string& field, bool required,
                                     const std::string& example);

// "flags": true (the default thresholds), false (none) or {"params": {...}, "reject": [...],
// "min_confidence": C}.
std::optional<PipelineIcaFlags> readIcaFlags(const Where& w, const JsonValue& v) {
  const std::string expected =
      "true (also write the automatic artifact flags as OUT_components.tsv), false (the "
      "default) or an object {\"params\": {...}, \"reject\": [\"eye\"], \"min_confidence\": 0.5}";
  if (v.kind() == Kind::Bool) return v.asBool() ? std::optional(PipelineIcaFlags{}) : std::nullopt;
  requireKind(w, "flags", v, Kind::Object, expected);
  const Where inside{w.path, w.step + ", field flags"};
  refuseUnknownFields(inside, v, {"params", "reject", "min_confidence"});
  PipelineIcaFlags flags;
  flags.params = readParams(inside, v, icaFlagParamTable(), IcaFlagParams{}, nullptr);
  for (const std::string& label : readStrings(inside, v, "reject", false, "[\"eye\", \"heart\"]")) {
    try {
      for (IcaFlagLabel l : parseIcaFlagLabels(label, "reject"))
        if (std::find(flags.reject.begin(), flags.reject.end(), l) == flags.reject.end())
          flags.reject.push_back(l);
    } catch (const InvalidParameterError&) {
      fail(inside, "reject", v.find("reject"), "\"" + label + "\"",
           "labels among eye, heart, muscle, line, channel");
    }
  }
  if (const JsonValue* c = v.find("min_confidence")) {
    requireKind(inside, "min_confidence", *c, Kind::Number, "a number from 0.5 to 1");
    flags.minConfidence = c->asDouble();
    if (!(flags.minConfidence >= 0.5 && flags.minConfidence <= 1.0))
      fail(inside, "min_confidence", c, valueText(*c),
           "a number from 0.5 (every flagged rule) to 1");
  }
  return flags;
}

PipelineIcaStep readIcaStep(const Where& w, const JsonValue& step,
                            std::vector<std::string>* notes) {
  refuseUnknownFields(
      w, step, {"step", "preset", "params", "channels", "start", "duration", "backend", "flags"});
  PipelineIcaStep s;
  s.selection = readSelection(w, step);
  s.preset = readPreset(w, step, icaPresetNames());
  s.params = readParams(w, step, icaParamTable(), icaStepBase(s.preset), notes);
  if (const JsonValue* v = step.find("flags")) s.flags = readIcaFlags(w, *v);
  return s;
}

PipelineInterpolateStep readInterpolateStep(const Where& w, const JsonValue& step,
                                            std::vector<std::string>* notes) {
  // No start or duration: the step replaces whole channels.
  refuseUnknownFields(w, step, {"step", "params", "channels", "backend"});
  PipelineInterpolateStep s;
  s.selection = readSelection(w, step);
  s.params =
      readParams(w, step, splineInterpolationParamTable(), SplineInterpolationParams{}, notes);
  return s;
}

// An array of non-empty strings (event types, difference waves).
std::vector<std::string> readStrings(const Where& w, const JsonValue& step,
                                     const std::string& field, bool required,
                                     const std::string& example) {
  std::vector<std::string> out;
  const JsonValue* v = step.find(field);
  const std::string expected = "an array of strings, e.g. " + example;
  if (!v) {
    if (required) fail(w, field, &step, "", expected);
    return out;
  }
  requireKind(w, field, *v, Kind::Array, expected);
  for (std::size_t j = 0; j < v->asArray().size(); ++j) {
    const JsonValue& e = v->asArray()[j];
    const std::string where = field + ", item " + std::to_string(j + 1);
    requireKind(w, where, e, Kind::String, "a non-empty string");
    if (e.asString().empty()) fail(w, where, &e, "\"\"", "a non-empty string");
    out.push_back(e.asString());
  }
  if (out.empty() && required) fail(w, field, v, "an empty array", expected);
  return out;
}

PipelineEpochStep readEpochStep(const Where& w, const JsonValue& step,
                                std::vector<std::string>* notes) {
  refuseUnknownFields(w, step,
                      {"step", "events", "differences", "epochs", "params", "channels", "backend"});
  PipelineEpochStep s;
  s.selection = readSelection(w, step);
  s.events = readStrings(w, step, "events", true, "[\"T1\", \"T2\"]");
  s.differences = readStrings(w, step, "differences", false, "[\"T1-T2\"]");
  if (const JsonValue* v = step.find("epochs")) {
    requireKind(w, "epochs", *v, Kind::Bool, "true (epochs and averages) or false (averages)");
    s.epochs = v->asBool();
  }
  s.params = readParams(w, step, epochParamTable(), EpochParams{}, notes);
  return s;
}

PipelineStep readStep(const std::string& path, std::size_t index, const JsonValue& step,
                      std::vector<std::string>* notes) {
  Where w{path, "step " + std::to_string(index + 1)};
  const std::string kinds = "one of " + pipelineStepKinds();
  requireKind(w, "", step, Kind::Object,
              "an object {\"step\": \"filter\" | \"interpolate\" | \"emd\" | \"memd\" | \"ica\" | "
              "\"xapen\" | \"epoch\" | \"tfr\" | \"montage\", ...}");
  const JsonValue* kind = step.find("step");
  if (!kind)
    fail(w, "step", &step, "", kinds, "Every step says what it is: {\"step\": \"emd\", ...}");
  requireKind(w, "step", *kind, Kind::String, kinds);
  const std::string k = kind->asString();
  const MethodEntry* method = findMethod(k);
  if (!method || !method->pipelineStep) {
    fail(w, "step", kind, valueText(*kind), kinds,
         method ? "pipeline version 1 has no " + k + " steps; run it with modescope-cli " + k
                : std::string());
  }
  w.step += " (" + k + ")";
  if (k == "filter") return readFilterStep(w, step);
  if (k == "emd") return readEmdStep(w, step, notes);
  if (k == "memd") return readMemdStep(w, step, notes);
  if (k == "xapen") return readEntropyStep(w, step, notes);
  if (k == "interpolate") return readInterpolateStep(w, step, notes);
  if (k == "epoch") return readEpochStep(w, step, notes);
  if (k == "tfr") return readTfStep(w, step, notes);
  if (k == "montage") return readMontageStep(step, path, w.step);
  return readIcaStep(w, step, notes);
}

// ---------------------------------------------------------------------------------------------
// Writing

void writeParamValue(JsonWriter& w, const ParamDecl& d, const ParamValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          if (d.special && static_cast<double>(x) == *d.special && !d.specialText.empty()) {
            w.value(d.specialText);
            return;
          }
        }
        w.value(x);
      },
      v);
}

template <class P>
void writeParams(JsonWriter& w, const ParamTable<P>& table, const P& p, const P& base,
                 const std::string& object = "params") {
  bool open = false;
  for (const auto& f : table.fields()) {
    const ParamValue v = f.get(p);
    if (v == f.get(base)) continue;
    if (!open) {
      w.key(object).beginObject();
      open = true;
    }
    w.key(f.decl.key);
    writeParamValue(w, f.decl, v);
  }
  if (open) w.endObject();
}

// The --filter text where it can say the filter, else an object of every applicable key.
void writeFilterItem(JsonWriter& w, const FilterSpec& spec) {
  if (std::optional<std::string> text = filterSpecString(spec)) {
    w.value(*text);
    return;
  }
  w.beginObject();
  for (const auto& f : filterParamTable().fields()) {
    if (!f.appliesTo(spec)) continue;
    w.key(f.decl.key);
    writeParamValue(w, f.decl, f.get(spec));
  }
  w.endObject();
}

// `true` for the default thresholds without rejection, else the object readIcaFlags reads.
void writeIcaFlags(JsonWriter& w, const PipelineIcaFlags& f) {
  if (f == PipelineIcaFlags{}) {
    w.field("flags", true);
    return;
  }
  w.key("flags").beginObject();
  writeParams(w, icaFlagParamTable(), f.params, IcaFlagParams{});
  if (!f.reject.empty()) {
    w.key("reject").beginArray();
    for (IcaFlagLabel l : f.reject) w.value(icaFlagLabelName(l));
    w.endArray();
  }
  if (f.minConfidence != 0.5) w.field("min_confidence", f.minConfidence);
  w.endObject();
}

void writeSelection(JsonWriter& w, const StepSelection& s) {
  if (s.channels) {
    w.key("channels").beginArray();
    for (const std::string& item : *s.channels) {
      if (isIndexText(item))
        w.value(static_cast<int64_t>(std::stoll(item)));
      else
        w.value(item);
    }
    w.endArray();
  }
  if (s.start != 0.0) w.field("start", s.start);
  if (s.duration >= 0.0) w.field("duration", s.duration);
  if (s.backend) w.field("backend", backendChoiceName(*s.backend));
}

template <class P>
bool sameParams(const ParamTable<P>& table, const P& a, const P& b) {
  for (const auto& f : table.fields())
    if (!(f.get(a) == f.get(b))) return false;
  return true;
}

}  // namespace

std::string StepSelection::channelsText() const {
  std::string s;
  if (!channels) return s;
  for (const std::string& item : *channels) s += (s.empty() ? "" : ",") + item;
  return s;
}

bool operator==(const StepSelection& a, const StepSelection& b) {
  return a.channels == b.channels && a.start == b.start && a.duration == b.duration &&
         a.backend == b.backend;
}

bool operator==(const PipelineFilterStep& a, const PipelineFilterStep& b) {
  if (!(a.selection == b.selection)) return false;
  if (a.spec.reference.kind != b.spec.reference.kind) return false;
  if (a.spec.reference.kind == ReferenceKind::Channel &&
      a.spec.reference.channel != b.spec.reference.channel)
    return false;
  if (a.spec.filters.size() != b.spec.filters.size()) return false;
  for (std::size_t i = 0; i < a.spec.filters.size(); ++i)
    if (!equivalentFilters(a.spec.filters[i], b.spec.filters[i])) return false;
  return true;
}

bool operator==(const PipelineEmdStep& a, const PipelineEmdStep& b) {
  return a.selection == b.selection && a.preset == b.preset && a.hht == b.hht &&
         sameParams(emdParamTable(), a.params, b.params);
}

bool operator==(const PipelineIcaFlags& a, const PipelineIcaFlags& b) {
  return a.reject == b.reject && a.minConfidence == b.minConfidence &&
         sameParams(icaFlagParamTable(), a.params, b.params);
}

bool operator==(const PipelineIcaStep& a, const PipelineIcaStep& b) {
  return a.selection == b.selection && a.preset == b.preset && a.flags == b.flags &&
         sameParams(icaParamTable(), a.params, b.params);
}

bool operator==(const PipelineMemdStep& a, const PipelineMemdStep& b) {
  return a.selection == b.selection && a.preset == b.preset &&
         sameParams(memdParamTable(), a.params, b.params);
}

bool operator==(const PipelineEntropyStep& a, const PipelineEntropyStep& b) {
  return a.selection == b.selection && sameParams(entropyParamTable(), a.params, b.params);
}

bool operator==(const PipelineInterpolateStep& a, const PipelineInterpolateStep& b) {
  return a.selection == b.selection &&
         sameParams(splineInterpolationParamTable(), a.params, b.params);
}

bool operator==(const PipelineEpochStep& a, const PipelineEpochStep& b) {
  return a.selection == b.selection && a.events == b.events && a.differences == b.differences &&
         a.epochs == b.epochs && sameParams(epochParamTable(), a.params, b.params);
}

bool operator==(const PipelineTfStep& a, const PipelineTfStep& b) {
  return a.selection == b.selection && sameParams(tfParamTable(), a.params, b.params) &&
         sameParams(tfReadoutParamTable(), a.readout, b.readout);
}

bool operator==(const PipelineMontageStep& a, const PipelineMontageStep& b) {
  return a.selection == b.selection && a.builtin == b.builtin && a.montage == b.montage;
}

bool operator==(const Pipeline& a, const Pipeline& b) {
  return a.version == b.version && a.description == b.description && a.steps == b.steps;
}

const char* stepKind(const PipelineStep& step) {
  if (std::holds_alternative<PipelineFilterStep>(step)) return "filter";
  if (std::holds_alternative<PipelineEmdStep>(step)) return "emd";
  if (std::holds_alternative<PipelineMemdStep>(step)) return "memd";
  if (std::holds_alternative<PipelineEntropyStep>(step)) return "xapen";
  if (std::holds_alternative<PipelineInterpolateStep>(step)) return "interpolate";
  if (std::holds_alternative<PipelineEpochStep>(step)) return "epoch";
  if (std::holds_alternative<PipelineTfStep>(step)) return "tfr";
  if (std::holds_alternative<PipelineMontageStep>(step)) return "montage";
  return "ica";
}

const StepSelection& stepSelection(const PipelineStep& step) {
  return std::visit([](const auto& s) -> const StepSelection& { return s.selection; }, step);
}

std::string stepLabel(std::size_t index, const PipelineStep& step) {
  return "step " + std::to_string(index + 1) + " (" + stepKind(step) + ")";
}

std::string stepOutputName(std::size_t index, const PipelineStep& step) {
  char number[24];
  std::snprintf(number, sizeof number, "%02zu", index + 1);
  return std::string(number) + "-" + stepKind(step) + ".h5";
}

EmdParams emdStepBase(const std::string& preset) {
  return preset.empty() ? EmdParams{} : emdPreset(preset);
}

MemdParams memdStepBase(const std::string& preset) {
  return preset.empty() ? MemdParams{} : memdPreset(preset);
}

IcaParams icaStepBase(const std::string& preset) {
  return icaPreset(preset.empty() ? kIcaDefaultPreset : preset);
}

std::string emdStepPresetName(const PipelineEmdStep& step) { return step.preset; }

std::string icaStepPresetName(const PipelineIcaStep& step) {
  return step.preset.empty() ? kIcaDefaultPreset : step.preset;
}

std::string filterSpecText(const FilterSpec& spec) {
  if (std::optional<std::string> text = filterSpecString(spec)) return *text;
  throw InvalidParameterError("filter", describe(spec),
                              "a filter with the automatic transition width, and a notch with "
                              "its harmonics",
                              "The --filter syntax cannot say it; pipeline files write such a "
                              "filter as an object of its keys");
}

std::string referenceSpecText(const ReferenceSpec& spec) {
  const ParamField<ReferenceSpec>& kind = *referenceParamTable().find("kind");
  const std::string name = formatValue(kind.decl, kind.get(spec));
  return spec.kind == ReferenceKind::Channel ? name + ":" + spec.channel : name;
}

Pipeline readPipeline(const JsonValue& root, const std::string& path,
                      std::vector<std::string>* notes) {
  const Where top{path, ""};
  const std::string shape = "a JSON object {\"modescope_pipeline\": 1, \"steps\": [...]}";
  if (root.kind() != Kind::Object) fail(top, "", &root, typeText(root), shape);

  // The version first: a newer file is refused for its version, not for fields it may add.
  const JsonValue* version = root.find("modescope_pipeline");
  const std::string versionExpected = "the format version " + std::to_string(kPipelineVersion);
  if (!version) {
    fail(top, "modescope_pipeline", &root, "", versionExpected,
         "A pipeline file starts with {\"modescope_pipeline\": 1, ...}");
  }
  requireKind(top, "modescope_pipeline", *version, Kind::Number, versionExpected);
  int64_t v = 0;
  try {
    v = version->asInt64();
  } catch (const std::range_error&) {
    fail(top, "modescope_pipeline", version, valueText(*version), versionExpected);
  }
  if (v > kPipelineVersion) {
    fail(top, "modescope_pipeline", version, valueText(*version),
         "version " + std::to_string(kPipelineVersion) + " (the newest this ModeScope reads)",
         "The file was written for a newer ModeScope; update ModeScope to run it");
  }
  if (v < 1) fail(top, "modescope_pipeline", version, valueText(*version), versionExpected);

  refuseUnknownFields(top, root, {"modescope_pipeline", "description", "steps"});
  Pipeline p;
  p.version = static_cast<int>(v);
  if (const JsonValue* d = root.find("description")) {
    requireKind(top, "description", *d, Kind::String, "a string");
    p.description = d->asString();
  }
  const JsonValue* steps = root.find("steps");
  if (!steps) fail(top, "steps", &root, "", "an array of steps");
  requireKind(top, "steps", *steps, Kind::Array, "an array of steps");
  if (steps->asArray().empty()) fail(top, "steps", steps, "an empty array", "at least one step");
  for (std::size_t i = 0; i < steps->asArray().size(); ++i)
    p.steps.push_back(readStep(path, i, steps->asArray()[i], notes));
  return p;
}

Pipeline readPipelineFile(const std::string& path, std::vector<std::string>* notes) {
  return readPipeline(readJsonFile(path), path, notes);
}

std::string writePipelineJson(const Pipeline& pipeline) {
  JsonWriter w(true);
  w.beginObject();
  w.field("modescope_pipeline", kPipelineVersion);
  if (!pipeline.description.empty()) w.field("description", pipeline.description);
  w.key("steps").beginArray();
  for (const PipelineStep& step : pipeline.steps) {
    w.beginObject();
    w.field("step", stepKind(step));
    if (const auto* f = std::get_if<PipelineFilterStep>(&step)) {
      if (!f->spec.filters.empty()) {
        w.key("filters").beginArray();
        for (const FilterSpec& s : f->spec.filters) writeFilterItem(w, s);
        w.endArray();
      }
      if (f->spec.reference.kind != ReferenceKind::AsRecorded)
        w.field("reference", referenceSpecText(f->spec.reference));
      writeSelection(w, f->selection);
    } else if (const auto* e = std::get_if<PipelineEmdStep>(&step)) {
      if (!e->preset.empty()) w.field("preset", e->preset);
      writeSelection(w, e->selection);
      if (!e->hht) w.field("hht", false);
      writeParams(w, emdParamTable(), e->params, emdStepBase(e->preset));
    } else if (const auto* c = std::get_if<PipelineIcaStep>(&step)) {
      if (!c->preset.empty()) w.field("preset", c->preset);
      writeSelection(w, c->selection);
      if (c->flags) writeIcaFlags(w, *c->flags);
      writeParams(w, icaParamTable(), c->params, icaStepBase(c->preset));
    } else if (const auto* d = std::get_if<PipelineMemdStep>(&step)) {
      if (!d->preset.empty()) w.field("preset", d->preset);
      writeSelection(w, d->selection);
      writeParams(w, memdParamTable(), d->params, memdStepBase(d->preset));
    } else if (const auto* x = std::get_if<PipelineEntropyStep>(&step)) {
      writeSelection(w, x->selection);
      writeParams(w, entropyParamTable(), x->params, EntropyParams{});
    } else if (const auto* b = std::get_if<PipelineInterpolateStep>(&step)) {
      writeSelection(w, b->selection);
      writeParams(w, splineInterpolationParamTable(), b->params, SplineInterpolationParams{});
    } else if (const auto* p = std::get_if<PipelineEpochStep>(&step)) {
      w.key("events").beginArray();
      for (const std::string& e : p->events) w.value(e);
      w.endArray();
      if (!p->differences.empty()) {
        w.key("differences").beginArray();
        for (const std::string& d : p->differences) w.value(d);
        w.endArray();
      }
      if (!p->epochs) w.field("epochs", false);
      writeSelection(w, p->selection);
      writeParams(w, epochParamTable(), p->params, EpochParams{});
    } else if (const auto* t = std::get_if<PipelineTfStep>(&step)) {
      writeSelection(w, t->selection);
      writeParams(w, tfParamTable(), t->params, TfParams{});
      writeParams(w, tfReadoutParamTable(), t->readout, TfReadoutParams{}, "readout");
    } else if (const auto* m = std::get_if<PipelineMontageStep>(&step)) {
      writeMontageStep(w, *m);
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

}  // namespace modescope
