// Cross-ApEn matrix benchmark (docs/entropy.md, "Benchmark"): the workload of Martinez-Zarzuela
// et al. (2013): 148 channels x 49 epochs x 1024 samples, m = 1,
// r = 0.2, the full ordered 148 x 148 matrix, per subject and for 30 subjects; and the 64
// channels of the demo recording (PhysioNet S001R03, 160 Hz, every whole 1024-sample epoch).
//
// Each subject is one ComputeBackend::entropyMatrices call from a host block (z-scoring, upload,
// counting, download, values and epoch average): the time a user waits per recording. Subjects
// are different random data (so no cache helps); MEG-like data are not needed for timing, since
// the work per pair depends only on N, m and how many templates fall within r, which for
// z-scored series with smooth distributions is close to the Gaussian case.
//
// The CPU (the CPU backend, --threads workers, the O(N^2) reference count) is timed on
// --cpu-epochs epochs of one subject and scaled linearly to 49 epochs and 30 subjects (the work
// per epoch is the same); the table says "scaled".
//
// Usage: xapen_bench [--threads T] [--subjects S] [--cpu-epochs E] [--no-cpu]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/entropy/entropy_cpu.h"
#include "engine/io/recording_io.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

constexpr int kChannels = 148, kEpochs = 49, kSamples = 1024;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Band-limited noise per channel with a shared component, like resting MEG after 0.5-40 Hz.
SignalBlock subject(int channels, int epochs, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  SignalBlock b;
  b.sampleRate = 169.549;
  b.samples = static_cast<int64_t>(epochs) * kSamples;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.data.resize(static_cast<std::size_t>(channels) * b.samples);
  std::vector<float> common(static_cast<std::size_t>(b.samples));
  float s = 0;
  for (auto& v : common) v = s = 0.9f * s + g(rng);
  for (int c = 0; c < channels; ++c) {
    float own = 0;
    const float w = 0.3f + 0.4f * static_cast<float>(c % 5) / 4.0f;
    for (int64_t t = 0; t < b.samples; ++t) {
      own = 0.8f * own + g(rng);
      b.data[static_cast<std::size_t>(c) * b.samples + t] = w * common[t] + (1 - w) * own;
    }
  }
  return b;
}

EntropyParams seedParams() {
  EntropyParams p;
  p.measure = EntropyMeasure::ApproximateEntropy;
  p.m = 1;
  p.r = 0.2;
  p.epochSamples = kSamples;
  p.bias = ApEnBias::Max;
  return p;
}

double run(ComputeBackend& backend, const SignalBlock& b, const EntropyParams& p) {
  JobContext ctx;
  const double t0 = now();
  const EntropyMatrixResult r = backend.entropyMatrices(b, p, ctx);
  const double s = now() - t0;
  if (r.average.empty()) throw std::runtime_error("empty result");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 16, subjects = 30, cpuEpochs = 1;
  bool cpu = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--subjects" && i + 1 < argc)
      subjects = std::atoi(argv[++i]);
    else if (a == "--cpu-epochs" && i + 1 < argc)
      cpuEpochs = std::atoi(argv[++i]);
    else if (a == "--no-cpu")
      cpu = false;
    else {
      std::fprintf(stderr,
                   "usage: xapen_bench [--threads T] [--subjects S] [--cpu-epochs E] [--no-cpu]\n");
      return 2;
    }
  }
  std::unique_ptr<ComputeBackend> gpu;
  std::string reason = "this build has no CUDA backend";
#ifdef MODESCOPE_HAVE_CUDA
  gpu = makeCudaBackend(reason);
#endif
  const auto cpuBackend = makeCpuBackend(threads);
  std::printf(
      "Cross-ApEn matrices: m = 1, r = 0.2, bias max, full ordered matrix per epoch, averaged\n");
  std::printf("GPU: %s\nCPU: %s\n\n", gpu ? gpu->info().describe().c_str() : reason.c_str(),
              cpuBackend->info().describe().c_str());
  std::printf("%-44s | %-12s | %-22s | %s\n", "workload", "GPU s", "CPU s", "CPU/GPU");
  try {
    const EntropyParams p = seedParams();
    // Seed shape: per subject and 30 subjects.
    double gpuTotal = 0;
    if (gpu) {
      run(*gpu, subject(8, 2, 1), p);  // context and module load, not part of any subject
      for (int s = 0; s < subjects; ++s) {
        const SignalBlock b = subject(kChannels, kEpochs, 100 + s);
        gpuTotal += run(*gpu, b, p);
      }
    }
    double cpuSubject = 0;
    if (cpu) {
      const SignalBlock b = subject(kChannels, cpuEpochs, 100);
      cpuSubject = run(*cpuBackend, b, p) * kEpochs / cpuEpochs;
    }
    char g1[32] = "-", c1[48] = "-", r1[32] = "-", g30[32] = "-", c30[48] = "-", r30[32] = "-";
    if (gpu) {
      std::snprintf(g1, sizeof g1, "%.3f", gpuTotal / subjects);
      std::snprintf(g30, sizeof g30, "%.3f", gpuTotal);
    }
    if (cpu) {
      std::snprintf(c1, sizeof c1, "%.1f (scaled from %d)", cpuSubject, cpuEpochs);
      std::snprintf(c30, sizeof c30, "%.0f (scaled)", cpuSubject * subjects);
    }
    if (gpu && cpu) {
      std::snprintf(r1, sizeof r1, "%.0fx", cpuSubject / (gpuTotal / subjects));
      std::snprintf(r30, sizeof r30, "%.0fx", cpuSubject * subjects / gpuTotal);
    }
    std::printf("%-44s | %-12s | %-22s | %s\n", "1 subject: 148 ch x 49 epochs x 1024 (mean)", g1,
                c1, r1);
    char label[64];
    std::snprintf(label, sizeof label, "%d subjects (sum of per-subject calls)", subjects);
    std::printf("%-44s | %-12s | %-22s | %s\n", label, g30, c30, r30);
    std::fflush(stdout);

    // Where a GPU subject's time goes besides the device: the host steps both backends share
    // (the checks of the plan, z-scores deferred to the device; the epoch average from the
    // values), and for comparison the CPU backend's versions (z-scores and values on the host).
    {
      const SignalBlock b = subject(kChannels, kEpochs, 100);
      const std::size_t entries = static_cast<std::size_t>(kEpochs) * kChannels * kChannels;
      const double t0 = now();
      const EntropyPlan plan = planEntropy(b, p, EntropyZScores::Deferred);
      const double t1 = now();
      finishEntropyResult(plan, b, std::vector<double>(entries, 1.0), {});
      const double t2 = now();
      const EntropyPlan hostPlan = planEntropy(b, p);
      const double t3 = now();
      assembleEntropyResult(hostPlan, b, std::vector<EntropyPairCounts>(entries));
      const double t4 = now();
      std::printf("%-44s | checks %.0f ms, average %.0f ms (host, %d threads)\n",
                  "  host steps of one GPU subject", (t1 - t0) * 1e3, (t2 - t1) * 1e3,
                  static_cast<int>(std::thread::hardware_concurrency()));
      std::printf("%-44s | plan with z-scores %.0f ms, values and average %.0f ms\n",
                  "  the same steps on the CPU backend", (t3 - t2) * 1e3, (t4 - t3) * 1e3);
    }

    // The demo: 64 channels, every whole 1024-sample epoch.
    const auto rec =
        openRecording(std::string(MODESCOPE_SOURCE_DIR) + "/tests/data/physionet_S001R03_64ch.h5");
    std::vector<std::size_t> all(rec->channels.size());
    for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
    const SignalBlock demo = extractBlock(*rec, all, 0.0, -1.0);
    const int demoEpochs = static_cast<int>(demo.samples / kSamples);
    double gd = 0, cd = 0;
    if (gpu) gd = run(*gpu, demo, p);
    if (cpu) cd = run(*cpuBackend, demo, p);
    char gds[32] = "-", cds[32] = "-", rds[32] = "-";
    if (gpu) std::snprintf(gds, sizeof gds, "%.3f", gd);
    if (cpu) std::snprintf(cds, sizeof cds, "%.2f", cd);
    if (gpu && cpu) std::snprintf(rds, sizeof rds, "%.0fx", cd / gd);
    std::snprintf(label, sizeof label, "demo: 64 ch x %d epochs x 1024", demoEpochs);
    std::printf("%-44s | %-12s | %-22s | %s\n", label, gds, cds, rds);
    std::printf(
        "\nSeed anchors (GTX 580, 2013): about 1 min per subject, 30 min for 30 subjects on the "
        "GPU;\n"
        "5 days on 6 CPU cores. Target: 30 subjects in at most 5 s on an H100.\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xapen_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
