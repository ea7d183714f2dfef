// BioSig import (runs only in the child process `modescope-cli biosig-import`; see
// biosig_converter.h). BioSig 2.5 crashes or hangs on some damaged files, which is why it never
// runs in the app's own process.
#include "engine/io/biosig_converter.h"

#include <biosig.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/provenance.h"
#include "engine/core/recording.h"
#include "engine/core/text.h"
#include "engine/io/edf_header.h"
#include "engine/io/recording_io.h"
#include "engine/io/trigger_channel.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kMaxChannels = 4096;
// Samples per sread call: bounds the double buffer BioSig allocates (64 MiB).
constexpr double kChunkSamples = 8.0 * 1024 * 1024;

// Owns the BioSig header; sclose/destructHDR however the import ends.
class BiosigFile {
 public:
  explicit BiosigFile(const std::string& path) {
    hdr_ = constructHDR(0, 0);
    if (!hdr_) throw std::runtime_error("BioSig could not allocate a header");
    // Physical units; no NaN for values at the range limits (EDFlib and MNE do not do that
    // either); names as written (the user opened their own file).
    hdr_->FLAG.UCAL = 0;
    hdr_->FLAG.OVERFLOWDETECTION = 0;
    hdr_->FLAG.ANONYMOUS = 0;
    hdr_ = sopen(path.c_str(), "r", hdr_);
    if (!hdr_) throw std::runtime_error("BioSig could not open the file");
    if (biosig_check_error(hdr_)) {
      char* msg = biosig_get_errormsg(hdr_);
      std::string text = msg ? msg : "unknown BioSig error";
      std::free(msg);
      throw InvalidInputError(
          path, "file",
          "BioSig error " + std::to_string(biosig_check_error(hdr_)) + ": " + trim(text),
          "a file in a format BioSig reads");
    }
  }
  ~BiosigFile() {
    if (hdr_) {
      sclose(hdr_);
      destructHDR(hdr_);
    }
  }
  BiosigFile(const BiosigFile&) = delete;
  BiosigFile& operator=(const BiosigFile&) = delete;
  HDRTYPE* get() const { return hdr_; }

 private:
  HDRTYPE* hdr_ = nullptr;
};

bool isAnnotationLabel(const std::string& label) {
  const std::string l = toLower(trim(label));
  return l == "edf annotations" || l == "bdf annotations";
}

// gdf_time is days since 0000-01-00 in 32.32 fixed point. BioSig's own conversion to struct tm
// truncates, which turns 16:15:00 into 16:14:59; BioSig's T0 itself is ~10 us off (one unit is
// 20 us), so this rounds to the millisecond.
std::string isoFromGdfTime(gdf_time t, bool withTime) {
  constexpr double kUnixEpochDays = 719529.0;  // 1970-01-01 in gdf_time days
  const double unixSeconds = (std::ldexp(static_cast<double>(t), -32) - kUnixEpochDays) * 86400.0;
  const double rounded = std::round(unixSeconds * 1e3) / 1e3;
  const double whole = std::floor(rounded);
  const auto secs = static_cast<std::time_t>(whole);
  struct tm u {};
  if (!gmtime_r(&secs, &u)) return {};
  char buf[64];
  if (!withTime) {
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", u.tm_year + 1900, u.tm_mon + 1, u.tm_mday);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", u.tm_year + 1900, u.tm_mon + 1,
                u.tm_mday, u.tm_hour, u.tm_min, u.tm_sec);
  std::string s = buf;
  const long millis = std::lround((rounded - whole) * 1e3);
  if (millis > 0) {
    std::snprintf(buf, sizeof buf, ".%03ld", millis);
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    s += frac;
  }
  return s;
}

std::string text(const char* s) { return s ? sanitizeUtf8(trim(s)) : std::string(); }

std::string prefilterText(const CHANNEL_TYPE& c) {
  // BioSig parses the prefilter text into numbers; rebuild an EDF-style text from them.
  std::string s;
  auto add = [&](const char* name, float v) {
    if (std::isfinite(v) && v > 0)
      s += (s.empty() ? "" : " ") + std::string(name) + formatNumber(v) + "Hz";
  };
  add("HP:", c.HighPass);
  add("LP:", c.LowPass);
  add("N:", c.Notch);
  return s;
}

std::size_t physicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                               : std::size_t(1) << 34;
}

Recording importRecording(HDRTYPE* h, const std::string& path, const EdfCheck& edf) {
  if (h->NS == 0 || h->NS > kMaxChannels) {
    throw InvalidInputError(path, "number of channels", std::to_string(h->NS),
                            "1-" + std::to_string(kMaxChannels));
  }
  if (h->NRec <= 0) {
    throw InvalidInputError(path, "number of records", std::to_string(h->NRec),
                            "at least one record");
  }
  if (!(h->SampleRate > 0) || !std::isfinite(h->SampleRate) || h->SPR == 0) {
    throw InvalidInputError(path, "sample rate", formatNumber(h->SampleRate) + " Hz",
                            "a positive sample rate");
  }
  const bool isBdf = h->TYPE == BDF;
  const double recordSeconds = h->SPR / h->SampleRate;

  Recording rec;
  rec.sourcePath = path;
  rec.info.format = text(GetFileTypeString(h->TYPE));
  rec.info.reader = "BioSig";
  rec.info.patient = text(h->Patient.Name);
  rec.info.patientCode = text(h->Patient.Id);
  rec.info.sex = h->Patient.Sex == 1 ? "Male" : h->Patient.Sex == 2 ? "Female" : "";
  if (h->Patient.Birthday != 0) rec.info.birthdate = isoFromGdfTime(h->Patient.Birthday, false);
  rec.info.recordingId = text(h->ID.Recording);
  rec.info.technician = text(h->ID.Technician);
  rec.info.equipment = text(h->ID.Manufacturer.Name);
  if (h->T0 != 0) rec.info.startDateTime = isoFromGdfTime(h->T0, true);
  // For EDF/BDF our own header parse is exact (BioSig's T0 is rounded to ~20 us).
  if (edf.looksLikeEdf) {
    if (std::string iso = edfStartDateTimeIso(edf.header); !iso.empty())
      rec.info.startDateTime = iso;
  }

  // Channels BioSig reads, plus trigger channels it switched off (it turns a BDF Status channel
  // into events; we keep the channel and decode it ourselves, see trigger_channel.h).
  std::vector<int> chosen;
  for (int k = 0; k < h->NS; ++k) {
    const CHANNEL_TYPE& c = h->CHANNEL[k];
    if (c.SPR == 0 || c.OnOff == 2 || isAnnotationLabel(c.Label)) continue;
    if (c.OnOff == 0 && !isTriggerChannelLabel(c.Label)) continue;
    chosen.push_back(k);
  }
  if (chosen.empty()) {
    throw InvalidInputError(path, "channels", "no channel with samples", "at least one signal");
  }
  double totalSamples = 0;
  for (int k : chosen) totalSamples += static_cast<double>(h->NRec) * h->CHANNEL[k].SPR;
  if (totalSamples * sizeof(float) * 1.5 > static_cast<double>(physicalMemoryBytes())) {
    throw InvalidInputError(path, "size", formatNumber(totalSamples) + " samples",
                            "a recording that fits in this machine's memory",
                            "Cut the recording into parts with the recording software");
  }

  // sread returns every channel at the header's common rate (the LCM of the channels' samples
  // per record, repeated sample by sample), which for odd rates is millions of samples per
  // record. Reading channels grouped by samples per record, with the common rate set to the
  // group's, gives each channel at its own rate.
  std::map<uint32_t, std::vector<int>> groups;
  for (int k : chosen) groups[h->CHANNEL[k].SPR].push_back(k);
  std::vector<char> onOff(h->NS);
  for (int k = 0; k < h->NS; ++k) onOff[k] = h->CHANNEL[k].OnOff;
  const uint32_t commonSpr = h->SPR;
  std::map<int, std::vector<float>> samples;
  std::size_t shortest = static_cast<std::size_t>(h->NRec);
  for (const auto& [spr, members] : groups) {
    for (int k = 0; k < h->NS; ++k) h->CHANNEL[k].OnOff = 0;
    for (int k : members) h->CHANNEL[k].OnOff = 1;
    h->SPR = spr;
    const std::size_t perChunk = std::max<std::size_t>(
        1, static_cast<std::size_t>(kChunkSamples / (static_cast<double>(spr) * members.size())));
    for (int k : members) samples[k].reserve(static_cast<std::size_t>(h->NRec) * spr);
    std::size_t done = 0;
    while (done < static_cast<std::size_t>(h->NRec)) {
      const std::size_t want = std::min(perChunk, static_cast<std::size_t>(h->NRec) - done);
      const std::size_t got = sread(nullptr, done, want, h);
      if (got == 0 || biosig_check_error(h)) break;
      const std::size_t rows = h->data.size[0];
      if (h->data.size[1] != members.size() || rows < got * spr) break;
      for (std::size_t m = 0; m < members.size(); ++m) {
        const double* col = h->data.block + m * rows;
        auto& dst = samples[members[m]];
        for (std::size_t i = 0; i < got * spr; ++i) dst.push_back(static_cast<float>(col[i]));
      }
      done += got;
      if (got < want) break;  // a truncated file: keep the complete records
    }
    shortest = std::min(shortest, done);
  }
  h->SPR = commonSpr;
  for (int k = 0; k < h->NS; ++k) h->CHANNEL[k].OnOff = onOff[k];
  if (shortest == 0) {
    throw InvalidInputError(path, "data", "no complete record could be read",
                            "at least one data record");
  }

  std::vector<std::vector<float>> data;
  for (int k : chosen) {
    const CHANNEL_TYPE& c = h->CHANNEL[k];
    ChannelInfo info;
    info.label = text(c.Label);
    info.unit = text(PhysDim3(c.PhysDimCode));
    if (info.unit == "?") info.unit.clear();
    info.sampleRate = c.SPR / recordSeconds;
    auto& v = samples[k];
    info.sampleCount = static_cast<int64_t>(v.size());
    info.physicalMin = c.PhysMin;
    info.physicalMax = c.PhysMax;
    info.digitalMin = static_cast<int>(std::clamp(c.DigMin, -2147483648.0, 2147483647.0));
    info.digitalMax = static_cast<int>(std::clamp(c.DigMax, -2147483648.0, 2147483647.0));
    info.prefilter = prefilterText(c);
    info.transducer = text(c.Transducer);
    rec.channels.push_back(std::move(info));
    data.push_back(std::move(v));
  }
  if (shortest < static_cast<std::size_t>(h->NRec)) {
    addDiagnostic(rec.diagnostics, Severity::Warning, "biosig.truncated",
                  "Only " + std::to_string(shortest) + " of " + std::to_string(h->NRec) +
                      " data records could be read; the file is truncated");
  }

  // Events. For BDF, BioSig derives events without a description from the Status channel; we
  // decode that channel ourselves (same rule for every reader), so those are skipped here.
  const double eventRate = h->EVENT.SampleRate > 0 ? h->EVENT.SampleRate : h->SampleRate;
  // BioSig counts EDF+ event positions from the header's whole-second start time; EDF+ onsets
  // (and EDFlib, MNE) count from the first data record, which may start up to 1 s later.
  const double eventShift = edf.looksLikeEdf ? edf.header.startOffset : 0.0;
  for (uint32_t e = 0; e < h->EVENT.N; ++e) {
    const char* desc = GetEventDescription(h, e);
    if (isBdf && desc == nullptr) continue;
    Annotation a;
    a.onset = h->EVENT.POS[e] / eventRate - eventShift;
    a.duration = h->EVENT.DUR ? h->EVENT.DUR[e] / eventRate : 0.0;
    if (desc) {
      a.text = text(desc);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "event 0x%04x", h->EVENT.TYP[e]);
      a.text = buf;
    }
    rec.annotations.push_back(std::move(a));
  }
  const uint32_t v = get_biosig_version();
  addDiagnostic(rec.diagnostics, Severity::Info, "biosig.read",
                "Read by BioSig " + std::to_string((v >> 16) & 0xff) + "." +
                    std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff) + " as " +
                    (rec.info.format.empty() ? std::string("an unnamed format") : rec.info.format) +
                    ".");
  rec.source = std::make_shared<InMemorySource>(std::move(data));
  applyStandardNames(rec.channels);
  addTriggerAnnotations(rec, [&](std::size_t ch) { return physicalTriggerReader(rec, ch, isBdf); });
  return rec;
}

struct RemoveOnExit {
  std::string path;
  ~RemoveOnExit() {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
  }
};

void writeCompleteRecordsCopy(const std::string& in, const EdfHeader& h, const std::string& out) {
  std::error_code ec;
  fs::copy_file(in, out, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::resize_file(
        out, static_cast<std::uintmax_t>(h.headerBytes + h.recordsInFile * h.recordBytes), ec);
  if (ec) throw OutputError(out, "cannot prepare a repaired copy for BioSig: " + ec.message());
  std::string count = std::to_string(h.recordsInFile);
  count.resize(8, ' ');
  std::fstream f(out, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(236);  // "number of data records", 8 ASCII characters
  f.write(count.data(), 8);
  if (!f) throw OutputError(out, "cannot write the repaired record count");
}

}  // namespace

int runBiosigImport(const std::string& inputPath, const std::string& outputHdf5Path) {
  try {
    // Our own header check first: it refuses headers that would make BioSig allocate or loop
    // without bound, and it gives the exact EDF+ start (BioSig rounds it).
    EdfCheck edf;
    try {
      edf = checkEdfHeader(inputPath);
    } catch (const Error&) {
      edf = EdfCheck{};
    }
    if (edf.looksLikeEdf) {
      for (const auto& f : edf.findings) {
        if (f.fatal) throw InvalidInputError(inputPath, f.field, f.found, f.expected);
      }
    }
    // BioSig trusts the record count: a count beyond the file (a truncated file, -1 while still
    // recording) makes it loop or crash. It reads a repaired copy instead: the count the file
    // holds, and only the complete records.
    std::string readPath = inputPath;
    RemoveOnExit repaired;
    if (edf.looksLikeEdf && edf.header.recordCount != edf.header.recordsInFile) {
      repaired.path =
          outputHdf5Path + ".complete-records" + fs::path(inputPath).extension().string();
      writeCompleteRecordsCopy(inputPath, edf.header, repaired.path);
      readPath = repaired.path;
    }
    BiosigFile file(readPath);
    Recording rec = importRecording(file.get(), inputPath, edf);
    Provenance prov;
    prov.method = "biosig-import";
    prov.inputFile = inputPath;
    prov.softwareVersion = softwareVersion();
    prov.createdAt = utcNowIso8601();
    const uint32_t v = get_biosig_version();
    prov.backend = "BioSig " + std::to_string((v >> 16) & 0xff) + "." +
                   std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
    JobContext ctx;
    writeRecording(rec, outputHdf5Path, OutputFormat::Hdf5, prov, ctx);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "biosig-import: %s\n", e.what());
    return 2;
  }
}

}  // namespace modescope
