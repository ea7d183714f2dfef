// Signal browser benchmark (docs/browser.md): 256 channels x 1 h x 1 kHz EDF+ with 10,000
// annotations, opened with openRecording and drawn by SignalBrowser::renderPage into a 1920x1080
// QImage on the offscreen platform.
//
// Measures (a) open -> first page painted, with the file evicted from the OS page cache first
// (cold) and again warm, and a page from a cold cache with the file already open; (b) median and
// p95 of a page redraw when scrolling by a quarter page (read + montage/filter + decimate +
// paint) over N steps, back to back (read-ahead gets no idle time) or paced at 10 steps per
// second (a user scrolling, 2.5 pages/s), split into the data part (PageCache alone) and the
// whole, with wall and GUI-thread CPU time; (c) the same for 10 s / 30 s / 300 s pages, 32 or
// 256 visible channels, with and without a 1-40 Hz display band-pass, without read-ahead, and
// from memory (the browser's own cost without the reader's); (d) RSS after opening and at the
// end.
//
// Usage: gui_browser_bench [--file PATH] [--steps N] [--png OUT.png] [--only TEXT] [--no-filter]
//   --file   the EDF+ file to use; generated there when absent (default: $TMPDIR or /tmp,
//            modescope_bench_256ch_1h_1kHz.edf). Generation writes ~1.8 GB once (~20 s).
//   --steps  scroll steps per configuration (default 200).
//   --png    also writes the first page as a PNG, to look at.
//   --only   runs only the scroll configurations whose name contains TEXT (e.g. "256 ch").
//   --no-filter  skips the configurations with a display filter.
#include <edflib.h>
#include <fcntl.h>
#include <unistd.h>

#include <QApplication>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "engine/io/recording_io.h"
#include "widgets/page_cache.h"
#include "widgets/signal_browser.h"
#include "widgets/trace_renderer.h"

namespace {

using Clock = std::chrono::steady_clock;
using modescope::FilterKind;
using modescope::FilterSpec;
using modescope::SignalBrowser;

constexpr int kChannels = 256;
constexpr int kRate = 1000;  // Hz, one data record = 1 s
constexpr int kSeconds = 3600;
constexpr int kAnnotations = 10000;
// EDFlib stores one annotation per annotation signal per data record: 10,000 annotations over
// 3,600 records need at least 3 signals; 4 leaves room for clustered events.
constexpr int kAnnotationSignals = 4;
const QSize kImageSize(1920, 1080);

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time of this thread (ms): unlike wall time it does not grow when other processes share
// the cores, so it is the number to compare between runs on a busy machine.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// kB from /proc/self/status ("VmRSS", "VmHWM").
long procStatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  }
  return -1;
}

// Drops the file's pages from the OS cache so the first page is timed as after a reboot
// (POSIX_FADV_DONTNEED evicts clean pages without root rights).
bool evictFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  ::fdatasync(fd);
  const bool ok = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return ok;
}

// A small fast generator for the noise: the benchmark times the browser, not the synthesis.
struct XorShift {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 32);
  }
};

const char* const kSiteNames[] = {"Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8",  "FC5", "FC1", "FC2",
                                  "FC6", "T7",  "C3", "Cz", "C4", "T8", "CP5", "CP1", "CP2", "CP6",
                                  "P7",  "P3",  "Pz", "P4", "P8", "O1", "Oz",  "O2"};

// Writes the benchmark file with EDFlib: 16-bit EDF+, 0.1 uV resolution (+-3276.8 uV), one sine
// per channel (1..40 Hz, whole periods per record, so one table per channel) with a slow
// amplitude modulation plus uniform noise. Written under a temporary name, then renamed.
bool generateFile(const std::string& path) {
  const std::string part = path + ".part";
  const int h = edfopen_file_writeonly(part.c_str(), EDFLIB_FILETYPE_EDFPLUS, kChannels);
  if (h < 0) {
    std::fprintf(stderr, "edfopen_file_writeonly(%s) failed: %d\n", part.c_str(), h);
    return false;
  }
  for (int c = 0; c < kChannels; ++c) {
    char label[32];
    if (c < static_cast<int>(std::size(kSiteNames))) {
      std::snprintf(label, sizeof label, "EEG %s", kSiteNames[c]);
    } else {
      std::snprintf(label, sizeof label, "EEG E%03d", c + 1);
    }
    edf_set_samplefrequency(h, c, kRate);
    edf_set_physical_maximum(h, c, 3276.7);
    edf_set_physical_minimum(h, c, -3276.8);
    edf_set_digital_maximum(h, c, 32767);
    edf_set_digital_minimum(h, c, -32768);
    edf_set_label(h, c, label);
    edf_set_physical_dimension(h, c, "uV");
  }
  edf_set_startdatetime(h, 2024, 3, 1, 10, 0, 0);
  edf_set_patientname(h, "Benchmark");
  edf_set_equipment(h, "gui_browser_bench");
  if (edf_set_number_of_annotation_signals(h, kAnnotationSignals) != 0) {
    std::fprintf(stderr, "edf_set_number_of_annotation_signals failed\n");
    edfclose_file(h);
    return false;
  }

  std::vector<std::vector<int16_t>> table(kChannels, std::vector<int16_t>(kRate));
  for (int c = 0; c < kChannels; ++c) {
    const int f = 1 + (c * 7) % 40;
    const double amplitude = 200.0 + 10.0 * (c % 10);  // 0.1 uV units: 20-29 uV
    for (int i = 0; i < kRate; ++i) {
      table[c][i] = static_cast<int16_t>(
          std::lround(amplitude * std::sin(2 * std::numbers::pi * f * i / kRate)));
    }
  }
  std::vector<short> record(static_cast<std::size_t>(kChannels) * kRate);
  XorShift rng;
  for (int s = 0; s < kSeconds; ++s) {
    for (int c = 0; c < kChannels; ++c) {
      // Modulation per record, in 1/16 steps: integer arithmetic keeps generation cheap.
      const int gain = 12 + static_cast<int>(4 * std::sin(0.05 * s + c));
      short* out = record.data() + static_cast<std::size_t>(c) * kRate;
      const int16_t* sine = table[c].data();
      for (int i = 0; i < kRate; ++i) {
        const int noise = static_cast<int>(rng.next() % 101) - 50;  // +-5 uV
        out[i] = static_cast<short>(sine[i] * gain / 16 + noise);
      }
    }
    if (edf_blockwrite_digital_short_samples(h, record.data()) != 0) {
      std::fprintf(stderr, "writing record %d failed\n", s);
      edfclose_file(h);
      return false;
    }
  }
  for (int a = 0; a < kAnnotations; ++a) {
    // Evenly spread with a deterministic jitter; every tenth is a 2 s span.
    const long long onset = static_cast<long long>(a) * kSeconds * 10000LL / kAnnotations +
                            static_cast<long long>(rng.next() % 2000);
    const long long duration = a % 10 == 0 ? 20000 : -1;
    const std::string text = "event " + std::to_string(a + 1) + (a % 10 == 0 ? " (span)" : "");
    edfwrite_annotation_utf8(h, onset, duration, text.c_str());
  }
  if (edfclose_file(h) != 0) {
    std::fprintf(stderr, "edfclose_file failed\n");
    return false;
  }
  std::filesystem::rename(part, path);
  return true;
}

struct Config {
  const char* name;
  double pageLength;
  int visible;
  bool filter;
  bool inMemory;  // the first 300 s copied into an InMemorySource: the browser without the reader
  bool readAhead = true;
  double paceMs = 0.0;  // > 0: steps start this far apart (a user scrolling), else back to back
};

struct Row {
  std::string name;
  double dataMedian, dataP95, totalMedian, totalP95, totalCpuMedian, cachedMedian;
};

// The first `seconds` of every channel in memory, same metadata and annotations.
std::shared_ptr<const modescope::Recording> copyToMemory(const modescope::Recording& rec,
                                                         double seconds) {
  auto copy = std::make_shared<modescope::Recording>();
  copy->info = rec.info;
  copy->info.reader = "memory";
  copy->annotations = rec.annotations;
  std::vector<std::vector<float>> data;
  for (std::size_t c = 0; c < rec.channelCount(); ++c) {
    modescope::ChannelInfo info = rec.channels[c];
    info.sampleCount =
        std::min<int64_t>(info.sampleCount, static_cast<int64_t>(seconds * info.sampleRate));
    data.push_back(rec.readChannel(c, 0, info.sampleCount));
    copy->channels.push_back(info);
  }
  copy->source = std::make_shared<modescope::InMemorySource>(std::move(data));
  return copy;
}

void renderOnce(const SignalBrowser& b, QImage& img) {
  img.fill(Qt::white);
  QPainter p(&img);
  b.renderPage(p, QRect(QPoint(0, 0), kImageSize));
}

Row runConfig(const std::shared_ptr<const modescope::Recording>& rec, const Config& cfg,
              int steps) {
  // Pages beyond the window budget re-read the whole page per step (seconds each): fewer steps.
  if (cfg.pageLength * cfg.visible * kRate >
      static_cast<double>(modescope::browser::kWindowBudgetSamples)) {
    steps = std::min(steps, 20);
  }
  FilterSpec bp;
  bp.kind = FilterKind::BandPass;
  bp.lowHz = 1.0;
  bp.highHz = 40.0;
  const double startAt = 60.0;
  const double maxStart = rec->duration() - cfg.pageLength;

  // The whole: the widget's renderPage (read + filter + decimate + paint).
  SignalBrowser b;
  b.resize(kImageSize);
  b.setRecording(rec);
  b.setReadAhead(cfg.readAhead);
  b.setVisibleChannelCount(cfg.visible);
  b.setPageLength(cfg.pageLength);
  if (cfg.filter) b.setDisplayFilter(bp);
  b.setPageStart(startAt);
  QImage img(kImageSize, QImage::Format_ARGB32_Premultiplied);
  renderOnce(b, img);  // warm-up: the first page, not a scroll
  std::vector<double> total, totalCpu, cached;
  double t = startAt;
  const auto paceStart = Clock::now();
  for (int i = 0; i < steps; ++i) {
    if (cfg.paceMs > 0) {
      std::this_thread::sleep_until(
          paceStart + std::chrono::microseconds(static_cast<long long>(i * cfg.paceMs * 1000)));
    }
    t += cfg.pageLength / 4;
    if (t > maxStart) t = startAt;  // wraps: that one step is a full page (counted honestly)
    const auto t0 = Clock::now();
    const double c0 = threadCpuMs();
    b.setPageStart(t);
    renderOnce(b, img);
    total.push_back(msSince(t0));
    totalCpu.push_back(threadCpuMs() - c0);
    if (i % 10 == 0) {
      const auto t1 = Clock::now();
      renderOnce(b, img);  // unchanged view: painting only
      cached.push_back(msSince(t1));
    }
  }

  // The data part alone, same steps, through the same PageCache the widget uses.
  modescope::browser::PageCache cache;
  cache.setRecording(rec);
  cache.setReadAhead(cfg.readAhead);
  if (cfg.filter) cache.setFilter(bp);
  modescope::browser::PageRequest req;
  for (int c = 0; c < cfg.visible; ++c) req.channels.push_back(c);
  req.length = cfg.pageLength;
  req.start = startAt;
  // Same column count as the widget: the traces' width in the same layout.
  req.columns = static_cast<int>(std::lround(
      modescope::browser::BrowserLayout::compute(QRectF(QPointF(0, 0), QSizeF(kImageSize)),
                                                 cfg.visible, QFontMetricsF(b.font()))
          .traces.width()));
  cache.page(req);
  std::vector<double> data;
  t = startAt;
  const auto dataPaceStart = Clock::now();
  for (int i = 0; i < steps; ++i) {
    if (cfg.paceMs > 0) {
      std::this_thread::sleep_until(
          dataPaceStart + std::chrono::microseconds(static_cast<long long>(i * cfg.paceMs * 1000)));
    }
    t += cfg.pageLength / 4;
    if (t > maxStart) t = startAt;
    req.start = t;
    const auto t0 = Clock::now();
    cache.page(req);
    data.push_back(msSince(t0));
  }
  return {cfg.name,
          percentile(data, 0.5),
          percentile(data, 0.95),
          percentile(total, 0.5),
          percentile(total, 0.95),
          percentile(totalCpu, 0.5),
          percentile(cached, 0.5)};
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);

  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/modescope_bench_256ch_1h_1kHz.edf";
  std::string png, only;
  bool noFilter = false;
  int steps = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc)
      path = argv[++i];
    else if (a == "--steps" && i + 1 < argc)
      steps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--png" && i + 1 < argc)
      png = argv[++i];
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--no-filter")
      noFilter = true;
    else {
      std::fprintf(
          stderr,
          "usage: %s [--file PATH] [--steps N] [--png OUT.png] [--only TEXT] [--no-filter]\n",
          argv[0]);
      return 1;
    }
  }

  if (!std::filesystem::exists(path)) {
    std::printf("generating %s (256 ch x 1 h x 1 kHz, 10,000 annotations) ...\n", path.c_str());
    std::fflush(stdout);
    const auto t0 = Clock::now();
    if (!generateFile(path)) return 2;
    std::printf("generated in %.1f s, %.2f GB\n", msSince(t0) / 1000.0,
                std::filesystem::file_size(path) / 1e9);
  }
  const long rssBefore = procStatusKb("VmRSS");

  // (a) open -> first page, cold (file evicted from the OS cache) then warm.
  double coldOpen = 0, coldFirst = 0, warmOpen = 0, warmFirst = 0, coldPageOnly = 0;
  const bool evicted = evictFromPageCache(path);
  std::shared_ptr<const modescope::Recording> rec;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) rec.reset();
    const auto t0 = Clock::now();
    rec = modescope::openRecording(path);
    const double open = msSince(t0);
    SignalBrowser b;
    b.resize(kImageSize);
    b.setRecording(rec);
    b.setVisibleChannelCount(kChannels);
    QImage img(kImageSize, QImage::Format_ARGB32_Premultiplied);
    renderOnce(b, img);
    const double first = msSince(t0);
    (pass == 0 ? coldOpen : warmOpen) = open;
    (pass == 0 ? coldFirst : warmFirst) = first;
    if (pass == 0 && !png.empty()) img.save(QString::fromStdString(png));
  }
  {
    // A page alone from a cold cache: open's annotation scan pulls the file in, so evict it
    // again and draw a page 30 min in with the recording already open.
    SignalBrowser b;
    b.resize(kImageSize);
    b.setRecording(rec);
    b.setVisibleChannelCount(kChannels);
    b.setPageStart(1800.0);
    QImage img(kImageSize, QImage::Format_ARGB32_Premultiplied);
    evictFromPageCache(path);
    const auto t1 = Clock::now();
    renderOnce(b, img);
    coldPageOnly = msSince(t1);
  }
  const long rssOpen = procStatusKb("VmRSS");
  std::printf("\nfile: %s (%.2f GB), %zu channels, %.0f s, %zu annotations, reader %s\n",
              path.c_str(), std::filesystem::file_size(path) / 1e9, rec->channelCount(),
              rec->duration(), rec->annotations.size(), rec->info.reader.c_str());
  if (rec->annotations.size() != static_cast<std::size_t>(kAnnotations)) {
    std::printf("WARNING: expected %d annotations\n", kAnnotations);
  }
  std::printf("\n(a) open -> first page painted (1920x1080, 256 channels, 10 s)\n");
  std::printf("    cold%s: open %.1f ms, first page %.1f ms\n", evicted ? "" : " (eviction failed)",
              coldOpen, coldFirst);
  std::printf("    warm: open %.1f ms, first page %.1f ms\n", warmOpen, warmFirst);
  std::printf("    a page at 30 min from a cold cache (open excluded): %.1f ms\n", coldPageOnly);
  std::printf("(d) RSS: %.1f MB before open, %.1f MB after open + first page\n", rssBefore / 1024.0,
              rssOpen / 1024.0);

  // (b), (c) quarter-page scrolling.
  const Config configs[] = {
      {"10 s,  32 ch", 10.0, 32, false, false},
      {"10 s, 256 ch", 10.0, 256, false, false},
      {"30 s, 256 ch", 30.0, 256, false, false},
      {"300 s, 256 ch", 300.0, 256, false, false},
      {"10 s,  32 ch, bp 1-40", 10.0, 32, true, false},
      {"10 s, 256 ch, bp 1-40", 10.0, 256, true, false},
      {"30 s, 256 ch, bp 1-40", 30.0, 256, true, false},
      {"10 s, 256 ch, paced 10/s", 10.0, 256, false, false, true, 100.0},
      {"10 s, 256 ch, bp, paced 10/s", 10.0, 256, true, false, true, 100.0},
      {"10 s, 256 ch, no read-ahead", 10.0, 256, false, false, false},
      {"10 s, 256 ch, bp, no read-ahead", 10.0, 256, true, false, false},
      {"10 s, 256 ch, memory", 10.0, 256, false, true},
      {"30 s, 256 ch, memory", 30.0, 256, false, true},
  };
  std::printf(
      "\n(b,c) scroll by 1/4 page, %d steps, 1920x1080 (ms; cpu = this thread's CPU time)\n",
      steps);
  std::printf("%-24s %9s %9s %10s %10s %10s %12s\n", "page", "data med", "data p95", "total med",
              "total p95", "total cpu", "repaint med");
  std::shared_ptr<const modescope::Recording> memory;
  for (const Config& c : configs) {
    if (!only.empty() && std::string(c.name).find(only) == std::string::npos) continue;
    if (noFilter && c.filter) continue;
    if (c.inMemory && !memory) memory = copyToMemory(*rec, 300.0);
    const Row r = runConfig(c.inMemory ? memory : rec, c, steps);
    std::printf("%-24s %9.1f %9.1f %10.1f %10.1f %10.1f %12.1f\n", r.name.c_str(), r.dataMedian,
                r.dataP95, r.totalMedian, r.totalP95, r.totalCpuMedian, r.cachedMedian);
    std::fflush(stdout);
  }
  std::printf("\n(d) RSS at the end: %.1f MB (peak %.1f MB)\n", procStatusKb("VmRSS") / 1024.0,
              procStatusKb("VmHWM") / 1024.0);
  return 0;
}
