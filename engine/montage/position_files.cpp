#include "engine/montage/position_files.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

struct Line {
  int number;  // 1-based, for messages
  std::string text;
};

std::vector<Line> readLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InvalidInputError(path, "file", "cannot be opened", "a readable electrode position file",
                            "check the path and the permissions");
  }
  std::vector<Line> lines;
  std::string s;
  int n = 0;
  while (std::getline(in, s)) {
    ++n;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    const std::string t = trim(s);
    if (t.empty() || t[0] == '#' || t.rfind("//", 0) == 0) continue;  // comments
    lines.push_back({n, s});
  }
  return lines;
}

std::vector<std::string> tokens(const std::string& s, bool tabsOnly = false) {
  std::vector<std::string> out;
  if (tabsOnly) {
    for (auto& f : split(s, '\t')) out.push_back(trim(f));
    return out;
  }
  std::istringstream in(s);
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

bool toNumber(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

[[noreturn]] void badLine(const std::string& path, const Line& line, const std::string& expected) {
  throw InvalidInputError(path, "line " + std::to_string(line.number), printableBytes(line.text),
                          expected, "fix or remove the line");
}

// .tsv/.txt with a header naming the columns.
void readTsv(const std::string& path, const std::vector<Line>& lines, ElectrodeLocations& out) {
  if (lines.empty()) return;
  const bool tabs = lines[0].text.find('\t') != std::string::npos;
  const auto header = tokens(lines[0].text, tabs);
  int label = -1, x = -1, y = -1, z = -1;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string h = toLower(header[i]);
    if (h == "label" || h == "name") label = i;
    if (h == "x") x = i;
    if (h == "y") y = i;
    if (h == "z") z = i;
  }
  if (label < 0 || x < 0 || y < 0 || z < 0) {
    badLine(path, lines[0], "a header naming the columns label (or name), x, y and z");
  }
  const std::size_t need = static_cast<std::size_t>(std::max({label, x, y, z})) + 1;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto f = tokens(lines[i].text, tabs);
    if (f.size() < need) badLine(path, lines[i], "label x y z in the header's columns");
    // BIDS writes "n/a" for electrodes whose position is unknown: not an error, no position.
    if (toLower(f[x]) == "n/a" || toLower(f[y]) == "n/a" || toLower(f[z]) == "n/a") continue;
    Position3 p;
    if (!toNumber(f[x], p.x) || !toNumber(f[y], p.y) || !toNumber(f[z], p.z)) {
      badLine(path, lines[i], "numbers in the x, y and z columns");
    }
    out.electrodes.push_back({f[label], p});
  }
}

// BESA spherical .elp: "[type] label polar azimuth [radius]".
void readBesaElp(const std::string& path, const std::vector<Line>& lines, ElectrodeLocations& out) {
  constexpr double kDeg = std::numbers::pi / 180.0;
  for (const auto& line : lines) {
    const auto f = tokens(line.text);
    std::size_t numbers = 0;
    double v;
    while (numbers < f.size() && toNumber(f[f.size() - 1 - numbers], v)) ++numbers;
    if (numbers == f.size() && numbers == 1) continue;  // a leading electrode count
    const std::size_t names = f.size() - numbers;
    if (numbers < 2 || numbers > 3 || names > 2) {
      badLine(path, line, "[type] label polar azimuth [radius], angles in degrees");
    }
    double polar = 0, azimuth = 0;
    toNumber(f[names], polar);
    toNumber(f[names + 1], azimuth);
    const std::string label =
        names == 0 ? "E" + std::to_string(out.electrodes.size() + 1) : f[names - 1];
    const Position3 p{std::sin(polar * kDeg) * std::cos(azimuth * kDeg),
                      std::sin(polar * kDeg) * std::sin(azimuth * kDeg), std::cos(polar * kDeg)};
    out.electrodes.push_back({label, p});
  }
}

// .sfp: "label x y z".
void readSfp(const std::string& path, const std::vector<Line>& lines, ElectrodeLocations& out) {
  for (const auto& line : lines) {
    const auto f = tokens(line.text);
    Position3 p;
    if (f.size() != 4 || !toNumber(f[1], p.x) || !toNumber(f[2], p.y) || !toNumber(f[3], p.z)) {
      badLine(path, line, "label x y z");
    }
    out.electrodes.push_back({f[0], p});
  }
}

// ASA .elc: keywords, a Positions section and a Labels section.
void readAsaElc(const std::string& path, const std::vector<Line>& lines, ElectrodeLocations& out) {
  enum class Section { None, Positions, Labels } section = Section::None;
  std::vector<std::pair<std::string, Position3>> positions;  // label may be empty
  std::vector<std::string> labels;
  for (const auto& line : lines) {
    const std::string t = trim(line.text);
    const auto f = tokens(t);
    if (equalsIgnoreCase(t, "Positions")) {
      section = Section::Positions;
      continue;
    }
    if (equalsIgnoreCase(t, "Labels")) {
      section = Section::Labels;
      continue;
    }
    if (f.size() >= 2 && equalsIgnoreCase(f[0], "UnitPosition")) {
      out.unit = f[1];
      continue;
    }
    if (section == Section::Positions) {
      std::string label;
      std::string numbersPart = t;
      if (const auto colon = t.find(':'); colon != std::string::npos) {
        label = trim(t.substr(0, colon));
        numbersPart = t.substr(colon + 1);
      }
      const auto n = tokens(numbersPart);
      Position3 p;
      if (n.size() == 3 && toNumber(n[0], p.x) && toNumber(n[1], p.y) && toNumber(n[2], p.z)) {
        positions.emplace_back(label, p);
        continue;
      }
      section = Section::None;  // another keyword ends the section
    } else if (section == Section::Labels) {
      if (t.find('=') == std::string::npos) {
        for (auto& l : tokens(t)) labels.push_back(l);
        continue;
      }
      section = Section::None;
    }
  }
  const bool inlineLabels = !positions.empty() && !positions.front().first.empty();
  if (!inlineLabels && labels.size() != positions.size()) {
    throw InvalidInputError(path, "Labels", std::to_string(labels.size()) + " labels",
                            std::to_string(positions.size()) + " labels, one per position",
                            "make the Labels section list one label per position");
  }
  for (std::size_t i = 0; i < positions.size(); ++i) {
    out.electrodes.push_back({inlineLabels ? positions[i].first : labels[i], positions[i].second});
  }
}

// --- geometry -----------------------------------------------------------------------------------

Position3 sub(const Position3& a, const Position3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double dot(const Position3& a, const Position3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double norm(const Position3& a) { return std::sqrt(dot(a, a)); }
Position3 scale(const Position3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
Position3 cross(const Position3& a, const Position3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

bool isOneOf(const std::string& label, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (equalsIgnoreCase(label, n)) return true;
  }
  return false;
}
bool isNasion(const std::string& l) { return isOneOf(l, {"NAS", "Nasion", "FidNz"}); }
bool isLpa(const std::string& l) { return isOneOf(l, {"LPA", "FidT9"}); }
bool isRpa(const std::string& l) { return isOneOf(l, {"RPA", "FidT10"}); }
bool isFiducial(const std::string& l) { return isNasion(l) || isLpa(l) || isRpa(l); }

// Least-squares sphere: |p|^2 = 2 c.p + k for all p, linear in (c, k); solved by the normal
// equations with partial pivoting. Returns false when the points do not determine a sphere.
bool fitSphere(const std::vector<Position3>& pts, Position3& centre) {
  if (pts.size() < 4) return false;
  std::array<std::array<double, 5>, 4> m{};  // [A^T A | A^T b]
  for (const auto& p : pts) {
    const double row[4] = {2 * p.x, 2 * p.y, 2 * p.z, 1.0};
    const double b = dot(p, p);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) m[i][j] += row[i] * row[j];
      m[i][4] += row[i] * b;
    }
  }
  const double scaleRef = std::max({m[0][0], m[1][1], m[2][2], m[3][3]});
  for (int c = 0; c < 4; ++c) {
    int piv = c;
    for (int r = c + 1; r < 4; ++r) {
      if (std::abs(m[r][c]) > std::abs(m[piv][c])) piv = r;
    }
    // Coplanar or too few distinct points: the system is (nearly) singular.
    if (std::abs(m[piv][c]) < 1e-10 * scaleRef) return false;
    std::swap(m[c], m[piv]);
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (int k = c; k < 5; ++k) m[r][k] -= f * m[c][k];
    }
  }
  centre = {m[0][4] / m[0][0], m[1][4] / m[1][1], m[2][4] / m[2][2]};
  const double r2 = m[3][4] / m[3][3] + dot(centre, centre);
  if (!(r2 > 0) || !std::isfinite(r2)) return false;
  // A cap that only weakly constrains the sphere can put the centre outside the head: reject
  // fits whose points stray from the sphere by more than 10 % of the radius.
  const double r = std::sqrt(r2);
  double ss = 0;
  for (const auto& p : pts) ss += std::pow(norm(sub(p, centre)) - r, 2);
  return std::sqrt(ss / pts.size()) < 0.1 * r && norm(centre) < r;
}

}  // namespace

ElectrodeLocations readElectrodeLocations(const std::string& path) {
  ElectrodeLocations out;
  out.path = path;
  const std::string ext = toLower(std::filesystem::path(path).extension().string());
  const auto lines = readLines(path);
  if (ext == ".tsv" || ext == ".txt") {
    out.format = "tsv";
    readTsv(path, lines, out);
  } else if (ext == ".elp") {
    out.format = "BESA elp";
    readBesaElp(path, lines, out);
  } else if (ext == ".sfp") {
    out.format = "sfp";
    readSfp(path, lines, out);
  } else if (ext == ".elc") {
    out.format = "ASA elc";
    readAsaElc(path, lines, out);
  } else {
    throw InvalidInputError(path, "extension", ext.empty() ? "(none)" : ext,
                            ".tsv, .txt, .elp (BESA spherical), .sfp or .elc",
                            "convert the positions to one of these formats");
  }
  if (out.electrodes.empty()) {
    throw InvalidInputError(path, "electrodes", "none", "at least one electrode position",
                            "check that the file is an electrode position file");
  }
  return out;
}

std::vector<ElectrodeLocation> toUnitSphere(const ElectrodeLocations& file) {
  std::vector<ElectrodeLocation> pts = file.electrodes;

  const ElectrodeLocation *nas = nullptr, *lpa = nullptr, *rpa = nullptr;
  for (const auto& e : file.electrodes) {
    if (!nas && isNasion(e.label)) nas = &e;
    if (!lpa && isLpa(e.label)) lpa = &e;
    if (!rpa && isRpa(e.label)) rpa = &e;
  }
  if (nas && lpa && rpa) {
    const Position3 lr = sub(rpa->position, lpa->position);
    if (norm(lr) > 0) {
      const Position3 ex = scale(lr, 1.0 / norm(lr));
      const Position3 origin = [&] {
        const double t = dot(sub(nas->position, lpa->position), ex);
        const Position3 s = scale(ex, t);
        return Position3{lpa->position.x + s.x, lpa->position.y + s.y, lpa->position.z + s.z};
      }();
      const Position3 toNas = sub(nas->position, origin);
      if (norm(toNas) > 0) {
        const Position3 ey = scale(toNas, 1.0 / norm(toNas));
        const Position3 ez = cross(ex, ey);
        for (auto& e : pts) {
          const Position3 d = sub(e.position, origin);
          e.position = {dot(d, ex), dot(d, ey), dot(d, ez)};
        }
      }
    }
  }

  std::vector<Position3> electrodes;
  for (const auto& e : pts) {
    if (!isFiducial(e.label)) electrodes.push_back(e.position);
  }
  Position3 centre{0, 0, 0};
  if (!fitSphere(electrodes, centre)) centre = {0, 0, 0};

  std::vector<ElectrodeLocation> out;
  for (auto& e : pts) {
    const Position3 d = sub(e.position, centre);
    const double r = norm(d);
    if (r > 0 && std::isfinite(r)) out.push_back({e.label, scale(d, 1.0 / r)});
  }
  return out;
}

std::size_t applyElectrodeLocations(std::vector<ChannelInfo>& channels,
                                    const ElectrodeLocations& file) {
  std::map<std::string, Position3> byName;
  for (const auto& e : toUnitSphere(file)) {
    byName.emplace(toLower(normaliseChannelLabel(e.label).name), e.position);
  }
  std::size_t applied = 0;
  for (auto& ch : channels) {
    auto it = byName.find(toLower(normaliseChannelLabel(ch.label).name));
    if (it == byName.end() && !ch.name.empty()) it = byName.find(toLower(ch.name));
    if (it == byName.end()) continue;
    ch.position = it->second;
    ++applied;
  }
  return applied;
}

}  // namespace modescope
