// ICEEMDAN benchmark on the thesis's grid (Wang 2025, ch. 3): one channel of
// N in {10241, 102401, 358401} samples, ensemble I in {100, 500}, fixed sift count S in {10, 50},
// 12 IMFs (+ the residue); and 64 channels of N = 102401 with I = 100. End to end through
// ComputeBackend::decompose(): input on the host to IMFs on the host, the noise-mode stage (full
// EMD of every noise realization, same fixed S) and every allocation included.
//
// Columns: CPU time with all hardware threads (the CPU reference: double precision), GPU time
// (float32 unless stated), their ratio, and the fraction of the memory-bandwidth floor the GPU
// run reaches.
//
// Floor: any sifting iteration must read the candidate once to find its extrema and once more to
// subtract the mean envelope, and write the new candidate: 3 x 4 bytes per sample in float32.
// ICEEMDAN with K modes and S fixed sifts runs K x S iterations over I x N samples in the
// noise stage and again in the signal stage, so floor = 2 K S I N C x 12 B / (device memory
// bandwidth, measured here by a device-to-device copy). "of floor" = floor / GPU time.
//
// CPU times: members are independent work, so CPU time is linear in I and C. Where a full CPU
// run would take more than --cpu-budget seconds (estimated from a calibration run), the CPU is
// timed on min(I, threads) members of one channel and scaled by (I x C) / that; the table
// says which ("scaled"). The smallest rows are timed in full to show the scaling holds.
//
// Usage: emd_bench [--quick] [--runs N] [--cpu-budget SECONDS] [--cpu-only] [--gpu-only]
//                  [--case C,N,I,S]   (one row only, e.g. for a profiler)
//                  [--checksum]       (a hash of the GPU rows' bits per row of the table, so two
//                                      builds can be shown to give the same result)
//                  [--float64]        (the --case row in float64 on the GPU)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/core/fnv1a.h"
#include "engine/emd/emd.h"
#include "engine/parallel/worker_team.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

struct Options {
  bool quick = false, cpuOnly = false, gpuOnly = false, checksum = false, float64 = false;
  int runs = 3;
  double cpuBudget = 20.0;
  int caseC = 0, caseI = 0, caseS = 0;  // --case C,N,I,S: that row only (profiling)
  long long caseN = 0;
};

struct Case {
  int channels;
  int64_t samples;
  int members;
  int sifts;
  GpuPrecision precision = GpuPrecision::Float32;
};

constexpr int kImfs = 12;

SignalBlock eegLike(int channels, int64_t n) {
  std::mt19937 rng(12345);
  std::normal_distribution<double> g(0.0, 1.0);
  SignalBlock b;
  b.sampleRate = 2048.0;
  b.samples = n;
  for (int c = 0; c < channels; ++c) b.channels.push_back(c);
  b.data.resize(static_cast<std::size_t>(channels) * n);
  for (int c = 0; c < channels; ++c) {
    double ar = 0;  // 1/f-like background plus an alpha rhythm, in microvolts
    for (int64_t t = 0; t < n; ++t) {
      ar = 0.98 * ar + g(rng);
      const double s = t / b.sampleRate;
      b.channel(c)[t] = static_cast<float>(
          5.0 * ar + 20.0 * std::sin(2 * std::numbers::pi * 10.0 * s + c) + 2.0 * g(rng));
    }
  }
  return b;
}

EmdParams paramsFor(const Case& k) {
  EmdParams p;
  p.method = EmdMethod::Iceemdan;
  p.ensembleSize = k.members;
  p.noiseStd = 0.2;
  p.maxImfs = kImfs;
  p.stop.kind = StopRuleKind::FixedSifts;
  p.stop.fixedSifts = k.sifts;
  p.noiseStop = p.stop;
  p.seed = 1234;
  p.gpuPrecision = k.precision;
  return p;
}

// FNV-1a over the bytes of every row of every channel, in order.
std::uint64_t bitsHash(const EmdResult& r) {
  std::uint64_t h = kFnv1aOffsetBasis;
  for (const EmdChannelModes& c : r.channels)
    h = fnv1a64({reinterpret_cast<const char*>(c.data.data()), c.data.size() * sizeof(float)}, h);
  return h;
}

double secondsOf(ComputeBackend& be, const SignalBlock& b, const EmdParams& p,
                 std::uint64_t* hash = nullptr) {
  JobContext ctx;
  const auto t0 = std::chrono::steady_clock::now();
  const EmdResult r = be.decompose(b, p, ctx);
  const auto t1 = std::chrono::steady_clock::now();
  if (r.channels.empty()) std::fprintf(stderr, "empty result\n");
  if (hash) *hash = bitsHash(r);
  return std::chrono::duration<double>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string fmt(double s) {
  char b[32];
  if (s < 0) return "-";
  // Four decimals below a second: two builds' runs of one channel differ by less than 1 ms.
  std::snprintf(b, sizeof b, s < 1 ? "%.4f" : s < 10 ? "%.3f" : "%.1f", s);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      o.quick = true;
    else if (!std::strcmp(argv[i], "--cpu-only"))
      o.cpuOnly = true;
    else if (!std::strcmp(argv[i], "--gpu-only"))
      o.gpuOnly = true;
    else if (!std::strcmp(argv[i], "--checksum"))
      o.checksum = true;
    else if (!std::strcmp(argv[i], "--float64"))
      o.float64 = true;
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      o.runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--cpu-budget") && i + 1 < argc)
      o.cpuBudget = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--case") && i + 1 < argc &&
             std::sscanf(argv[++i], "%d,%lld,%d,%d", &o.caseC, &o.caseN, &o.caseI, &o.caseS) == 4) {
    } else {
      std::fprintf(stderr,
                   "usage: emd_bench [--quick] [--runs N] [--cpu-budget S] [--cpu-only] "
                   "[--gpu-only] [--case C,N,I,S] [--checksum] [--float64]\n");
      return 1;
    }
  }
  const int threads = hardwareThreads();
  auto cpu = makeCpuBackend(threads);
  std::unique_ptr<ComputeBackend> gpu;
  double bandwidth = 0;
#ifdef MODESCOPE_HAVE_CUDA
  if (!o.cpuOnly) {
    std::string reason;
    gpu = makeCudaBackend(reason);
    if (!gpu)
      std::printf("no GPU: %s\n", reason.c_str());
    else
      bandwidth = measureDeviceBandwidth(std::size_t{1} << 30);
  }
#endif
  std::vector<Case> cases;
  const std::vector<int64_t> lengths =
      o.quick ? std::vector<int64_t>{10241, 102401} : std::vector<int64_t>{10241, 102401, 358401};
  for (int64_t n : lengths)
    for (int members : {100, 500})
      for (int sifts : {10, 50}) cases.push_back({1, n, members, sifts});
  cases.push_back({64, 102401, 100, 10});
  cases.push_back({1, 102401, 500, 10, GpuPrecision::Float64});
  if (o.caseC > 0)
    cases = {{o.caseC, o.caseN, o.caseI, o.caseS,
              o.float64 ? GpuPrecision::Float64 : GpuPrecision::Float32}};

  std::printf(
      "ICEEMDAN, %d IMFs + residue, fixed sifts S for signal and noise stages, end to end\n",
      kImfs);
  std::printf("CPU: %s, %d threads (double)\n", cpu->info().deviceName.c_str(), threads);
  if (gpu) {
    std::printf("GPU: %s; device memory bandwidth (D2D copy) %.0f GB/s\n",
                gpu->info().deviceName.c_str(), bandwidth);
  }
  std::printf(
      "\n| C | N | I | S | GPU precision | CPU s | CPU how | GPU s | CPU/GPU | of floor |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Case& k : cases) {
    const SignalBlock block = eegLike(k.channels, k.samples);
    const EmdParams p = paramsFor(k);
    double gpuSeconds = -1, cpuSeconds = -1;
    std::uint64_t gpuHash = 0;
    std::string how = "-";
    try {
      if (gpu && !o.cpuOnly) {
        // Warm-up (context, module load, allocator); its result is the one hashed: every run
        // computes the same bits from the same input.
        secondsOf(*gpu, block, p, o.checksum ? &gpuHash : nullptr);
        std::vector<double> t;
        for (int r = 0; r < o.runs; ++r) t.push_back(secondsOf(*gpu, block, p));
        gpuSeconds = median(t);
      }
      if (!o.gpuOnly && k.precision == GpuPrecision::Float32) {
        // Calibrate on a slice: one member per thread.
        const int calMembers = std::min(k.members, threads);
        SignalBlock one = block;
        one.channels.resize(1);
        one.data.resize(static_cast<std::size_t>(k.samples));
        EmdParams cp = p;
        cp.ensembleSize = calMembers;
        const double cal = secondsOf(*cpu, one, cp);
        const double scale = static_cast<double>(k.members) * k.channels / calMembers;
        if (cal * scale <= o.cpuBudget) {
          cpuSeconds = secondsOf(*cpu, block, p);
          how = "full run";
        } else {
          cpuSeconds = cal * scale;
          how = "scaled from I=" + std::to_string(calMembers) + ", C=1";
        }
      }
    } catch (const Error& e) {
      std::printf("| %d | %lld | %d | %d | error: %s |\n", k.channels,
                  static_cast<long long>(k.samples), k.members, k.sifts, e.what());
      continue;
    }
    const double rBytes = k.precision == GpuPrecision::Float64 ? 8.0 : 4.0;
    const double floorBytes = 2.0 * kImfs * k.sifts * static_cast<double>(k.members) *
                              static_cast<double>(k.samples) * k.channels * 3 * rBytes;
    const double floorSeconds = bandwidth > 0 ? floorBytes / (bandwidth * 1e9) : -1;
    char ratio[32] = "-", frac[32] = "-";
    if (cpuSeconds > 0 && gpuSeconds > 0)
      std::snprintf(ratio, sizeof ratio, "%.0f", cpuSeconds / gpuSeconds);
    if (floorSeconds > 0 && gpuSeconds > 0)
      std::snprintf(frac, sizeof frac, "%.1f %%", 100.0 * floorSeconds / gpuSeconds);
    std::printf("| %d | %lld | %d | %d | %s | %s | %s | %s | %s | %s |\n", k.channels,
                static_cast<long long>(k.samples), k.members, k.sifts,
                k.precision == GpuPrecision::Float64 ? "float64" : "float32",
                fmt(cpuSeconds).c_str(), how.c_str(), fmt(gpuSeconds).c_str(), ratio, frac);
    if (o.checksum && gpuSeconds > 0)
      std::printf("GPU rows' bits (FNV-1a): %s\n", hex16(gpuHash).c_str());
    std::fflush(stdout);
  }
  return 0;
}
