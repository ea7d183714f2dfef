#include "engine/method/param_decl.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

// The shortest text that reads back as the same double, so a pipeline written from a dialog
// repeats the run bit for bit.
std::string exactNumber(double v) {
  char buf[40];
  // At least as many digits as the integer part has, so that %g writes 50 and 2000, not 5e+01.
  int first = 1;
  if (std::isfinite(v) && std::fabs(v) >= 1.0)
    first = std::min(17, static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1);
  for (int digits = first; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

bool isSpecial(const ParamDecl& d, double v) { return d.special && v == *d.special; }

bool inRange(const ParamDecl& d, double v) {
  if (d.min && (d.minInclusive ? v < *d.min : v <= *d.min)) return false;
  if (d.max && (d.maxInclusive ? v > *d.max : v >= *d.max)) return false;
  return true;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string choiceNames(const ParamDecl& d) {
  std::string s;
  for (std::size_t i = 0; i < d.choices.size(); ++i) {
    if (i) s += i + 1 == d.choices.size() ? " or " : ", ";
    s += d.choices[i].name;
  }
  return s;
}

std::string intervalText(const ParamDecl& d) {
  const bool integer = d.kind == ParamKind::Integer;
  const char* noun = integer ? "an integer" : "a number";
  if (d.min && d.max && d.minInclusive && d.maxInclusive && integer)
    return std::string(noun) + " from " + exactNumber(*d.min) + " to " + exactNumber(*d.max);
  if (d.min && d.max) {
    return std::string(noun) + " in " + (d.minInclusive ? "[" : "(") + exactNumber(*d.min) + ", " +
           exactNumber(*d.max) + (d.maxInclusive ? "]" : ")");
  }
  if (d.min) return std::string(noun) + (d.minInclusive ? " >= " : " > ") + exactNumber(*d.min);
  if (d.max) return std::string(noun) + (d.maxInclusive ? " <= " : " < ") + exactNumber(*d.max);
  return integer ? std::string(noun) : "a finite number";
}

std::optional<int64_t> parseInt64(std::string_view t) {
  int64_t v = 0;
  const char* end = t.data() + t.size();
  auto [p, ec] = std::from_chars(t.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::optional<uint64_t> parseUint64(std::string_view t) {
  uint64_t v = 0;
  const char* end = t.data() + t.size();
  auto [p, ec] = std::from_chars(t.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::optional<double> parseDouble(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> parseFlag(std::string_view t) {
  const std::string s = toLower(t);
  if (s == "on" || s == "yes" || s == "true" || s == "1") return true;
  if (s == "off" || s == "no" || s == "false" || s == "0") return false;
  return std::nullopt;
}

ParamDecl declare(std::string key, std::string cli, std::string label, ParamKind kind) {
  ParamDecl d;
  d.key = std::move(key);
  d.cli = std::move(cli);
  d.label = std::move(label);
  d.kind = kind;
  return d;
}

}  // namespace

ParamDecl flagParam(std::string key, std::string cli, std::string label) {
  return declare(std::move(key), std::move(cli), std::move(label), ParamKind::Flag);
}
ParamDecl integerParam(std::string key, std::string cli, std::string label) {
  return declare(std::move(key), std::move(cli), std::move(label), ParamKind::Integer);
}
ParamDecl realParam(std::string key, std::string cli, std::string label) {
  return declare(std::move(key), std::move(cli), std::move(label), ParamKind::Real);
}
ParamDecl seedParam(std::string key, std::string cli, std::string label) {
  return declare(std::move(key), std::move(cli), std::move(label), ParamKind::Seed);
}
ParamDecl choiceParam(std::string key, std::string cli, std::string label,
                      std::vector<ParamChoice> choices) {
  ParamDecl d = declare(std::move(key), std::move(cli), std::move(label), ParamKind::Choice);
  d.choices = std::move(choices);
  return d;
}

std::string expectedText(const ParamDecl& d) {
  switch (d.kind) {
    case ParamKind::Flag:
      return "on or off";
    case ParamKind::Choice:
      return "one of " + choiceNames(d);
    case ParamKind::Seed:
      return "an integer from 0 to 18446744073709551615";
    case ParamKind::Integer:
    case ParamKind::Real: {
      std::string s = intervalText(d);
      if (!d.unit.empty()) s += " " + d.unit;
      if (d.special) {
        s += ", or " + exactNumber(*d.special);
        if (!d.specialText.empty()) s += " (" + d.specialText + ")";
      }
      return s;
    }
  }
  return {};
}

bool acceptsValue(const ParamDecl& d, const ParamValue& v) {
  switch (d.kind) {
    case ParamKind::Flag:
      return std::holds_alternative<bool>(v);
    case ParamKind::Seed:
      return std::holds_alternative<uint64_t>(v);
    case ParamKind::Choice: {
      const auto* s = std::get_if<std::string>(&v);
      if (!s) return false;
      for (const ParamChoice& c : d.choices)
        if (c.name == *s) return true;
      return false;
    }
    case ParamKind::Integer: {
      const auto* i = std::get_if<int64_t>(&v);
      if (!i) return false;
      const auto x = static_cast<double>(*i);
      return isSpecial(d, x) || inRange(d, x);
    }
    case ParamKind::Real: {
      const auto* x = std::get_if<double>(&v);
      if (!x || !std::isfinite(*x)) return false;
      return isSpecial(d, *x) || inRange(d, *x);
    }
  }
  return false;
}

void checkValue(const ParamDecl& d, const ParamValue& v, const std::string& name,
                const std::optional<ParamValue>& defaultValue) {
  if (acceptsValue(d, v)) return;
  std::string remedy;
  if (defaultValue && acceptsValue(d, *defaultValue))
    remedy = "the default is " + describeValue(d, *defaultValue);
  if (!d.help.empty()) remedy += (remedy.empty() ? "" : "; ") + d.help;
  throw InvalidParameterError(name, formatValue(d, v), expectedText(d), remedy);
}

const ParamChoice* findChoice(const ParamDecl& d, std::string_view text) {
  const std::string t = trim(text);
  for (const ParamChoice& c : d.choices) {
    if (equalsIgnoreCase(c.name, t) || (!c.label.empty() && equalsIgnoreCase(c.label, t)))
      return &c;
    for (const std::string& a : c.aliases)
      if (equalsIgnoreCase(a, t)) return &c;
  }
  return nullptr;
}

ParamValue parseValue(const ParamDecl& d, std::string_view text, const std::string& name) {
  const std::string t = trim(text);
  auto refuse = [&]() -> ParamValue {
    throw InvalidParameterError(name, quoted(t), expectedText(d), d.help);
  };
  ParamValue v;
  switch (d.kind) {
    case ParamKind::Flag: {
      const auto b = parseFlag(t);
      if (!b) return refuse();
      v = *b;
      break;
    }
    case ParamKind::Choice: {
      const ParamChoice* c = findChoice(d, t);
      if (!c) return refuse();
      v = c->name;
      break;
    }
    case ParamKind::Seed: {
      const auto u = parseUint64(t);
      if (!u) return refuse();
      v = *u;
      break;
    }
    case ParamKind::Integer:
    case ParamKind::Real: {
      if (d.special && (equalsIgnoreCase(t, "auto") ||
                        (!d.specialText.empty() && equalsIgnoreCase(t, d.specialText)))) {
        if (d.kind == ParamKind::Integer)
          v = static_cast<int64_t>(*d.special);
        else
          v = *d.special;
        break;
      }
      if (d.kind == ParamKind::Integer) {
        const auto i = parseInt64(t);
        if (!i) return refuse();
        v = *i;
      } else {
        const auto x = parseDouble(t);
        if (!x) return refuse();
        v = *x;
      }
      break;
    }
  }
  if (!acceptsValue(d, v)) throw InvalidParameterError(name, quoted(t), expectedText(d), d.help);
  return v;
}

std::string formatValue(const ParamDecl& d, const ParamValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "on" : "off";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<uint64_t>(&v)) return std::to_string(*u);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    if (isSpecial(d, static_cast<double>(*i)) && !d.specialText.empty()) return d.specialText;
    return std::to_string(*i);
  }
  const double x = std::get<double>(v);
  if (isSpecial(d, x) && !d.specialText.empty()) return d.specialText;
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return exactNumber(x);
}

std::string describeValue(const ParamDecl& d, const ParamValue& v) {
  std::string s = formatValue(d, v);
  const bool number = std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
  const bool isSpecialText = d.special && s == d.specialText;
  if (number && !isSpecialText && !d.unit.empty()) s += " " + d.unit;
  return s;
}

std::string fileAttributeName(const ParamDecl& d) {
  return d.fileName.empty() ? snakeCaseKey(d.key) : d.fileName;
}

std::string snakeCaseKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '.') {
      out += '_';
    } else if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace modescope
