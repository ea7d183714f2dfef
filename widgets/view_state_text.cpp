#include "widgets/view_state_text.h"

#include <cctype>
#include <cstdlib>
#include <vector>

#include "engine/core/text.h"

namespace modescope::browser {

namespace {

// Reads a non-negative decimal number at s[i]; advances i. False when there is none.
bool readNumber(const std::string& s, std::size_t& i, double* v) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  const char* begin = s.c_str() + i;
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (end == begin || !(x >= 0)) return false;
  i += static_cast<std::size_t>(end - begin);
  *v = x;
  return true;
}

void skip(const std::string& s, std::size_t& i, const char* chars) {
  while (i < s.size() && std::string_view(chars).find(s[i]) != std::string_view::npos) ++i;
}

bool eatWord(const std::string& s, std::size_t& i, std::string_view word) {
  skip(s, i, " ");
  if (startsWithIgnoreCase(std::string_view(s).substr(i), word)) {
    i += word.size();
    return true;
  }
  return false;
}

}  // namespace

std::string montageText(const ReferenceSpec& spec) {
  switch (spec.kind) {
    case ReferenceKind::AsRecorded:
      return "as recorded";
    case ReferenceKind::Average:
      return "average";
    case ReferenceKind::LinkedMastoids:
      return "linked mastoids";
    case ReferenceKind::Channel:
      return "ref:" + spec.channel;
  }
  return "as recorded";
}

std::optional<ReferenceSpec> parseMontageText(const std::string& raw) {
  const std::string t = trim(raw);
  ReferenceSpec spec;
  if (t.empty() || equalsIgnoreCase(t, "as recorded") || equalsIgnoreCase(t, "none")) return spec;
  if (equalsIgnoreCase(t, "average") || equalsIgnoreCase(t, "avg")) {
    spec.kind = ReferenceKind::Average;
    return spec;
  }
  if (equalsIgnoreCase(t, "linked mastoids") || equalsIgnoreCase(t, "mastoids")) {
    spec.kind = ReferenceKind::LinkedMastoids;
    return spec;
  }
  for (std::string_view prefix : {"ref:", "channel:"}) {
    if (startsWithIgnoreCase(t, prefix) && t.size() > prefix.size()) {
      spec.kind = ReferenceKind::Channel;
      spec.channel = trim(std::string_view(t).substr(prefix.size()));
      return spec;
    }
  }
  return std::nullopt;
}

std::string filterText(const std::optional<FilterSpec>& spec) {
  if (!spec) return "none";
  std::string s;
  switch (spec->kind) {
    case FilterKind::BandPass:
      s = "bandpass " + formatNumber(spec->lowHz) + "-" + formatNumber(spec->highHz) + " Hz";
      break;
    case FilterKind::HighPass:
      s = "highpass " + formatNumber(spec->lowHz) + " Hz";
      break;
    case FilterKind::LowPass:
      s = "lowpass " + formatNumber(spec->highHz) + " Hz";
      break;
    case FilterKind::Notch:
      s = "notch " + formatNumber(spec->notchHz) + " Hz";
      if (!spec->notchHarmonics) s += ", no harmonics";
      break;
  }
  if (spec->transitionHz > 0) s += ", transition " + formatNumber(spec->transitionHz) + " Hz";
  return s;
}

std::optional<std::optional<FilterSpec>> parseFilterText(const std::string& raw) {
  const std::string t = trim(raw);
  if (t.empty() || equalsIgnoreCase(t, "none")) return std::optional<FilterSpec>{};
  FilterSpec f;
  std::size_t i = 0;
  if (eatWord(t, i, "bandpass") || eatWord(t, i, "band-pass"))
    f.kind = FilterKind::BandPass;
  else if (eatWord(t, i, "highpass") || eatWord(t, i, "high-pass"))
    f.kind = FilterKind::HighPass;
  else if (eatWord(t, i, "lowpass") || eatWord(t, i, "low-pass"))
    f.kind = FilterKind::LowPass;
  else if (eatWord(t, i, "notch"))
    f.kind = FilterKind::Notch;
  else
    return std::nullopt;
  skip(t, i, " :");
  double a = 0, b = 0;
  if (!readNumber(t, i, &a)) return std::nullopt;
  switch (f.kind) {
    case FilterKind::BandPass:
      skip(t, i, " ");
      if (i >= t.size() || t[i] != '-') return std::nullopt;
      ++i;
      if (!readNumber(t, i, &b)) return std::nullopt;
      f.lowHz = a;
      f.highHz = b;
      break;
    case FilterKind::HighPass:
      f.lowHz = a;
      break;
    case FilterKind::LowPass:
      f.highHz = a;
      break;
    case FilterKind::Notch:
      f.notchHz = a;
      break;
  }
  eatWord(t, i, "Hz");
  // Optional clauses, comma separated.
  while (true) {
    skip(t, i, " ");
    if (i >= t.size()) break;
    if (t[i] != ',') return std::nullopt;
    ++i;
    if (eatWord(t, i, "transition")) {
      double tr = 0;
      if (!readNumber(t, i, &tr)) return std::nullopt;
      f.transitionHz = tr;
      eatWord(t, i, "Hz");
    } else if (eatWord(t, i, "no harmonics")) {
      f.notchHarmonics = false;
    } else {
      return std::nullopt;
    }
  }
  return std::optional<FilterSpec>{f};
}

std::string filterChainText(const std::vector<FilterSpec>& chain) {
  if (chain.empty()) return "none";
  std::string s;
  for (const FilterSpec& f : chain) s += (s.empty() ? "" : " + ") + filterText(f);
  return s;
}

std::optional<std::vector<FilterSpec>> parseFilterChainText(const std::string& text) {
  std::vector<FilterSpec> chain;
  std::size_t from = 0;
  while (true) {
    const std::size_t plus = text.find(" + ", from);
    const auto one =
        parseFilterText(text.substr(from, plus == std::string::npos ? plus : plus - from));
    if (!one) return std::nullopt;
    if (*one) chain.push_back(**one);
    if (plus == std::string::npos) break;
    from = plus + 3;
  }
  return chain;
}

}  // namespace modescope::browser
