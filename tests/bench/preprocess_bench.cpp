// Preprocessing benchmark: band-pass filter + average reference on the CPU backend (all threads)
// and the CUDA backend (host to host), median of several runs after a warm-up, on random data.
// Prints a table; runs without a GPU too (CPU columns only).
//
// Usage: preprocess_bench [--runs N] [--small] [--cpu-only] [--threads N]
//                         [--link-gbs GB/s] [--hbm-gbs GB/s]
//
// Memory-bandwidth floor of the GPU run (the time no implementation can beat):
//   bytes: the input crosses the host-device link once (4 B/sample) and the output once back
//   (4 B/sample); on the device, at least the input is read and the output written once
//   (8 B/sample). Upload and download can overlap (full duplex) and device traffic overlaps the
//   link, so floor = max(4 B x samples / link bandwidth, 8 B x samples / device bandwidth).
//   Assumptions (override with flags): link 55 GB/s per direction (PCIe 5.0 x16 with pinned
//   memory; 64 GB/s theoretical), device memory 4800 GB/s (H200), 3350 (H100 SXM), 2000 (H100
//   PCIe or unknown). The backend does the reference and the filter as two calls, each a round
//   trip, and copies from pageable memory, so 2x the link floor is the most this design reaches.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

struct Options {
  int runs = 0;  // 0: 5 for small sizes, 3 for large
  bool small = false, cpuOnly = false;
  int threads = 0;
  double linkGBs = 55.0, hbmGBs = 0.0;
};

struct Size {
  std::size_t channels;
  int64_t samples;
  double rate;
  const char* what;
};

// /proc/meminfo MemAvailable in bytes, 0 if unknown.
std::size_t availableHostBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

// Random, non-zero EEG-like data: per-channel offset, a 10 Hz rhythm and xorshift noise.
SignalBlock makeBlock(const Size& s) {
  SignalBlock b;
  b.sampleRate = s.rate;
  b.samples = s.samples;
  for (std::size_t r = 0; r < s.channels; ++r) b.channels.push_back(r);
  b.data.resize(s.channels * static_cast<std::size_t>(s.samples));
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (std::size_t r = 0; r < s.channels; ++r) {
    float* x = b.channel(r);
    const double offset = static_cast<double>(r % 17) - 8.0;
    for (int64_t t = 0; t < s.samples; ++t) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      const double noise = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
      x[t] = static_cast<float>(offset + 5.0 * std::sin(0.0628318 * static_cast<double>(t) + r) +
                                noise);
    }
  }
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median wall time of reference + filter over `runs` runs after one warm-up; `out` keeps the
// last result. The copy of the input into the work block is not timed.
double timeBackend(ComputeBackend& backend, const SignalBlock& input, const ReferencePlan& plan,
                   const FirKernel& fir, int runs, SignalBlock& out) {
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    out.data = input.data;
    out.channels = input.channels;
    out.samples = input.samples;
    out.sampleRate = input.sampleRate;
    JobContext ctx;
    const auto t0 = std::chrono::steady_clock::now();
    backend.applyReference(out, plan, ctx);
    backend.applyFir(out, fir, ctx);
    const auto t1 = std::chrono::steady_clock::now();
    if (i > 0) times.push_back(std::chrono::duration<double>(t1 - t0).count());  // 0: warm-up
  }
  return median(times);
}

double relativeError(const SignalBlock& in, const SignalBlock& a, const SignalBlock& b) {
  double err = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < in.data.size(); ++i) {
    const double d = double(a.data[i]) - b.data[i];
    err += d * d;
    norm += double(in.data[i]) * in.data[i];
  }
  return std::sqrt(err / norm);
}

double deviceBandwidthGBs(const std::string& name) {
  if (name.find("H200") != std::string::npos) return 4800.0;
  if (name.find("H100") != std::string::npos && name.find("PCIe") == std::string::npos) {
    return 3350.0;
  }
  return 2000.0;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--small") {
      o.small = true;
    } else if (a == "--cpu-only") {
      o.cpuOnly = true;
    } else if (a == "--runs" || a == "--threads" || a == "--link-gbs" || a == "--hbm-gbs") {
      const char* v = next();
      if (!v) return false;
      if (a == "--runs") o.runs = std::atoi(v);
      if (a == "--threads") o.threads = std::atoi(v);
      if (a == "--link-gbs") o.linkGBs = std::atof(v);
      if (a == "--hbm-gbs") o.hbmGBs = std::atof(v);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr,
                 "usage: preprocess_bench [--runs N] [--small] [--cpu-only] [--threads N] "
                 "[--link-gbs GB/s] [--hbm-gbs GB/s]\n");
    return 1;
  }
  auto cpu = makeCpuBackend(opt.threads);
  std::unique_ptr<ComputeBackend> gpu;
  std::string reason = "this build has no CUDA backend";
#ifdef MODESCOPE_HAVE_CUDA
  if (!opt.cpuOnly) gpu = makeCudaBackend(reason);
#endif
  if (opt.cpuOnly) reason = "--cpu-only";
  std::printf("CPU: %s (%d threads)\n", cpu->info().deviceName.c_str(), cpu->info().threads);
  double hbm = opt.hbmGBs;
  if (gpu) {
    const auto i = gpu->info();
    if (hbm <= 0) hbm = deviceBandwidthGBs(i.deviceName);
    std::printf("GPU: %s; floor assumes link %.0f GB/s per direction, device memory %.0f GB/s\n",
                i.describe().c_str(), opt.linkGBs, hbm);
  } else {
    std::printf("GPU: not available (%s); CPU only\n", reason.c_str());
  }
  std::printf("Work: average reference over all channels, then band-pass 1-40 Hz (zero phase)\n\n");

  std::vector<Size> sizes = {{64, 460800, 256.0, "30 min at 256 Hz"}};
  if (!opt.small) sizes.push_back({256, 3600000, 1000.0, "1 h at 1000 Hz"});

  std::printf("%-18s %-17s %6s %8s %9s %9s %8s %9s %8s %10s\n", "channels x samples", "span",
              "taps", "threads", "CPU s", "GPU s", "CPU/GPU", "floor s", "of floor", "rel. err");
  for (const auto& s : sizes) {
    const std::size_t bytes = s.channels * static_cast<std::size_t>(s.samples) * sizeof(float);
    // Input, the CPU result and the GPU result live at once, plus per-thread buffers.
    const std::size_t avail = availableHostBytes();
    char shape[64];
    std::snprintf(shape, sizeof shape, "%zu x %lld", s.channels, static_cast<long long>(s.samples));
    if (avail != 0 && avail < 4 * bytes) {
      std::printf("%-18s %-17s skipped: needs ~%.1f GiB of host memory, %.1f GiB available\n",
                  shape, s.what, 4.0 * bytes / (1 << 30), static_cast<double>(avail) / (1 << 30));
      continue;
    }
    const SignalBlock input = makeBlock(s);
    ReferencePlan plan;
    for (std::size_t r = 0; r < s.channels; ++r) {
      plan.sources.push_back(r);
      plan.targets.push_back(r);
      plan.weights.push_back(1.0 / static_cast<double>(s.channels));
    }
    const FirKernel fir = designFir(parseFilterSpec("bandpass:1-40"), s.rate);
    const int runs = opt.runs > 0 ? opt.runs : (bytes > (std::size_t{1} << 30) ? 3 : 5);
    try {
      SignalBlock cpuOut, gpuOut;
      const double tc = timeBackend(*cpu, input, plan, fir, runs, cpuOut);
      if (gpu) {
        const double tg = timeBackend(*gpu, input, plan, fir, runs, gpuOut);
        const double samples = static_cast<double>(bytes / sizeof(float));
        const double floor = std::max(4.0 * samples / (opt.linkGBs * 1e9), 8.0 * samples / (hbm * 1e9));
        std::printf("%-18s %-17s %6zu %8d %9.3f %9.3f %8.1f %9.4f %7.1f%% %10.2e\n", shape, s.what,
                    fir.taps.size(), cpu->info().threads, tc, tg, tc / tg, floor,
                    100.0 * floor / tg, relativeError(input, cpuOut, gpuOut));
      } else {
        std::printf("%-18s %-17s %6zu %8d %9.3f %9s %8s %9s %8s %10s\n", shape, s.what,
                    fir.taps.size(), cpu->info().threads, tc, "-", "-", "-", "-", "-");
      }
    } catch (const Error& e) {
      std::printf("%-18s %-17s failed: %s\n", shape, s.what, e.what());
    }
    std::fflush(stdout);
  }
  std::printf("\nTimes are medians of %s runs after one warm-up, host memory to host memory. "
              "rel. err = ||GPU - CPU|| / ||input||.\n",
              opt.runs > 0 ? std::to_string(opt.runs).c_str() : "5 (small) or 3 (large)");
  return 0;
}
