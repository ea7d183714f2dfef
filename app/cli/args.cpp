#include "app/cli/args.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace modescope::cli {
namespace {

const OptionSpec* findLong(const CommandSpec& spec, const std::string& name) {
  for (const auto& o : spec.options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const OptionSpec* findShort(const CommandSpec& spec, char c) {
  for (const auto& o : spec.options) {
    if (o.shortName != 0 && o.shortName == c) return &o;
  }
  return nullptr;
}

std::string spelling(const OptionSpec& o) { return "--" + o.name; }

// Word-wraps `text` to `width` columns, every line prefixed by `indent` spaces (the first one
// only when `indentFirst`).
std::string wrap(const std::string& text, std::size_t indent, std::size_t width, bool indentFirst) {
  std::string out, lineText;
  std::size_t lineCount = 0;
  auto flush = [&] {
    if (lineCount > 0 || indentFirst) out.append(indent, ' ');
    out += lineText + "\n";
    lineText.clear();
    ++lineCount;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!lineText.empty() && indent + lineText.size() + 1 + word.size() > width) flush();
    lineText += (lineText.empty() ? "" : " ") + word;
  }
  if (!lineText.empty() || lineCount == 0) flush();
  return out;
}

}  // namespace

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool wantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args) {
  ParsedArgs parsed;
  auto store = [&](const OptionSpec& o, std::string v) {
    if (!o.repeatable && parsed.has(o.name)) {
      throw UsageError("option " + spelling(o) + " given more than once");
    }
    parsed.add(o.name, std::move(v));
  };
  bool optionsEnded = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (optionsEnded || a.size() < 2 || a[0] != '-') {
      parsed.positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      optionsEnded = true;
      continue;
    }
    const OptionSpec* o = nullptr;
    std::optional<std::string> inlineValue;
    if (a[1] == '-') {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) inlineValue = a.substr(eq + 1);
      o = findLong(spec, name);
      if (!o) throw UsageError("unknown option '--" + name + "' for '" + spec.name + "'");
    } else {
      o = findShort(spec, a[1]);
      if (!o) throw UsageError("unknown option '" + a.substr(0, 2) + "' for '" + spec.name + "'");
      if (a.size() > 2) {
        if (o->valueName.empty()) {
          throw UsageError("option '" + a.substr(0, 2) + "' takes no value (found '" + a + "')");
        }
        inlineValue = a.substr(2);
      }
    }
    if (o->valueName.empty()) {
      if (inlineValue) throw UsageError("option " + spelling(*o) + " takes no value");
      store(*o, "");
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= args.size()) {
        throw UsageError("option " + spelling(*o) + " needs a value (" + o->valueName + ")");
      }
      inlineValue = args[++i];
    }
    store(*o, *inlineValue);
  }
  const std::size_t n = parsed.positionals.size();
  if (n < spec.minPositionals) {
    throw UsageError("'" + spec.name + "' needs " +
                     (spec.minPositionals == 1
                          ? std::string("an input")
                          : std::to_string(spec.minPositionals) + " arguments") +
                     " (usage: " + spec.name + " " + spec.usage + ")");
  }
  if (spec.maxPositionals > 0 && n > spec.maxPositionals) {
    throw UsageError("'" + spec.name + "' takes at most " + std::to_string(spec.maxPositionals) +
                     " argument(s), found " + std::to_string(n) + " (unexpected '" +
                     parsed.positionals[spec.maxPositionals] + "')");
  }
  return parsed;
}

std::string formatCommandHelp(const CommandSpec& spec) {
  constexpr std::size_t kWidth = 100;
  std::string out = "Usage: " + std::string(kProgram) + " " + spec.name + " " + spec.usage + "\n\n";
  out += wrap(spec.summary, 0, kWidth, false);
  if (!spec.description.empty()) {
    for (const std::string& para : [&] {
           std::vector<std::string> paras;
           std::size_t start = 0;
           while (start <= spec.description.size()) {
             std::size_t end = spec.description.find("\n\n", start);
             if (end == std::string::npos) end = spec.description.size();
             paras.push_back(spec.description.substr(start, end - start));
             start = end + 2;
           }
           return paras;
         }()) {
      out += "\n" + wrap(para, 0, kWidth, false);
    }
  }
  if (!spec.options.empty()) {
    out += "\nOptions:\n";
    for (const auto& o : spec.options) {
      std::string left = "  ";
      left += o.shortName ? std::string("-") + o.shortName + ", " : "    ";
      left += "--" + o.name;
      if (!o.valueName.empty()) left += " " + o.valueName;
      constexpr std::size_t kHelpColumn = 30;
      if (left.size() + 2 > kHelpColumn) {
        out += left + "\n" + wrap(o.help, kHelpColumn, kWidth, true);
      } else {
        left.append(kHelpColumn - left.size(), ' ');
        out += left + wrap(o.help, kHelpColumn, kWidth, false);
      }
    }
  }
  if (!spec.examples.empty()) out += "\nExamples:\n" + spec.examples;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

std::string wrapText(const std::string& text, std::size_t width) {
  return wrap(text, 0, width, false);
}

std::string formatUsageHint(const CommandSpec& spec) {
  return "Usage: " + std::string(kProgram) + " " + spec.name + " " + spec.usage + "\nRun '" +
         kProgram + " " + spec.name + " --help' for the options.\n";
}

double parseNumber(const std::string& option, const std::string& text) {
  double v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [end, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || end != e || !std::isfinite(v)) {
    throw InvalidParameterError(option, "'" + text + "'", "a number (for example 2.5)");
  }
  return v;
}

double parseSeconds(const std::string& option, const std::string& text, bool allowZero) {
  const double v = parseNumber(option, text);
  if (v < 0 || (!allowZero && v == 0)) {
    throw InvalidParameterError(option, "'" + text + "'",
                                allowZero ? "seconds >= 0" : "seconds > 0");
  }
  return v;
}

int64_t parseInteger(const std::string& option, const std::string& text, int64_t min, int64_t max) {
  int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [end, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || end != e || v < min || v > max) {
    throw InvalidParameterError(
        option, "'" + text + "'",
        "a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return v;
}

uint64_t parseUnsigned(const std::string& option, const std::string& text) {
  uint64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [end, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || end != e) {
    throw InvalidParameterError(
        option, "'" + text + "'",
        "a whole number from 0 to " + std::to_string(std::numeric_limits<uint64_t>::max()));
  }
  return v;
}

}  // namespace modescope::cli
