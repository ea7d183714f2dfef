// Live replay benchmark (docs/ar.md, "Live replay"): how many AR feature updates per second the
// replay driver (app/core/ar_replay.h) sustains, and the per-block push latency, for
//  - the 64-channel demo (PhysioNet S001R03, 160 Hz), BCI2000 preset, CAR, 50 ms blocks;
//  - a synthetic 256-channel recording (AR(2) noise with a 10 Hz resonance, 160 Hz), CAR.
// Rows: "max" runs ArReplay::step() back to back (no pacing: the throughput ceiling, reads
// included); "4x" and "1x" run ArReplayRunner against the wall clock for a few seconds (the rate
// there is the block rate times the speed as long as no block is late). A last row per dataset
// replaces the stream by the offline call per block (backend.filteredArSpectra on the latest
// window, whose parallelFor leases a team and wakes its threads on every call) to show what the
// persistent stream saves. It prints a table; it asserts nothing (benchmarks are programs,
// not tests).
//
// Usage: ar_replay_bench [--backend cpu|cuda|auto] [--threads N] [--seconds S] [--data FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/core/ar_replay.h"
#include "app/core/gpu_backend.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/io/recording_io.h"
#include "engine/spatial/spatial_filter.h"

using namespace modescope;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string backend = "cpu";
  int threads = 0;
  double seconds = 3.0;
  std::string data = std::string(MODESCOPE_SOURCE_DIR) + "/tests/data/physionet_S001R03_64ch.h5";
};

struct Row {
  std::string dataset, path, speed;
  std::size_t channels = 0;
  double blockMs = 0, updatesPerSecond = 0, meanMs = 0, p95Ms = 0, maxMs = 0;
  int64_t updates = 0, late = 0;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// 256 channels of AR(2) noise (poles at 10 Hz, radius 0.95) plus white noise, in memory.
std::shared_ptr<const Recording> synthetic(std::size_t channels, double fs, double seconds) {
  const auto n = static_cast<std::size_t>(fs * seconds);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double r = 0.95, w = 2.0 * 3.14159265358979 * 10.0 / fs;
  const double a1 = 2 * r * std::cos(w), a2 = -r * r;
  std::vector<std::vector<float>> data(channels, std::vector<float>(n));
  auto rec = std::make_shared<Recording>();
  for (std::size_t c = 0; c < channels; ++c) {
    double x1 = 0, x2 = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const double x = a1 * x1 + a2 * x2 + normal(rng);
      x2 = x1;
      x1 = x;
      data[c][t] = static_cast<float>(5.0 * x + 2.0 * normal(rng));
    }
    ChannelInfo info;
    info.label = info.name = "S" + std::to_string(c + 1);
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = fs;
    info.sampleCount = static_cast<int64_t>(n);
    rec->channels.push_back(info);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

ArReplayConfig carConfig(const Recording& rec) {
  std::vector<std::size_t> all;
  for (std::size_t c = 0; c < rec.channelCount(); ++c)
    if (rec.channels[c].type == ChannelType::EEG) all.push_back(c);
  ArReplayConfig cfg;
  cfg.filter = std::make_shared<SpatialFilter>(commonAverageReference(rec.channels, all));
  cfg.params = burgArPreset("bci2000");
  cfg.blockSeconds = 0.05;
  return cfg;
}

// Back to back, no pacing: every block of the recording (from 0.5 s, so all are ready).
Row runMax(const std::string& name, std::shared_ptr<const Recording> rec, ComputeBackend& backend) {
  ArReplay replay(rec, carConfig(*rec), backend);
  replay.seek(0.5);
  std::vector<double> lat;
  const Clock::time_point t0 = Clock::now();
  int64_t updates = 0;
  while (auto f = replay.step()) {
    lat.push_back(f->latencyMs);
    updates += f->ready;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  Row r{name, "stream", "max", replay.outputCount(), 1e3 * replay.config().blockSeconds};
  r.updates = updates;
  r.updatesPerSecond = static_cast<double>(updates) / wall;
  double sum = 0;
  for (double v : lat) sum += v;
  r.meanMs = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
  r.p95Ms = percentile(lat, 0.95);
  r.maxMs = lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end());
  return r;
}

// Paced by the runner for `seconds` of wall time.
Row runPaced(const std::string& name, std::shared_ptr<const Recording> rec, ComputeBackend& backend,
             double speed, double seconds) {
  auto replay = std::make_unique<ArReplay>(rec, carConfig(*rec), backend);
  const std::size_t outputs = replay->outputCount();
  const double blockMs = 1e3 * replay->config().blockSeconds;
  std::vector<double> lat;
  std::mutex m;
  ArReplayRunner runner(std::move(replay), [&](const ArReplayFrame& f, const ArReplayStats&) {
    std::lock_guard lock(m);
    lat.push_back(f.latencyMs);
  });
  runner.setSpeed(speed);
  runner.seek(0.5);
  runner.play();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  runner.pause();
  const ArReplayStats s = runner.stats();
  std::lock_guard lock(m);
  Row r{name, "stream", std::to_string(static_cast<int>(speed)) + "x", outputs, blockMs};
  r.updates = s.updates;
  r.late = s.late;
  r.updatesPerSecond = s.updatesPerSecond();
  r.meanMs = s.meanMs;
  r.p95Ms = percentile(lat, 0.95);
  r.maxMs = s.maxMs;
  return r;
}

// The offline path per block: filter + AR spectra of the latest window through the backend's
// batch call (parallelFor leases a team and wakes its threads on every call).
Row runOfflinePerBlock(const std::string& name, std::shared_ptr<const Recording> rec,
                       ComputeBackend& backend, int blocks) {
  const ArReplayConfig cfg = carConfig(*rec);
  const double fs = rec->channels[cfg.filter->inputChannels.front()].sampleRate;
  const int64_t n = resolveArLengths(cfg.params, fs).windowSamples;
  const int64_t step = std::llround(cfg.blockSeconds * fs);
  std::vector<double> lat;
  JobContext ctx;
  int64_t end = n;
  const Clock::time_point t0 = Clock::now();
  for (int b = 0; b < blocks; ++b, end += step) {
    const SignalBlock block =
        extractBlock(*rec, cfg.filter->inputChannels, static_cast<double>(end - n) / fs,
                     static_cast<double>(n) / fs);
    const Clock::time_point a = Clock::now();
    const ArSpectrumResult res =
        backend.filteredArSpectra(cfg.filter.get(), block, cfg.params, ctx);
    lat.push_back(1e3 * std::chrono::duration<double>(Clock::now() - a).count());
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  Row r{name, "offline/block", "max", cfg.filter->outputCount(), 1e3 * cfg.blockSeconds};
  r.updates = blocks;
  r.updatesPerSecond = blocks / wall;
  double sum = 0;
  for (double v : lat) sum += v;
  r.meanMs = sum / static_cast<double>(lat.size());
  r.p95Ms = percentile(lat, 0.95);
  r.maxMs = *std::max_element(lat.begin(), lat.end());
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--backend")
      o.backend = value();
    else if (a == "--threads")
      o.threads = std::stoi(value());
    else if (a == "--seconds")
      o.seconds = std::stod(value());
    else if (a == "--data")
      o.data = value();
    else {
      std::fprintf(stderr,
                   "usage: ar_replay_bench [--backend cpu|cuda|auto] [--threads N] [--seconds S] "
                   "[--data FILE]\n");
      return 1;
    }
  }
  try {
    std::string note;
    const BackendChoice choice = parseBackendChoice(o.backend);
    std::unique_ptr<ComputeBackend> backend =
        choice == BackendChoice::Cpu ? makeCpuBackend(o.threads) : chooseBackend(choice, &note);
    if (!note.empty()) std::printf("note: %s\n", note.c_str());
    std::printf("backend: %s; hardware threads: %u\n", backend->info().describe().c_str(),
                std::thread::hardware_concurrency());
    std::printf(
        "config: BCI2000 preset (order 16, 0.5 s window, 11 bins 0-30 Hz x 15 evaluations), "
        "CAR, 50 ms blocks; paced rows run %.1f s\n\n",
        o.seconds);

    const auto demo = openRecording(o.data);
    const auto wide = synthetic(256, 160.0, 60.0);
    std::vector<Row> rows;
    for (const auto& [name, rec] : {std::pair{std::string("demo 160 Hz"), demo},
                                    std::pair{std::string("synthetic 160 Hz"), wide}}) {
      rows.push_back(runMax(name, rec, *backend));
      rows.push_back(runPaced(name, rec, *backend, 4.0, o.seconds));
      rows.push_back(runPaced(name, rec, *backend, 1.0, o.seconds));
      rows.push_back(runOfflinePerBlock(name, rec, *backend, 400));
    }
    std::printf("%-17s %-14s %8s %8s %6s %9s %9s %8s %8s %8s %5s\n", "data", "path", "channels",
                "block_ms", "speed", "updates", "upd/s", "mean_ms", "p95_ms", "max_ms", "late");
    for (const Row& r : rows)
      std::printf("%-17s %-14s %8zu %8.0f %6s %9lld %9.1f %8.3f %8.3f %8.3f %5lld\n",
                  r.dataset.c_str(), r.path.c_str(), r.channels, r.blockMs, r.speed.c_str(),
                  static_cast<long long>(r.updates), r.updatesPerSecond, r.meanMs, r.p95Ms, r.maxMs,
                  static_cast<long long>(r.late));
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.exitCode();
  }
  return 0;
}
