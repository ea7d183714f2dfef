#include "engine/io/edflib_reader.h"

#include <edflib.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/edf_annotations.h"
#include "engine/io/edf_header.h"
#include "engine/io/edf_raw_reader.h"
#include "engine/io/edflib_lock.h"
#include "engine/io/trigger_channel.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

std::string edflibErrorText(int code) {
  switch (code) {
    case EDFLIB_MALLOC_ERROR:
      return "out of memory (EDFLIB_MALLOC_ERROR)";
    case EDFLIB_NO_SUCH_FILE_OR_DIRECTORY:
      return "no such file (EDFLIB_NO_SUCH_FILE_OR_DIRECTORY)";
    case EDFLIB_FILE_CONTAINS_FORMAT_ERRORS:
      return "format errors (EDFLIB_FILE_CONTAINS_FORMAT_ERRORS)";
    case EDFLIB_MAXFILES_REACHED:
      return "too many files open (EDFLIB_MAXFILES_REACHED)";
    case EDFLIB_FILE_READ_ERROR:
      return "read error (EDFLIB_FILE_READ_ERROR)";
    case EDFLIB_FILE_ALREADY_OPENED:
      return "file already open (EDFLIB_FILE_ALREADY_OPENED)";
    case EDFLIB_FILETYPE_ERROR:
      return "not an EDF/BDF file (EDFLIB_FILETYPE_ERROR)";
    case EDFLIB_NUMBER_OF_SIGNALS_INVALID:
      return "invalid number of signals (EDFLIB_NUMBER_OF_SIGNALS_INVALID)";
    case EDFLIB_FILE_IS_DISCONTINUOUS:
      return "discontinuous EDF+D/BDF+D file (EDFLIB_FILE_IS_DISCONTINUOUS)";
    default:
      return "error " + std::to_string(code);
  }
}

// One open EDFlib handle, shared by the source and closed when the last user goes.
class EdflibHandle {
 public:
  EdflibHandle(int handle, int aliasFd, std::string path)
      : handle_(handle), aliasFd_(aliasFd), path_(std::move(path)) {}
  ~EdflibHandle() {
    std::lock_guard lock(edflibMutex());
    edfclose_file(handle_);
    if (aliasFd_ >= 0) ::close(aliasFd_);
  }
  EdflibHandle(const EdflibHandle&) = delete;
  EdflibHandle& operator=(const EdflibHandle&) = delete;

  int handle() const { return handle_; }
  const std::string& path() const { return path_; }

 private:
  int handle_;
  int aliasFd_;
  std::string path_;
};

class EdflibSource final : public SignalSource {
 public:
  EdflibSource(std::shared_ptr<EdflibHandle> h, std::vector<int64_t> counts)
      : h_(std::move(h)), counts_(std::move(counts)) {}

  void read(std::size_t channel, int64_t first, int64_t count, float* out) const override {
    std::vector<double> buf;
    readPhysical(
        channel, first, count,
        [&](int64_t at, const double* v, int n) {
          for (int i = 0; i < n; ++i) out[at + i] = static_cast<float>(v[i]);
        },
        buf);
  }

  void readDigital(std::size_t channel, int64_t first, int64_t count, int64_t* out) const {
    check(channel, first, count);
    std::vector<int> buf(static_cast<std::size_t>(std::min<int64_t>(count, kChunk)));
    std::lock_guard lock(edflibMutex());
    seek(channel, first);
    for (int64_t done = 0; done < count;) {
      const int want = static_cast<int>(std::min<int64_t>(kChunk, count - done));
      const int got =
          edfread_digital_samples(h_->handle(), static_cast<int>(channel), want, buf.data());
      if (got != want) fail(channel, first + done);
      for (int i = 0; i < got; ++i) out[done + i] = buf[static_cast<std::size_t>(i)];
      done += got;
    }
  }

 private:
  static constexpr int64_t kChunk = 1 << 16;

  template <class Sink>
  void readPhysical(std::size_t channel, int64_t first, int64_t count, Sink sink,
                    std::vector<double>& buf) const {
    check(channel, first, count);
    buf.resize(static_cast<std::size_t>(std::min<int64_t>(count, kChunk)));
    std::lock_guard lock(edflibMutex());
    seek(channel, first);
    for (int64_t done = 0; done < count;) {
      const int want = static_cast<int>(std::min<int64_t>(kChunk, count - done));
      const int got =
          edfread_physical_samples(h_->handle(), static_cast<int>(channel), want, buf.data());
      if (got != want) fail(channel, first + done);
      sink(done, buf.data(), got);
      done += got;
    }
  }

  void check(std::size_t channel, int64_t first, int64_t count) const {
    if (channel >= counts_.size() || first < 0 || count < 0 || first + count > counts_[channel]) {
      throw std::out_of_range("EdflibSource::read outside the channel");
    }
  }
  void seek(std::size_t channel, int64_t first) const {
    if (edfseek(h_->handle(), static_cast<int>(channel), first, EDFSEEK_SET) != first) {
      fail(channel, first);
    }
  }
  [[noreturn]] void fail(std::size_t channel, int64_t sample) const {
    throw InvalidInputError(h_->path(), "data of signal " + std::to_string(channel + 1),
                            "a read error at sample " + std::to_string(sample),
                            "all samples the header announces",
                            "The file may have changed or been truncated since it was opened");
  }

  std::shared_ptr<EdflibHandle> h_;
  std::vector<int64_t> counts_;
};

std::string fixed(const char* s) { return sanitizeUtf8(trim(s)); }

std::string isoDateTime(const edf_hdr_struct& h) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", h.startdate_year,
                h.startdate_month, h.startdate_day, h.starttime_hour, h.starttime_minute,
                h.starttime_second);
  std::string s = buf;
  if (h.starttime_subsecond > 0) {
    std::snprintf(buf, sizeof buf, ".%07lld", static_cast<long long>(h.starttime_subsecond));
    std::string frac = buf;
    while (frac.size() > 2 && frac.back() == '0') frac.pop_back();
    s += frac;
  }
  return s;
}

}  // namespace

EdflibOpenResult openWithEdflib(const std::string& path) {
  EdflibOpenResult result;
  // EDFlib refuses to open one path twice (EDFLIB_FILE_ALREADY_OPENED), but a file may well be
  // open in two views. Opening through /proc/self/fd/N of our own descriptor gives every open a
  // distinct name for the same file; the descriptor lives as long as the EDFlib handle.
  int aliasFd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::string openPath = path;
  if (aliasFd >= 0) {
    const std::string alias = "/proc/self/fd/" + std::to_string(aliasFd);
    if (::access(alias.c_str(), R_OK) == 0) {
      openPath = alias;
    } else {
      ::close(aliasFd);
      aliasFd = -1;
    }
  }
  auto hdr = std::make_unique<edf_hdr_struct>();
  int rc;
  {
    std::lock_guard lock(edflibMutex());
    rc = edfopen_file_readonly(openPath.c_str(), hdr.get(), EDFLIB_DO_NOT_READ_ANNOTATIONS);
  }
  if (rc != 0) {
    if (aliasFd >= 0) ::close(aliasFd);
    result.errorCode = hdr->filetype;
    result.errorMessage = edflibErrorText(hdr->filetype);
    return result;
  }
  auto handle = std::make_shared<EdflibHandle>(hdr->handle, aliasFd, path);
  const edf_hdr_struct& h = *hdr;

  auto rec = std::make_shared<Recording>();
  rec->sourcePath = path;
  const bool isBdf = h.filetype == EDFLIB_FILETYPE_BDF || h.filetype == EDFLIB_FILETYPE_BDFPLUS;
  const bool isPlus =
      h.filetype == EDFLIB_FILETYPE_EDFPLUS || h.filetype == EDFLIB_FILETYPE_BDFPLUS;
  rec->info.format = std::string(isBdf ? "BDF" : "EDF") + (isPlus ? "+" : "");
  rec->info.reader = "EDFlib";
  if (isPlus) {
    rec->info.patient = fixed(h.patient_name);
    rec->info.patientCode = fixed(h.patientcode);
    rec->info.sex = fixed(h.gender);
    if (h.birthdate_year > 0 && h.birthdate_month > 0 && h.birthdate_day > 0) {
      char b[48];
      std::snprintf(b, sizeof b, "%04d-%02d-%02d", h.birthdate_year, h.birthdate_month,
                    h.birthdate_day);
      rec->info.birthdate = b;
    }
    rec->info.recordingId = fixed(h.recording_additional);
    rec->info.technician = fixed(h.technician);
    rec->info.equipment = fixed(h.equipment);
    rec->info.adminCode = fixed(h.admincode);
  } else {
    rec->info.patient = fixed(h.patient);
    rec->info.recordingId = fixed(h.recording);
  }
  rec->info.startDateTime = isoDateTime(h);

  std::vector<int64_t> counts;
  const double recordSeconds = static_cast<double>(h.datarecord_duration) / EDFLIB_TIME_DIMENSION;
  for (int i = 0; i < h.edfsignals; ++i) {
    const edf_param_struct& p = h.signalparam[i];
    ChannelInfo c;
    c.label = fixed(p.label);
    c.unit = fixed(p.physdimension);
    c.sampleRate = recordSeconds > 0 ? p.smp_in_datarecord / recordSeconds : 0.0;
    c.sampleCount = p.smp_in_file;
    c.physicalMin = p.phys_min;
    c.physicalMax = p.phys_max;
    c.digitalMin = p.dig_min;
    c.digitalMax = p.dig_max;
    c.prefilter = fixed(p.prefilter);
    c.transducer = fixed(p.transducer);
    counts.push_back(p.smp_in_file);
    rec->channels.push_back(std::move(c));
  }
  auto source = std::make_shared<EdflibSource>(handle, std::move(counts));
  rec->source = source;
  applyStandardNames(rec->channels);
  // Trigger words are read raw from the file (EDFlib clips samples to the digital range); the
  // header check gives the layout. EDFlib numbers signals without the annotation signals.
  std::vector<std::size_t> fileSignal;
  EdfHeader layout;
  try {
    EdfCheck check = checkEdfHeader(path, false);
    layout = std::move(check.header);
    for (std::size_t j = 0; j < layout.signals.size(); ++j) {
      if (!layout.signals[j].isAnnotation) fileSignal.push_back(j);
    }
  } catch (const Error&) {
    fileSignal.clear();
  }
  // Annotations through positioned reads of the annotation signals only (edf_annotations.h says
  // why not EDFlib's own pass).
  if (isPlus) rec->annotations = readEdfAnnotations(path, layout);
  const bool layoutMatches =
      fileSignal.size() == rec->channels.size() && layout.recordsInFile == h.datarecords_in_file;
  addTriggerAnnotations(*rec, [&](std::size_t ch) -> TriggerCodeReader {
    if (layoutMatches && trim(layout.signals[fileSignal[ch]].label) == rec->channels[ch].label) {
      return edfRawTriggerReader(path, layout, fileSignal[ch]);
    }
    if (isBdf) {
      return [source, ch](int64_t first, int64_t count, int64_t* out) {
        source->readDigital(ch, first, count, out);
      };
    }
    return physicalTriggerReader(*rec, ch, false);
  });
  result.recording = std::move(rec);
  return result;
}

}  // namespace modescope
