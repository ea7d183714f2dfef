// Extended Infomax benchmark (docs/ica.md, "Benchmark"): 64 channels x 30 min at 256 Hz (460,800
// samples) and 256 channels x 10 min at 1 kHz (600,000 samples), runica's defaults (eeglab-runica
// preset), to convergence and for a fixed 512 steps. Columns: GPU (ComputeBackend::infomax on the
// CUDA backend, end to end from a host block: whitening, upload, passes, sorting), CPU (the CPU
// backend: double, Eigen; the passes are sequential by nature), MNE-Python's infomax fed the
// same sphered data and runica's settings (tests/tools/mne_infomax_runica.py), and the ratios.
//
// Data: C independent sources (three Laplacian, super-Gaussian, for every uniform or sine,
// sub-Gaussian one) mixed by a random C x C matrix with singular values 1..8: known to be
// separable, so "to convergence" means the same thing on every backend.
//
// CPU and MNE passes cost the same every step (the work per step is fixed by N and the block
// size), so they are timed over --cpu-steps steps and scaled to the GPU's step count; the table
// says "scaled". The GPU is always timed in full.
//
// Usage: ica_bench [--quick] [--cpu-steps K] [--no-cpu] [--mne PYTHON] [--math tf32x3|tf32|fp32]
//                  [--case C,N]   (one case only) [--no-warpgroup] (the mma.sync kernel for
//                  plain TF32 on compute 9.0 instead of the warpgroup kernel)
//                  [--only conv|fixed] (one of the two runs: a 256-channel run takes ~9 min on
//                  an H100, so each gets its own call) [--no-gpu] (CPU and MNE per step only)
//                  [--cpu-threads T] (the CPU backend's threads; default all cores)
//                  [--cluster-columns 16|32] (W's columns per CTA of the tensor-core cluster
//                  kernel, 65-256 components, which then also runs where the two-warpgroup
//                  kernel would; default the planner's kernel and shape)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../unit/ica_test_support.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/ica/infomax.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

using namespace modescope;

namespace {

struct Options {
  bool quick = false, cpu = true;
  int cpuSteps = 3;
  int cpuThreads = 0;  // --cpu-threads: the CPU backend's threads (0 = all cores)
  std::string python;  // MNE timing when set
  IcaGpuMath math = IcaParams{}.gpuMath;  // --math (default: the application's)
  int caseC = 0;
  long long caseN = 0;
  int maxSteps = 512;        // --max-steps: a shorter fixed run (profiling)
  int extBlocks = 1;         // --ext-blocks: runica's extblocks (<= 0: fixed signs)
  int slabRows = 0;          // --slab-rows: rows of W per CTA of the GPU cluster (0 = planner)
  bool noWarpgroup = false;  // --no-warpgroup
  int clusterColumns = 0;    // --cluster-columns: W's columns per CTA of the tensor-core cluster
  std::string only;          // --only conv|fixed: that run alone
  bool gpu = true;           // --no-gpu
};

struct Case {
  int channels;
  int64_t samples;
  const char* what;
};

SignalBlock makeMixture(int c, int64_t n) {
  std::vector<ica_test::Source> kinds;
  for (int k = 0; k < c; ++k)
    kinds.push_back(k % 4 == 1   ? ica_test::Source::Uniform
                    : k % 8 == 3 ? ica_test::Source::Sine
                                 : ica_test::Source::Laplace);
  std::vector<double> sv(static_cast<std::size_t>(c));
  for (int k = 0; k < c; ++k) sv[static_cast<std::size_t>(k)] = 1.0 + 7.0 * (c - 1 - k) / (c - 1);
  const auto sources = ica_test::makeSources(kinds, n, 2026);
  SignalBlock b = ica_test::mixToBlock(ica_test::makeMixing(c, c, sv, 2026), sources);
  b.sampleRate = 256;
  return b;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Run {
  double seconds = 0;
  int steps = 0;
  bool converged = false;
  int64_t estimates = 0;
  // Seconds from the start to the driver's progress stages (-1 if not seen): the moments and the
  // eigen decomposition are done when the sphering starts; step 1 reports after its pass.
  double spheringAt = -1, firstStepAt = -1;
};

Run timeRun(ComputeBackend& be, const SignalBlock& b, const IcaParams& p) {
  const double t0 = now();
  // A 256-channel run takes minutes: its progress goes to stderr every 32 steps, so a run cut
  // off by a time limit still shows how far it got and at what rate.
  int reported = 0;
  Run run;
  JobContext ctx({}, [&](double fraction, std::string_view stage) {
    if (run.spheringAt < 0 && stage.starts_with("ICA: sphering")) run.spheringAt = now() - t0;
    if (run.firstStepAt < 0 && stage.starts_with("ICA step 1,")) run.firstStepAt = now() - t0;
    const int step = static_cast<int>(fraction * p.maxSteps + 0.5);
    if (step < reported + 32) return;
    reported = step;
    std::fprintf(stderr, "  [%.1f s] %.*s\n", now() - t0, static_cast<int>(stage.size()),
                 stage.data());
  });
  const IcaResult r = be.infomax(b, p, ctx);
  run.seconds = now() - t0;
  run.steps = r.steps;
  run.converged = r.converged;
  run.estimates = r.kurtosisEstimates;
  return run;
}

// MNE's seconds per step over `steps` steps (its own timer: infomax() only, sphering excluded).
double mneSecondsPerStep(const Options& o, const SignalBlock& b, int steps) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "modescope-ica-bench";
  fs::create_directories(dir);
  const fs::path data = dir / "data.f32", out = dir / "out.txt";
  {
    std::ofstream f(data, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data.data()),
            static_cast<std::streamsize>(b.data.size() * sizeof(float)));
  }
  const int c = static_cast<int>(b.channels.size());
  const std::string cmd =
      o.python + " " + MODESCOPE_SOURCE_DIR + "/tests/tools/mne_infomax_runica.py " +
      data.string() + " " + std::to_string(c) + " " + std::to_string(b.samples) + " " +
      std::to_string(c) + " 1 " + out.string() + " " + std::to_string(steps) + " > /dev/null";
  if (std::system(cmd.c_str()) != 0) return -1;
  std::ifstream in(out);
  int ran = 0;
  double seconds = 0;
  in >> ran >> seconds;
  fs::remove_all(dir);
  return ran > 0 ? seconds / ran : -1;
}

std::string fmt(double v, const char* f = "%.2f") {
  if (v < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick")
      o.quick = true;
    else if (a == "--no-cpu")
      o.cpu = false;
    else if (a == "--cpu-steps")
      o.cpuSteps = std::atoi(next().c_str());
    else if (a == "--cpu-threads")
      o.cpuThreads = std::atoi(next().c_str());
    else if (a == "--mne")
      o.python = next();
    else if (a == "--math")
      o.math = parseIcaGpuMath(next());
    else if (a == "--max-steps")
      o.maxSteps = std::atoi(next().c_str());
    else if (a == "--ext-blocks")
      o.extBlocks = std::atoi(next().c_str());
    else if (a == "--slab-rows")
      o.slabRows = std::atoi(next().c_str());
    else if (a == "--no-warpgroup")
      o.noWarpgroup = true;
    else if (a == "--cluster-columns")
      o.clusterColumns = std::atoi(next().c_str());
    else if (a == "--only")
      o.only = next();
    else if (a == "--no-gpu")
      o.gpu = false;
    else if (a == "--case") {
      const std::string v = next();
      o.caseC = std::atoi(v.c_str());
      o.caseN = std::atoll(v.substr(v.find(',') + 1).c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 1;
    }
  }
  std::vector<Case> cases = {{64, 460800, "64 ch x 30 min @ 256 Hz"},
                             {256, 600000, "256 ch x 10 min @ 1 kHz"}};
  if (o.quick) cases = {{32, 40000, "quick: 32 ch x 40000"}};
  if (o.caseC > 0) cases = {{o.caseC, o.caseN, "--case"}};

  std::unique_ptr<ComputeBackend> gpu;
#ifdef MODESCOPE_HAVE_CUDA
  std::string reason;
  gpu = makeCudaBackend(reason);
  setCudaTestHooks({.icaSlabRows = o.slabRows,
                    .icaNoWarpgroupKernel = o.noWarpgroup,
                    .icaClusterColumns = o.clusterColumns});
  if (!gpu) std::printf("no GPU: %s\n", reason.c_str());
  if (!o.gpu) gpu.reset();
#endif
  auto cpu = makeCpuBackend(o.cpuThreads);
  std::printf("GPU: %s\nCPU: %s\nGPU math: %s\n\n", gpu ? gpu->info().describe().c_str() : "none",
              cpu->info().describe().c_str(), icaGpuMathName(o.math));
  std::printf("| case | run | GPU steps | GPU s | CPU s | MNE s | CPU/GPU | MNE/GPU |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    const SignalBlock b = makeMixture(c.channels, c.samples);
    IcaParams conv = icaPreset("eeglab-runica");
    conv.gpuMath = o.math;
    conv.ext.extBlocks = o.extBlocks;
    if (o.extBlocks <= 0) conv.ext.subGaussian = c.channels / 4 + c.channels / 8;  // the true count
    IcaParams fixed = conv;
    fixed.stopTolerance = 1e-300;  // never met: exactly maxSteps steps
    fixed.maxSteps = o.maxSteps;
#ifdef MODESCOPE_HAVE_CUDA
    if (gpu)
      std::printf(
          "  (GPU: %s)\n",
          icaGpuKernel(c.channels,
                       resolveIcaParams(conv, c.channels, c.channels, c.samples).blockSize, o.math)
              .c_str());
#endif

    // Per-step costs of the CPU and MNE from a few steps.
    double cpuPerStep = -1, mnePerStep = -1;
    if (o.cpu) {
      IcaParams few = fixed;
      few.maxSteps = o.cpuSteps;
      const Run r = timeRun(*cpu, b, few);
      IcaParams one = fixed;
      one.maxSteps = 1;
      const Run r1 = timeRun(*cpu, b, one);  // whitening + 1 step: the fixed part by difference
      cpuPerStep = (r.seconds - r1.seconds) / (o.cpuSteps - 1);
      std::printf("  (CPU: %d steps %.2f s, 1 step %.2f s -> %.3f s per step)\n", o.cpuSteps,
                  r.seconds, r1.seconds, cpuPerStep);
      const double cpuFixed = r1.seconds - cpuPerStep;
      if (!o.python.empty()) mnePerStep = mneSecondsPerStep(o, b, o.cpuSteps);
      for (const IcaParams* p : {&conv, &fixed}) {
        if (p == &conv && o.maxSteps < 512) continue;  // a short profiling run
        if (!o.only.empty() && o.only != (p == &conv ? "conv" : "fixed")) continue;
        if (p == &conv && !gpu) continue;  // the step count comes from the GPU's run
        Run g;
        if (gpu) g = timeRun(*gpu, b, *p);
        const int steps = gpu ? g.steps : p->maxSteps;
        const double cpuS = cpuFixed + cpuPerStep * steps;
        const double mneS = mnePerStep > 0 ? mnePerStep * steps : -1;
        std::printf("| %s | %s | %d%s | %s | %s (scaled) | %s | %s | %s |\n", c.what,
                    p == &conv ? "to convergence" : "fixed steps", steps,
                    gpu && !g.converged && p == &conv ? " (not converged)" : "",
                    gpu ? fmt(g.seconds).c_str() : "-", fmt(cpuS, "%.1f").c_str(),
                    mneS > 0 ? (fmt(mneS, "%.1f") + " (scaled)").c_str() : "-",
                    gpu ? fmt(cpuS / g.seconds, "%.0fx").c_str() : "-",
                    gpu && mneS > 0 ? fmt(mneS / g.seconds, "%.0fx").c_str() : "-");
        std::fflush(stdout);
      }
    } else if (gpu) {
      for (const IcaParams* p : {&fixed, &conv}) {
        if (p == &conv && o.maxSteps < 512) continue;
        if (!o.only.empty() && o.only != (p == &conv ? "conv" : "fixed")) continue;
        const Run g = timeRun(*gpu, b, *p);
        std::printf("| %s | %s | %d | %s | - | - | - | - |  (%lld kurtosis estimates)\n", c.what,
                    p == &conv ? "to convergence" : "fixed steps", g.steps, fmt(g.seconds).c_str(),
                    static_cast<long long>(g.estimates));
        if (p == &fixed && o.maxSteps > 1 && o.maxSteps < 512) {
          // A short profiling run: the fixed part (whitening, upload, sorting) by difference
          // with a 1-step run, as for the CPU above.
          IcaParams one = fixed;
          one.maxSteps = 1;
          const Run g1 = timeRun(*gpu, b, one);
          std::printf("  (GPU: %d steps %.3f s, 1 step %.3f s -> %.4f s per step)\n", g.steps,
                      g.seconds, g1.seconds, (g.seconds - g1.seconds) / (g.steps - 1));
          std::printf(
              "  (GPU, the 1-step run: moments and eigen decomposition %.3f s, sphering, "
              "setup and pass 1 %.3f s, sorting %.3f s)\n",
              g1.spheringAt, g1.firstStepAt - g1.spheringAt, g1.seconds - g1.firstStepAt);
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
