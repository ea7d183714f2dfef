// Preprocessing benchmark: average reference + FIR filters through ComputeBackend::applyPipeline
// (what preprocess() calls) on the CPU backend (all threads) and the CUDA backend, host memory to
// host memory, median of several runs after a warm-up, on random data; then the whole
// preprocess() call (selection cut out of an in-memory recording, pipeline, result recording).
// Prints tables; runs without a GPU too (CPU columns only).
//
// Usage: preprocess_bench [--runs N] [--small] [--cpu-only] [--threads N] [--no-preprocess]
//                         [--link-gbs GB/s] [--hbm-gbs GB/s]
//
// Floors of the GPU run (docs/preprocessing.md, "GPU pipeline: floor"), with S samples:
//   link floor: the input crosses the host-device link once (4 S bytes) and the output once back
//     (4 S bytes). Nothing host to host can beat max(4 S / upload, 4 S / download, 8 S / device
//     memory bandwidth): the two directions can overlap (full duplex) and device traffic overlaps
//     the link. Upload and download rates are measured with page-locked memory at startup
//     (--link-gbs replaces both); the device's is assumed from its name (--hbm-gbs replaces it).
//   design floor: what this pipeline's structure allows. It uploads every row before it
//     downloads any (the reference needs every source row first), and each direction is a
//     pipeline of host staging copies (measured: pageable -> pinned with the backend's copy
//     threads) and DMA, so design = 4 S / min(upload, staging) + 4 S / min(download, staging).
//   "of floor" and "of design" are floor / GPU time: 100 % would be the floor itself.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
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
  bool small = false, cpuOnly = false, preprocessToo = true;
  int threads = 0;
  double linkGBs = 0.0, hbmGBs = 0.0;
};

struct Case {
  std::size_t channels;
  int64_t samples;
  double rate;
  const char* span;
  std::vector<const char*> filters;
};

// Link and staging rates for the floors (GB/s).
struct Rates {
  double upload = 0.0, download = 0.0, staging = 0.0, hbm = 0.0;
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
SignalBlock makeBlock(const Case& s) {
  SignalBlock b;
  b.sampleRate = s.rate;
  b.samples = s.samples;
  for (std::size_t r = 0; r < s.channels; ++r) b.channels.push_back(r);
  b.data.resize(s.channels * static_cast<std::size_t>(s.samples));
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  const double w = 2.0 * 3.14159265358979 * 10.0 / s.rate;
  for (std::size_t r = 0; r < s.channels; ++r) {
    float* x = b.channel(r);
    const double offset = static_cast<double>(r % 17) - 8.0;
    for (int64_t t = 0; t < s.samples; ++t) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      const double noise = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
      x[t] = static_cast<float>(offset + 5.0 * std::sin(w * static_cast<double>(t) + r) + noise);
    }
  }
  return b;
}

// The same samples as an in-memory recording of EEG channels, for preprocess().
std::shared_ptr<Recording> makeRecording(const SignalBlock& b) {
  auto rec = std::make_shared<Recording>();
  rec->info.format = "synthetic";
  std::vector<std::vector<float>> data;
  for (std::size_t r = 0; r < b.channels.size(); ++r) {
    ChannelInfo c;
    c.label = c.name = "E" + std::to_string(r + 1);
    c.type = ChannelType::EEG;
    c.unit = "uV";
    c.sampleRate = b.sampleRate;
    c.sampleCount = b.samples;
    rec->channels.push_back(c);
    data.emplace_back(b.channel(r), b.channel(r) + b.samples);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Median wall time of applyPipeline over `runs` runs after one warm-up (which also grows the
// GPU backend's pinned staging buffers and loads cuFFT's kernels); `out` keeps the last result.
// Copying the input into the work block is not timed.
double timePipeline(ComputeBackend& backend, const SignalBlock& input, const ReferencePlan& plan,
                    const std::vector<FirKernel>& kernels, int runs, SignalBlock& out) {
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    out = input;
    JobContext ctx;
    const auto t0 = std::chrono::steady_clock::now();
    backend.applyPipeline(out, &plan, kernels, ctx);
    if (i > 0) times.push_back(secondsSince(t0));
  }
  return median(times);
}

// Median wall time of the whole preprocess() call (cut, plan, design, pipeline, result).
double timePreprocess(ComputeBackend& backend, const Recording& rec, const PreprocessSpec& spec,
                      int runs) {
  std::vector<std::size_t> channels(rec.channelCount());
  for (std::size_t i = 0; i < channels.size(); ++i) channels[i] = i;
  std::vector<double> times;
  for (int i = 0; i <= runs; ++i) {
    JobContext ctx;
    const auto t0 = std::chrono::steady_clock::now();
    auto out = preprocess(rec, channels, 0.0, -1.0, spec, backend, ctx);
    if (i > 0) times.push_back(secondsSince(t0));
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
    } else if (a == "--no-preprocess") {
      o.preprocessToo = false;
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

std::string joined(const std::vector<const char*>& filters) {
  std::string s;
  for (const char* f : filters) s += (s.empty() ? "" : "+") + std::string(f);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr,
                 "usage: preprocess_bench [--runs N] [--small] [--cpu-only] [--threads N] "
                 "[--no-preprocess] [--link-gbs GB/s] [--hbm-gbs GB/s]\n");
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
  Rates rates;
  if (gpu) {
    const auto i = gpu->info();
    rates.hbm = opt.hbmGBs > 0 ? opt.hbmGBs : deviceBandwidthGBs(i.deviceName);
    std::printf("%s\n", i.describe().c_str());
#ifdef MODESCOPE_HAVE_CUDA
    try {
      const auto m = measureCudaLink(std::size_t{256} << 20);
      std::printf(
          "Link (256 MiB, GB/s): pinned up %.1f, down %.1f, both at once %.1f (sum); pageable "
          "up %.1f, down %.1f\n",
          m.pinnedUploadGBs, m.pinnedDownloadGBs, m.duplexGBs, m.pageableUploadGBs,
          m.pageableDownloadGBs);
      std::printf(
          "Host: staging copy pageable -> pinned %.1f GB/s (%d threads); cudaHostRegister + "
          "unregister %.1f GB/s%s\n",
          m.stagingCopyGBs, m.stagingThreads, m.hostRegisterGBs,
          m.hostRegisterGBs > 0 ? "" : " (refused)");
      rates.upload = m.pinnedUploadGBs;
      rates.download = m.pinnedDownloadGBs;
      rates.staging = m.stagingCopyGBs;
    } catch (const Error& e) {
      std::printf("Link measurement failed: %s\n", e.what());
    }
#endif
    if (opt.linkGBs > 0) rates.upload = rates.download = opt.linkGBs;
    if (rates.upload <= 0) rates.upload = rates.download = 55.0;  // PCIe 5.0 x16, pinned
    if (rates.staging <= 0) rates.staging = rates.upload;
    std::printf(
        "Floors use: upload %.1f GB/s, download %.1f GB/s, staging %.1f GB/s, device "
        "memory %.0f GB/s\n",
        rates.upload, rates.download, rates.staging, rates.hbm);
  } else {
    std::printf("GPU: not available (%s); CPU only\n", reason.c_str());
  }
  std::printf(
      "Work: average reference over all channels, then the filters (zero phase), "
      "through applyPipeline, host memory to host memory\n\n");

  std::vector<Case> cases = {
      {64, 460800, 256.0, "30 min at 256 Hz", {"bandpass:1-40"}},
      {64, 460800, 256.0, "30 min at 256 Hz", {"notch:50", "bandpass:1-40"}},
  };
  if (!opt.small) cases.push_back({256, 3600000, 1000.0, "1 h at 1000 Hz", {"bandpass:1-40"}});

  struct PreprocessRow {
    std::string shape, filters;
    double cpu = 0, gpu = 0;
  };
  std::vector<PreprocessRow> preprocessRows;

  std::printf("%-14s %-16s %-22s %10s %7s %8s %8s %7s %8s %7s %8s %7s %9s\n", "channels x n",
              "span", "filters", "taps", "threads", "CPU s", "GPU s", "CPU/GPU", "floor s",
              "of fl.", "design s", "of des.", "rel. err");
  for (const auto& s : cases) {
    const std::size_t bytes = s.channels * static_cast<std::size_t>(s.samples) * sizeof(float);
    char shape[64];
    std::snprintf(shape, sizeof shape, "%zu x %lld", s.channels, static_cast<long long>(s.samples));
    // Input, the CPU and GPU results; for preprocess() also the recording, its cut and its result.
    const std::size_t need = (opt.preprocessToo ? 6 : 4) * bytes;
    const std::size_t avail = availableHostBytes();
    if (avail != 0 && avail < need) {
      std::printf("%-14s %-16s skipped: needs ~%.1f GiB of host memory, %.1f GiB available\n",
                  shape, s.span, static_cast<double>(need) / (1 << 30),
                  static_cast<double>(avail) / (1 << 30));
      continue;
    }
    const SignalBlock input = makeBlock(s);
    ReferencePlan plan;
    for (std::size_t r = 0; r < s.channels; ++r) {
      plan.sources.push_back(r);
      plan.targets.push_back(r);
      plan.weights.push_back(1.0 / static_cast<double>(s.channels));
    }
    PreprocessSpec spec;
    spec.reference = parseReferenceSpec("average");
    std::vector<FirKernel> kernels;
    std::string taps;
    for (const char* f : s.filters) {
      spec.filters.push_back(parseFilterSpec(f));
      kernels.push_back(designFir(spec.filters.back(), s.rate));
      taps += (taps.empty() ? "" : "+") + std::to_string(kernels.back().taps.size());
    }
    const int runs = opt.runs > 0 ? opt.runs : (bytes > (std::size_t{1} << 30) ? 3 : 5);
    try {
      SignalBlock cpuOut, gpuOut;
      const double tc = timePipeline(*cpu, input, plan, kernels, runs, cpuOut);
      if (gpu) {
        const double tg = timePipeline(*gpu, input, plan, kernels, runs, gpuOut);
        const double b = static_cast<double>(bytes);
        const double floor = std::max(
            {b / (rates.upload * 1e9), b / (rates.download * 1e9), 2.0 * b / (rates.hbm * 1e9)});
        const double design = b / (std::min(rates.upload, rates.staging) * 1e9) +
                              b / (std::min(rates.download, rates.staging) * 1e9);
        std::printf(
            "%-14s %-16s %-22s %10s %7d %8.3f %8.4f %7.1f %8.4f %6.0f%% %8.4f %6.0f%% %9.2e\n",
            shape, s.span, joined(s.filters).c_str(), taps.c_str(), cpu->info().threads, tc, tg,
            tc / tg, floor, 100.0 * floor / tg, design, 100.0 * design / tg,
            relativeError(input, cpuOut, gpuOut));
      } else {
        std::printf("%-14s %-16s %-22s %10s %7d %8.3f %8s %7s %8s %7s %8s %7s %9s\n", shape, s.span,
                    joined(s.filters).c_str(), taps.c_str(), cpu->info().threads, tc, "-", "-", "-",
                    "-", "-", "-", "-");
      }
      std::fflush(stdout);
      if (opt.preprocessToo) {
        cpuOut = SignalBlock{};
        gpuOut = SignalBlock{};
        const auto rec = makeRecording(input);
        PreprocessRow row{shape, joined(s.filters)};
        row.cpu = timePreprocess(*cpu, *rec, spec, runs);
        if (gpu) row.gpu = timePreprocess(*gpu, *rec, spec, runs);
        preprocessRows.push_back(row);
      }
    } catch (const Error& e) {
      std::printf("%-14s %-16s failed: %s\n", shape, s.span, e.what());
    }
    std::fflush(stdout);
  }
  std::printf(
      "\nTimes are medians of %s runs after one warm-up. rel. err = ||GPU - CPU|| / "
      "||input||.\n",
      opt.runs > 0 ? std::to_string(opt.runs).c_str() : "5 (small) or 3 (large)");

  if (!preprocessRows.empty()) {
    std::printf(
        "\nWhole preprocess() call (cut from an in-memory recording, pipeline, result "
        "recording; the cut and the result are host copies, the same for both backends):\n");
    std::printf("%-14s %-22s %10s %10s %8s\n", "channels x n", "filters", "CPU s", "GPU s",
                "CPU/GPU");
    for (const auto& r : preprocessRows) {
      if (r.gpu > 0) {
        std::printf("%-14s %-22s %10.3f %10.3f %8.1f\n", r.shape.c_str(), r.filters.c_str(), r.cpu,
                    r.gpu, r.cpu / r.gpu);
      } else {
        std::printf("%-14s %-22s %10.3f %10s %8s\n", r.shape.c_str(), r.filters.c_str(), r.cpu, "-",
                    "-");
      }
    }
  }
  return 0;
}
