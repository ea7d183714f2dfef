// A method's parameters declared once against its parameter struct P: each ParamDecl
// (param_decl.h) with how to read and write it in P and when it applies. Validation, provenance,
// pipeline fields, CLI options (app/cli/param_options.h) and dialog editors
// (widgets/param_editor.h) all walk this table.
//
// Thread rules: a table is built once (a function-local static) and read-only afterwards.
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/method/param_decl.h"

namespace modescope {

template <class P>
struct ParamField {
  ParamDecl decl;
  std::function<ParamValue(const P&)> get;
  std::function<void(P&, const ParamValue&)> set;
  // Whether the field means anything for these parameters (the method variant, the stop rule
  // kind). Fields that do not apply are neither validated nor described nor written. null =
  // always.
  std::function<bool(const P&)> applies;

  bool appliesTo(const P& p) const { return !applies || applies(p); }
};

// A named set of every field's values, reproducing a reference code.
template <class P>
struct ParamPreset {
  std::string name;
  std::string description;  // one line with the source
  P params;
};

template <class P>
class ParamTable {
 public:
  // `crossCheck`: rules between fields (threshold1 <= threshold2, even ensembles with paired
  // noise) that single-field ranges cannot say; it throws InvalidParameterError naming one key.
  ParamTable(std::vector<ParamField<P>> fields, std::function<void(const P&)> crossCheck = {})
      : fields_(std::move(fields)), crossCheck_(std::move(crossCheck)) {}

  const std::vector<ParamField<P>>& fields() const { return fields_; }

  const ParamField<P>* find(const std::string& key) const {
    for (const auto& f : fields_)
      if (f.decl.key == key) return &f;
    return nullptr;
  }
  const ParamField<P>* findCli(const std::string& option) const {
    for (const auto& f : fields_)
      if (!f.decl.cli.empty() && f.decl.cli == option) return &f;
    return nullptr;
  }

  // Every applicable field inside its declared range, then the cross-field rules. Errors name
  // the key ("stop.threshold1") and say the default.
  void validate(const P& p) const {
    const P defaults{};
    for (const auto& f : fields_) {
      if (!f.appliesTo(p)) continue;
      checkValue(f.decl, f.get(p), f.decl.key, f.get(defaults));
    }
    if (crossCheck_) crossCheck_(p);
  }

  // Every field's declaration and value, applicable or not, in declaration order: what a result
  // file stores so that the whole struct can be read back.
  std::vector<std::pair<const ParamDecl*, ParamValue>> values(const P& p) const {
    std::vector<std::pair<const ParamDecl*, ParamValue>> out;
    for (const auto& f : fields_) out.emplace_back(&f.decl, f.get(p));
    return out;
  }

  // key -> value with unit, for the applicable fields, in declaration order.
  std::vector<std::pair<std::string, std::string>> describe(const P& p) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : fields_)
      if (f.appliesTo(p)) out.emplace_back(f.decl.key, describeValue(f.decl, f.get(p)));
    return out;
  }

 private:
  std::vector<ParamField<P>> fields_;
  std::function<void(const P&)> crossCheck_;
};

// Binders from a member path to get/set, so a declaration names its field once:
//   bindField<EmdParams>(decl, &EmdParams::stop, &StopRule::threshold1)
namespace param_binding {

template <class T>
ParamValue toValue(const T& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return v;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<int64_t>(v);
  else
    return static_cast<double>(v);
}

template <class T>
T fromValue(const ParamValue& v) {
  if constexpr (std::is_same_v<T, bool>)
    return std::get<bool>(v);
  else if constexpr (std::is_same_v<T, uint64_t>)
    return std::get<uint64_t>(v);
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(std::get<int64_t>(v));
  else
    return static_cast<T>(std::get<double>(v));
}

}  // namespace param_binding

template <class P, class T>
ParamField<P> bindField(ParamDecl decl, T P::*member, std::function<bool(const P&)> applies = {}) {
  return {std::move(decl), [member](const P& p) { return param_binding::toValue(p.*member); },
          [member](P& p, const ParamValue& v) { p.*member = param_binding::fromValue<T>(v); },
          std::move(applies)};
}

template <class P, class S, class T>
ParamField<P> bindField(ParamDecl decl, S P::*outer, T S::*member,
                        std::function<bool(const P&)> applies = {}) {
  return {std::move(decl),
          [outer, member](const P& p) { return param_binding::toValue((p.*outer).*member); },
          [outer, member](P& p, const ParamValue& v) {
            (p.*outer).*member = param_binding::fromValue<T>(v);
          },
          std::move(applies)};
}

// An enum field declared as a Choice: `names` pairs each enum value with its choice name.
template <class E>
using ChoiceNames = std::vector<std::pair<E, std::string>>;

template <class E>
std::string choiceName(const ChoiceNames<E>& names, E e) {
  for (const auto& [value, name] : names)
    if (value == e) return name;
  return "<" + std::to_string(static_cast<long long>(e)) + ">";  // refused by checkValue
}

template <class E>
E choiceEnum(const ChoiceNames<E>& names, const ParamValue& v) {
  const std::string& s = std::get<std::string>(v);
  for (const auto& [value, name] : names)
    if (name == s) return value;
  throw InvalidParameterError("choice", "'" + s + "'", "a declared choice");
}

template <class P, class E>
ParamField<P> bindChoice(ParamDecl decl, E P::*member, ChoiceNames<E> names,
                         std::function<bool(const P&)> applies = {}) {
  return {std::move(decl),
          [member, names](const P& p) { return ParamValue(choiceName(names, p.*member)); },
          [member, names](P& p, const ParamValue& v) { p.*member = choiceEnum(names, v); },
          std::move(applies)};
}

template <class P, class S, class E>
ParamField<P> bindChoice(ParamDecl decl, S P::*outer, E S::*member, ChoiceNames<E> names,
                         std::function<bool(const P&)> applies = {}) {
  return {std::move(decl),
          [outer, member, names](const P& p) {
            return ParamValue(choiceName(names, (p.*outer).*member));
          },
          [outer, member, names](P& p, const ParamValue& v) {
            (p.*outer).*member = choiceEnum(names, v);
          },
          std::move(applies)};
}

}  // namespace modescope
