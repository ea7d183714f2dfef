// BCI feature extraction benchmark (docs/ar.md, "Benchmark"): the configuration of Wilson and
// Williams (2009) of 250 ms windows at 4800 Hz (1200 samples),
// order 30, 2 Hz bins with 11 evaluations, a dense C x C spatial filter, for 1000 channels, plus
// 64 and 256 channels.
//
// Two ways of running one block, both timed end to end from host memory to host memory
// (uploads, the filter, Burg, the bins, the download):
//  - "stream": the seed's real-time loop. Each block brings 50 ms of new samples (240 at 4800 Hz);
//    they alone go through the spatial filter ("SF on S/5 samples") into a ring of the last
//    250 ms per output, and Burg runs on that 1200-sample window of every output
//    (ComputeBackend::openArStream, push());
//  - "whole": the 1200-sample window through the filter and Burg in one call
//    (ComputeBackend::filteredArSpectra), i.e. the filter on all S samples.
// Columns: GPU ms per block (median and 95th percentile over the timed blocks), CPU ms per block
// (the CPU backend with --threads workers, default 16), and the ratio of the medians.
//
// Usage: ar_bench [--threads T] [--blocks B] [--cpu-blocks B] [--no-cpu] [--channels C,...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/ar/ar_stream.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/spatial/spatial_filter.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

constexpr double kRate = 4800.0;
constexpr int64_t kWindow = 1200;  // 250 ms
constexpr int64_t kBlock = 240;    // 50 ms

struct Options {
  int threads = 16;
  int blocks = 200;
  int cpuBlocks = 20;
  bool cpu = true;
  std::vector<int> channels{64, 256, 1000};
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  double median = 0, p95 = 0;
};

Timing summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.median = ms[ms.size() / 2];
  t.p95 = ms[std::min(ms.size() - 1, ms.size() * 95 / 100)];
  return t;
}

BurgArParams seedParams() {
  BurgArParams p = burgArPreset("wilson2009");  // order 30, 2 Hz bins, 11 evaluations
  p.window = {static_cast<double>(kWindow), ArLengthUnit::Samples};
  p.step = {static_cast<double>(kWindow), ArLengthUnit::Samples};
  return p;
}

// A dense filter with random weights (the seed's filter is a full C x C product).
std::shared_ptr<SpatialFilter> denseFilter(int c, std::mt19937& rng) {
  auto f = std::make_shared<SpatialFilter>();
  std::normal_distribution<double> w(0.0, 1.0 / std::sqrt(static_cast<double>(c)));
  for (int i = 0; i < c; ++i) {
    f->inputNames.push_back("E" + std::to_string(i));
    f->outputNames.push_back("S" + std::to_string(i));
    f->inputChannels.push_back(static_cast<std::size_t>(i));
  }
  f->matrix.resize(static_cast<std::size_t>(c) * c);
  for (auto& v : f->matrix) v = w(rng);
  f->description = "dense random " + std::to_string(c) + " x " + std::to_string(c);
  return f;
}

// C channels x S samples of noise with a 10 Hz rhythm (the seed's simulated data).
std::vector<float> signal(int c, int64_t s, std::mt19937& rng) {
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(c) * s);
  for (int ch = 0; ch < c; ++ch)
    for (int64_t t = 0; t < s; ++t)
      x[static_cast<std::size_t>(ch) * s + t] =
          3.0f * std::sin(2.0f * 3.14159265f * 10.0f * t / static_cast<float>(kRate) + ch) + g(rng);
  return x;
}

// Stream mode: pushes `blocks` 50 ms blocks after filling the window; ms per push.
Timing timeStream(ComputeBackend& backend, const std::shared_ptr<SpatialFilter>& f, int c,
                  int blocks, std::mt19937& rng) {
  ArStreamConfig cfg;
  cfg.filter = f;
  cfg.params = seedParams();
  cfg.sampleRate = kRate;
  const auto stream = backend.openArStream(cfg);
  const std::vector<float> x = signal(c, kBlock * 8, rng);
  // Blocks are rows x 240 slices of the 8-block signal, cycled.
  std::vector<std::vector<float>> slices(8,
                                         std::vector<float>(static_cast<std::size_t>(c) * kBlock));
  for (int k = 0; k < 8; ++k)
    for (int ch = 0; ch < c; ++ch)
      std::copy_n(x.data() + static_cast<std::size_t>(ch) * kBlock * 8 + k * kBlock, kBlock,
                  slices[k].data() + static_cast<std::size_t>(ch) * kBlock);
  for (int k = 0; k < 5; ++k) stream->push(slices[k % 8].data(), kBlock);  // fill + warm up
  std::vector<double> ms;
  for (int k = 0; k < blocks; ++k) {
    const double t0 = now();
    const ArStreamUpdate u = stream->push(slices[k % 8].data(), kBlock);
    ms.push_back((now() - t0) * 1e3);
    if (!u.ready) throw std::runtime_error("stream not ready after a full window");
  }
  return summarise(ms);
}

// Whole mode: one 1200-sample block through filteredArSpectra; ms per call.
Timing timeWhole(ComputeBackend& backend, const std::shared_ptr<SpatialFilter>& f, int c,
                 int blocks, std::mt19937& rng) {
  SignalBlock b;
  b.sampleRate = kRate;
  b.samples = kWindow;
  for (int ch = 0; ch < c; ++ch) b.channels.push_back(static_cast<std::size_t>(ch));
  b.data = signal(c, kWindow, rng);
  const BurgArParams p = seedParams();
  JobContext ctx;
  backend.filteredArSpectra(f.get(), b, p, ctx);  // warm up
  std::vector<double> ms;
  for (int k = 0; k < blocks; ++k) {
    const double t0 = now();
    backend.filteredArSpectra(f.get(), b, p, ctx);
    ms.push_back((now() - t0) * 1e3);
  }
  return summarise(ms);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--threads")
      o.threads = std::stoi(next());
    else if (a == "--blocks")
      o.blocks = std::stoi(next());
    else if (a == "--cpu-blocks")
      o.cpuBlocks = std::stoi(next());
    else if (a == "--no-cpu")
      o.cpu = false;
    else if (a == "--channels") {
      o.channels.clear();
      std::string list = next();
      for (std::size_t p = 0; p < list.size();) {
        const std::size_t q = list.find(',', p);
        o.channels.push_back(std::stoi(list.substr(p, q - p)));
        p = q == std::string::npos ? list.size() : q + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: ar_bench [--threads T] [--blocks B] [--cpu-blocks B] [--no-cpu] "
                   "[--channels C,...]\n");
      return 2;
    }
  }

  std::unique_ptr<ComputeBackend> gpu;
  std::string reason = "this build has no CUDA backend";
#ifdef MODESCOPE_HAVE_CUDA
  gpu = makeCudaBackend(reason);
#endif
  const auto cpu = makeCpuBackend(o.threads);
  std::printf(
      "Burg AR features, seed configuration: 4800 Hz, 1200-sample windows (250 ms), order 30,\n"
      "2 Hz bins x 11 evaluations (1-29 Hz), dense C x C spatial filter; 50 ms blocks (240 "
      "samples)\n");
  std::printf("GPU: %s\nCPU: %s\n", gpu ? gpu->info().describe().c_str() : reason.c_str(),
              cpu->info().describe().c_str());
  std::printf("\n%-7s %-7s | %-22s | %-22s | %s\n", "mode", "chans", "GPU ms/block med (p95)",
              "CPU ms/block med (p95)", "CPU/GPU");
  std::mt19937 rng(2026);
  try {
    for (const char* mode : {"stream", "whole"}) {
      for (int c : o.channels) {
        const auto f = denseFilter(c, rng);
        const bool stream = std::string(mode) == "stream";
        Timing g{}, h{};
        if (gpu)
          g = stream ? timeStream(*gpu, f, c, o.blocks, rng) : timeWhole(*gpu, f, c, o.blocks, rng);
        if (o.cpu)
          h = stream ? timeStream(*cpu, f, c, o.cpuBlocks, rng)
                     : timeWhole(*cpu, f, c, o.cpuBlocks, rng);
        char gs[64] = "-", cs[64] = "-", ratio[32] = "-";
        if (gpu) std::snprintf(gs, sizeof gs, "%.3f (%.3f)", g.median, g.p95);
        if (o.cpu) std::snprintf(cs, sizeof cs, "%.3f (%.3f)", h.median, h.p95);
        if (gpu && o.cpu) std::snprintf(ratio, sizeof ratio, "%.1fx", h.median / g.median);
        std::printf("%-7s %-7d | %-22s | %-22s | %s\n", mode, c, gs, cs, ratio);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ar_bench: %s\n", e.what());
    return 1;
  }
  std::printf(
      "\nTarget: at most 1 ms per 1000-channel block on an H100, transfers included.\n"
      "Seed anchors (8800 GT, 2009): 32 ms GPU, 933 ms single-threaded CPU per 1000-channel "
      "block.\n");
  return 0;
}
