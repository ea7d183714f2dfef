// MEMD benchmark on the published MEMD-GPU code's shapes (Wang and Juhasz 2023): 32 channels x
// 30,504 samples x 64 directions (its own sample shape), 64 x 102,401 x 128 and 128 x 102,401 x
// 256 (where it fails with an illegal memory access), all with its fixed schedule: 10 sifts per
// IMF, 8 IMFs + residue. End to end through ComputeBackend::memd(): input on the host to IMFs on
// the host, every allocation included.
//
// Columns: CPU time (double, all hardware threads), GPU time (float32 unless stated), their
// ratio, and the fraction of the memory-bandwidth floor the GPU run reaches.
//
// Floor: every sift must read the candidate once to project it, write the mean envelope, and
// read both to subtract: 4 x 4 bytes per channel and sample in float32, plus the K projections
// written once (4 bytes per direction and sample). 80 sifts (8 IMFs x 10), so
// floor = 80 x (16 C N + 4 K N) B / (device bandwidth, measured by a device-to-device copy).
// "of floor" = floor / GPU time.
//
// CPU times: one sift on the CPU (one envelope over every direction) is timed and multiplied by
// 80 when the full run would take more than --cpu-budget seconds; the table says "scaled".
//
// Usage: memd_bench [--runs N] [--cpu-budget SECONDS] [--cpu-only] [--gpu-only] [--float64]
//                   [--case C,N,K] [--sifts S] [--imfs I] [--input FILE] [--trace]
// --sifts / --imfs change the fixed schedule (1 x 1 against 10 x 8 separates the fixed cost of a
// run from the cost per sift); --input reads the case's data from a raw float32 file, channel
// after channel (C x N values, the layout of the published code's sample file), so both codes
// run on the same recording. --trace prints when each IMF of the last GPU run was done (where a
// run's time goes between the sifts and the rest).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/memd/memd.h"
#include "engine/parallel/worker_team.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

struct Case {
  int channels;
  int64_t samples;
  int directions;
};

int kSifts = 10, kImfs = 8;  // the fixed schedule (--sifts, --imfs)

SignalBlock eegLike(int channels, int64_t n) {
  std::mt19937 rng(12345);
  std::normal_distribution<double> g(0.0, 1.0);
  SignalBlock b;
  b.sampleRate = 512.0;
  b.samples = n;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.data.resize(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n));
  for (int c = 0; c < channels; ++c) {
    double ar = 0;
    for (int64_t t = 0; t < n; ++t) {
      ar = 0.98 * ar + g(rng);
      const double s = static_cast<double>(t) / b.sampleRate;
      b.channel(static_cast<std::size_t>(c))[t] = static_cast<float>(
          5.0 * ar + 20.0 * std::sin(2 * std::numbers::pi * 10.0 * s + c) + 2.0 * g(rng));
    }
  }
  return b;
}

MemdParams schedule(int directions, int sifts, int imfs, bool float64) {
  MemdParams p;
  p.stop = MemdStopKind::Fixed;
  p.fixedSifts = sifts;
  p.maxImfs = imfs;
  p.directions = directions;
  p.gpuPrecision = float64 ? GpuPrecision::Float64 : GpuPrecision::Float32;
  return p;
}

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// C x N float32 values, channel after channel; exits with a message when the file is shorter.
SignalBlock fromRawFloat32(const std::string& path, int channels, int64_t n) {
  SignalBlock b;
  b.sampleRate = 512.0;
  b.samples = n;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  const std::size_t count = static_cast<std::size_t>(channels) * static_cast<std::size_t>(n);
  std::vector<float> raw(count);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  const std::size_t got = f ? std::fread(raw.data(), sizeof(float), count, f) : 0;
  if (f) std::fclose(f);
  if (got != count) {
    std::fprintf(stderr, "memd_bench: %s holds %zu of the %zu float32 values of %d x %lld\n",
                 path.c_str(), got, count, channels, static_cast<long long>(n));
    std::exit(2);
  }
  b.data.assign(raw.begin(), raw.end());
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  double cpuBudget = 30;
  bool cpuOnly = false, gpuOnly = false, float64 = false;
  std::string inputFile;
  bool trace = false;
  std::vector<Case> cases = {{32, 30504, 64}, {64, 102401, 128}, {128, 102401, 256}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cpu-budget" && i + 1 < argc)
      cpuBudget = std::atof(argv[++i]);
    else if (a == "--cpu-only")
      cpuOnly = true;
    else if (a == "--gpu-only")
      gpuOnly = true;
    else if (a == "--float64")
      float64 = true;
    else if (a == "--sifts" && i + 1 < argc)
      kSifts = std::max(1, std::atoi(argv[++i]));
    else if (a == "--imfs" && i + 1 < argc)
      kImfs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--trace")
      trace = true;
    else if (a == "--input" && i + 1 < argc)
      inputFile = argv[++i];
    else if (a == "--case" && i + 1 < argc) {
      Case c{};
      long long n = 0;
      if (std::sscanf(argv[++i], "%d,%lld,%d", &c.channels, &n, &c.directions) != 3) return 2;
      c.samples = n;
      cases = {c};
    } else {
      std::fprintf(stderr,
                   "usage: memd_bench [--runs N] [--cpu-budget S] [--cpu-only] [--gpu-only] "
                   "[--float64] [--case C,N,K] [--sifts S] [--imfs I] [--input FILE] "
                   "[--trace]\n");
      return 2;
    }
  }
  std::unique_ptr<ComputeBackend> cpu = makeCpuBackend(0);
  std::unique_ptr<ComputeBackend> gpu;
  double bandwidth = 0;  // GB/s
#ifdef MODESCOPE_HAVE_CUDA
  if (!cpuOnly) {
    std::string reason;
    gpu = makeCudaBackend(reason);
    if (!gpu) std::printf("no GPU: %s\n", reason.c_str());
    if (gpu) bandwidth = measureDeviceBandwidth(std::size_t{1} << 30);
  }
#endif
  if (cpuOnly) gpu.reset();
  const int threads = hardwareThreads();
  std::printf(
      "MEMD, %d sifts x %d IMFs fixed; CPU: %d threads (double); GPU: %s (%s)%s\n", kSifts, kImfs,
      threads, gpu ? gpu->info().deviceName.c_str() : "none", float64 ? "float64" : "float32",
      bandwidth > 0
          ? (", device copy " + std::to_string(static_cast<int>(bandwidth)) + " GB/s").c_str()
          : "");
  std::printf("%8s %8s %5s | %12s %8s | %10s %8s %9s\n", "channels", "samples", "dirs", "CPU s", "",
              "GPU s", "CPU/GPU", "of floor");
  for (const Case& c : cases) {
    const SignalBlock b = inputFile.empty() ? eegLike(c.channels, c.samples)
                                            : fromRawFloat32(inputFile, c.channels, c.samples);
    JobContext ctx;
    double cpuS = -1;
    bool scaled = false;
    if (!gpuOnly) {
      // One sift first; the full run only when it fits the budget.
      const double one = seconds([&] { cpu->memd(b, schedule(c.directions, 1, 1, false), ctx); });
      if (one * kSifts * kImfs <= cpuBudget) {
        cpuS = seconds([&] { cpu->memd(b, schedule(c.directions, kSifts, kImfs, false), ctx); });
      } else {
        cpuS = one * kSifts * kImfs;
        scaled = true;
      }
    }
    double gpuS = -1, ofFloor = -1;
    std::string gpuNote;
    if (gpu) {
      try {
        gpu->memd(b, schedule(c.directions, kSifts, kImfs, float64), ctx);  // warm-up
        std::vector<double> t;
        for (int r = 0; r < runs; ++r)
          t.push_back(
              seconds([&] { gpu->memd(b, schedule(c.directions, kSifts, kImfs, float64), ctx); }));
        if (trace) {
          const auto t0 = std::chrono::steady_clock::now();
          JobContext traced({}, [&](double, std::string_view stage) {
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            std::printf("  trace %8.1f ms  %.*s\n", ms, static_cast<int>(stage.size()),
                        stage.data());
          });
          gpu->memd(b, schedule(c.directions, kSifts, kImfs, float64), traced);
        }
        std::sort(t.begin(), t.end());
        gpuS = t[t.size() / 2];
        const double valueBytes = float64 ? 8 : 4;
        const double floorBytes = kSifts * kImfs *
                                  (4 * valueBytes * c.channels * static_cast<double>(c.samples) +
                                   valueBytes * c.directions * static_cast<double>(c.samples));
        if (bandwidth > 0) ofFloor = floorBytes / (bandwidth * 1e9) / gpuS;
      } catch (const Error& e) {
        gpuNote = e.what();
      }
    }
    char cpuText[32] = "-", gpuText[32] = "-", ratio[32] = "-", floorText[32] = "-";
    if (cpuS >= 0) std::snprintf(cpuText, sizeof cpuText, "%.2f", cpuS);
    if (gpuS >= 0) std::snprintf(gpuText, sizeof gpuText, "%.3f", gpuS);
    if (cpuS >= 0 && gpuS > 0) std::snprintf(ratio, sizeof ratio, "%.0fx", cpuS / gpuS);
    if (ofFloor >= 0) std::snprintf(floorText, sizeof floorText, "%.1f%%", 100 * ofFloor);
    std::printf("%8d %8lld %5d | %12s %8s | %10s %8s %9s\n", c.channels,
                static_cast<long long>(c.samples), c.directions, cpuText, scaled ? "scaled" : "",
                gpuText, ratio, floorText);
    if (!gpuNote.empty()) std::printf("  GPU: %s\n", gpuNote.c_str());
    std::fflush(stdout);
  }
  return 0;
}
