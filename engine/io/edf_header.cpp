// EDF/EDF+/BDF/BDF+ header checker. Field layout and rules from the EDF spec (Kemp et al. 1992),
// the EDF+ spec (Kemp & Olivan 2003, edfplus.info/specs) and BioSemi's BDF description. The
// "refusedByEdflib" marks follow EDFlib 1.23's documented and observed behaviour (its
// edfopen_file_readonly returns -3 for these); docs/readers.md lists them.
#include "engine/io/edf_header.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/edf_tal_check.h"

namespace modescope {
namespace {

// Bounds beyond which a field is absurd: no recorder writes such files, and trusting the value
// would make a reader allocate or seek without limit.
constexpr long long kMaxSignals = 4096;
constexpr long long kEdflibMaxSignals = 640;            // EDFLIB_MAXSIGNALS
constexpr long long kMaxSamplesPerRecord = 10'000'000;  // per signal
constexpr long long kMaxRecordBytes = 1LL << 30;        // one data record, all signals
constexpr double kMaxRecordDuration = 1e6;              // s (11.6 days in one record)
constexpr long long kEdflibMaxRecordBytesEdf = 10LL * 1024 * 1024;
constexpr long long kEdflibMaxRecordBytesBdf = 15LL * 1024 * 1024;
constexpr std::string_view kBdfMagic{"\377BIOSEMI", 8};  // 0xFF then "BIOSEMI"

struct SignalFieldSpec {
  const char* name;
  int width;
};
// The ten per-signal fields in file order; each is stored for all signals before the next.
constexpr SignalFieldSpec kSignalFields[] = {
    {"label", 16},           {"transducer type", 80}, {"physical dimension", 8},
    {"physical minimum", 8}, {"physical maximum", 8}, {"digital minimum", 8},
    {"digital maximum", 8},  {"prefiltering", 80},    {"number of samples in each data record", 8},
    {"reserved", 32}};

std::string quoted(std::string_view s) { return "'" + printableBytes(s) + "'"; }

bool isPrintableAscii(std::string_view s, std::size_t* badIndex = nullptr) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 32 || c > 126) {
      if (badIndex) *badIndex = i;
      return false;
    }
  }
  return true;
}

bool allSpaces(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' '; });
}

// A number field: left-justified ASCII, padded with spaces. `leftJustified` is false when the
// text starts with spaces (EDFlib refuses that; MNE and BioSig accept it).
struct NumberField {
  bool ok = false;
  bool leftJustified = true;
  bool overflow = false;
  double value = 0;
  long long integer = 0;
};

NumberField parseNumberField(std::string_view raw, bool integerOnly) {
  NumberField r;
  std::size_t b = 0, e = raw.size();
  while (b < e && raw[b] == ' ') ++b;
  r.leftJustified = (b == 0);
  while (e > b && (raw[e - 1] == ' ' || raw[e - 1] == '\0')) --e;
  std::string_view t = raw.substr(b, e - b);
  if (t.empty()) return r;
  // Grammar: [+-] digits [. digits] [e [+-] digits]; at least one digit before any exponent.
  std::size_t i = 0;
  if (t[i] == '+' || t[i] == '-') ++i;
  std::size_t digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  if (!integerOnly && i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return r;
  if (!integerOnly && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t expDigits = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++expDigits;
    if (expDigits == 0) return r;
  }
  if (i != t.size()) return r;
  std::string_view num = t;
  if (num.front() == '+') num.remove_prefix(1);  // from_chars takes no '+'
  if (integerOnly) {
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), r.integer);
    if (ec == std::errc::result_out_of_range) {
      r.overflow = true;
      return r;
    }
    if (ec != std::errc() || p != num.data() + num.size()) return r;
    r.value = static_cast<double>(r.integer);
  } else {
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), r.value);
    if (ec == std::errc::result_out_of_range || !std::isfinite(r.value)) {
      r.overflow = true;
      return r;
    }
    if (ec != std::errc() || p != num.data() + num.size()) return r;
  }
  r.ok = true;
  return r;
}

bool twoDigits(std::string_view s, std::size_t at, int* out) {
  if (at + 2 > s.size() || !std::isdigit(static_cast<unsigned char>(s[at])) ||
      !std::isdigit(static_cast<unsigned char>(s[at + 1]))) {
    return false;
  }
  *out = (s[at] - '0') * 10 + (s[at + 1] - '0');
  return true;
}

constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};

// "dd-MMM-yyyy" with an upper-case English month, as EDF+ requires. Returns the month 1..12.
bool parseEdfPlusDate(std::string_view s, int* day, int* month, int* year) {
  if (s.size() != 11 || s[2] != '-' || s[6] != '-') return false;
  int d = 0, y1 = 0, y2 = 0;
  if (!twoDigits(s, 0, &d) || !twoDigits(s, 7, &y1) || !twoDigits(s, 9, &y2)) return false;
  if (d < 1 || d > 31) return false;
  for (int m = 0; m < 12; ++m) {
    if (s.substr(3, 3) == kMonths[m]) {
      *day = d;
      *month = m + 1;
      *year = y1 * 100 + y2;
      return true;
    }
  }
  return false;
}

class Checker {
 public:
  explicit Checker(EdfCheck& out) : out_(out) {}

  void add(bool fatal, std::string field, std::string found, std::string expected,
           bool refusedByEdflib) {
    // A fatal finding stops us before EDFlib is asked, so the EDFlib mark is for the others.
    out_.findings.push_back({fatal, std::move(field), std::move(found), std::move(expected),
                             refusedByEdflib && !fatal});
  }
  void fatal(std::string field, std::string found, std::string expected) {
    add(true, std::move(field), std::move(found), std::move(expected), true);
  }
  void refused(std::string field, std::string found, std::string expected) {
    add(false, std::move(field), std::move(found), std::move(expected), true);
  }
  void note(std::string field, std::string found, std::string expected) {
    add(false, std::move(field), std::move(found), std::move(expected), false);
  }

  // Per-signal findings of one kind are reported once, with the number of signals affected, so
  // a 256-channel file with one systematic flaw gives one line, not 256.
  void signalFinding(const std::string& key, bool fatalFinding, bool refusedByEdflib,
                     std::string field, std::string found, std::string expected) {
    auto it = grouped_.find(key);
    if (it != grouped_.end()) {
      ++it->second.count;
      return;
    }
    grouped_[key] = {out_.findings.size(), 1};
    add(fatalFinding, std::move(field), std::move(found), std::move(expected), refusedByEdflib);
  }
  void finishGroups() {
    for (const auto& [key, g] : grouped_) {
      if (g.count > 1) {
        out_.findings[g.index].found += " (and " + std::to_string(g.count - 1) + " more signal" +
                                        (g.count > 2 ? "s" : "") + ")";
      }
    }
  }

 private:
  struct Group {
    std::size_t index;
    int count;
  };
  EdfCheck& out_;
  std::map<std::string, Group> grouped_;
};

std::string signalName(const EdfHeader& h, std::size_t i) {
  std::string s = "signal " + std::to_string(i + 1);
  if (i < h.signals.size() && !h.signals[i].label.empty()) {
    s += " (" + quoted(h.signals[i].label) + ")";
  }
  return s;
}

void checkPrintable(Checker& c, std::string_view raw, const std::string& field) {
  std::size_t bad = 0;
  if (!isPrintableAscii(raw, &bad)) {
    c.refused(field, quoted(trim(raw)) + " (byte " + std::to_string(bad + 1) + ")",
              "printable ASCII (bytes 32-126) only");
  }
}

void checkDate(Checker& c, std::string_view raw) {
  int d = 0, m = 0, y = 0;
  const bool shape = raw.size() == 8 && raw[2] == '.' && raw[5] == '.' && twoDigits(raw, 0, &d) &&
                     twoDigits(raw, 3, &m) && twoDigits(raw, 6, &y);
  if (!shape || d < 1 || d > 31 || m < 1 || m > 12) {
    c.refused("start date", quoted(raw), "dd.mm.yy (day 1-31, month 1-12)");
  }
}

void checkTime(Checker& c, std::string_view raw) {
  int hh = 0, mm = 0, ss = 0;
  const bool shape = raw.size() == 8 && raw[2] == '.' && raw[5] == '.' && twoDigits(raw, 0, &hh) &&
                     twoDigits(raw, 3, &mm) && twoDigits(raw, 6, &ss);
  if (!shape || hh > 23 || mm > 59 || ss > 59) {
    c.refused("start time", quoted(raw), "hh.mm.ss (00-23, 00-59, 00-59)");
  }
}

// EDF+ 2.1.3.3: "code sex birthdate name [more]", subfields separated by single spaces, unknown
// subfields written as X.
void checkPlusPatient(Checker& c, const std::string& raw) {
  const std::string t = trim(raw);
  const auto parts = split(t, ' ');
  const std::string expected =
      "'code sex birthdate name' (e.g. 'MCH-0234567 F 02-MAY-1951 "
      "Haagse_Harry' or 'X X X X'), single spaces between subfields";
  bool ok = parts.size() >= 4;
  for (std::size_t i = 0; ok && i < 4; ++i) ok = !parts[i].empty();
  if (ok) ok = parts[1] == "M" || parts[1] == "F" || parts[1] == "X";
  int d, m, y;
  if (ok) ok = parts[2] == "X" || parseEdfPlusDate(parts[2], &d, &m, &y);
  if (!ok) c.refused("patient identification (EDF+)", quoted(t), expected);
}

// EDF+ 2.1.3.4: "Startdate dd-MMM-yyyy admincode technician equipment [more]".
void checkPlusRecording(Checker& c, const std::string& raw, std::string_view headerDate) {
  const std::string t = trim(raw);
  const auto parts = split(t, ' ');
  const std::string expected =
      "'Startdate dd-MMM-yyyy admincode technician equipment' (e.g. 'Startdate 02-MAR-2002 "
      "PSG-1234/2002 NN Telemetry03' or 'Startdate X X X X'), single spaces between subfields";
  bool ok = parts.size() >= 5 && parts[0] == "Startdate";
  for (std::size_t i = 1; ok && i < 5; ++i) ok = !parts[i].empty();
  int d = 0, m = 0, y = 0;
  if (ok && parts[1] != "X") {
    ok = parseEdfPlusDate(parts[1], &d, &m, &y);
    if (ok) {
      int hd = 0, hm = 0, hy = 0;
      if (twoDigits(headerDate, 0, &hd) && twoDigits(headerDate, 3, &hm) &&
          twoDigits(headerDate, 6, &hy)) {
        // The header's two-digit year means 1985-2084 (EDF spec clipping rule).
        const int fullYear = hy >= 85 ? 1900 + hy : 2000 + hy;
        if (hd != d || hm != m || fullYear != y) {
          c.refused("recording identification (EDF+) start date", quoted(parts[1]),
                    "the same date as the header's start date " + quoted(headerDate));
        }
      }
      return;
    }
  }
  if (!ok) c.refused("recording identification (EDF+)", quoted(t), expected);
}

std::string readFileError(const std::string& path) {
  return std::string(std::strerror(errno)) + " (" + path + ")";
}

}  // namespace

bool EdfCheck::readable() const {
  if (!looksLikeEdf) return false;
  return std::none_of(findings.begin(), findings.end(),
                      [](const EdfFinding& f) { return f.fatal; });
}

EdfCheck checkEdfHeader(const std::string& path, bool scanAnnotations) {
  EdfCheck out;
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InvalidInputError(path, "file", readFileError(path), "a readable file",
                            "Check the path and the file's permissions");
  }
  in.seekg(0, std::ios::end);
  const long long fileBytes = static_cast<long long>(in.tellg());
  in.seekg(0);
  EdfHeader& h = out.header;
  h.fileBytes = fileBytes;
  Checker c(out);

  std::string fixed(256, '\0');
  in.read(fixed.data(), 256);
  const auto got = static_cast<std::size_t>(in.gcount());
  fixed.resize(got);

  // Magic: "0       " (EDF) or 0xFF "BIOSEMI" (BDF).
  const std::string_view version = std::string_view(fixed).substr(0, std::min<std::size_t>(8, got));
  if (version == "0       ") {
    out.looksLikeEdf = true;
  } else if (version == kBdfMagic) {
    out.looksLikeEdf = true;
    h.isBdf = true;
  } else if (!version.empty() && version[0] == '0' &&
             std::all_of(version.begin() + 1, version.end(),
                         [](char ch) { return ch == ' ' || ch == '\0'; }) &&
             version.size() == 8) {
    // "0" padded with NULs: an EDF written by a sloppy writer. Readable, but EDFlib refuses it.
    out.looksLikeEdf = true;
    c.refused("version", quoted(version), "'0' followed by 7 spaces");
  } else {
    c.fatal("version", quoted(version), "'0       ' (EDF) or 0xFF 'BIOSEMI' (BDF)");
    return out;
  }
  h.version = h.isBdf ? "BDF" : "0";
  if (got < 256) {
    c.fatal("header", std::to_string(fileBytes) + " bytes in the file",
            "at least 256 bytes (the fixed header)");
    return out;
  }

  auto field = [&](std::size_t at, std::size_t width) {
    return std::string_view(fixed).substr(at, width);
  };
  const std::string_view patient = field(8, 80), recording = field(88, 80),
                         startDate = field(168, 8), startTime = field(176, 8),
                         headerBytes = field(184, 8), reserved = field(192, 44),
                         records = field(236, 8), duration = field(244, 8), nsField = field(252, 4);
  h.patient = trim(patient);
  h.recording = trim(recording);
  h.startDate = std::string(startDate);
  h.startTime = std::string(startTime);
  h.reserved = trim(reserved);

  checkPrintable(c, patient, "patient identification");
  checkPrintable(c, recording, "recording identification");
  checkDate(c, startDate);
  checkTime(c, startTime);

  // Number of signals: everything else depends on it.
  const NumberField ns = parseNumberField(nsField, true);
  if (!ns.ok) {
    c.fatal("number of signals", quoted(nsField), "an integer 1-" + std::to_string(kMaxSignals));
    return out;
  }
  if (ns.integer <= 0 || ns.integer > kMaxSignals) {
    c.fatal("number of signals", std::to_string(ns.integer), "1-" + std::to_string(kMaxSignals));
    return out;
  }
  if (!ns.leftJustified) {
    c.refused("number of signals", quoted(nsField), "a left-justified integer");
  }
  if (ns.integer > kEdflibMaxSignals) {
    c.refused("number of signals", std::to_string(ns.integer),
              "at most " + std::to_string(kEdflibMaxSignals) + " (EDFlib's limit)");
  }
  const auto nsig = static_cast<std::size_t>(ns.integer);

  const NumberField hb = parseNumberField(headerBytes, true);
  const long long expectedHeaderBytes = 256 * (ns.integer + 1);
  if (!hb.ok || hb.integer != expectedHeaderBytes) {
    c.fatal("number of bytes in header", quoted(trim(headerBytes)),
            std::to_string(expectedHeaderBytes) + " (256 * (1 + " + std::to_string(nsig) +
                " signals))");
    return out;
  }
  if (!hb.leftJustified) {
    c.refused("number of bytes in header", quoted(headerBytes), "a left-justified integer");
  }
  h.headerBytes = expectedHeaderBytes;
  if (fileBytes < expectedHeaderBytes) {
    c.fatal("file size", std::to_string(fileBytes) + " bytes",
            "at least " + std::to_string(expectedHeaderBytes) + " bytes (the header of " +
                std::to_string(nsig) + " signals); the file is truncated");
    return out;
  }

  // Reserved field: EDF+ / BDF+ marker.
  checkPrintable(c, reserved, "reserved");
  const std::string_view marker = reserved.substr(0, 5);
  if (marker == "EDF+C" || marker == "EDF+D" || marker == "BDF+C" || marker == "BDF+D") {
    const bool markerBdf = marker[0] == 'B';
    if (markerBdf == h.isBdf) {
      h.isPlus = true;
      h.isDiscontinuous = marker[4] == 'D';
    } else {
      c.note("reserved", quoted(marker),
             h.isBdf ? "'BDF+C' or 'BDF+D' in a BDF file" : "'EDF+C' or 'EDF+D' in an EDF file");
    }
  } else if (!allSpaces(reserved) && !(h.isBdf && trim(reserved) == "24BIT")) {
    // BioSemi writes "24BIT" here; anything else is outside the spec but harmless.
    c.note("reserved", quoted(trim(reserved)),
           h.isBdf ? "spaces, '24BIT', 'BDF+C' or 'BDF+D'" : "spaces, 'EDF+C' or 'EDF+D'");
  }
  if (h.isDiscontinuous) {
    c.refused("reserved", quoted(marker),
              "a continuous recording ('" + std::string(h.isBdf ? "BDF" : "EDF") +
                  "+C'); EDFlib does not read discontinuous (+D) files");
  }
  if (h.isPlus) {
    checkPlusPatient(c, std::string(patient));
    checkPlusRecording(c, std::string(recording), startDate);
  }

  // Per-signal header.
  std::string sig(nsig * 256, '\0');
  in.seekg(256);
  in.read(sig.data(), static_cast<std::streamsize>(sig.size()));
  if (static_cast<std::size_t>(in.gcount()) != sig.size()) {
    c.fatal("signal header", std::to_string(in.gcount()) + " bytes",
            std::to_string(sig.size()) + " bytes");
    return out;
  }
  h.signals.resize(nsig);
  std::size_t offset = 0;
  std::vector<std::vector<std::string_view>> raw(std::size(kSignalFields));
  for (std::size_t f = 0; f < std::size(kSignalFields); ++f) {
    const auto w = static_cast<std::size_t>(kSignalFields[f].width);
    for (std::size_t i = 0; i < nsig; ++i) {
      raw[f].push_back(std::string_view(sig).substr(offset + i * w, w));
    }
    offset += nsig * w;
  }
  const std::string annotationLabel = h.isBdf ? "BDF Annotations " : "EDF Annotations ";
  for (std::size_t i = 0; i < nsig; ++i) {
    EdfSignalHeader& s = h.signals[i];
    s.label = trim(raw[0][i]);
    s.transducer = trim(raw[1][i]);
    s.physicalDimension = trim(raw[2][i]);
    s.prefilter = trim(raw[7][i]);
    s.reserved = trim(raw[9][i]);
    s.isAnnotation = h.isPlus && raw[0][i] == annotationLabel;
  }
  const int annotationCount = static_cast<int>(std::count_if(
      h.signals.begin(), h.signals.end(), [](const auto& s) { return s.isAnnotation; }));

  const long long digLimitMin = h.isBdf ? -8388608 : -32768;
  const long long digLimitMax = h.isBdf ? 8388607 : 32767;
  long long samplesPerRecordSum = 0;
  bool absurdSignal = false;
  for (std::size_t i = 0; i < nsig; ++i) {
    EdfSignalHeader& s = h.signals[i];
    const std::string who = signalName(h, i);
    for (std::size_t f = 0; f < std::size(kSignalFields); ++f) {
      std::size_t bad = 0;
      if (!isPrintableAscii(raw[f][i], &bad)) {
        c.signalFinding(std::string("ascii:") + kSignalFields[f].name, false, true,
                        who + " " + kSignalFields[f].name,
                        quoted(trim(raw[f][i])) + " (byte " + std::to_string(bad + 1) + ")",
                        "printable ASCII (bytes 32-126) only");
      }
    }
    // Numbers.
    auto number = [&](std::size_t f, bool integer) {
      NumberField n = parseNumberField(raw[f][i], integer);
      if (n.ok && !n.leftJustified) {
        c.signalFinding(std::string("justify:") + kSignalFields[f].name, false, true,
                        who + " " + kSignalFields[f].name, quoted(raw[f][i]),
                        "a left-justified number");
      }
      return n;
    };
    const NumberField pmin = number(3, false), pmax = number(4, false), dmin = number(5, true),
                      dmax = number(6, true), spr = number(8, true);
    const std::pair<const NumberField*, std::size_t> numbers[] = {
        {&pmin, 3}, {&pmax, 4}, {&dmin, 5}, {&dmax, 6}, {&spr, 8}};
    bool numbersOk = true;
    for (auto [n, f] : numbers) {
      if (!n->ok) {
        numbersOk = false;
        c.signalFinding(std::string("number:") + kSignalFields[f].name, true, true,
                        who + " " + kSignalFields[f].name, quoted(trim(raw[f][i])),
                        f >= 5 ? "an integer" : "a decimal number");
      }
    }
    if (!numbersOk) {
      absurdSignal = true;
      continue;
    }
    s.physicalMin = pmin.value;
    s.physicalMax = pmax.value;
    s.digitalMin = dmin.integer;
    s.digitalMax = dmax.integer;
    s.samplesPerRecord = spr.integer;
    if (s.samplesPerRecord <= 0 || s.samplesPerRecord > kMaxSamplesPerRecord) {
      absurdSignal = true;
      c.signalFinding("spr-range", true, true, who + " number of samples in each data record",
                      std::to_string(s.samplesPerRecord),
                      "1-" + std::to_string(kMaxSamplesPerRecord));
    }
    if (s.digitalMin >= s.digitalMax) {
      c.signalFinding("dig-order", true, true, who + " digital minimum/maximum",
                      std::to_string(s.digitalMin) + " / " + std::to_string(s.digitalMax),
                      "digital minimum < digital maximum");
    } else if (s.digitalMin < digLimitMin || s.digitalMax > digLimitMax) {
      c.signalFinding("dig-range", false, true, who + " digital minimum/maximum",
                      std::to_string(s.digitalMin) + " / " + std::to_string(s.digitalMax),
                      "within " + std::to_string(digLimitMin) + ".." + std::to_string(digLimitMax) +
                          (h.isBdf ? " (24-bit samples)" : " (16-bit samples)"));
    }
    if (s.physicalMin == s.physicalMax) {
      c.signalFinding("phys-equal", false, true, who + " physical minimum/maximum",
                      formatNumber(s.physicalMin) + " / " + formatNumber(s.physicalMax),
                      "different values (the scaling is undefined; samples read as constant)");
    }
    if (s.isAnnotation) {
      // EDF+ 2.2.1: only the label, the sample count and the digital/physical ranges of the
      // annotation signal carry content; "the other fields of this signal are filled with
      // spaces".
      if (!allSpaces(raw[1][i])) {
        c.signalFinding("annot-transducer", false, true, who + " transducer type",
                        quoted(trim(raw[1][i])), "spaces (annotation signal, EDF+ 2.2.1)");
      }
      if (!allSpaces(raw[2][i])) {
        c.signalFinding("annot-dimension", false, false, who + " physical dimension",
                        quoted(trim(raw[2][i])), "spaces (annotation signal, EDF+ 2.2.1)");
      }
      if (!allSpaces(raw[7][i])) {
        c.signalFinding("annot-prefilter", false, true, who + " prefiltering",
                        quoted(trim(raw[7][i])), "spaces (annotation signal, EDF+ 2.2.1)");
      }
      if (s.digitalMin != digLimitMin || s.digitalMax != digLimitMax) {
        c.signalFinding("annot-digital", false, true, who + " digital minimum/maximum",
                        std::to_string(s.digitalMin) + " / " + std::to_string(s.digitalMax),
                        std::to_string(digLimitMin) + " / " + std::to_string(digLimitMax) +
                            " (annotation signal, EDF+ 2.2.1)");
      }
    } else if (!s.reserved.empty()) {
      c.signalFinding("reserved", false, false, who + " reserved", quoted(s.reserved), "spaces");
    }
    if (!absurdSignal) samplesPerRecordSum += s.samplesPerRecord;
  }

  // Labels: empty or duplicate labels make channels ambiguous; EDF+ asks for standard texts.
  {
    std::map<std::string, int> seen;
    int nonStandard = 0;
    std::string example;
    for (std::size_t i = 0; i < nsig; ++i) {
      const auto& s = h.signals[i];
      if (s.isAnnotation) continue;
      if (s.label.empty()) {
        c.signalFinding("label-empty", false, false, signalName(h, i) + " label", "an empty label",
                        "a signal name");
      } else if (++seen[toLower(s.label)] == 2) {
        c.signalFinding("label-dup", false, false, signalName(h, i) + " label",
                        "the same label as an earlier signal", "a unique label");
      }
      if (h.isPlus && s.label.find(' ') == std::string::npos && !s.label.empty()) {
        if (nonStandard++ == 0) example = s.label;
      }
    }
    if (nonStandard > 0) {
      c.note("signal labels (EDF+ standard texts)",
             std::to_string(nonStandard) + " labels without a signal type, e.g. " + quoted(example),
             "'<type> <sensor>' such as 'EEG Fp1-Ref' (edfplus.info/specs/edftexts.html)");
    }
  }
  if (h.isPlus && annotationCount == 0) {
    c.refused("annotation signal", "none",
              "at least one '" + trim(annotationLabel) + "' signal in an " +
                  (h.isBdf ? "BDF+" : "EDF+") + " file");
  }

  // Record duration.
  const NumberField dur = parseNumberField(duration, false);
  const bool onlyAnnotations = annotationCount == static_cast<int>(nsig);
  if (!dur.ok) {
    c.fatal("duration of a data record", quoted(trim(duration)), "a number of seconds > 0");
    absurdSignal = true;
  } else {
    h.recordDuration = dur.value;
    if (!dur.leftJustified) {
      c.refused("duration of a data record", quoted(duration), "a left-justified number");
    }
    if (dur.value < 0 || (dur.value == 0 && !onlyAnnotations) || dur.value > kMaxRecordDuration) {
      c.fatal("duration of a data record", quoted(trim(duration)) + " s",
              "more than 0 and at most " + formatNumber(kMaxRecordDuration) + " s");
      absurdSignal = true;
    }
  }

  if (absurdSignal) {
    c.finishGroups();
    return out;
  }
  const int bytesPerSample = h.isBdf ? 3 : 2;
  h.recordBytes = samplesPerRecordSum * bytesPerSample;
  if (h.recordBytes > kMaxRecordBytes) {
    c.fatal("data record size", std::to_string(h.recordBytes) + " bytes",
            "at most " + std::to_string(kMaxRecordBytes) + " bytes per data record");
    c.finishGroups();
    return out;
  }
  if (h.recordBytes > (h.isBdf ? kEdflibMaxRecordBytesBdf : kEdflibMaxRecordBytesEdf)) {
    c.refused("data record size", std::to_string(h.recordBytes) + " bytes",
              std::string("at most ") + (h.isBdf ? "15" : "10") + " MiB (EDFlib's limit)");
  }

  // Number of data records, and whether the file holds them.
  const long long dataBytes = fileBytes - h.headerBytes;
  const long long complete = dataBytes / h.recordBytes;
  const long long partial = dataBytes % h.recordBytes;
  const NumberField rec = parseNumberField(records, true);
  if (!rec.ok) {
    c.fatal("number of data records", quoted(trim(records)),
            "an integer (-1 while the recording was still running)");
    c.finishGroups();
    return out;
  }
  h.recordCount = rec.integer;
  if (!rec.leftJustified) {
    c.refused("number of data records", quoted(records), "a left-justified integer");
  }
  if (rec.integer < -1) {
    c.fatal("number of data records", std::to_string(rec.integer), "a count >= 0, or -1 (unknown)");
    c.finishGroups();
    return out;
  }
  if (complete == 0) {
    c.fatal("data records", std::to_string(dataBytes) + " bytes of data after the header",
            "at least one complete data record of " + std::to_string(h.recordBytes) +
                " bytes; the file is truncated or empty");
    c.finishGroups();
    return out;
  }
  if (rec.integer == -1 || rec.integer == 0) {
    h.recordsInFile = complete;
    c.refused("number of data records", std::to_string(rec.integer),
              "the count of data records; the file holds " + std::to_string(complete) +
                  " complete records, which are read");
    if (partial != 0) {
      c.refused("file size", std::to_string(partial) + " bytes after the last complete record",
                "a whole number of data records; the incomplete record is ignored");
    }
  } else if (rec.integer > complete) {
    h.recordsInFile = complete;
    c.refused(
        "file size",
        std::to_string(fileBytes) + " bytes: " + std::to_string(complete) +
            " complete data records" +
            (partial ? " and " + std::to_string(partial) + " bytes of an incomplete one" : ""),
        std::to_string(h.headerBytes + rec.integer * h.recordBytes) + " bytes for the " +
            std::to_string(rec.integer) +
            " records in the header; the file is truncated and only the complete records "
            "are read");
  } else {
    h.recordsInFile = rec.integer;
    if (rec.integer < complete || partial != 0) {
      c.refused("file size",
                std::to_string(dataBytes - rec.integer * h.recordBytes) +
                    " bytes after the last data record",
                "exactly " + std::to_string(h.headerBytes + rec.integer * h.recordBytes) +
                    " bytes (header + " + std::to_string(rec.integer) +
                    " records); the extra bytes are ignored");
    }
  }
  c.finishGroups();

  // Annotation signals of EDF+/BDF+: the time-keeping TALs EDFlib insists on.
  if (scanAnnotations && h.isPlus && annotationCount > 0) {
    for (auto& f : checkAnnotationSignals(in, h)) out.findings.push_back(std::move(f));
  }
  return out;
}

std::string edfStartDateTimeIso(const EdfHeader& h) {
  int d = 0, m = 0, y = 0, hh = 0, mm = 0, ss = 0;
  const std::string_view date = h.startDate, time = h.startTime;
  if (date.size() != 8 || time.size() != 8 || !twoDigits(date, 0, &d) || !twoDigits(date, 3, &m) ||
      !twoDigits(date, 6, &y) || !twoDigits(time, 0, &hh) || !twoDigits(time, 3, &mm) ||
      !twoDigits(time, 6, &ss) || d < 1 || d > 31 || m < 1 || m > 12 || hh > 23 || mm > 59 ||
      ss > 59) {
    return {};
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", y >= 85 ? 1900 + y : 2000 + y, m,
                d, hh, mm, ss);
  std::string s = buf;
  const long long ticks = std::llround(h.startOffset * 1e7);  // 100 ns, as EDF+ keeps it
  if (ticks > 0 && ticks < 10'000'000) {
    std::snprintf(buf, sizeof buf, ".%07lld", ticks);
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    s += frac;
  }
  return s;
}

std::string describeFinding(const EdfFinding& f) {
  std::string s = f.field + ": found " + (f.found.empty() ? "nothing" : f.found);
  if (!f.expected.empty()) s += ", expected " + f.expected;
  return s;
}

std::string summariseFindings(const std::vector<EdfFinding>& findings, std::size_t maxCount) {
  std::vector<const EdfFinding*> order;
  for (const auto& f : findings) {
    if (f.refusedByEdflib || f.fatal) order.push_back(&f);
  }
  for (const auto& f : findings) {
    if (!(f.refusedByEdflib || f.fatal)) order.push_back(&f);
  }
  std::string s;
  for (std::size_t i = 0; i < order.size() && i < maxCount; ++i) {
    if (i) s += "; ";
    s += describeFinding(*order[i]);
  }
  if (order.size() > maxCount) {
    s += "; and " + std::to_string(order.size() - maxCount) + " more";
  }
  return s;
}

}  // namespace modescope
