#include "engine/io/edf_tal_check.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "engine/core/text.h"
#include "engine/io/edf_annotations.h"

namespace modescope {
namespace {

constexpr char kTalSep = 0x14;        // ends the onset/duration and each annotation text
constexpr char kDurationMark = 0x15;  // precedes the duration
constexpr long long kTicksPerSecond = 10'000'000;  // 100 ns: the precision EDF+ readers keep

struct SignalScan {
  bool lastByteNotZero = false;
  bool syntaxError = false;
  std::string syntaxDetail;
  bool hasTimekeeping = false;
  long long timekeepingTicks = 0;
};

// Walks the TALs of one annotation signal of one record.
SignalScan scanSignal(const std::string& buf, bool first) {
  SignalScan r;
  r.lastByteNotZero = buf.empty() || buf.back() != 0;
  std::size_t pos = 0;
  bool firstTal = true;
  auto fail = [&](std::string what) {
    r.syntaxError = true;
    r.syntaxDetail = std::move(what);
    return r;
  };
  while (pos < buf.size() && buf[pos] != 0) {
    // Onset [0x15 duration] 0x14
    std::size_t end = pos;
    while (end < buf.size() && buf[end] != kTalSep && buf[end] != kDurationMark && buf[end] != 0) {
      ++end;
    }
    if (end >= buf.size() || buf[end] == 0) return fail("a TAL without its 0x14 separator");
    const std::string onsetText = buf.substr(pos, end - pos);
    const auto onset = parseTalTime(onsetText, true);
    if (!onset) return fail("onset " + printableBytes(onsetText));
    pos = end;
    if (buf[pos] == kDurationMark) {
      ++pos;
      end = pos;
      while (end < buf.size() && buf[end] != kTalSep && buf[end] != 0) ++end;
      if (end >= buf.size() || buf[end] != kTalSep) return fail("a duration without 0x14");
      const std::string durText = buf.substr(pos, end - pos);
      if (!parseTalTime(durText, false)) return fail("duration " + printableBytes(durText));
      pos = end;
    }
    ++pos;  // past the 0x14 after onset/duration
    // Annotation texts, each ending in 0x14; the TAL ends with 0x00.
    bool firstText = true;
    while (true) {
      if (pos >= buf.size()) return fail("a TAL without its closing 0x00");
      if (buf[pos] == 0) {
        ++pos;
        break;
      }
      end = pos;
      while (end < buf.size() && buf[end] != kTalSep && buf[end] != 0) ++end;
      if (end >= buf.size() || buf[end] != kTalSep) return fail("an annotation text without 0x14");
      if (first && firstTal && firstText && end == pos) {
        r.hasTimekeeping = true;
        r.timekeepingTicks = *onset;
      }
      firstText = false;
      pos = end + 1;
    }
    firstTal = false;
  }
  for (; pos < buf.size(); ++pos) {
    if (buf[pos] != 0) return fail("bytes after the last TAL that are not 0x00");
  }
  return r;
}

struct Problem {
  int count = 0;
  long long firstRecord = 0;
  std::string found, expected;
  bool refused = true;
};

}  // namespace

std::vector<EdfFinding> checkAnnotationSignals(std::istream& in, EdfHeader& h) {
  std::vector<EdfFinding> out;
  const int bps = h.isBdf ? 3 : 2;
  struct Where {
    long long offset;  // bytes into a record
    long long bytes;
  };
  std::vector<Where> signals;
  long long offset = 0;
  for (const auto& s : h.signals) {
    if (s.isAnnotation) signals.push_back({offset, s.samplesPerRecord * bps});
    offset += s.samplesPerRecord * bps;
  }
  if (signals.empty() || h.recordsInFile <= 0) return out;

  const long long durationTicks = std::llround(h.recordDuration * kTicksPerSecond);
  std::map<std::string, Problem> problems;  // ordered by key for a stable report
  auto report = [&](const std::string& key, long long record, std::string found,
                    std::string expected) {
    Problem& p = problems[key];
    if (p.count++ == 0) {
      p.firstRecord = record;
      p.found = std::move(found);
      p.expected = std::move(expected);
    }
  };

  bool havePrevious = false;  // (a plain flag: std::optional trips -Wmaybe-uninitialized)
  long long previous = 0;
  std::string buf;
  in.clear();
  for (long long r = 0; r < h.recordsInFile; ++r) {
    for (std::size_t a = 0; a < signals.size(); ++a) {
      buf.assign(static_cast<std::size_t>(signals[a].bytes), '\0');
      in.seekg(h.headerBytes + r * h.recordBytes + signals[a].offset);
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      if (static_cast<std::size_t>(in.gcount()) != buf.size()) {
        in.clear();
        return out;  // the size check already covered a short file
      }
      const SignalScan s = scanSignal(buf, a == 0);
      if (s.lastByteNotZero) {
        report("a-lastbyte", r, "a last byte that is not 0x00",
               "every annotation signal to end with an unused 0x00 byte (EDF+ 2.2.2)");
      }
      if (s.syntaxError) {
        report("b-syntax", r, s.syntaxDetail,
               "TALs of the form '+onset[0x15 duration]0x14 text 0x14 ... 0x00' (EDF+ 2.2.2)");
      }
      if (a != 0) continue;
      if (!s.hasTimekeeping) {
        if (!s.syntaxError) {
          report("c-timekeeping", r, "no time-keeping TAL at the start of the record",
                 "'+<record onset>' followed by 0x14 0x14 0x00 first (EDF+ 2.2.4)");
        }
        havePrevious = false;
        continue;
      }
      if (r == 0) h.startOffset = static_cast<double>(s.timekeepingTicks) / kTicksPerSecond;
      if (r == 0 && (s.timekeepingTicks < 0 || s.timekeepingTicks >= kTicksPerSecond)) {
        report("d-start", r, formatNumber(s.timekeepingTicks / 1e7) + " s",
               "0 <= onset < 1 s for the first data record (sub-second start, EDF+ 2.2.4)");
      }
      if (havePrevious) {
        const long long step = s.timekeepingTicks - previous;
        const bool bad = h.isDiscontinuous ? step < durationTicks : step != durationTicks;
        if (bad) {
          report("e-continuity", r,
                 "record onset " + formatNumber(s.timekeepingTicks / 1e7) + " s after " +
                     formatNumber(previous / 1e7) + " s",
                 h.isDiscontinuous
                     ? "onsets at least one record duration apart (EDF+D)"
                     : "onsets exactly one record duration (" + formatNumber(h.recordDuration) +
                           " s) apart in a continuous (+C) file");
        }
      }
      previous = s.timekeepingTicks;
      havePrevious = true;
    }
  }
  for (auto& [key, p] : problems) {
    std::string found = p.found + " in data record " + std::to_string(p.firstRecord + 1);
    if (p.count > 1) found += " (and " + std::to_string(p.count - 1) + " more)";
    out.push_back({false, "annotation signal", std::move(found), std::move(p.expected), p.refused});
  }
  return out;
}

}  // namespace modescope
