// CUDA preprocessing against the CPU backend (the reference, double inside): several sizes (tiny,
// odd, 2^k + 1, long), channel counts, every filter type and reference kind, the whole pipeline
// (reference + two filters) resident and windowed, with forced small batches and staged chunks,
// fresh random inputs, device and staging buffers poisoned with NaN, named tolerances, cancel in
// the middle of a run. Skips loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"
#include "tests/gpu/gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace modescope {
namespace {

// ---- named tolerances ------------------------------------------------------------------------

// FIR: float32 FFT convolution on the GPU vs double on the CPU. Round-off of a length-M float FFT
// is about u log2(M) of the input's L2 norm in the worst case (u = 6e-8 the unit round-off): for
// M up to 2^16 that is ~1e-6 per transform; forward + inverse + the float kernel spectrum + the
// product give ~3e-6. 1e-5 leaves 3x margin over that bound (typical errors are ~u sqrt(log2 M),
// 100x smaller). The error is measured against the INPUT's norm: FFT round-off scales with what
// goes in, and a band-pass output can be much smaller than its input.
constexpr double kFirRelativeL2 = 1e-5;
// Reference: both backends accumulate in double in the same order without fused multiply-adds and
// round once to float32, so results agree to the last bit in practice; 1e-7 of the signal norm
// allows one float32 ulp (1.2e-7 relative) on a few samples and nothing more.
constexpr double kReferenceRelativeL2 = 1e-7;
// Pipeline (reference + two filters), measured against the norm of the re-referenced signal (the
// filters' input): each filter stage adds at most kFirRelativeL2 of its own input's norm; the
// second stage's input is the first's output, whose norm is at most the first's input norm times
// the pass-band gain (<= 1.0022, Hamming ripple), and the first stage's error passes the second
// filter with the same gain bound: 1e-5 + 1.0022 x 1e-5 ~ 2.0e-5, plus at most one ulp (1.2e-7)
// from the reference. 2.5e-5 keeps 25 % over that worst case (typical errors are ~100x smaller).
constexpr double kPipelineRelativeL2 = 2.5e-5;

// ---- helpers -----------------------------------------------------------------------------------

using gpu_test::gpuBackend;
using gpu_test::setHooks;

using GpuPreprocess = gpu_test::ParityTest;

SignalBlock randomBlock(std::size_t rows, int64_t samples, double rate, std::mt19937& rng) {
  std::normal_distribution<float> noise(0.0f, 1.0f);
  SignalBlock b;
  b.sampleRate = rate;
  b.samples = samples;
  for (std::size_t r = 0; r < rows; ++r) b.channels.push_back(r);
  b.data.resize(rows * static_cast<std::size_t>(samples));
  for (std::size_t r = 0; r < rows; ++r) {
    // Offset, drift, a 10 Hz rhythm and noise: content in the pass and the stop bands.
    const float offset = 20.0f * noise(rng);
    for (int64_t t = 0; t < samples; ++t) {
      const double s = static_cast<double>(t) / rate;
      b.channel(r)[t] =
          offset +
          static_cast<float>(5.0 * std::sin(2 * std::numbers::pi * 10.0 * s + r) + 0.01 * s) +
          noise(rng);
    }
  }
  return b;
}

// max over rows of ||gpu - cpu|| / ||input||, and whether every GPU sample is finite.
double worstRelativeError(const SignalBlock& in, const SignalBlock& cpu, const SignalBlock& gpu,
                          bool& finite) {
  finite = true;
  double worst = 0.0;
  for (std::size_t r = 0; r < in.channels.size(); ++r) {
    double err = 0.0, norm = 0.0;
    for (int64_t t = 0; t < in.samples; ++t) {
      const double g = gpu.channel(r)[t];
      if (!std::isfinite(g)) finite = false;
      err += (g - cpu.channel(r)[t]) * (g - cpu.channel(r)[t]);
      norm += double(in.channel(r)[t]) * in.channel(r)[t];
    }
    worst = std::max(worst, std::sqrt(err / std::max(norm, 1e-300)));
  }
  return worst;
}

struct FilterCase {
  const char* spec;
  double rate;
};
const FilterCase kFilters[] = {{"bandpass:1-40", 250.0},
                               {"highpass:0.5", 1000.0},
                               {"lowpass:40", 250.0},
                               {"notch:50", 1000.0}};

void expectFirParity(ComputeBackend& cpu, ComputeBackend& gpu, const FilterCase& f,
                     std::size_t rows, int64_t n, std::mt19937& rng) {
  SCOPED_TRACE(std::string(f.spec) + " at " + std::to_string(f.rate) + " Hz, " +
               std::to_string(rows) + " x " + std::to_string(n));
  const FirKernel k = designFir(parseFilterSpec(f.spec), f.rate);
  const SignalBlock in = randomBlock(rows, n, f.rate, rng);
  SignalBlock c = in, g = in;
  JobContext ctx;
  cpu.applyFir(c, k, ctx);
  gpu.applyFir(g, k, ctx);
  bool finite = false;
  const double e = worstRelativeError(in, c, g, finite);
  EXPECT_TRUE(finite) << "NaN/Inf in the GPU output: an element was not written";
  EXPECT_LT(e, kFirRelativeL2);
}

TEST_F(GpuPreprocess, FirMatchesCpuOnAllSizesAndFilters) {
  std::mt19937 rng(seed_);
  // tiny (shorter than every filter), odd, 2^k + 1, long; 1, 5 and 64 channels.
  const std::vector<std::pair<int64_t, std::vector<std::size_t>>> shapes = {{7, {1, 5, 64}},
                                                                            {1001, {1, 5, 64}},
                                                                            {4097, {1, 5, 64}},
                                                                            {65537, {1, 5, 64}},
                                                                            {1000000, {1, 5}}};
  for (const auto& f : kFilters) {
    for (const auto& [n, rowCounts] : shapes) {
      for (std::size_t rows : rowCounts) expectFirParity(*cpu_, *gpu_, f, rows, n, rng);
    }
  }
}

TEST_F(GpuPreprocess, FirMatchesCpuAcrossSeveralBatches) {
  std::mt19937 rng(seed_);
  // 3 rows per batch over 8 rows: full batches and a shorter last one (its own cuFFT plans).
  setHooks(true, 3 * 65537);
  expectFirParity(*cpu_, *gpu_, kFilters[0], 8, 65537, rng);
  expectFirParity(*cpu_, *gpu_, kFilters[3], 8, 65537, rng);
}

Recording namedRecording(const std::vector<std::string>& names, double rate, int64_t samples) {
  Recording rec;
  for (const auto& n : names) {
    ChannelInfo c;
    c.label = n;
    c.name = n;
    c.type = n == "ECG" ? ChannelType::ECG : ChannelType::EEG;
    c.sampleRate = rate;
    c.sampleCount = samples;
    rec.channels.push_back(c);
  }
  return rec;
}

void expectReferenceParity(ComputeBackend& cpu, ComputeBackend& gpu, const char* spec,
                           std::size_t rows, int64_t n, std::mt19937& rng) {
  SCOPED_TRACE(std::string(spec) + ", " + std::to_string(rows) + " x " + std::to_string(n));
  std::vector<std::string> names = {"M1", "Cz", "ECG", "M2"};
  while (names.size() < rows) names.push_back("E" + std::to_string(names.size()));
  const Recording rec = namedRecording(names, 250.0, n);
  const SignalBlock in = randomBlock(rows, n, 250.0, rng);
  const ReferencePlan plan = planReference(rec, in.channels, parseReferenceSpec(spec));
  SignalBlock c = in, g = in;
  JobContext ctx;
  cpu.applyReference(c, plan, ctx);
  gpu.applyReference(g, plan, ctx);
  bool finite = false;
  EXPECT_LT(worstRelativeError(in, c, g, finite), kReferenceRelativeL2);
  EXPECT_TRUE(finite);
  // Rows outside the plan's targets (the ECG) are left exactly as they were.
  for (int64_t t = 0; t < n; ++t) ASSERT_EQ(g.channel(2)[t], in.channel(2)[t]);
}

TEST_F(GpuPreprocess, ReferenceMatchesCpuForEveryKind) {
  std::mt19937 rng(seed_);
  for (const char* spec : {"average", "mastoids", "channel:Cz"}) {
    for (int64_t n : {7, 1001, 65537, 1000000}) {
      for (std::size_t rows : {4u, 19u, 64u})
        expectReferenceParity(*cpu_, *gpu_, spec, rows, n, rng);
    }
  }
}

TEST_F(GpuPreprocess, ReferenceMatchesCpuAcrossSeveralBatches) {
  std::mt19937 rng(seed_);
  setHooks(true, 19 * 1000);  // 1000 columns per batch: 66 batches, the last one shorter
  expectReferenceParity(*cpu_, *gpu_, "average", 19, 65537, rng);
}

// ---- the whole pipeline: reference + two filters --------------------------------------------

struct PipelineCase {
  const char* reference;
  std::vector<const char*> filters;
  double rate;
};
const PipelineCase kPipelines[] = {
    {"average", {"notch:50", "bandpass:1-40"}, 1000.0},   // 3301 + 3301 taps
    {"mastoids", {"highpass:0.5", "lowpass:40"}, 250.0},  // 1651 + 83 taps: different FFT sizes
};

// The CPU's default applyPipeline (reference, then each filter) against the GPU's override.
// Rows: "M1", "Cz", "ECG" (not re-referenced, filtered only), "M2", then E4, E5, ...
void expectPipelineParity(ComputeBackend& cpu, ComputeBackend& gpu, const PipelineCase& pc,
                          std::size_t rows, int64_t n, std::mt19937& rng) {
  SCOPED_TRACE(std::string(pc.reference) + " + " + std::to_string(pc.filters.size()) +
               " filters at " + std::to_string(pc.rate) + " Hz, " + std::to_string(rows) + " x " +
               std::to_string(n));
  std::vector<std::string> names = {"M1", "Cz", "ECG", "M2"};
  names.resize(std::min<std::size_t>(rows, names.size()));
  while (names.size() < rows) names.push_back("E" + std::to_string(names.size()));
  const Recording rec = namedRecording(names, pc.rate, n);
  const SignalBlock in = randomBlock(rows, n, pc.rate, rng);
  const ReferencePlan plan = planReference(rec, in.channels, parseReferenceSpec(pc.reference));
  std::vector<FirKernel> kernels;
  for (const char* f : pc.filters) kernels.push_back(designFir(parseFilterSpec(f), pc.rate));

  JobContext ctx;
  SignalBlock referenced = in;  // the filters' input, the norm the tolerance is relative to
  cpu.applyReference(referenced, plan, ctx);
  SignalBlock c = in, g = in;
  cpu.applyPipeline(c, &plan, kernels, ctx);
  gpu.applyPipeline(g, &plan, kernels, ctx);
  bool finite = false;
  EXPECT_LT(worstRelativeError(referenced, c, g, finite), kPipelineRelativeL2);
  EXPECT_TRUE(finite) << "NaN/Inf in the GPU output: an element was not written";

  // The reference alone must agree to the ulp, resident or windowed.
  SignalBlock cr = in, gr = in;
  cpu.applyPipeline(cr, &plan, {}, ctx);
  gpu.applyPipeline(gr, &plan, {}, ctx);
  EXPECT_LT(worstRelativeError(in, cr, gr, finite), kReferenceRelativeL2);
  EXPECT_TRUE(finite);
  if (rows > 2) {
    // The ECG row is not a target: exactly the input after the reference-only pipeline.
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(gr.channel(2)[t], in.channel(2)[t]);
  }
}

TEST_F(GpuPreprocess, PipelineMatchesCpuOnAllSizes) {
  std::mt19937 rng(seed_);
  // tiny (shorter than every filter), odd, 2^k + 1, long; 1 (average only), 5 and 64 rows.
  const std::vector<std::pair<int64_t, std::vector<std::size_t>>> shapes = {{7, {1, 5, 64}},
                                                                            {1001, {1, 5, 64}},
                                                                            {4097, {1, 5, 64}},
                                                                            {65537, {1, 5, 64}},
                                                                            {1000000, {1, 5}}};
  for (const auto& pc : kPipelines) {
    for (const auto& [n, rowCounts] : shapes) {
      for (std::size_t rows : rowCounts) {
        if (rows < 4 && std::string(pc.reference) == "mastoids") continue;  // needs M1 and M2
        expectPipelineParity(*cpu_, *gpu_, pc, rows, n, rng);
      }
    }
  }
}

TEST_F(GpuPreprocess, PipelineMatchesCpuAcrossBatchesChunksAndWindows) {
  std::mt19937 rng(seed_);
  struct Forced {
    std::size_t rows;
    int64_t n;
    int64_t batchRows, chunk, residentRows;  // residentRows 0: the whole block fits
  };
  // Chunks of odd lengths never align with rows or batches; with residentRows the block is cut
  // into windows of whole batches (7 -> 6 rows, the last window shorter) and the reference
  // signal is computed on the host.
  const Forced cases[] = {
      {16, 65537, 3, 12345, 0},  // resident: 5 full batches + 1 row, 85 chunks
      {16, 65537, 3, 12345, 7},  // windows of 6, 6, 4 rows; batches 3, 3 | 3, 3 | 3, 1
      {16, 4097, 4, 999, 9},     // windows of 8, 8 rows, no short batch
      {64, 7, 3, 10, 5},         // tiny rows: 3-row windows, chunks of 10 samples span rows
      {5, 1001, 1, 1001, 1},     // one row per batch and per window
  };
  for (const auto& f : cases) {
    SCOPED_TRACE("forced batch " + std::to_string(f.batchRows) + " rows, chunk " +
                 std::to_string(f.chunk) + ", resident " + std::to_string(f.residentRows) +
                 " rows");
    setHooks(true, f.batchRows * f.n, f.chunk, f.residentRows * f.n);
    for (const auto& pc : kPipelines) {
      if (f.rows < 4 && std::string(pc.reference) == "mastoids") continue;
      expectPipelineParity(*cpu_, *gpu_, pc, f.rows, f.n, rng);
    }
  }
}

TEST_F(GpuPreprocess, InfoNamesTheDevice) {
  const auto i = gpu_->info();
  EXPECT_EQ(i.kind, BackendKind::Cuda);
  EXPECT_FALSE(i.deviceName.empty());
  EXPECT_GT(i.memoryBytes, std::size_t{1} << 30);
  EXPECT_EQ(i.describe().rfind("GPU: ", 0), 0u);
}

TEST_F(GpuPreprocess, RejectsEvenKernels) {
  std::mt19937 rng(seed_);
  SignalBlock b = randomBlock(2, 100, 250.0, rng);
  FirKernel even;
  even.taps = {0.5, 0.5};
  JobContext ctx;
  EXPECT_THROW(gpu_->applyFir(b, even, ctx), InvalidParameterError);
}

#ifdef MODESCOPE_HAVE_CUDA
// 64 channels x 8 M samples = 2 GiB of float32: resident on the device, 8 compute batches of 8
// channels at the default budget, 64 staged chunks of 32 MiB each way.
SignalBlock largeBlock(unsigned seed) {
  const std::size_t rows = 64;
  const int64_t n = 8 << 20;
  SignalBlock block;
  block.sampleRate = 1000.0;
  block.samples = n;
  for (std::size_t r = 0; r < rows; ++r) block.channels.push_back(r);
  block.data.resize(rows * static_cast<std::size_t>(n));
  std::mt19937 rng(seed);
  for (auto& v : block.data) v = static_cast<float>(rng() >> 8) * 1e-6f;  // cheap, not zeros
  return block;
}

// Runs `work` and requests a stop from its progress sink once the reported fraction passes `at`
// (the pipeline reports after every staged chunk, so the stop lands mid-run on any machine).
// Returns the seconds from the request to the Cancelled exception, or a negative number when the
// run finished without being cancelled.
double secondsToCancel(double at, const std::function<void(JobContext&)>& work) {
  std::stop_source stop;
  std::chrono::steady_clock::time_point requested{};
  JobContext ctx(stop.get_token(), [&](double f, std::string_view) {
    if (f >= at && !stop.stop_requested()) {
      requested = std::chrono::steady_clock::now();
      stop.request_stop();
    }
  });
  try {
    work(ctx);
  } catch (const Cancelled&) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - requested).count();
  }
  return -1.0;
}

// One resident window holds 2 GiB plus ~1 GiB of FFT buffers; a leak of it would be plain. 64 MiB
// absorbs the driver's pool granularity and cuFFT's lazily loaded code.
void expectNoDeviceLeak(const CudaMemoryInfo& before) {
  const auto after = cudaMemoryInfo();
  const double leakedMiB =
      (static_cast<double>(before.freeBytes) - static_cast<double>(after.freeBytes)) /
      (1024.0 * 1024.0);
  EXPECT_LT(leakedMiB, 64.0) << "free before " << before.freeBytes << ", after " << after.freeBytes;
}

// The stop is seen at the next checkpoint, between staged chunks (~1 ms each), then the streams
// drain the copies and at most kLookahead + 1 compute batches in flight (a few ms each on an
// H100) before the buffers are freed; 0.5 s leaves margin for a loaded machine.
constexpr double kMaxSecondsToCancel = 0.5;

TEST_F(GpuPreprocess, CancelStopsWithinABatchAndFreesDeviceMemory) {
  setHooks(false, 0);  // default batches and chunks; no poison fill to slow them down
  const SignalBlock input = largeBlock(seed_);
  const FirKernel k = designFir(parseFilterSpec("bandpass:1-40"), 1000.0);
  // Warm-up on the same shape: loads the kernels and cuFFT's modules (which stay resident) and
  // grows the pinned staging buffers to their size for this block.
  {
    SignalBlock warm = input;
    JobContext ctx;
    gpu_->applyFir(warm, k, ctx);
  }
  const auto before = cudaMemoryInfo();
  SignalBlock block = input;
  const double s = secondsToCancel(0.2, [&](JobContext& ctx) { gpu_->applyFir(block, k, ctx); });
  ASSERT_GE(s, 0.0) << "the run finished before the stop";
  EXPECT_LT(s, kMaxSecondsToCancel);
  expectNoDeviceLeak(before);
}

TEST_F(GpuPreprocess, CancelInTheMiddleOfThePipelineFreesDeviceMemoryAndLeavesTheBackendUsable) {
  setHooks(false, 0);
  const SignalBlock input = largeBlock(seed_);
  ReferencePlan plan;
  for (std::size_t r = 0; r < input.channels.size(); ++r) {
    plan.sources.push_back(r);
    plan.weights.push_back(1.0 / static_cast<double>(input.channels.size()));
    plan.targets.push_back(r);
  }
  const std::vector<FirKernel> kernels = {designFir(parseFilterSpec("notch:50"), 1000.0),
                                          designFir(parseFilterSpec("bandpass:1-40"), 1000.0)};
  {
    SignalBlock warm = input;
    JobContext ctx;
    gpu_->applyPipeline(warm, &plan, kernels, ctx);
  }
  const auto before = cudaMemoryInfo();
  // 0.2: while uploading; 0.7: while batches are computed and downloaded.
  for (double at : {0.2, 0.7}) {
    SCOPED_TRACE("stop at progress " + std::to_string(at));
    SignalBlock block = input;
    const double s = secondsToCancel(
        at, [&](JobContext& ctx) { gpu_->applyPipeline(block, &plan, kernels, ctx); });
    ASSERT_GE(s, 0.0) << "the run finished before the stop";
    EXPECT_LT(s, kMaxSecondsToCancel);
    expectNoDeviceLeak(before);
  }
  // Nothing of the cancelled runs (staging slots, events, streams) spoils the next one.
  setHooks(true, 0);
  std::mt19937 rng(seed_);
  expectPipelineParity(*cpu_, *gpu_, kPipelines[0], 19, 65537, rng);
}
#else
TEST(GpuPreprocessCancel, CancelStopsWithinABatchAndFreesDeviceMemory) {
  GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend (MODESCOPE_HAVE_CUDA is "
                  "undefined)";
}
TEST(GpuPreprocessCancel,
     CancelInTheMiddleOfThePipelineFreesDeviceMemoryAndLeavesTheBackendUsable) {
  GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend (MODESCOPE_HAVE_CUDA is "
                  "undefined)";
}
#endif

}  // namespace
}  // namespace modescope
