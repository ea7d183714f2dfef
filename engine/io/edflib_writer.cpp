#include "engine/io/edflib_writer.h"

#include <edflib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/atomic_file.h"
#include "engine/io/edflib_lock.h"

namespace modescope {
namespace {

constexpr int kOneSecondUnits = 100000;  // EDFlib's record duration unit is 10 us
constexpr int kMaxDurationUnits = 60 * kOneSecondUnits;
// Room EDFlib needs per annotation signal in a record (its TAL area is about 120 bytes).
constexpr int64_t kAnnotationBytesReserve = 128;
constexpr int64_t kScanBlockSamples = 1 << 20;
// Floats buffered per batch of data records (all channels): 16 MiB.
constexpr int64_t kBatchFloats = 4 << 20;
// At most this many records per batch so that progress and cancellation stay responsive.
constexpr int64_t kMaxRecordsPerBatch = 32;

// Candidate record durations in preference order (see edflib_writer.h).
const std::vector<int>& durationCandidates() {
  static const std::vector<int> c = [] {
    std::vector<int> v{kOneSecondUnits};
    for (int step : {10000, 1000, 100}) {  // 0.1 s, 0.01 s, 0.001 s
      for (int d = step; d <= kMaxDurationUnits; d += step) {
        const bool coarser = (step < 10000 && d % (step * 10) == 0);
        if (d != kOneSecondUnits && !coarser) v.push_back(d);
      }
    }
    return v;
  }();
  return c;
}

// Samples of a `rate` Hz signal in a record of `units` x 10 us, or 0 when not a whole number.
int wholeSamples(double rate, int units) {
  const double spr = rate * units / kOneSecondUnits;
  const double r = std::round(spr);
  if (r < 1 || r > std::numeric_limits<int>::max()) return 0;
  // 1e-9: rates computed from file headers (spr / duration) are off by ~1e-15, while a rate
  // that is only close to whole (pi Hz in some 0.001 s multiple) must not pass: 1e-9 keeps the
  // written rate within 3.6 us per hour of the true one.
  return std::abs(spr - r) <= 1e-9 * std::max(1.0, spr) ? static_cast<int>(r) : 0;
}

std::string asciiField(std::string_view s, std::size_t maxLen) {
  std::string out;
  std::size_t i = 0;
  const std::string clean = sanitizeUtf8(s);
  while (i < clean.size() && out.size() < maxLen) {
    const auto c = static_cast<unsigned char>(clean[i]);
    if (c < 0x80) {
      out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '_';
      ++i;
      continue;
    }
    const std::size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    const std::string cp = clean.substr(i, len);
    out += (cp == "\xC2\xB5" || cp == "\xCE\xBC") ? 'u' : '_';  // micro sign, Greek mu
    i += len;
  }
  return trim(out);
}

bool isAsciiPrintable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x7f;
  });
}

std::string edfLabel(const ChannelInfo& c) {
  if (!c.label.empty() && c.label.size() <= 16 && isAsciiPrintable(c.label)) {
    // EDF+ standard texts want "<type> <sensor>" ("EEG Fp1"); add the type to a bare label when
    // it fits, so files we write pass the compliance check we apply to others.
    const bool typed = c.type == ChannelType::EEG || c.type == ChannelType::EOG ||
                       c.type == ChannelType::ECG || c.type == ChannelType::EMG;
    const std::string prefixed = std::string(channelTypeName(c.type)) + " " + c.label;
    if (typed && c.label.find(' ') == std::string::npos && prefixed.size() <= 16) return prefixed;
    return c.label;
  }
  std::string n = asciiField(c.name.empty() ? c.label : c.name, 16);
  return n;
}

// Cuts UTF-8 text to at most `maxBytes` without splitting a character.
std::string utf8Prefix(const std::string& s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s;
  std::size_t end = maxBytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

struct DateTime {
  int year = 1985, month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int subsecond100ns = 0;
};

bool parseInt(const std::string& s, std::size_t pos, std::size_t len, int& out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

// "YYYY-MM-DDTHH:MM:SS[.fff][Z|+hh:mm]" (or a space instead of 'T'), in EDFlib's range.
bool parseStart(const std::string& text, DateTime& dt) {
  const std::string s = trim(text);
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
      s[13] != ':' || s[16] != ':') {
    return false;
  }
  DateTime d;
  if (!parseInt(s, 0, 4, d.year) || !parseInt(s, 5, 2, d.month) || !parseInt(s, 8, 2, d.day) ||
      !parseInt(s, 11, 2, d.hour) || !parseInt(s, 14, 2, d.minute) ||
      !parseInt(s, 17, 2, d.second)) {
    return false;
  }
  if (d.year < 1985 || d.year > 2084 || d.month < 1 || d.month > 12 || d.day < 1 || d.day > 31 ||
      d.hour > 23 || d.minute > 59 || d.second > 59) {
    return false;
  }
  if (s.size() > 20 && s[19] == '.') {
    // Fraction to 100 ns, keeping at most 4 digits (EDFlib advises 100 us resolution).
    long long frac = 0, scale = 1000000;
    for (std::size_t i = 20; i < s.size() && i < 24 && s[i] >= '0' && s[i] <= '9'; ++i) {
      frac += (s[i] - '0') * scale;
      scale /= 10;
    }
    d.subsecond100ns = static_cast<int>(frac);
  }
  dt = d;
  return true;
}

// "YYYY-MM-DD" or EDF+'s "DD-MMM-YYYY".
bool parseBirthdate(const std::string& text, int& y, int& m, int& d) {
  const std::string s = trim(text);
  if (s.size() == 10 && s[4] == '-' && s[7] == '-') {
    if (!parseInt(s, 0, 4, y) || !parseInt(s, 5, 2, m) || !parseInt(s, 8, 2, d)) return false;
  } else if (s.size() == 11 && s[2] == '-' && s[6] == '-') {
    static const char* months[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    m = 0;
    for (int i = 0; i < 12; ++i) {
      if (equalsIgnoreCase(s.substr(3, 3), months[i])) m = i + 1;
    }
    if (m == 0 || !parseInt(s, 0, 2, d) || !parseInt(s, 7, 4, y)) return false;
  } else {
    return false;
  }
  return y >= 1800 && y <= 3000 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

std::string edflibOpenError(int code) {
  switch (code) {
    case EDFLIB_MALLOC_ERROR:
      return "out of memory";
    case EDFLIB_NO_SUCH_FILE_OR_DIRECTORY:
      return "the file cannot be created";
    case EDFLIB_MAXFILES_REACHED:
      return "too many EDF files are open";
    case EDFLIB_FILE_ALREADY_OPENED:
      return "the file is already open";
    case EDFLIB_NUMBER_OF_SIGNALS_INVALID:
      return "invalid number of signals";
    default:
      return "EDFlib error " + std::to_string(code);
  }
}

std::string edflibWriteError(int code) {
  switch (code) {
    case EDFLIB_NO_SIGNALS:
      return "no signals";
    case EDFLIB_TOO_MANY_SIGNALS:
      return "too many signals";
    case EDFLIB_NO_SAMPLES_IN_RECORD:
      return "a signal has no samples per data record";
    case EDFLIB_DIGMIN_IS_DIGMAX:
      return "digital minimum equals digital maximum";
    case EDFLIB_DIGMAX_LOWER_THAN_DIGMIN:
      return "digital maximum below digital minimum";
    case EDFLIB_PHYSMIN_IS_PHYSMAX:
      return "physical minimum equals physical maximum";
    case EDFLIB_DATARECORD_SIZE_TOO_BIG:
      return "data record too large";
    default:
      return "a write error (disk full or file system error)";
  }
}

// Closes the EDFlib handle when a write is abandoned (error or cancel), so EDFlib's table of
// open files does not fill up; the temporary file itself is removed by AtomicOutput.
class EdfHandle {
 public:
  explicit EdfHandle(int h) : h_(h) {}
  ~EdfHandle() {
    if (h_ >= 0) {
      std::lock_guard<std::mutex> lock(edflibMutex());
      edfclose_file(h_);
    }
  }
  EdfHandle(const EdfHandle&) = delete;
  EdfHandle& operator=(const EdfHandle&) = delete;
  int get() const { return h_; }
  int release() {
    const int h = h_;
    h_ = -1;
    return h;
  }

 private:
  int h_;
};

struct Range {
  double min = 0, max = 0;
};

// Physical range from the data: finite samples only; flat or empty channels get a small range
// around their value (EDF+ requires min != max); rounded outward to 8 header characters.
std::vector<Range> physicalRanges(const Recording& rec, JobContext& ctx) {
  std::vector<Range> out;
  int64_t total = 0, done = 0;
  for (const auto& c : rec.channels) total += c.sampleCount;
  std::vector<float> buf;
  for (std::size_t i = 0; i < rec.channels.size(); ++i) {
    const ChannelInfo& c = rec.channels[i];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int64_t first = 0; first < c.sampleCount; first += kScanBlockSamples) {
      const int64_t n = std::min(kScanBlockSamples, c.sampleCount - first);
      buf.resize(static_cast<std::size_t>(n));
      rec.source->read(i, first, n, buf.data());
      for (float v : buf) {
        if (std::isfinite(v)) {
          lo = std::min(lo, static_cast<double>(v));
          hi = std::max(hi, static_cast<double>(v));
        }
      }
      done += n;
      ctx.progress(static_cast<double>(done) / static_cast<double>(std::max<int64_t>(total, 1)),
                   "scanning channel " + std::to_string(i + 1) + " of " +
                       std::to_string(rec.channels.size()));
      ctx.checkpoint();
    }
    if (!(hi >= lo)) lo = hi = 0.0;  // no finite sample
    if (hi - lo <= 1e-9 * std::max(1.0, std::abs(hi))) {
      const double centre = 0.5 * (lo + hi);
      const double half = 1e-3 * std::max(1.0, std::abs(centre));
      lo = centre - half;
      hi = centre + half;
    }
    const std::string what = "channel " + std::to_string(i + 1) + " (" + c.label + ")";
    Range r{edfHeaderNumber(lo, false, what), edfHeaderNumber(hi, true, what)};
    out.push_back(r);
  }
  return out;
}

// EDFlib prints header numbers by cutting the binary value's decimal expansion toward zero, so
// 157.839 (stored as 157.8389999...) would become "157.8389". Nudging the value away from zero by
// far less than the last printed digit makes EDFlib print exactly the decimal we chose.
double awayFromZero(double v) { return v + v * 1e-12; }

void check(int rc, const std::string& path, const std::string& what) {
  if (rc != 0) throw OutputError(path, "EDFlib refused " + what);
}

}  // namespace

double edfHeaderNumber(double v, bool roundUp, const std::string& what) {
  if (!std::isfinite(v) || std::abs(v) >= 99999999.0) {
    throw InvalidParameterError(
        "physical range of " + what, formatNumber(v),
        "values below 1e8 in magnitude (an EDF header number has 8 characters)",
        "Scale the channel to a smaller unit range, or save as HDF5 (.h5)");
  }
  for (int decimals = 7; decimals >= 0; --decimals) {
    const double scale = std::pow(10.0, decimals);
    double q = roundUp ? std::ceil(v * scale - 1e-9) : std::floor(v * scale + 1e-9);
    char buf[48];
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::snprintf(buf, sizeof buf, "%.*f", decimals, q / scale);
      const double parsed = std::strtod(buf, nullptr);
      // Floating-point error in v * scale may round to the wrong side: step once more.
      if (roundUp ? parsed >= v : parsed <= v) break;
      q += roundUp ? 1 : -1;
    }
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    if (s.size() <= 8) return std::strtod(s.c_str(), nullptr);
  }
  throw InvalidParameterError("physical range of " + what, formatNumber(v),
                              "a value that fits 8 characters",
                              "Save as HDF5 (.h5), which keeps any range");
}

EdfRecordLayout planEdfRecords(const Recording& rec, bool bdf) {
  const std::size_t n = rec.channels.size();
  if (n == 0) {
    throw InvalidParameterError("channels", "none", "at least one channel to write",
                                "Select channels to save");
  }
  std::set<double> rates;
  for (std::size_t i = 0; i < n; ++i) {
    const ChannelInfo& c = rec.channels[i];
    if (!(std::isfinite(c.sampleRate) && c.sampleRate > 0)) {
      throw InvalidParameterError(
          "sample rate of channel " + std::to_string(i + 1) + " (" + c.label + ")",
          formatNumber(c.sampleRate) + " Hz", "a positive rate");
    }
    rates.insert(c.sampleRate);
  }
  const int64_t bytesPerSample = bdf ? 3 : 2;
  const auto annotations = static_cast<int64_t>(rec.annotations.size());

  bool anyWhole = false, anySize = false;
  for (int units : durationCandidates()) {
    EdfRecordLayout L;
    L.durationUnits = units;
    L.durationSeconds = static_cast<double>(units) / kOneSecondUnits;
    int64_t recordSamples = 0;
    bool whole = true;
    for (const ChannelInfo& c : rec.channels) {
      const int spr = wholeSamples(c.sampleRate, units);
      if (spr == 0) {
        whole = false;
        break;
      }
      L.samplesPerRecord.push_back(spr);
      recordSamples += spr;
      L.recordCount = std::max(L.recordCount, (c.sampleCount + spr - 1) / spr);
    }
    if (!whole) continue;
    anyWhole = true;
    const int64_t perSignalReserve = kAnnotationBytesReserve;
    if (recordSamples * bytesPerSample + kEdfMaxAnnotationSignals * perSignalReserve >
        kEdfMaxRecordBytes) {
      continue;
    }
    anySize = true;
    if (L.recordCount == 0) {
      throw InvalidParameterError("recording", "channels without samples",
                                  "at least one sample to write");
    }
    const int64_t needed = std::max<int64_t>(1, (annotations + L.recordCount - 1) / L.recordCount);
    if (needed > kEdfMaxAnnotationSignals) continue;
    L.annotationSignals = static_cast<int>(needed);
    if (static_cast<int64_t>(n) + L.annotationSignals > kEdfMaxSignals) {
      throw InvalidParameterError(
          "channels", std::to_string(n),
          "at most " + std::to_string(kEdfMaxSignals - L.annotationSignals) +
              " channels (EDFlib reads at most " + std::to_string(kEdfMaxSignals) +
              " signals, annotation signals included)",
          "Save fewer channels, or save as HDF5 (.h5)");
    }
    return L;
  }

  if (!anyWhole) {
    // Name the rates that no duration fits on their own; else it is their combination.
    std::string bad;
    for (double r : rates) {
      bool ok = false;
      for (int units : durationCandidates()) {
        if (wholeSamples(r, units) > 0) {
          ok = true;
          break;
        }
      }
      if (!ok) {
        for (const ChannelInfo& c : rec.channels) {
          if (c.sampleRate == r) {
            bad += (bad.empty() ? "" : ", ") + formatNumber(r) + " Hz (channel " + c.label + ")";
            break;
          }
        }
      }
    }
    if (bad.empty()) {
      for (double r : rates) bad += (bad.empty() ? "" : ", ") + formatNumber(r) + " Hz";
      bad = "the combination of " + bad;
    }
    throw InvalidParameterError(
        "sample rate", bad,
        "rates that give a whole number of samples in one EDF data record of 0.001 to 60 s",
        "Resample the channel to a rate such as 256 or 250.5 Hz, or save as HDF5 (.h5), which "
        "keeps any rate");
  }
  if (!anySize) {
    throw InvalidParameterError("channels", std::to_string(n) + " channels at these rates",
                                "data records of at most " +
                                    std::to_string(kEdfMaxRecordBytes / (1024 * 1024)) +
                                    " MiB (EDFlib's limit)",
                                "Save fewer channels, or save as HDF5 (.h5)");
  }
  throw InvalidParameterError(
      "annotations", std::to_string(annotations) + " annotations",
      "at most " + std::to_string(kEdfMaxAnnotationSignals) +
          " per data record (EDFlib stores one per annotation signal per record)",
      "Save as HDF5 (.h5), which keeps every annotation, or remove some annotations");
}

void writeEdfPlus(const Recording& rec, const std::string& path, bool bdf, JobContext& ctx) {
  const EdfRecordLayout layout = planEdfRecords(rec, bdf);
  if (!rec.source) {
    throw InvalidParameterError("recording", "no sample source",
                                "a recording whose SignalSource is set");
  }
  JobContext scanCtx = ctx.sub(0.0, 0.2);
  const std::vector<Range> ranges = physicalRanges(rec, scanCtx);
  JobContext writeCtx = ctx.sub(0.2, 1.0);

  AtomicOutput out(path);
  const int nsig = static_cast<int>(rec.channels.size());
  int handle = -1;
  {
    std::lock_guard<std::mutex> lock(edflibMutex());
    handle = edfopen_file_writeonly(out.temporaryPath().c_str(),
                                    bdf ? EDFLIB_FILETYPE_BDFPLUS : EDFLIB_FILETYPE_EDFPLUS, nsig);
  }
  if (handle < 0) {
    throw OutputError(path, "EDFlib could not create '" + out.temporaryPath() + "' (" +
                                edflibOpenError(handle) +
                                "); check that the folder exists and is writable");
  }
  EdfHandle h(handle);
  const int digMax = bdf ? 8388607 : 32767;
  const int digMin = bdf ? -8388608 : -32768;

  for (int s = 0; s < nsig; ++s) {
    const ChannelInfo& c = rec.channels[static_cast<std::size_t>(s)];
    const std::string sig = "signal " + std::to_string(s + 1) + " (" + c.label + ")";
    check(edf_set_samplefrequency(h.get(), s, layout.samplesPerRecord[static_cast<std::size_t>(s)]),
          path, "the samples per record of " + sig);
    check(
        edf_set_physical_maximum(h.get(), s, awayFromZero(ranges[static_cast<std::size_t>(s)].max)),
        path, "the physical maximum of " + sig);
    check(
        edf_set_physical_minimum(h.get(), s, awayFromZero(ranges[static_cast<std::size_t>(s)].min)),
        path, "the physical minimum of " + sig);
    check(edf_set_digital_maximum(h.get(), s, digMax), path, "the digital maximum of " + sig);
    check(edf_set_digital_minimum(h.get(), s, digMin), path, "the digital minimum of " + sig);
    check(edf_set_label(h.get(), s, edfLabel(c).c_str()), path, "the label of " + sig);
    check(edf_set_physical_dimension(h.get(), s, asciiField(c.unit, 8).c_str()), path,
          "the unit of " + sig);
    check(edf_set_prefilter(h.get(), s, asciiField(c.prefilter, 80).c_str()), path,
          "the prefilter of " + sig);
    check(edf_set_transducer(h.get(), s, asciiField(c.transducer, 80).c_str()), path,
          "the transducer of " + sig);
  }
  if (layout.durationUnits != kOneSecondUnits) {
    check(edf_set_datarecord_duration(h.get(), layout.durationUnits), path,
          "the data-record duration " + formatNumber(layout.durationSeconds) + " s");
  }
  check(edf_set_number_of_annotation_signals(h.get(), layout.annotationSignals), path,
        std::to_string(layout.annotationSignals) + " annotation signals");

  const RecordingInfo& info = rec.info;
  DateTime start;
  parseStart(info.startDateTime, start);  // keeps 1985-01-01 00:00:00 when it fails
  check(edf_set_startdatetime(h.get(), start.year, start.month, start.day, start.hour, start.minute,
                              start.second),
        path, "the start date");
  if (start.subsecond100ns > 0) {
    check(edf_set_subsecond_starttime(h.get(), start.subsecond100ns), path,
          "the sub-second start time");
  }
  check(edf_set_patientname(h.get(), asciiField(info.patient, 80).c_str()), path,
        "the patient name");
  check(edf_set_patientcode(h.get(), asciiField(info.patientCode, 80).c_str()), path,
        "the patient code");
  const std::string sex = toLower(trim(info.sex));
  if (sex == "m" || sex == "male") check(edf_set_gender(h.get(), 1), path, "the sex");
  if (sex == "f" || sex == "female") check(edf_set_gender(h.get(), 0), path, "the sex");
  int by = 0, bm = 0, bd = 0;
  if (parseBirthdate(info.birthdate, by, bm, bd)) {
    check(edf_set_birthdate(h.get(), by, bm, bd), path, "the birthdate");
  }
  check(edf_set_admincode(h.get(), asciiField(info.adminCode, 80).c_str()), path, "the admin code");
  check(edf_set_technician(h.get(), asciiField(info.technician, 80).c_str()), path,
        "the technician");
  check(edf_set_equipment(h.get(), asciiField(info.equipment, 80).c_str()), path, "the equipment");
  check(edf_set_recording_additional(h.get(), asciiField(info.recordingId, 80).c_str()), path,
        "the recording identification");

  // EDFlib keeps annotations in memory and lays them out when the file is closed.
  for (std::size_t i = 0; i < rec.annotations.size(); ++i) {
    const Annotation& a = rec.annotations[i];
    const long long onset = std::llround(a.onset * 10000.0);  // units of 100 us
    const long long duration = a.duration > 0 ? std::llround(a.duration * 10000.0) : -1;
    const std::string text = utf8Prefix(sanitizeUtf8(a.text), kEdfAnnotationTextBytes);
    if (edfwrite_annotation_utf8(h.get(), onset, duration, text.c_str()) != 0) {
      throw InvalidParameterError(
          "annotation " + std::to_string(i + 1),
          "onset " + formatNumber(a.onset) + " s, duration " + formatNumber(a.duration) + " s",
          "an onset EDF+ can store (0 or later)",
          "Remove or move the annotation, or save as HDF5 (.h5)");
    }
  }

  // Data records, in batches: read every channel's part of the batch, then hand EDFlib one
  // record at a time, signal by signal. We convert to digital values ourselves, rounding to the
  // nearest level (EDFlib's physical-sample path truncates, which doubles the error), with the
  // same linear map a reader applies to the header's ranges.
  int64_t floatsPerRecord = 0;
  for (int spr : layout.samplesPerRecord) floatsPerRecord += spr;
  const int64_t perBatch = std::clamp<int64_t>(kBatchFloats / std::max<int64_t>(floatsPerRecord, 1),
                                               1, kMaxRecordsPerBatch);
  std::vector<std::vector<float>> batch(static_cast<std::size_t>(nsig));
  std::vector<int> recordBuf;
  const double digitalSpan = static_cast<double>(digMax) - static_cast<double>(digMin);
  for (int64_t r0 = 0; r0 < layout.recordCount; r0 += perBatch) {
    const int64_t records = std::min(perBatch, layout.recordCount - r0);
    for (int s = 0; s < nsig; ++s) {
      const auto k = static_cast<std::size_t>(s);
      const int64_t spr = layout.samplesPerRecord[k];
      const int64_t first = r0 * spr;
      const int64_t want = records * spr;
      const int64_t have = std::clamp<int64_t>(rec.channels[k].sampleCount - first, 0, want);
      batch[k].assign(static_cast<std::size_t>(want), std::numeric_limits<float>::quiet_NaN());
      if (have > 0) rec.source->read(k, first, have, batch[k].data());
    }
    for (int64_t r = 0; r < records; ++r) {
      for (int s = 0; s < nsig; ++s) {
        const auto k = static_cast<std::size_t>(s);
        const int spr = layout.samplesPerRecord[k];
        const Range& range = ranges[k];
        const double scale = digitalSpan / (range.max - range.min);
        recordBuf.resize(static_cast<std::size_t>(spr));
        const float* src = batch[k].data() + r * spr;
        for (int j = 0; j < spr; ++j) {
          const double v = src[j];
          // NaN (also the padding after a channel's end) -> 0 clamped into the range.
          const double phys = std::isnan(v) ? std::clamp(0.0, range.min, range.max)
                                            : std::clamp(v, range.min, range.max);
          const double d = std::round((phys - range.min) * scale) + digMin;
          recordBuf[static_cast<std::size_t>(j)] = static_cast<int>(
              std::clamp(d, static_cast<double>(digMin), static_cast<double>(digMax)));
        }
        const int rc = edfwrite_digital_samples(h.get(), recordBuf.data());
        if (rc != 0) {
          throw OutputError(path, "EDFlib could not write data record " +
                                      std::to_string(r0 + r + 1) + " (" + edflibWriteError(rc) +
                                      ")");
        }
      }
    }
    writeCtx.progress(static_cast<double>(r0 + records) / static_cast<double>(layout.recordCount),
                      "writing data record " + std::to_string(r0 + records) + " of " +
                          std::to_string(layout.recordCount));
    writeCtx.checkpoint();
  }

  int rc = 0;
  {
    std::lock_guard<std::mutex> lock(edflibMutex());
    rc = edfclose_file(h.release());
  }
  if (rc != 0) {
    throw OutputError(path, "EDFlib could not finish the file (" + edflibWriteError(rc) +
                                "); check free disk space");
  }
  out.commit();
}

}  // namespace modescope
