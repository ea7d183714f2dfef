// The filter and re-reference declarations, and the text syntax made from them. Kinds, edges and
// transition widths follow MNE-Python's filter_data (l_freq, h_freq, l_trans_bandwidth /
// h_trans_bandwidth = 'auto') and notch_filter (freqs = the mains frequency and its harmonics).
#include "engine/dsp/filter_param_table.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

using FilterField = ParamField<FilterSpec>;

const ChoiceNames<ReferenceKind> kReferenceKindNames = {{ReferenceKind::AsRecorded, "none"},
                                                        {ReferenceKind::Average, "average"},
                                                        {ReferenceKind::LinkedMastoids, "mastoids"},
                                                        {ReferenceKind::Channel, "channel"}};

// Which values a kind's text form carries after "KIND:", in order, joined by '-', and what the
// syntax calls each.
struct KindSyntax {
  FilterKind kind;
  std::vector<std::pair<std::string, std::string>> values;  // key, placeholder
};
const std::vector<KindSyntax>& kindSyntaxes() {
  static const std::vector<KindSyntax> syntaxes = {
      {FilterKind::BandPass, {{"lowHz", "LOW"}, {"highHz", "HIGH"}}},
      {FilterKind::HighPass, {{"lowHz", "LOW"}}},
      {FilterKind::LowPass, {{"highHz", "HIGH"}}},
      {FilterKind::Notch, {{"notchHz", "MAINS"}}}};
  return syntaxes;
}
const KindSyntax& syntaxOf(FilterKind kind) {
  for (const KindSyntax& s : kindSyntaxes())
    if (s.kind == kind) return s;
  return kindSyntaxes().front();
}

bool hasLowEdge(const FilterSpec& s) {
  return s.kind == FilterKind::BandPass || s.kind == FilterKind::HighPass;
}
bool hasHighEdge(const FilterSpec& s) {
  return s.kind == FilterKind::BandPass || s.kind == FilterKind::LowPass;
}
bool isNotch(const FilterSpec& s) { return s.kind == FilterKind::Notch; }

std::vector<FilterField> makeFilterFields() {
  std::vector<FilterField> f;
  f.push_back(bindChoice<FilterSpec>(
      choiceParam("kind", "", "Filter",
                  {{"bandpass",
                    "Band-pass",
                    "keeps LOW to HIGH Hz (mne.filter.filter_data with l_freq and h_freq)",
                    {"band-pass", "bp"}},
                   {"highpass",
                    "High-pass",
                    "removes drifts below LOW Hz (filter_data, h_freq=None)",
                    {"high-pass", "hp"}},
                   {"lowpass",
                    "Low-pass",
                    "removes what is above HIGH Hz (filter_data, l_freq=None)",
                    {"low-pass", "lp"}},
                   {"notch",
                    "Notch",
                    "removes the mains frequency and, by default, its harmonics below Nyquist "
                    "(mne.filter.notch_filter)",
                    {}}})
          .because("linear-phase FIR, Hamming window, applied with zero phase (MNE "
                   "fir_design='firwin', phase='zero')"),
      &FilterSpec::kind, filterKindNames()));
  f.push_back(bindField<FilterSpec>(
      realParam("lowHz", "", "High-pass edge")
          .in("Hz")
          .above(0)
          .shown(2, 0.5)
          .because("the lower pass-band edge, below the Nyquist frequency of the data (MNE "
                   "l_freq)")
          .onlyFor("band-pass and high-pass"),
      &FilterSpec::lowHz, hasLowEdge));
  f.push_back(bindField<FilterSpec>(
      realParam("highHz", "", "Low-pass edge")
          .in("Hz")
          .above(0)
          .shown(2, 0.5)
          .because("the upper pass-band edge, below the Nyquist frequency of the data (MNE "
                   "h_freq)")
          .onlyFor("band-pass and low-pass"),
      &FilterSpec::highHz, hasHighEdge));
  f.push_back(bindField<FilterSpec>(
      realParam("notchHz", "", "Mains frequency")
          .in("Hz")
          .above(0)
          .shown(2, 10)
          .because("the line frequency to remove: 50 Hz (Europe, most of Asia) or 60 Hz (the "
                   "Americas) (mne.filter.notch_filter freqs, 1 Hz-wide stop bands)")
          .onlyFor("notch"),
      &FilterSpec::notchHz, isNotch));
  f.push_back(bindField<FilterSpec>(
      flagParam("notchHarmonics", "", "Also the harmonics")
          .because("also removes 2x, 3x, ... the mains frequency below Nyquist, as "
                   "notch_filter(freqs=np.arange(50, sfreq / 2, 50)) does")
          .onlyFor("notch"),
      &FilterSpec::notchHarmonics, isNotch));
  f.push_back(bindField<FilterSpec>(
      realParam("transitionHz", "", "Transition width")
          .in("Hz")
          .above(0)
          .orSpecial(0, "automatic")
          .shown(2, 0.5)
          .because("the width of each transition band; automatic is MNE's 'auto' rule: "
                   "min(max(0.25 x edge, 2 Hz), edge) below an edge, and 1 Hz for a notch"),
      &FilterSpec::transitionHz));
  return f;
}

void checkBandOrder(const FilterSpec& s) {
  if (s.kind == FilterKind::BandPass && !(s.lowHz < s.highHz)) {
    throw InvalidParameterError(
        "lowHz", formatNumber(s.lowHz) + "-" + formatNumber(s.highHz) + " Hz",
        "a low edge below the high edge", "Write the lower frequency first, e.g. bandpass:1-40");
  }
}

const ParamDecl& declOf(const std::string& key) { return filterParamTable().find(key)->decl; }
const ParamDecl& filterKindDecl() { return declOf("kind"); }
const ParamDecl& referenceKindDecl() { return referenceParamTable().find("kind")->decl; }

// "bandpass:LOW-HIGH" for one kind.
std::string kindSyntaxText(const KindSyntax& s) {
  std::string t = choiceName(filterKindNames(), s.kind) + ":";
  for (std::size_t i = 0; i < s.values.size(); ++i) t += (i ? "-" : "") + s.values[i].second;
  return t;
}

std::string joinAlternatives(const std::vector<std::string>& items) {
  std::string t;
  for (std::size_t i = 0; i < items.size(); ++i)
    t += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return t;
}

// The shortest fixed-notation text that reads back as `v` (no exponent: "bandpass:0.00001-40"
// must not contain a second '-').
std::string exactDecimal(double v) {
  std::string buf(400, '\0');
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed);
  if (r.ec != std::errc()) return formatNumber(v);
  buf.resize(static_cast<std::size_t>(r.ptr - buf.data()));
  return buf;
}

[[noreturn]] void refuseFilter(const std::string& text, const std::string& why,
                               const std::string& expected, const std::string& remedy = {}) {
  throw InvalidParameterError("filter", "'" + text + "'" + (why.empty() ? "" : " (" + why + ")"),
                              expected, remedy);
}

// One value of the text form: the declaration's parser and range, with an optional "Hz".
double parseFrequency(const std::string& whole, const KindSyntax& syntax, const ParamDecl& d,
                      std::string text) {
  text = trim(text);
  if (text.size() > 2 && equalsIgnoreCase(text.substr(text.size() - 2), "hz"))
    text = trim(text.substr(0, text.size() - 2));
  try {
    return std::get<double>(parseValue(d, text, d.key));
  } catch (const InvalidParameterError&) {
    refuseFilter(whole, "the " + toLower(d.label) + " '" + text + "'",
                 expectedText(d) + " (" + kindSyntaxText(syntax) + ")");
  }
}

}  // namespace

const ChoiceNames<FilterKind>& filterKindNames() {
  static const ChoiceNames<FilterKind> names = {{FilterKind::BandPass, "bandpass"},
                                                {FilterKind::HighPass, "highpass"},
                                                {FilterKind::LowPass, "lowpass"},
                                                {FilterKind::Notch, "notch"}};
  return names;
}

const ParamTable<FilterSpec>& filterParamTable() {
  static const ParamTable<FilterSpec> table(makeFilterFields(), checkBandOrder);
  return table;
}

const ParamTable<ReferenceSpec>& referenceParamTable() {
  static const ParamTable<ReferenceSpec> table({bindChoice<ReferenceSpec>(
      choiceParam(
          "kind", "reference", "Reference",
          {{"none", "As recorded", "keeps the recording's own reference", {"as-recorded"}},
           {"average",
            "Average",
            "subtracts the mean of the selected EEG channels (mne set_eeg_reference('average'))",
            {"car"}},
           {"mastoids",
            "Linked mastoids",
            "subtracts the mean of M1 and M2, else A1 and A2, else TP9 and TP10",
            {"linked-mastoids"}},
           {"channel", "Channel", "subtracts one electrode, named as in the recording", {}}})
          .because("applied to the EEG channels before the filters (EEGLAB pop_reref, MNE "
                   "set_eeg_reference)"),
      &ReferenceSpec::kind, kReferenceKindNames)});
  return table;
}

std::string filterSyntaxText() {
  std::vector<std::string> kinds;
  for (const KindSyntax& s : kindSyntaxes()) kinds.push_back(kindSyntaxText(s));
  return joinAlternatives(kinds) + " (frequencies in Hz)";
}

std::string filterSyntaxHelp() {
  std::string t;
  for (const KindSyntax& s : kindSyntaxes()) {
    const ParamChoice* c = findChoice(filterKindDecl(), choiceName(filterKindNames(), s.kind));
    t += kindSyntaxText(s) + ": " + c->help + ". ";
  }
  std::vector<std::string> seen;
  for (const KindSyntax& s : kindSyntaxes()) {
    for (const auto& [key, placeholder] : s.values) {
      if (std::find(seen.begin(), seen.end(), placeholder) != seen.end()) continue;
      seen.push_back(placeholder);
      const ParamDecl& d = declOf(key);
      t += placeholder + ": " + expectedText(d) + ", " + d.help + ". ";
    }
  }
  return t + "Repeat to chain filters.";
}

std::string referenceSyntaxText() {
  std::vector<std::string> kinds;
  for (const ParamChoice& c : referenceKindDecl().choices)
    kinds.push_back(c.name == "channel" ? "channel:NAME" : c.name);
  return joinAlternatives(kinds);
}

std::string referenceSyntaxHelp() {
  std::string t;
  for (const ParamChoice& c : referenceKindDecl().choices)
    t += (c.name == "channel" ? "channel:NAME" : c.name) + " " + c.help + "; ";
  return t + "default none.";
}

FilterSpec parseFilterSpec(const std::string& text) {
  const std::string t = trim(text);
  const auto colon = t.find(':');
  if (colon == std::string::npos)
    refuseFilter(text, "", filterSyntaxText(), "Example: --filter bandpass:1-40");
  const std::string kindText = trim(t.substr(0, colon));
  const ParamChoice* kind = findChoice(filterKindDecl(), kindText);
  if (!kind) refuseFilter(text, "unknown kind '" + toLower(kindText) + "'", filterSyntaxText());
  FilterSpec s;
  filterParamTable().find("kind")->set(s, kind->name);
  const KindSyntax& syntax = syntaxOf(s.kind);
  // The values, split at the '-' between them (a lone value may carry its own sign).
  std::vector<std::string> pieces;
  std::string rest = t.substr(colon + 1);
  for (std::size_t i = 0; i + 1 < syntax.values.size(); ++i) {
    const auto dash = rest.find('-');
    if (dash == std::string::npos) refuseFilter(text, "", kindSyntaxText(syntax));
    pieces.push_back(rest.substr(0, dash));
    rest = rest.substr(dash + 1);
  }
  pieces.push_back(rest);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const ParamField<FilterSpec>& field = *filterParamTable().find(syntax.values[i].first);
    field.set(s, parseFrequency(text, syntax, field.decl, pieces[i]));
  }
  try {
    filterParamTable().validate(s);
  } catch (const InvalidParameterError& e) {
    refuseFilter(text, "", e.expected(), e.remedy());
  }
  return s;
}

bool equivalentFilters(const FilterSpec& a, const FilterSpec& b) {
  if (a.kind != b.kind) return false;
  for (const auto& f : filterParamTable().fields())
    if (f.appliesTo(a) && f.get(a) != f.get(b)) return false;
  return true;
}

std::optional<std::string> filterSpecString(const FilterSpec& spec) {
  if (spec.transitionHz != 0.0 || (spec.kind == FilterKind::Notch && !spec.notchHarmonics))
    return std::nullopt;
  const KindSyntax& syntax = syntaxOf(spec.kind);
  std::string t = choiceName(filterKindNames(), spec.kind) + ":";
  for (std::size_t i = 0; i < syntax.values.size(); ++i) {
    const ParamField<FilterSpec>& field = *filterParamTable().find(syntax.values[i].first);
    t += (i ? "-" : "") + exactDecimal(std::get<double>(field.get(spec)));
  }
  return t;
}

ReferenceSpec parseReferenceSpec(const std::string& text) {
  const std::string t = trim(text);
  const auto colon = t.find(':');
  const std::string kindText = trim(t.substr(0, colon));
  const ParamChoice* kind = findChoice(referenceKindDecl(), kindText);
  if (!kind || kindText.empty())
    throw InvalidParameterError("reference", "'" + text + "'", referenceSyntaxText());
  ReferenceSpec s;
  referenceParamTable().find("kind")->set(s, kind->name);
  const std::string argument = colon == std::string::npos ? "" : trim(t.substr(colon + 1));
  if (s.kind == ReferenceKind::Channel) {
    if (argument.empty()) {
      throw InvalidParameterError("reference", "'" + text + "' (no channel name)",
                                  "channel:NAME, e.g. channel:Cz");
    }
    s.channel = argument;
  } else if (colon != std::string::npos) {
    throw InvalidParameterError("reference", "'" + text + "'", referenceSyntaxText(),
                                "Only channel:NAME takes a value after ':'");
  }
  return s;
}

}  // namespace modescope
