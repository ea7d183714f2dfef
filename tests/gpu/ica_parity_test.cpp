// CUDA Infomax (ComputeBackend::infomax on the GPU) against the CPU's double-precision passes.
//
// Two kinds of parity, because Infomax's trajectory is chaotic over thousands of sequential
// updates (a rounding difference in one block grows until the runs visit different, equally good
// nearby solutions):
//  - a few passes: the same permutations and kurtosis draws on both sides, so after 2 passes the
//    weights must agree to what float rounding allows (tensor-core 3xTF32 and FP32 products:
//    FP32 accuracy; plain TF32: 10-bit mantissas);
//  - to convergence: the separation itself (Amari index against the true mixing of synthetic
//    sources, component matches on real EEG), which is what a user gets.
// Sizes cover one CTA (r <= 64), the two-warpgroup kernel (plain TF32, 65 <= r <= 128, compute
// 9.0), the tensor-core cluster kernel in both of its shapes (16 columns of W per CTA: r = 100
// and 128 on 8 CTAs; 32 columns: r = 256 on 8 CTAs, and r = 100 and 128 on 4 through the
// cluster-columns hook, which also holds the two-warpgroup kernel back; TF32 and 3xTF32) and the
// WMMA cluster kernel (FP32, and the other modes through the slab-rows test hook).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <stop_token>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../unit/ica_test_support.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"
#include "engine/ica/infomax.h"
#include "engine/io/recording_io.h"
#include "gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace modescope {
namespace {

using ica_test::Source;

class IcaParity : public gpu_test::ParityTest {
 protected:
  IcaResult onGpu(const SignalBlock& b, const IcaParams& p) {
    JobContext ctx;
    return gpu_->infomax(b, p, ctx);
  }
  IcaResult onCpu(const SignalBlock& b, const IcaParams& p) {
    JobContext ctx;
    return cpu_->infomax(b, p, ctx);
  }
};

SignalBlock mixedSources(int n, int64_t samples, uint64_t seed, IcaMatrix* mixing) {
  std::vector<Source> kinds;
  for (int k = 0; k < n; ++k)
    kinds.push_back(k % 4 == 1 ? Source::Uniform : k % 4 == 3 ? Source::Sine : Source::Laplace);
  std::vector<double> sv(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k)
    sv[static_cast<std::size_t>(k)] = 1.0 + 7.0 * (n - 1 - k) / std::max(1, n - 1);
  const auto sources = ica_test::makeSources(kinds, samples, seed);
  *mixing = ica_test::makeMixing(n, n, sv, seed);
  return ica_test::mixToBlock(*mixing, sources);
}

// For each row of `b` (the CPU's unmixing), the row of `a` (the GPU's) nearest to it, each used
// once (greedy in b's order). Both are sorted by back-projected variance, and two components of
// nearly equal variance may sort the other way round after rounding differences (seed 75101524
// on the H200: TF32 weights within 4e-6 of the CPU's in their change, rows 0.33 apart unpaired).
std::vector<int> nearestRows(const IcaMatrix& a, const IcaMatrix& b) {
  std::vector<int> pair(static_cast<std::size_t>(b.rows), -1);
  std::vector<char> used(static_cast<std::size_t>(a.rows), 0);
  for (int i = 0; i < b.rows; ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (int j = 0; j < a.rows; ++j) {
      if (used[static_cast<std::size_t>(j)]) continue;
      double d = 0;
      for (int k = 0; k < b.cols; ++k) d += (a(j, k) - b(i, k)) * (a(j, k) - b(i, k));
      if (d < best) {
        best = d;
        pair[static_cast<std::size_t>(i)] = j;
      }
    }
    if (pair[static_cast<std::size_t>(i)] >= 0) used[static_cast<std::size_t>(pair[i])] = 1;
  }
  return pair;
}

// Relative Frobenius distance of two unmixing matrices (the sorted outputs: the runs' final W in
// their own order are not available), rows paired by nearestRows.
double relativeDistance(const IcaMatrix& a, const IcaMatrix& b) {
  const std::vector<int> pair = nearestRows(a, b);
  double d = 0, n = 0;
  for (int i = 0; i < b.rows; ++i)
    for (int k = 0; k < b.cols; ++k) {
      const double x = pair[static_cast<std::size_t>(i)] >= 0 ? a(pair[i], k) : 0.0;
      d += (x - b(i, k)) * (x - b(i, k));
      n += b(i, k) * b(i, k);
    }
  return std::sqrt(d / n);
}

// Unmixing weights that differ between two runs (all of them when the sizes differ).
long differingWeights(const IcaResult& a, const IcaResult& b) {
  if (a.unmixing.values.size() != b.unmixing.values.size())
    return static_cast<long>(std::max(a.unmixing.values.size(), b.unmixing.values.size()));
  long n = 0;
  for (std::size_t i = 0; i < a.unmixing.values.size(); ++i)
    n += a.unmixing.values[i] != b.unmixing.values[i];
  return n;
}

long signDifferences(const IcaResult& a, const IcaResult& b) {
  const std::vector<int> pair = nearestRows(a.unmixing, b.unmixing);
  long n = 0;
  for (std::size_t k = 0; k < b.signs.size(); ++k) {
    const int j = k < pair.size() ? pair[k] : -1;
    n += j < 0 || static_cast<std::size_t>(j) >= a.signs.size() ||
         a.signs[static_cast<std::size_t>(j)] != b.signs[k];
  }
  return n;
}

// Samples for r sources in the short runs: 20000, or a little more than the r^2 that Infomax
// requires (256 sources: 70000).
int64_t samplesFor(int sources) {
  return std::max<int64_t>(20000, static_cast<int64_t>(sources) * sources + 4464);
}

IcaParams twoPasses(IcaGpuMath math) {
  IcaParams p = icaPreset("eeglab-runica");
  p.maxSteps = 2;
  p.gpuMath = math;
  return p;
}

// After two passes (about 600 block updates at N = 20000 and block 50) with identical
// permutations and kurtosis draws: FP32 rounding of each update is ~1e-7 relative and the
// differences add like a random walk over the updates, ~1e-5; the bound 1e-3 leaves room for
// the sign estimates, which are the same unless a kurtosis sits within rounding of -0.02. Plain
// TF32 rounds every product input to 2^-11 (~5e-4), so its bound is 3e-2.
TEST_F(IcaParity, TwoPassesAgreeWithTheCpuOnEightSources) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(8, 20000, seed_ % 1000, &mixing);
  const IcaResult cpu = onCpu(b, twoPasses(IcaGpuMath::Tf32x3));
  for (auto [math, bound] : {std::pair{IcaGpuMath::Tf32x3, 1e-3}, std::pair{IcaGpuMath::Fp32, 1e-3},
                             std::pair{IcaGpuMath::Tf32, 3e-2}}) {
    const IcaResult gpu = onGpu(b, twoPasses(math));
    ASSERT_EQ(gpu.steps, 2);
    ASSERT_EQ(gpu.history.size(), cpu.history.size());
    const double d = relativeDistance(gpu.unmixing, cpu.unmixing);
    const long signDiffs = signDifferences(gpu, cpu);
    std::printf(
        "%s: unmixing after 2 passes differs by %.2e (relative), %ld signs differ, change %.6e "
        "vs %.6e\n",
        icaGpuMathName(math), d, signDiffs, gpu.history.back().change, cpu.history.back().change);
    EXPECT_NEAR(gpu.history.back().change, cpu.history.back().change,
                bound * 10 * cpu.history.back().change);
    if (math != IcaGpuMath::Tf32) {
      EXPECT_LT(d, bound) << icaGpuMathName(math);
      EXPECT_EQ(gpu.signs, cpu.signs);
      continue;
    }
    // Plain TF32: as at 64 sources below, a mixture whose kurtosis lies within TF32 rounding of
    // the sign threshold may flip its extended-Infomax sign, and the whole update then differs.
    // (Seed 2054280750 on the H200 gave 2 flips and a distance of 0.36 before the rows were
    // paired by nearestRows: two components sorted the other way round. Paired, 7e-5 and no
    // flips.) With equal signs the tight bound.
    EXPECT_LT(d, signDiffs == 0 ? bound : 0.5);
    EXPECT_LE(signDiffs, 2);
  }
}

// 64 sources: the size the warpgroup kernel (plain TF32 on compute capability 9.0) is built for,
// and blocks of 52 samples, so its last 8-sample tile reaches past the block. That kernel and the
// register-resident mma.sync kernel (which runs plain TF32 elsewhere) must both stay within plain
// TF32's bound of the CPU after 2 passes. Signs: a mixture's kurtosis after 2 passes can sit near
// the -0.02 threshold, so a sign or two may differ; more would mean a wrong estimate.
TEST_F(IcaParity, TwoPassesAgreeWithTheCpuOnSixtyFourSourcesOnBothTf32Kernels) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(64, 30000, seed_ % 1000, &mixing);
  const IcaResult cpu = onCpu(b, twoPasses(IcaGpuMath::Tf32x3));
  for (bool holdBack : {false, true}) {
    gpu_test::setIcaKernelHooks(holdBack);
    const IcaResult gpu = onGpu(b, twoPasses(IcaGpuMath::Tf32));
    ASSERT_EQ(gpu.steps, 2);
    const double d = relativeDistance(gpu.unmixing, cpu.unmixing);
    const long signDiffs = signDifferences(gpu, cpu);
    std::printf(
        "%s kernel: unmixing after 2 passes differs by %.2e (relative), %ld signs differ, "
        "%.3f s\n",
        holdBack ? "mma.sync" : "warpgroup (where available)", d, signDiffs, gpu.seconds);
    // After 2 passes some estimated sources are still mixtures whose kurtosis lies within TF32
    // rounding of 0: their extended-Infomax sign may flip (at most 2 allowed below), and then
    // the whole update differs through the natural gradient (seed 2224116247 on the H200: 2
    // flips, distance 0.20; a random W is ~1.4 away). With equal signs the bound is the tight one.
    EXPECT_LT(d, signDiffs == 0 ? 3e-2 : 0.5);
    EXPECT_NEAR(gpu.history.back().change, cpu.history.back().change,
                0.3 * cpu.history.back().change);
    EXPECT_LE(signDiffs, 2);
  }
}

// The same input twice gives the same weights to the last bit: every kernel's order of
// operations is fixed, so a difference would mean a race (the warpgroup kernel hands its sample
// buffers between a producer warp and the computing warps; 8 sources pad W to 64 rows there).
TEST_F(IcaParity, RepeatedTf32RunsAreBitIdentical) {
  IcaMatrix mixing;
  for (int sources : {8, 64}) {
    const SignalBlock b = mixedSources(sources, 20000, seed_ % 1000, &mixing);
    IcaParams p = twoPasses(IcaGpuMath::Tf32);
    p.maxSteps = 4;
    const IcaResult first = onGpu(b, p), second = onGpu(b, p);
    EXPECT_EQ(differingWeights(first, second), 0) << sources << " sources";
  }
}

// The paths at 100 components (W padded to 112 rows in the state, to 128 in the tensor-core
// kernels, rows and columns past r kept at zero) must give the same updates as the one-CTA path
// gives for small r: the two-warpgroup kernel (TF32 where the planner picks it), the tensor-core
// cluster kernel in 3xTF32 and TF32 in both shapes, the WMMA cluster kernel in FP32 (where it
// always runs) and, through the slab-rows hook, in 3xTF32.
TEST_F(IcaParity, TwoPassesAgreeWithTheCpuOnAHundredSourcesAcrossACluster) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(100, 30000, seed_ % 1000, &mixing);
  const IcaResult cpu = onCpu(b, twoPasses(IcaGpuMath::Tf32x3));
  struct Run {
    IcaGpuMath math;
    int slabRows;  // 0: the planner's kernel
    int columns;   // of the tensor-core cluster kernel; 0: the planner's
    double bound;
  };
  for (const Run& run : {Run{IcaGpuMath::Tf32x3, 0, 0, 1e-3}, Run{IcaGpuMath::Tf32, 0, 0, 3e-2},
                         Run{IcaGpuMath::Tf32, 0, 16, 3e-2}, Run{IcaGpuMath::Tf32x3, 0, 32, 1e-3},
                         Run{IcaGpuMath::Tf32, 0, 32, 3e-2}, Run{IcaGpuMath::Fp32, 0, 0, 1e-3},
                         Run{IcaGpuMath::Tf32x3, 32, 0, 1e-3}}) {
    gpu_test::setIcaKernelHooks(false, run.slabRows, run.columns);
    const IcaResult gpu = onGpu(b, twoPasses(run.math));
    ASSERT_EQ(gpu.components, 100);
    const double d = relativeDistance(gpu.unmixing, cpu.unmixing);
    const long signDiffs = signDifferences(gpu, cpu);
    std::printf(
        "r = 100, %s, %s kernel (columns hook %d): unmixing after 2 passes differs by %.2e "
        "(relative), %ld signs differ\n",
        icaGpuMathName(run.math),
        run.slabRows || run.math == IcaGpuMath::Fp32       ? "WMMA cluster"
        : run.math == IcaGpuMath::Tf32 && run.columns == 0 ? "two-warpgroup (on compute 9.0)"
                                                           : "tensor-core cluster",
        run.columns, d, signDiffs);
    EXPECT_LT(d, run.bound) << icaGpuMathName(run.math) << " slab rows " << run.slabRows
                            << " columns " << run.columns;
    EXPECT_LE(signDiffs, 100 / 32);  // as at 128 and 256 sources below
    EXPECT_NEAR(gpu.history.back().change, cpu.history.back().change,
                run.bound * 10 * cpu.history.back().change);
  }
}

// A 2-pass GPU run of `sources` components against the CPU's: the unmixing within `bound`
// (relative), the last change within `changeTolerance`, at most one sign in 32 different (a
// mixture's kurtosis after 2 passes can sit near the -0.02 threshold). `label` names the run.
void expectTwoPassParity(const IcaResult& gpu, const IcaResult& cpu, int sources, double bound,
                         double changeTolerance, const std::string& label) {
  ASSERT_EQ(gpu.steps, 2) << label;
  ASSERT_EQ(gpu.components, sources) << label;
  const double d = relativeDistance(gpu.unmixing, cpu.unmixing);
  const long signDiffs = signDifferences(gpu, cpu);
  std::printf(
      "%s: unmixing after 2 passes differs by %.2e (relative), %ld signs differ, change %.6e "
      "vs %.6e, %.3f s\n",
      label.c_str(), d, signDiffs, gpu.history.back().change, cpu.history.back().change,
      gpu.seconds);
  EXPECT_LT(d, bound) << label;
  EXPECT_NEAR(gpu.history.back().change, cpu.history.back().change, changeTolerance) << label;
  EXPECT_LE(signDiffs, sources / 32) << label;
}

// The tensor-core cluster kernel at the high-density sizes it exists for: 128 components (8
// CTAs of 16 columns of W, and 4 of 32 through the hook), 160 (6 CTAs of 32) and 256 (8 CTAs of
// 32), both modes within their bounds of the CPU after 2 passes (the bounds of the 8-source
// test). A mixture's kurtosis after 2 passes can sit near the -0.02 threshold, so a few signs
// may differ (one in 32); more would mean a wrong estimate.
TEST_F(IcaParity, TwoPassesAgreeWithTheCpuOnTheTensorCoreClusterAt128To256Sources) {
  IcaMatrix mixing;
  for (int sources : {128, 160, 256}) {
    const SignalBlock b =
        mixedSources(sources, samplesFor(sources), seed_ % 1000 + sources, &mixing);
    const IcaResult cpu = onCpu(b, twoPasses(IcaGpuMath::Tf32x3));
    for (auto [math, bound, columns] :
         {std::tuple{IcaGpuMath::Tf32x3, 1e-3, 16}, std::tuple{IcaGpuMath::Tf32, 3e-2, 16},
          std::tuple{IcaGpuMath::Tf32x3, 1e-3, 32}, std::tuple{IcaGpuMath::Tf32, 3e-2, 32}}) {
      if (sources > 128 && columns == 16) continue;  // 16 columns would need 16 CTAs
      gpu_test::setIcaKernelHooks(false, 0, columns);
      const std::string label = "r = " + std::to_string(sources) + ", " + icaGpuMathName(math) +
                                ", " + std::to_string(columns) + " columns per CTA";
      expectTwoPassParity(onGpu(b, twoPasses(math)), cpu, sources, bound,
                          bound * 10 * cpu.history.back().change, label);
    }
  }
}

// The two-warpgroup kernel (plain TF32, 65-128 components, compute 9.0) against the CPU after 2
// passes, at the sizes that pad its 128 rows differently (72: the state's R = 80; 100: 112;
// 128: none) and at blocks of 52 (7 tiles, the last reaching past the block), 72 (9 full tiles)
// and 80 (10 tiles, the most its shared memory holds), with the tensor-core cluster kernel on
// the same data beside it. Bounds as for the other TF32 kernels.
TEST_F(IcaParity, TwoPassesAgreeWithTheCpuOnTheTwoWarpgroupKernel) {
  IcaMatrix mixing;
  for (auto [sources, block] : {std::pair{72, 72}, std::pair{100, 52}, std::pair{128, 80}}) {
    const SignalBlock b =
        mixedSources(sources, samplesFor(sources), seed_ % 1000 + sources, &mixing);
    IcaParams cpuParams = twoPasses(IcaGpuMath::Tf32x3);
    cpuParams.blockSize = block;
    const IcaResult cpu = onCpu(b, cpuParams);
    for (int columns : {0, 16}) {
      gpu_test::setIcaKernelHooks(false, 0, columns);
      IcaParams p = twoPasses(IcaGpuMath::Tf32);
      p.blockSize = block;
      const std::string label =
          "r = " + std::to_string(sources) + ", block " + std::to_string(block) + ", " +
          (columns ? "tensor-core cluster" : "two-warpgroup (on compute 9.0)");
      expectTwoPassParity(onGpu(b, p), cpu, sources, 3e-2, 0.3 * cpu.history.back().change, label);
    }
  }
}

// Bit-identical repeats on the tensor-core cluster kernel: its sums run in a fixed order (the
// partial activations by CTA rank, bias and moment partials by thread group), so a difference
// would mean a race between the CTAs' exchanges. 100 sources pad the kernel's rows, 256 fill
// them; both shapes of the cluster. Columns 0 (the planner's kernel) in TF32 at 100 sources:
// the two-warpgroup kernel, whose warpgroups share U, W^T and V^T through single buffers.
TEST_F(IcaParity, RepeatedRunsOnTheTensorCoreClusterAreBitIdentical) {
  IcaMatrix mixing;
  for (int sources : {100, 256}) {
    const SignalBlock b = mixedSources(sources, samplesFor(sources), seed_ % 1000, &mixing);
    for (int columns : {0, 16, 32})
      for (IcaGpuMath math : {IcaGpuMath::Tf32, IcaGpuMath::Tf32x3}) {
        if (sources > 128 && columns == 16) continue;
        if (columns == 0 && (sources > 128 || math != IcaGpuMath::Tf32)) continue;
        gpu_test::setIcaKernelHooks(false, 0, columns);
        IcaParams p = twoPasses(math);
        p.maxSteps = 3;
        const IcaResult first = onGpu(b, p), second = onGpu(b, p);
        EXPECT_EQ(differingWeights(first, second), 0)
            << sources << " sources, " << icaGpuMathName(math) << ", " << columns << " columns";
        EXPECT_EQ(first.signs, second.signs);
      }
  }
}

// The planner's shapes: 16 columns of W per CTA on 8 CTAs up to 128 components, 32 columns on
// 8 CTAs at 256 (16 columns would need a cluster of 16); and the kernel it picks.
TEST_F(IcaParity, TheClusterShapeFollowsTheComponentCount) {
#ifdef MODESCOPE_HAVE_CUDA
  for (IcaGpuMath math : {IcaGpuMath::Tf32, IcaGpuMath::Tf32x3}) {
    for (int components : {100, 128}) {
      const IcaClusterShape shape = icaClusterShape(components, 67, math);
      EXPECT_EQ(shape.columns, 16) << components;
      EXPECT_EQ(shape.ctas, 8) << components;
    }
    const IcaClusterShape wide = icaClusterShape(256, 67, math);
    EXPECT_EQ(wide.columns, 32);
    EXPECT_EQ(wide.ctas, 8);
    EXPECT_EQ(icaClusterShape(64, 67, math).ctas, 0);  // one-CTA kernels
  }
  // The kernels the planner runs (the GPU tests run on compute capability 9.0): the warpgroup
  // kernels in plain TF32 up to 128 components, the cluster above and in 3xTF32.
  EXPECT_EQ(icaGpuKernel(64, 67, IcaGpuMath::Tf32), "warpgroup (wgmma) kernel, one CTA");
  EXPECT_EQ(icaGpuKernel(100, 67, IcaGpuMath::Tf32), "two-warpgroup (wgmma) kernel, one CTA");
  EXPECT_EQ(icaGpuKernel(128, 72, IcaGpuMath::Tf32), "two-warpgroup (wgmma) kernel, one CTA");
  EXPECT_EQ(icaGpuKernel(128, 67, IcaGpuMath::Tf32x3),
            "tensor-core cluster of 8 CTAs x 16 columns of W");
  EXPECT_EQ(icaGpuKernel(129, 67, IcaGpuMath::Tf32),
            "tensor-core cluster of 6 CTAs x 32 columns of W");
  // Blocks past 80 samples do not fit the two-warpgroup kernel's shared memory.
  EXPECT_EQ(icaGpuKernel(128, 96, IcaGpuMath::Tf32),
            "tensor-core cluster of 8 CTAs x 16 columns of W");
  EXPECT_EQ(icaGpuKernel(300, 67, IcaGpuMath::Tf32), "");
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// To convergence: the GPU's own separation quality (the oracle is the true mixing, not the CPU),
// with the unit tests' bound (tests/unit/ica_infomax_test.cpp explains 0.02).
TEST_F(IcaParity, ConvergedGpuRunSeparatesSuperAndSubGaussianSources) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(8, 20000, 7, &mixing);
  for (IcaGpuMath math : {IcaGpuMath::Tf32x3, IcaGpuMath::Tf32, IcaGpuMath::Fp32}) {
    IcaParams p = icaPreset("eeglab-runica");
    p.gpuMath = math;
    const IcaResult gpu = onGpu(b, p);
    const double amari = amariIndex(ica_test::multiply(gpu.unmixing, mixing));
    std::printf("%s: Amari %.4f after %d steps (%s), %.2f s\n", icaGpuMathName(math), amari,
                gpu.steps, gpu.stopReason.c_str(), gpu.seconds);
    EXPECT_LT(amari, 0.02) << icaGpuMathName(math);
    EXPECT_EQ(std::count(gpu.signs.begin(), gpu.signs.end(), -1), 4) << icaGpuMathName(math);
  }
}

// To convergence at 100 components in the default TF32 math: the planner's kernel (the
// two-warpgroup kernel on compute 9.0) and the tensor-core cluster kernel (through the columns
// hook); the WMMA cluster kernel's FP32 path is covered by the 2-pass parity above.
TEST_F(IcaParity, ConvergedClusterRunSeparatesAHundredSources) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(100, 200000, 11, &mixing);  // 20 r^2 samples
  IcaParams p = icaPreset("eeglab-runica");
  ASSERT_EQ(p.gpuMath, IcaGpuMath::Tf32);
  for (int columns : {0, 16}) {
    gpu_test::setIcaKernelHooks(false, 0, columns);
    const IcaResult gpu = onGpu(b, p);
    const double amari = amariIndex(ica_test::multiply(gpu.unmixing, mixing));
    std::printf("r = 100, columns hook %d: Amari %.4f after %d steps (%s), %.2f s\n", columns,
                amari, gpu.steps, gpu.stopReason.c_str(), gpu.seconds);
    // 100 sources from 200000 samples: sampling error ~1/sqrt(N) per entry as in the 8-source
    // case, so the same bound applies.
    EXPECT_LT(amari, 0.02) << "columns hook " << columns;
  }
}

// Real EEG (PhysioNet S001R03, 64 channels, first 60 s, 1 Hz high-pass) converged on both
// backends: every one of the 20 components with the most variance has a partner on the other
// side with |corr| >= 0.95 (the criterion used against MNE, applied to CPU vs GPU).
TEST_F(IcaParity, ConvergedComponentsMatchTheCpuOnRealEeg) {
  const auto raw = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  std::vector<std::size_t> channels(64);
  for (std::size_t i = 0; i < 64; ++i) channels[i] = i;
  PreprocessSpec spec;
  spec.filters.push_back(parseFilterSpec("highpass:1"));
  JobContext ctx;
  const auto filtered = preprocess(*raw, channels, 0.0, -1.0, spec, *cpu_, ctx);
  const SignalBlock block = extractBlock(*filtered, channels, 0.0, 60.0);
  IcaParams p = icaPreset("eeglab-runica");
  const IcaResult cpu = onCpu(block, p);
  const std::vector<float> c = icaActivations(cpu, block);
  // FP32-accurate products, and plain TF32 (the warpgroup kernel on compute capability 9.0).
  for (IcaGpuMath math : {IcaGpuMath::Tf32x3, IcaGpuMath::Tf32}) {
    p.gpuMath = math;
    const IcaResult gpu = onGpu(block, p);
    const std::vector<float> a = icaActivations(gpu, block);
    const int r = gpu.components;
    ASSERT_EQ(cpu.components, r);
    double worst = 1, mean = 0;
    for (int k = 0; k < r; ++k) {
      double best = 0;
      for (int j = 0; j < r; ++j)
        best = std::max(
            best, std::fabs(ica_test::correlation(
                      a.data() + static_cast<std::size_t>(k) * block.samples,
                      c.data() + static_cast<std::size_t>(j) * block.samples, block.samples)));
      if (k < 20) worst = std::min(worst, best);
      mean += best / r;
    }
    std::printf(
        "real EEG, %s: GPU %d steps %.2f s, CPU %d steps %.2f s; top-20 worst |corr| "
        "%.4f, mean %.4f\n",
        icaGpuMathName(math), gpu.steps, gpu.seconds, cpu.steps, cpu.seconds, worst, mean);
    EXPECT_GE(worst, 0.95) << icaGpuMathName(math);
    EXPECT_GE(mean, 0.95) << icaGpuMathName(math);
  }
}

// A learning rate far above runica's makes the weights blow up; the GPU passes report it and the
// shared driver restarts with a lower rate, as on the CPU. Both one-CTA kernels: 3xTF32 (the
// mma.sync kernel) and plain TF32 (the warpgroup kernel on compute 9.0, whose computing warps
// leave the pass early and must release the producer warp).
// Runs `sources` mixed sources with a learning rate far above runica's on the GPU (`run`) and
// expects the shared driver's restart with a lower rate.
void expectBlowUpRestarts(const std::function<IcaResult(const SignalBlock&, const IcaParams&)>& run,
                          int sources, int maxSteps) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(sources, samplesFor(sources), 3, &mixing);
  for (IcaGpuMath math : {IcaGpuMath::Tf32x3, IcaGpuMath::Tf32}) {
    IcaParams p = icaPreset("eeglab-runica");
    p.gpuMath = math;
    p.learningRate = 0.1;
    p.maxWeight = 50;  // a low ceiling makes the blow-up certain within the first pass
    p.maxSteps = maxSteps;
    const IcaResult gpu = run(b, p);
    EXPECT_GT(gpu.restarts, 0) << sources << " sources, " << icaGpuMathName(math);
    EXPECT_LT(gpu.finalLearningRate, 0.1) << icaGpuMathName(math);
    EXPECT_TRUE(std::any_of(gpu.diagnostics.begin(), gpu.diagnostics.end(),
                            [](const Diagnostic& d) { return d.code == "ica.restarted"; }))
        << icaGpuMathName(math);
  }
}

TEST_F(IcaParity, BlowUpRestartsOnTheGpuToo) {
  expectBlowUpRestarts([&](const SignalBlock& b, const IcaParams& p) { return onGpu(b, p); }, 8,
                       20);
}

// The same on the tensor-core cluster kernel (128 components, 8 CTAs of 16 columns and 4 of
// 32): every CTA must see the blow-up of the same update (the cluster-wide maximum of |W|) and
// leave the pass together. Columns 0: the planner's kernels, the two-warpgroup kernel in TF32
// (both warpgroups must leave together and release the producer warp).
TEST_F(IcaParity, BlowUpRestartsOnTheTensorCoreClusterToo) {
  for (int columns : {0, 16, 32}) {
    gpu_test::setIcaKernelHooks(false, 0, columns);
    expectBlowUpRestarts([&](const SignalBlock& b, const IcaParams& p) { return onGpu(b, p); }, 128,
                         6);
  }
}

TEST_F(IcaParity, MoreThan256ComponentsAreRefusedWithWhatToDo) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(260, 70000, 5, &mixing);
  IcaParams p = icaPreset("eeglab-runica");
  p.maxSteps = 1;
  try {
    onGpu(b, p);
    FAIL() << "260 components ran on the GPU";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("256"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("PCA rank"), std::string::npos) << e.what();
  }
}

TEST_F(IcaParity, CancelStopsBetweenPasses) {
  IcaMatrix mixing;
  const SignalBlock b = mixedSources(8, 20000, 3, &mixing);
  std::stop_source stop;
  int steps = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view s) {
    if (s.rfind("ICA step", 0) == 0 && ++steps == 3) stop.request_stop();
  });
  EXPECT_THROW(gpu_->infomax(b, icaPreset("eeglab-runica"), ctx), Cancelled);
  EXPECT_EQ(steps, 3);
}

}  // namespace
}  // namespace modescope
