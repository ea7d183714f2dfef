#include "engine/io/edf_annotations.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

constexpr char kTalSep = 0x14;
constexpr char kDurationMark = 0x15;
constexpr long long kTicksPerSecond = 10'000'000;

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) {
      throw InvalidInputError(path, "file", std::strerror(errno), "a readable file");
    }
    // Only scattered small pieces are wanted: read-ahead would pull in the samples around them.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM);
  }
  ~ReadOnlyFile() { ::close(fd_); }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Appends the annotations of one annotation signal's bytes of one record.
void parseTals(const std::string& buf, long long offsetTicks, std::vector<Annotation>& out) {
  std::size_t pos = 0;
  while (pos < buf.size()) {
    if (buf[pos] == 0) {  // padding after the last TAL
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < buf.size() && buf[end] != kTalSep && buf[end] != kDurationMark && buf[end] != 0) {
      ++end;
    }
    const auto onset = parseTalTime(buf.substr(pos, end - pos), true);
    if (!onset || end >= buf.size() || buf[end] == 0) return;
    long long duration = 0;
    if (buf[end] == kDurationMark) {
      pos = end + 1;
      end = pos;
      while (end < buf.size() && buf[end] != kTalSep && buf[end] != 0) ++end;
      const auto d = parseTalTime(buf.substr(pos, end - pos), false);
      if (!d || end >= buf.size() || buf[end] != kTalSep) return;
      duration = *d;
    }
    pos = end + 1;  // past the 0x14 that closes onset/duration
    while (pos < buf.size() && buf[pos] != 0) {
      end = pos;
      while (end < buf.size() && buf[end] != kTalSep && buf[end] != 0) ++end;
      if (end >= buf.size() || buf[end] != kTalSep) return;
      std::string text = sanitizeUtf8(trim(buf.substr(pos, end - pos)));
      if (!text.empty()) {
        out.push_back({static_cast<double>(*onset - offsetTicks) / kTicksPerSecond,
                       static_cast<double>(duration) / kTicksPerSecond, std::move(text)});
      }
      pos = end + 1;
    }
    ++pos;  // past the 0x00 that ends the TAL
  }
}

// The first record's time-keeping TAL ("+0.25\x14\x14\0"): the sub-second start of the
// recording, which annotation onsets are measured from (EDF+ 2.2.4). 0 if there is none.
long long timekeepingOnset(int fd, const EdfHeader& h, long long start, long long length) {
  std::string buf(static_cast<std::size_t>(length), '\0');
  const ssize_t got =
      ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(h.headerBytes + start));
  if (got <= 0) return 0;
  buf.resize(static_cast<std::size_t>(got));
  const std::size_t end = buf.find(kTalSep);
  if (end == std::string::npos || end + 1 >= buf.size() || buf[end + 1] != kTalSep) return 0;
  return parseTalTime(buf.substr(0, end), true).value_or(0);
}

}  // namespace

std::optional<long long> parseTalTime(const std::string& t, bool needSign) {
  std::size_t i = 0;
  bool negative = false;
  if (needSign) {
    if (t.empty() || (t[0] != '+' && t[0] != '-')) return std::nullopt;
    negative = t[0] == '-';
    i = 1;
  }
  long long whole = 0;
  std::size_t digits = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, ++digits) {
    if (digits >= 12) return std::nullopt;  // beyond 31,000 years: not a time
    whole = whole * 10 + (t[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  long long frac = 0, scale = kTicksPerSecond;
  if (i < t.size() && t[i] == '.') {
    ++i;
    std::size_t fracDigits = 0;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, ++fracDigits) {
      if (scale > 1) {
        scale /= 10;
        frac += (t[i] - '0') * scale;
      }
    }
    if (fracDigits == 0) return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  const long long v = whole * kTicksPerSecond + frac;
  return negative ? -v : v;
}

std::vector<Annotation> readEdfAnnotations(const std::string& path, const EdfHeader& h) {
  std::vector<Annotation> out;
  const long long bytesPerSample = h.isBdf ? 3 : 2;
  // Byte ranges of the annotation signals inside one record.
  std::vector<std::pair<long long, long long>> ranges;
  long long offset = 0;
  for (const auto& s : h.signals) {
    const long long bytes = s.samplesPerRecord * bytesPerSample;
    if (s.isAnnotation) ranges.emplace_back(offset, bytes);
    offset += bytes;
  }
  if (ranges.empty() || h.recordBytes <= 0) return out;

  ReadOnlyFile file(path);
  long long offsetTicks = 0;
  std::string buf;
  for (long long r = 0; r < h.recordsInFile; ++r) {
    if (r == 0)
      offsetTicks = timekeepingOnset(file.fd(), h, ranges.front().first, ranges.front().second);
    for (const auto& [start, length] : ranges) {
      buf.resize(static_cast<std::size_t>(length));
      const off_t at = static_cast<off_t>(h.headerBytes + r * h.recordBytes + start);
      const ssize_t got = ::pread(file.fd(), buf.data(), buf.size(), at);
      if (got < 0) {
        throw InvalidInputError(path, "data record " + std::to_string(r + 1), std::strerror(errno),
                                "a readable annotation signal");
      }
      buf.resize(static_cast<std::size_t>(got));
      parseTals(buf, offsetTicks, out);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
  return out;
}

}  // namespace modescope
