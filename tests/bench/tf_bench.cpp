// Time-frequency benchmark (docs/time-frequency.md): ComputeBackend::timeFrequency from a host
// block to a host image (upload, framing, cuFFT, operators, relocation, download), the time a
// user waits.
//
// 1. The seed's Table I grid (Gambrych and Abratkiewicz: one 16,384-sample frame, FFT 512-8192,
//    windows of 32-96 taps, hop 1), orders 1, 2, 3, 3c, 4: minimum of --repeats runs, in
//    time-frequency points per second. "bins" counts the one-sided bins ModeScope computes for a
//    real signal (columns x (N/2 + 1)); "seed pts" counts columns x N as the seed does for its
//    complex input (its RTX 4070 Super: 0.74-1.41 G/s for CVSS3). The CPU runs the same cells
//    with --cpu (slow: every cell is 16,384 x J FFTs).
// 2. EEG-sized work: 64 channels x 10 min at 512 Hz (307,200 samples), FFT 512, windows 256 and
//    1024 taps, hop 1, orders 0-4, in batches of --batch channels (the whole image, 40 GB of
//    complex float, does not fit the default 8 GiB budget); the total is end to end. The CPU runs
//    it with --cpu-eeg. This whole-image mode runs with --eeg-held; by default the image is
//    streamed (timeFrequencyTiles, engine/tf/tf_tiles.h) as float32 magnitudes, all 64 channels
//    in one call, to a consumer that reads every value (it sums each channel's time-averaged
//    spectrum, each tile's columns split over --sink-threads threads, 8 by default; with one
//    thread the consumer, not the transform, set the time on the GPU machine): the image is never
//    held, as `modescope-cli tfr` writes it. "in sink" is the time spent inside the consumer.
//
// Usage: tf_bench [--repeats R] [--threads T] [--batch C] [--cpu] [--cpu-eeg] [--no-grid]
//                 [--no-eeg] [--eeg-held] [--cell ORDER:FFT:WINDOW] [--sink-threads T]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/parallel/worker_team.h"
#include "engine/tf/tf_params.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#include "cuda/cuda_tf.h"
#endif

using namespace modescope;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A non-linear FM pulse plus noise (the seed validated on a radar NLFM pulse).
SignalBlock frames(int channels, int64_t samples, double rate, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 0.1f);
  SignalBlock b;
  b.sampleRate = rate;
  b.samples = samples;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.data.resize(static_cast<std::size_t>(channels) * samples);
  for (int c = 0; c < channels; ++c)
    for (int64_t i = 0; i < samples; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(samples);
      const double phase = 2 * 3.141592653589793 * (0.05 * i + 0.15 * samples * t * t * t / 3);
      b.data[static_cast<std::size_t>(c) * samples + i] =
          static_cast<float>(std::sin(phase + c)) + g(rng);
    }
  return b;
}

double timeRun(ComputeBackend& be, const SignalBlock& b, const TfParams& p, int repeats) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    JobContext ctx;
    const double t0 = now();
    const TfResult res = be.timeFrequency(b, p, ctx);
    best = std::min(best, now() - t0);
    if (res.values.empty()) std::printf("empty result\n");
  }
  return best;
}

#ifdef MODESCOPE_HAVE_CUDA
// The transform with the image left on the device (cuda::timeFrequencyGpuOnDevice), the way the
// time-frequency view draws it through CUDA-OpenGL interop: upload, framing, cuFFT, operators,
// relocation; no copy to host memory. One workspace for all runs, as a backend keeps one.
double timeOnDevice(cuda::TfWorkspace& ws, const SignalBlock& b, const TfParams& p, int repeats) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    JobContext ctx;
    TfResult res;
    const double t0 = now();
    const std::complex<float>* image = cuda::timeFrequencyGpuOnDevice(b, p, ctx, ws, res);
    best = std::min(best, now() - t0);
    if (!image) std::printf("no image\n");
  }
  return best;
}
#endif

const TfOrder kOrders[] = {TfOrder::First, TfOrder::Second, TfOrder::Third, TfOrder::ThirdCanonical,
                           TfOrder::Fourth};

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3, threads = 0, batch = 8, sinkThreads = 8;
  bool cpuGrid = false, cpuEeg = false, grid = true, eeg = true, eegHeld = false;
  std::string cell;  // "ORDER:FFT:WINDOW", or empty for the whole grid
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc)
      repeats = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--batch" && i + 1 < argc)
      batch = std::atoi(argv[++i]);
    else if (a == "--cpu")
      cpuGrid = true;
    else if (a == "--cpu-eeg")
      cpuEeg = true;
    else if (a == "--no-grid")
      grid = false;
    else if (a == "--no-eeg")
      eeg = false;
    else if (a == "--eeg-held")
      eegHeld = true;
    else if (a == "--sink-threads" && i + 1 < argc)
      sinkThreads = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cell" && i + 1 < argc)  // one grid cell, e.g. 3:8192:64 (for a profiler)
      cell = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: tf_bench [--repeats R] [--threads T] [--batch C] [--cpu] "
                   "[--cpu-eeg] [--no-grid] [--no-eeg] [--eeg-held] [--cell ORDER:FFT:WINDOW] "
                   "[--sink-threads T]\n");
      return 1;
    }
  }
  std::unique_ptr<ComputeBackend> gpu;
  std::string reason = "this build has no CUDA backend";
#ifdef MODESCOPE_HAVE_CUDA
  gpu = makeCudaBackend(reason);
#endif
  std::unique_ptr<ComputeBackend> cpu = makeCpuBackend(threads);
  std::printf("GPU: %s\nCPU: %s\n", gpu ? gpu->info().describe().c_str() : reason.c_str(),
              cpu->info().describe().c_str());
  try {
    if (grid) {
      std::printf("\n1. Seed grid: 16384-sample frame, hop 1 (min of %d runs, host to host)\n",
                  repeats);
      std::printf(
          "(host: host memory to host memory through the backend; device: the image left in "
          "device memory, as the view uses it)\n");
      std::printf("%-5s %6s %5s %10s %11s %11s %10s %11s %10s %11s\n", "order", "fft", "win",
                  "GPU ms", "GPU Gbins/s", "GPU Gpts/s", "dev ms", "dev Gpts/s", "CPU ms",
                  "CPU Mbins/s");
      const SignalBlock b = frames(1, 16384, 1.0e6, 1);
#ifdef MODESCOPE_HAVE_CUDA
      cuda::TfWorkspacePtr ws = gpu ? cuda::makeTfWorkspace() : nullptr;
#endif
      for (TfOrder o : kOrders)
        for (int n : {512, 1024, 2048, 4096, 8192})
          for (int w : {32, 48, 64, 80, 96}) {
            if (!cell.empty() && cell != std::string(tfOrderName(o)) + ":" + std::to_string(n) +
                                             ":" + std::to_string(w))
              continue;
            TfParams p;
            p.order = o;
            p.fftLength = n;
            p.windowLength = w;
            const double bins = 16384.0 * (n / 2 + 1), pts = 16384.0 * n;
            double g = 0, d = 0, c = 0;
            if (gpu) g = timeRun(*gpu, b, p, repeats);
#ifdef MODESCOPE_HAVE_CUDA
            if (ws) d = timeOnDevice(*ws, b, p, repeats);
#endif
            if (cpuGrid) c = timeRun(*cpu, b, p, 1);
            if (!cell.empty()) {
              // What the host side alone costs: a zeroed image of this size, as the result holds.
              double best = 1e300;
              for (int r = 0; r < repeats; ++r) {
                const double t0 = now();
                std::vector<std::complex<float>> image(16384 * static_cast<std::size_t>(n / 2 + 1));
                best = std::min(best, now() - t0);
                if (image[image.size() / 2] != std::complex<float>()) std::printf("?\n");
              }
              std::printf("a zeroed host image of this size: %.3f ms\n", best * 1e3);
            }
            std::printf("%-5s %6d %5d %10.3f %11.3f %11.3f %10.3f %11.3f %10.1f %11.1f\n",
                        tfOrderName(o), n, w, g * 1e3, g > 0 ? bins / g / 1e9 : 0.0,
                        g > 0 ? pts / g / 1e9 : 0.0, d * 1e3, d > 0 ? pts / d / 1e9 : 0.0, c * 1e3,
                        c > 0 ? bins / c / 1e6 : 0.0);
            std::fflush(stdout);
          }
    }
    if (eeg) {
      const int channels = 64;
      const int64_t samples = 10 * 60 * 512;
      std::printf(
          "\n2. EEG: %d channels x 10 min at 512 Hz, FFT 512, hop 1, end to end: %s\n", channels,
          eegHeld ? ("whole complex images held, batches of " + std::to_string(batch) + " channels")
                        .c_str()
                  : "float32 magnitudes streamed to a consumer, all channels in one call");
      // "in sink": the GPU run's seconds inside the consumer (the part the device cannot hide).
      std::printf("%-5s %6s %10s %12s %10s %10s %12s\n", "order", "win", "GPU s", "GPU Gbins/s",
                  "in sink", "CPU s", "CPU Mbins/s");
      double sinkSeconds = 0;
      WorkerTeam sinkTeam(sinkThreads);
      const SignalBlock all = frames(channels, samples, 512.0, 2);
      for (TfOrder o : {TfOrder::Spectrogram, TfOrder::First, TfOrder::Second, TfOrder::Third,
                        TfOrder::ThirdCanonical, TfOrder::Fourth})
        for (int w : {256, 1024}) {
          TfParams p;
          p.order = o;
          p.fftLength = w <= 512 ? 512 : 1024;  // the FFT must hold the window
          p.windowLength = w;
          p.maxBytes = std::size_t{32} << 30;  // a batch of 8 channels at FFT 1024 is 10 GB
          // Streamed: every channel in one call, magnitudes to a consumer that reads them all.
          auto streamed = [&](ComputeBackend& be) {
            TfParams q = p;
            for (int c = 0; c < channels; ++c) q.rows.push_back(static_cast<std::size_t>(c));
            // channels x K per sink thread: sums over columns of |T|, added up at the end.
            std::vector<std::vector<double>> partial(static_cast<std::size_t>(sinkThreads));
            JobContext ctx;
            const double t0 = now();
            be.timeFrequencyTiles(
                all, q, TfTileValues::Magnitude,
                [&](const TfTile& t) {
                  const double s0 = now();
                  const auto K = static_cast<std::size_t>(t.bins);
                  const auto slices = static_cast<std::size_t>(sinkThreads);
                  sinkTeam.run(slices, [&](int worker, std::size_t slice) {
                    std::vector<double>& sums = partial[static_cast<std::size_t>(worker)];
                    if (sums.empty()) sums.assign(channels * K, 0.0);
                    double* acc = sums.data() + t.channel * K;
                    const auto cols = static_cast<std::size_t>(t.columns);
                    for (std::size_t i = cols * slice / slices; i < cols * (slice + 1) / slices;
                         ++i) {
                      const float* m = t.magnitude + i * K;
                      for (std::size_t k = 0; k < K; ++k) acc[k] += m[k];
                    }
                  });
                  sinkSeconds += now() - s0;
                },
                ctx);
            const double seconds = now() - t0;
            double check = 0;
            for (const std::vector<double>& sums : partial)
              for (double v : sums) check += v;
            if (!(check > 0)) std::printf("  (empty spectrum: the stream delivered nothing)\n");
            return seconds;
          };
          auto run = [&](ComputeBackend& be) {
            if (!eegHeld) return streamed(be);
            double total = 0;
            for (int c0 = 0; c0 < channels; c0 += batch) {
              TfParams q = p;
              for (int c = c0; c < std::min(channels, c0 + batch); ++c)
                q.rows.push_back(static_cast<std::size_t>(c));
              JobContext ctx;
              const double t0 = now();
              const TfResult r = be.timeFrequency(all, q, ctx);
              total += now() - t0;
            }
            return total;
          };
          const double bins = channels * static_cast<double>(samples) * (p.fftLength / 2 + 1);
          sinkSeconds = 0;
          const double g = gpu ? run(*gpu) : 0.0;
          const double gpuSink = sinkSeconds;
          const double c = cpuEeg ? run(*cpu) : 0.0;
          std::printf("%-5s %6d %10.2f %12.3f %10.2f %10.1f %12.1f%s\n", tfOrderName(o), w, g,
                      g > 0 ? bins / g / 1e9 : 0.0, gpuSink, c, c > 0 ? bins / c / 1e6 : 0.0,
                      w > 512 ? "  (FFT 1024: a 1024-tap window needs N >= 1024)" : "");
          std::fflush(stdout);
        }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "tf_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
