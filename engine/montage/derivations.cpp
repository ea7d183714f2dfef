#include "engine/montage/derivations.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <system_error>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

Derivation bipolar(const char* a, const char* b) {
  return {std::string(a) + "-" + b, {{a, 1.0}, {b, -1.0}}};
}

// Consecutive pairs of a chain of sites: Fp1, F7, T7 -> Fp1-F7, F7-T7.
void addChain(DerivationMontage& m, std::initializer_list<const char*> chain) {
  const std::vector<const char*> sites(chain);
  for (std::size_t i = 0; i + 1 < sites.size(); ++i)
    m.rows.push_back(bipolar(sites[i], sites[i + 1]));
}

std::vector<std::size_t> eegChannels(const Recording& rec) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    if (rec.channels[i].type == ChannelType::EEG) out.push_back(i);
  }
  return out;
}

const std::string& nameOf(const ChannelInfo& c) { return c.name.empty() ? c.label : c.name; }

// Reads the rows of the base source and sums them with their weights.
class DerivedSource final : public SignalSource {
 public:
  struct Row {
    std::vector<std::size_t> channels;
    std::vector<float> weights;
  };
  DerivedSource(std::shared_ptr<const SignalSource> base, std::vector<Row> rows)
      : base_(std::move(base)), rows_(std::move(rows)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    const Row& row = rows_.at(channel);
    std::fill(out, out + count, 0.0f);
    std::vector<float> buffer(static_cast<std::size_t>(count));
    for (std::size_t t = 0; t < row.channels.size(); ++t) {
      base_->read(row.channels[t], first, count, buffer.data());
      const float w = row.weights[t];
      for (int64_t i = 0; i < count; ++i) out[i] += w * buffer[static_cast<std::size_t>(i)];
    }
  }

 private:
  std::shared_ptr<const SignalSource> base_;
  std::vector<Row> rows_;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The shortest decimal that reads back as the same double, without an exponent (the expression
// syntax reads no "1e-05"): a saved average or Laplacian keeps its exact weights, so a montage
// applied from a file or a pipeline gives the samples the window's montage gave.
std::string weightText(double w) {
  std::string buf(400, '\0');
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), w, std::chars_format::fixed);
  if (r.ec != std::errc()) return formatNumber(w);
  buf.resize(static_cast<std::size_t>(r.ptr - buf.data()));
  return buf;
}

std::string channelText(const std::string& name) {
  const bool plain = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '\'';
  });
  return plain && !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]))
             ? name
             : "\"" + name + "\"";
}

// Parses "[+|-] [weight*]channel ..." into terms; throws with `where` ("file, line 3").
std::vector<DerivationTerm> parseExpression(const std::string& expr, const std::string& source,
                                            int line) {
  std::vector<DerivationTerm> terms;
  std::size_t i = 0;
  auto fail = [&](const std::string& found) {
    throw InvalidInputError(source, "line " + std::to_string(line), found,
                            "terms like \"Fp1 - F7\" or \"C3 - 0.25*F3 - 0.25*P3\" (a channel "
                            "name, optionally a weight and '*', joined by + or -)",
                            "Fix that line of the montage");
  };
  auto skipSpace = [&] {
    while (i < expr.size() && std::isspace(static_cast<unsigned char>(expr[i]))) ++i;
  };
  skipSpace();
  if (i == expr.size()) fail("no terms");
  while (i < expr.size()) {
    double sign = 1.0;
    if (expr[i] == '+' || expr[i] == '-') {
      sign = expr[i] == '-' ? -1.0 : 1.0;
      ++i;
      skipSpace();
    } else if (!terms.empty()) {
      fail("\"" + expr.substr(i) + "\" (a term must follow + or -)");
    }
    double weight = 1.0;
    // A weight: a number followed by '*'.
    std::size_t j = i;
    while (j < expr.size() && (std::isdigit(static_cast<unsigned char>(expr[j])) ||
                               expr[j] == '.' || expr[j] == 'e' || expr[j] == 'E'))
      ++j;
    std::size_t k = j;
    while (k < expr.size() && std::isspace(static_cast<unsigned char>(expr[k]))) ++k;
    if (j > i && k < expr.size() && expr[k] == '*') {
      try {
        weight = std::stod(expr.substr(i, j - i));
      } catch (const std::exception&) {
        fail("the weight \"" + expr.substr(i, j - i) + "\"");
      }
      i = k + 1;
      skipSpace();
    }
    std::string channel;
    if (i < expr.size() && expr[i] == '"') {
      const std::size_t close = expr.find('"', i + 1);
      if (close == std::string::npos) fail("an unclosed quote");
      channel = expr.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      const std::size_t start = i;
      while (i < expr.size() && !std::isspace(static_cast<unsigned char>(expr[i])) &&
             expr[i] != '+' && expr[i] != '-' && expr[i] != '*')
        ++i;
      channel = expr.substr(start, i - start);
    }
    if (channel.empty()) fail("\"" + expr + "\" (a sign or weight without a channel)");
    if (!std::isfinite(weight)) fail("a weight that is not finite");
    terms.push_back({channel, sign * weight});
    skipSpace();
  }
  return terms;
}

}  // namespace

DerivationMontage longitudinalBipolar1020() {
  DerivationMontage m;
  m.name = "Double banana (longitudinal bipolar)";
  addChain(m, {"Fp1", "F7", "T7", "P7", "O1"});  // left temporal
  addChain(m, {"Fp2", "F8", "T8", "P8", "O2"});  // right temporal
  addChain(m, {"Fp1", "F3", "C3", "P3", "O1"});  // left parasagittal
  addChain(m, {"Fp2", "F4", "C4", "P4", "O2"});  // right parasagittal
  addChain(m, {"Fz", "Cz", "Pz"});               // midline
  return m;
}

DerivationMontage transverseBipolar1020() {
  DerivationMontage m;
  m.name = "Transverse bipolar";
  addChain(m, {"F7", "Fp1", "Fp2", "F8"});
  addChain(m, {"F7", "F3", "Fz", "F4", "F8"});
  addChain(m, {"T7", "C3", "Cz", "C4", "T8"});
  addChain(m, {"P7", "P3", "Pz", "P4", "P8"});
  addChain(m, {"P7", "O1", "O2", "P8"});
  return m;
}

DerivationMontage averageDerivations(const Recording& rec) {
  DerivationMontage m;
  m.name = "Average reference";
  const auto eeg = eegChannels(rec);
  const double share = eeg.empty() ? 0.0 : 1.0 / static_cast<double>(eeg.size());
  for (std::size_t c : eeg) {
    Derivation d;
    d.label = nameOf(rec.channels[c]) + "-Avg";
    for (std::size_t o : eeg)
      d.terms.push_back({nameOf(rec.channels[o]), (o == c ? 1.0 : 0.0) - share});
    m.rows.push_back(std::move(d));
  }
  return m;
}

DerivationMontage linkedMastoidDerivations(const Recording& rec) {
  static constexpr std::array<std::array<const char*, 2>, 3> kPairs = {
      {{"M1", "M2"}, {"A1", "A2"}, {"TP9", "TP10"}}};
  for (const auto& pair : kPairs) {
    const int left = rec.findChannel(pair[0]);
    const int right = rec.findChannel(pair[1]);
    if (left < 0 || right < 0) continue;
    DerivationMontage m;
    m.name = std::string("Linked mastoids (") + pair[0] + "+" + pair[1] + ")/2";
    for (std::size_t c : eegChannels(rec)) {
      if (static_cast<int>(c) == left || static_cast<int>(c) == right) continue;
      m.rows.push_back({nameOf(rec.channels[c]) + "-LM",
                        {{nameOf(rec.channels[c]), 1.0},
                         {nameOf(rec.channels[static_cast<std::size_t>(left)]), -0.5},
                         {nameOf(rec.channels[static_cast<std::size_t>(right)]), -0.5}}});
    }
    return m;
  }
  throw InvalidParameterError("montage",
                              "linked mastoids, but the recording has no M1/M2, A1/A2 or "
                              "TP9/TP10 pair",
                              "a recording with both mastoid (or earlobe) electrodes",
                              "Use the average reference or a bipolar montage instead");
}

DerivationMontage laplacianDerivations(const Recording& rec, int neighbours) {
  if (neighbours < 1) {
    throw InvalidParameterError("Laplacian neighbours", std::to_string(neighbours), "1 or more");
  }
  DerivationMontage m;
  m.name = "Laplacian (Hjorth, " + std::to_string(neighbours) + " nearest neighbours)";
  std::vector<std::size_t> placed;
  for (std::size_t c : eegChannels(rec)) {
    if (rec.channels[c].position) placed.push_back(c);
  }
  auto unit = [](const Position3& p) {
    const double n = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    return n > 0 ? Position3{p.x / n, p.y / n, p.z / n} : p;
  };
  const auto k = static_cast<std::size_t>(neighbours);
  if (placed.size() <= k) return m;  // too few electrodes: no row has enough neighbours
  for (std::size_t c : placed) {
    const Position3 pc = unit(*rec.channels[c].position);
    std::vector<std::pair<double, std::size_t>> byAngle;
    for (std::size_t o : placed) {
      if (o == c) continue;
      const Position3 po = unit(*rec.channels[o].position);
      const double cosine = std::clamp(pc.x * po.x + pc.y * po.y + pc.z * po.z, -1.0, 1.0);
      byAngle.emplace_back(std::acos(cosine), o);
    }
    std::partial_sort(byAngle.begin(), byAngle.begin() + static_cast<std::ptrdiff_t>(k),
                      byAngle.end());
    Derivation d;
    d.label = nameOf(rec.channels[c]) + "-Lap";
    d.terms.push_back({nameOf(rec.channels[c]), 1.0});
    for (std::size_t i = 0; i < k; ++i)
      d.terms.push_back({nameOf(rec.channels[byAngle[i].second]), -1.0 / static_cast<double>(k)});
    m.rows.push_back(std::move(d));
  }
  return m;
}

std::string formatMontageText(const DerivationMontage& montage) {
  std::ostringstream out;
  out << "# ModeScope montage: one derivation per line, \"label: expression\"\n";
  out << "name: " << montage.name << "\n";
  for (const Derivation& d : montage.rows) out << formatDerivation(d) << "\n";
  return out.str();
}

std::string formatDerivation(const Derivation& d) {
  std::string s = d.label + ":";
  for (std::size_t t = 0; t < d.terms.size(); ++t) {
    const double w = d.terms[t].weight;
    s += w < 0 ? " - " : (t == 0 ? " " : " + ");
    if (std::abs(w) != 1.0) s += weightText(std::abs(w)) + "*";
    s += channelText(d.terms[t].channel);
  }
  return s;
}

DerivationMontage parseMontageText(const std::string& text, const std::string& sourceName) {
  DerivationMontage m;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trim(raw);
    if (s.empty() || s[0] == '#') continue;
    if (toLower(s.substr(0, 5)) == "name:") {
      m.name = trim(s.substr(5));
      continue;
    }
    // The label ends at the first ':' outside quotes.
    std::size_t colon = std::string::npos;
    bool quoted = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '"') quoted = !quoted;
      if (s[i] == ':' && !quoted) {
        colon = i;
        break;
      }
    }
    Derivation d;
    d.label = colon == std::string::npos ? s : trim(s.substr(0, colon));
    d.terms =
        parseExpression(colon == std::string::npos ? s : s.substr(colon + 1), sourceName, line);
    if (d.label.empty()) {
      throw InvalidInputError(sourceName, "line " + std::to_string(line), "an empty label",
                              "\"label: expression\"", "Name the derivation before the ':'");
    }
    m.rows.push_back(std::move(d));
  }
  if (m.rows.empty()) {
    throw InvalidInputError(sourceName, "montage", "no derivation",
                            "at least one line \"label: expression\" (e.g. \"Fp1-F7: Fp1 - F7\")",
                            "Add derivations, or choose another file");
  }
  return m;
}

std::shared_ptr<const Recording> derivedRecording(std::shared_ptr<const Recording> base,
                                                  const DerivationMontage& montage,
                                                  std::vector<std::string>* skipped) {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = base->sourcePath;
  rec->info = base->info;
  rec->annotations = base->annotations;
  rec->diagnostics = base->diagnostics;
  std::vector<DerivedSource::Row> rows;
  for (const Derivation& d : montage.rows) {
    DerivedSource::Row row;
    std::string problem;
    double rate = 0.0;
    int64_t samples = 0;
    for (const DerivationTerm& t : d.terms) {
      const int c = base->findChannel(t.channel);
      if (c < 0) {
        problem = "no channel " + t.channel;
        break;
      }
      const ChannelInfo& info = base->channels[static_cast<std::size_t>(c)];
      if (rate != 0.0 && info.sampleRate != rate) {
        problem = t.channel + " has another sample rate";
        break;
      }
      rate = info.sampleRate;
      samples = row.channels.empty() ? info.sampleCount : std::min(samples, info.sampleCount);
      row.channels.push_back(static_cast<std::size_t>(c));
      row.weights.push_back(static_cast<float>(t.weight));
    }
    if (problem.empty() && row.channels.empty()) problem = "no terms";
    if (!problem.empty()) {
      if (skipped) skipped->push_back(d.label + ": " + problem);
      continue;
    }
    ChannelInfo info;
    const ChannelInfo& first = base->channels[row.channels.front()];
    info.label = info.name = d.label;
    info.type = first.type;
    info.unit = first.unit;
    info.sampleRate = rate;
    info.sampleCount = samples;
    for (std::size_t t = 0; t < row.channels.size(); ++t) {
      if (row.weights[t] > 0) {
        info.position = base->channels[row.channels[t]].position;
        break;
      }
    }
    rec->channels.push_back(std::move(info));
    rows.push_back(std::move(row));
  }
  rec->source = std::make_shared<DerivedSource>(base->source, std::move(rows));
  return rec;
}

}  // namespace modescope
