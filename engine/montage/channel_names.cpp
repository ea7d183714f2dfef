#include "engine/montage/channel_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <string_view>
#include <unordered_map>

#include "engine/core/text.h"
#include "resources/embedded_resources.h"

namespace modescope {
namespace {

// ---------------------------------------------------------------------------------------------
// The bundled tables (sappelhoff/eeg_positions, BSD-3): "label x y z" (3-D, unit sphere) and
// "label x y" (2-D projection), tab separated with a header line. Parsed once, on first use;
// C++ guarantees thread-safe initialisation of the function-local statics below.

struct SiteTable {
  std::vector<std::string> names;                        // table order, fiducials included
  std::vector<std::string> electrodeNames;               // without NAS/LPA/RPA
  std::unordered_map<std::string, std::size_t> byLower;  // lower-case name -> index
  std::vector<Position3> positions;
};

std::vector<std::string> splitWhitespace(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parseDouble(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}

// Rows of a bundled table: label plus `columns` numbers. The tables are compiled into the binary,
// so a malformed row is a build defect; it is skipped rather than taking the application down.
std::vector<std::pair<std::string, std::vector<double>>> parseTable(std::string_view text,
                                                                    std::size_t columns) {
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  std::size_t start = 0;
  bool header = true;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto fields = splitWhitespace(text.substr(start, end - start));
    start = end + 1;
    if (fields.empty()) continue;
    if (header) {  // "label x y [z]"
      header = false;
      continue;
    }
    if (fields.size() != columns + 1) continue;
    std::vector<double> values(columns);
    bool ok = true;
    for (std::size_t c = 0; c < columns && ok; ++c) ok = parseDouble(fields[c + 1], values[c]);
    if (ok) rows.emplace_back(fields[0], std::move(values));
  }
  return rows;
}

bool isFiducial(const std::string& name) { return name == "NAS" || name == "LPA" || name == "RPA"; }

const SiteTable& sites3D() {
  static const SiteTable table = [] {
    SiteTable t;
    for (auto& [name, v] :
         parseTable(embeddedResource("montages/eeg_positions_standard_1005_3D.tsv"), 3)) {
      t.byLower.emplace(toLower(name), t.names.size());
      t.positions.push_back({v[0], v[1], v[2]});
      if (!isFiducial(name)) t.electrodeNames.push_back(name);
      t.names.push_back(name);
    }
    return t;
  }();
  return table;
}

const std::unordered_map<std::string, std::pair<double, double>>& sites2D() {
  static const auto table = [] {
    std::unordered_map<std::string, std::pair<double, double>> t;
    for (auto& [name, v] :
         parseTable(embeddedResource("montages/eeg_positions_standard_1005_2D.tsv"), 2)) {
      t.emplace(toLower(name), std::make_pair(v[0], v[1]));
    }
    return t;
  }();
  return table;
}

// ---------------------------------------------------------------------------------------------
// Label cleaning.

// The bundled 10-05 table has only the modern names. The 10-20 system's old names T3/T4/T5/T6
// denote the sites the 10-10 nomenclature (American Clinical Neurophysiology Society, 2006)
// renamed T7/T8/P7/P8; they are looked up under the new name, but only when the table does not
// list the old one itself (table lookup comes first).
const std::map<std::string, std::string, std::less<>> kOldNames = {
    {"t3", "T7"}, {"t4", "T8"}, {"t5", "P7"}, {"t6", "P8"}};

// Earlobes (A1/A2) and mastoids (M1/M2) are recorded and used as references but are not part of
// the 10-05 table: known sites, no position.
const std::map<std::string, std::string, std::less<>> kReferenceSites = {
    {"a1", "A1"}, {"a2", "A2"}, {"m1", "M1"}, {"m2", "M2"}};

// Second electrodes that mean "referenced to": Fp1-REF, C3-A2, fp1-le (linked ears), -AR/-AVG
// (average), -M1M2 (linked mastoids). A second site like -F7 or -Cz makes a bipolar derivation
// unless the whole recording shares it (see applyStandardNames).
const char* const kReferenceWords[] = {"REF", "LE", "RE",   "AR",   "AVG",   "AV", "CAR",
                                       "A1",  "A2", "A1A2", "A12",  "M1",    "M2", "M1M2",
                                       "M12", "LM", "RM",   "LMAS", "LINKED"};

const char* const kTypePrefixes[] = {"EEG", "EOG", "ECG", "EKG", "EMG"};

bool isSeparator(char c) { return c == ' ' || c == '-' || c == '_' || c == ':' || c == '\t'; }

std::string stripTrailingDots(std::string s) {
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
  return s;
}

// Drops dots and blanks: PhysioNet/BCI2000 pads labels with dots ("Fc5.", "Iz..").
std::string compact(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '.' && !std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

std::string stripTypePrefix(const std::string& s) {
  for (const char* p : kTypePrefixes) {
    const std::size_t n = std::char_traits<char>::length(p);
    if (s.size() > n + 1 && startsWithIgnoreCase(s, p) && isSeparator(s[n])) {
      std::size_t i = n;
      while (i < s.size() && isSeparator(s[i])) ++i;
      return s.substr(i);
    }
  }
  return s;
}

bool isReferenceWord(std::string_view tail, const std::vector<std::string>& extraReferences) {
  const std::string t = toUpper(compact(tail));
  for (const char* w : kReferenceWords) {
    if (t == w) return true;
  }
  for (const auto& r : extraReferences) {
    if (equalsIgnoreCase(t, r)) return true;
  }
  return false;
}

// "Fp1-REF" -> "Fp1"; the separator is '-' or a blank ("Fp1 Ref").
std::string stripReferenceSuffix(const std::string& s,
                                 const std::vector<std::string>& extraReferences) {
  const std::size_t pos = s.find_last_of("- ");
  if (pos == std::string::npos || pos == 0) return s;
  if (!isReferenceWord(std::string_view(s).substr(pos + 1), extraReferences)) return s;
  return trim(s.substr(0, pos));
}

// A single site name in the table's spelling: table first, then old names, then reference sites.
struct SiteMatch {
  std::string name;
  bool found = false;
};

SiteMatch matchSite(std::string_view candidate) {
  const std::string key = toLower(compact(candidate));
  if (key.empty()) return {};
  const auto& t = sites3D();
  if (auto it = t.byLower.find(key); it != t.byLower.end()) return {t.names[it->second], true};
  if (auto it = kOldNames.find(key); it != kOldNames.end()) return {it->second, true};
  if (auto it = kReferenceSites.find(key); it != kReferenceSites.end()) return {it->second, true};
  return {};
}

NormalisedLabel normalise(const std::string& label,
                          const std::vector<std::string>& extraReferences) {
  const std::string cleaned = stripTrailingDots(trim(sanitizeUtf8(label)));
  if (cleaned.empty()) return {cleaned, false};

  std::string core = stripReferenceSuffix(stripTypePrefix(cleaned), extraReferences);
  if (SiteMatch m = matchSite(core); m.found) return {m.name, true};

  // Bipolar derivation of two sites ("Fp1-F7", "FP1-F7"): not one site, but spelled cleanly.
  if (const std::size_t dash = core.find('-'); dash != std::string::npos) {
    const SiteMatch a = matchSite(std::string_view(core).substr(0, dash));
    const SiteMatch b = matchSite(std::string_view(core).substr(dash + 1));
    if (a.found && b.found) return {a.name + "-" + b.name, false};
  }
  return {cleaned, false};
}

bool isBipolarOfSites(const std::string& name) {
  const std::size_t dash = name.find('-');
  if (dash == std::string::npos) return false;
  return matchSite(std::string_view(name).substr(0, dash)).found &&
         matchSite(std::string_view(name).substr(dash + 1)).found;
}

// BioSemi's ABC layout labels electrodes A1..A32, B1..B32, ... (mne_test.edf has A1..I8). Some
// of those strings are 10-05 names (C3, F7, P1) of different places, so a recording that uses the
// layout keeps its labels and gets no 10-05 positions.
bool looksLikeAbcLabel(const std::string& s) {
  if (s.size() < 2 || s.size() > 3 || s[0] < 'A' || s[0] > 'I') return false;
  if (!std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '0') return false;
  if (s.size() == 3 && !std::isdigit(static_cast<unsigned char>(s[2]))) return false;
  return std::atoi(s.c_str() + 1) <= 32;
}

bool usesAbcLayout(const std::vector<ChannelInfo>& channels) {
  int abc = 0, abcNotSite = 0;
  for (const auto& ch : channels) {
    const std::string l = trim(ch.label);
    if (!looksLikeAbcLabel(l)) continue;
    ++abc;
    if (!matchSite(l).found) ++abcNotSite;  // A3, B7, E12, ...: only ABC has those
  }
  return abc >= 16 && abcNotSite >= 8;
}

// A second electrode shared by most derivations is the recording's reference (e.g. every channel
// "X-Cz" in a vertex-referenced recording), whereas a double-banana montage repeats each second
// electrode at most twice. Returns those shared second electrodes.
std::vector<std::string> commonReferenceSuffixes(const std::vector<ChannelInfo>& channels) {
  std::map<std::string, int> counts;
  int withSuffix = 0;
  for (const auto& ch : channels) {
    const std::string s = stripTypePrefix(stripTrailingDots(trim(ch.label)));
    const std::size_t dash = s.rfind('-');
    if (dash == std::string::npos || dash == 0) continue;
    ++withSuffix;
    ++counts[toUpper(compact(s.substr(dash + 1)))];
  }
  std::vector<std::string> refs;
  for (const auto& [suffix, n] : counts) {
    if (n >= 3 && 2 * n > withSuffix && !suffix.empty()) refs.push_back(suffix);
  }
  return refs;
}

bool containsWord(const std::string& upper, std::string_view word) {
  return upper.find(word) != std::string::npos;
}

// The label's prefix followed by the end or a non-letter ("EOG", "EOG1", "EOG-L", "EEG Fp1").
bool hasTypePrefix(const std::string& upper, std::string_view prefix) {
  if (upper.compare(0, prefix.size(), prefix) != 0) return false;
  return upper.size() == prefix.size() ||
         !std::isalpha(static_cast<unsigned char>(upper[prefix.size()]));
}

std::string firstToken(const std::string& upper) {
  std::size_t i = 0;
  while (i < upper.size() && std::isalnum(static_cast<unsigned char>(upper[i]))) ++i;
  return upper.substr(0, i);
}

}  // namespace

NormalisedLabel normaliseChannelLabel(const std::string& label) { return normalise(label, {}); }

ChannelType guessChannelType(const std::string& label, const NormalisedLabel& normalised) {
  const std::string u = toUpper(trim(sanitizeUtf8(label)));
  // An explicit EDF+ type prefix wins ("EEG Fp1-REF", "EOG ROC", "EMG Chin").
  if (hasTypePrefix(u, "EEG")) return ChannelType::EEG;
  if (hasTypePrefix(u, "EOG")) return ChannelType::EOG;
  if (hasTypePrefix(u, "ECG") || hasTypePrefix(u, "EKG")) return ChannelType::ECG;
  if (hasTypePrefix(u, "EMG")) return ChannelType::EMG;

  const std::string token = firstToken(u);
  if (containsWord(u, "EOG") || token == "LOC" || token == "ROC") return ChannelType::EOG;
  if (containsWord(u, "ECG") || containsWord(u, "EKG")) return ChannelType::ECG;
  if (containsWord(u, "EMG") || containsWord(u, "CHIN")) return ChannelType::EMG;
  // BioSemi "Status", generic "Trigger"/"TRIG", Neuromag/MNE "STI 014", "STI101", "STIM".
  if (token == "STATUS" || u.rfind("TRIG", 0) == 0 || u.rfind("STI", 0) == 0) {
    return ChannelType::STIM;
  }
  if (normalised.isStandardSite || isBipolarOfSites(normalised.name)) return ChannelType::EEG;
  // BioSemi EXG1..8 (often EOG/EMG/mastoids, but the file does not say which), respiration,
  // temperature, SpO2, ...
  return ChannelType::MISC;
}

std::optional<Position3> standardPosition(const std::string& name) {
  const auto& t = sites3D();
  if (auto it = t.byLower.find(toLower(name)); it != t.byLower.end()) {
    return t.positions[it->second];
  }
  return std::nullopt;
}

std::optional<std::pair<double, double>> standardPosition2D(const std::string& name) {
  const auto& t = sites2D();
  if (auto it = t.find(toLower(name)); it != t.end()) return it->second;
  return std::nullopt;
}

const std::vector<std::string>& standardSiteNames() { return sites3D().electrodeNames; }

void applyStandardNames(std::vector<ChannelInfo>& channels) {
  const bool abc = usesAbcLayout(channels);
  const std::vector<std::string> refs = commonReferenceSuffixes(channels);

  std::vector<NormalisedLabel> norm(channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i) {
    auto& ch = channels[i];
    const std::string label = trim(ch.label);
    if (abc && looksLikeAbcLabel(label)) {
      norm[i] = {label, false};
      ch.name = label;
      ch.type = ChannelType::EEG;
      ch.position.reset();
      continue;
    }
    norm[i] = normalise(ch.label, refs);
    ch.name = norm[i].name;
    ch.type = guessChannelType(ch.label, norm[i]);
    ch.position = norm[i].isStandardSite ? standardPosition(norm[i].name) : std::nullopt;
  }

  // Two channels on one site ("C3-A1" and "C3-A2", or "Fp1" beside "EEG Fp1-REF") must stay
  // distinguishable by name: those fall back to their cleaned labels (position and type kept).
  std::map<std::string, int> uses;
  for (const auto& ch : channels) ++uses[toLower(ch.name)];
  for (auto& ch : channels) {
    if (!ch.name.empty() && uses[toLower(ch.name)] > 1) {
      ch.name = stripTrailingDots(trim(sanitizeUtf8(ch.label)));
    }
  }
}

}  // namespace modescope
