// CUDA preprocessing against the CPU backend (the reference, double inside): several sizes (tiny,
// odd, 2^k + 1, long), channel counts, every filter type and reference kind, fresh random inputs,
// device buffers poisoned with NaN, named tolerances. Skips loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <numbers>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"
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

// ---- helpers -----------------------------------------------------------------------------------

std::unique_ptr<ComputeBackend> gpuBackend(std::string& reason) {
#ifdef MODESCOPE_HAVE_CUDA
  return makeCudaBackend(reason);
#else
  reason = "this build has no CUDA backend (MODESCOPE_HAVE_CUDA is undefined; configure with "
           "-DMODESCOPE_CUDA=ON where nvcc exists)";
  return nullptr;
#endif
}

void setHooks(bool poison, std::int64_t maxBatchSamples) {
#ifdef MODESCOPE_HAVE_CUDA
  setCudaTestHooks({poison, maxBatchSamples});
#else
  (void)poison;
  (void)maxBatchSamples;
#endif
}

class GpuPreprocess : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    gpu_ = gpuBackend(reason);
    if (!gpu_) GTEST_SKIP() << "GPU test skipped: " << reason;
    cpu_ = makeCpuBackend(0);
    // Every fresh device buffer starts as NaN: an element no kernel writes reaches the output.
    setHooks(true, 0);
    seed_ = std::random_device{}();
    std::cout << "[ seed     ] " << seed_ << "\n";
  }
  void TearDown() override { setHooks(false, 0); }

  std::unique_ptr<ComputeBackend> gpu_, cpu_;
  unsigned seed_ = 0;
};

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
      b.channel(r)[t] = offset + static_cast<float>(5.0 * std::sin(2 * std::numbers::pi * 10.0 * s + r) +
                                                    0.01 * s) +
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
const FilterCase kFilters[] = {
    {"bandpass:1-40", 250.0}, {"highpass:0.5", 1000.0}, {"lowpass:40", 250.0}, {"notch:50", 1000.0}};

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
  const std::vector<std::pair<int64_t, std::vector<std::size_t>>> shapes = {
      {7, {1, 5, 64}}, {1001, {1, 5, 64}}, {4097, {1, 5, 64}}, {65537, {1, 5, 64}},
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
      for (std::size_t rows : {4u, 19u, 64u}) expectReferenceParity(*cpu_, *gpu_, spec, rows, n, rng);
    }
  }
}

TEST_F(GpuPreprocess, ReferenceMatchesCpuAcrossSeveralBatches) {
  std::mt19937 rng(seed_);
  setHooks(true, 19 * 1000);  // 1000 columns per batch: 66 batches, the last one shorter
  expectReferenceParity(*cpu_, *gpu_, "average", 19, 65537, rng);
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
TEST_F(GpuPreprocess, CancelStopsWithinABatchAndFreesDeviceMemory) {
  setHooks(false, 0);  // default batches (~100 ms each); no poison fill to slow them down
  // 64 channels x 8 M samples = 2 GiB of float32: 8 batches of 8 channels at the default budget.
  const std::size_t rows = 64;
  const int64_t n = 8 << 20;
  SignalBlock block;
  block.sampleRate = 1000.0;
  block.samples = n;
  for (std::size_t r = 0; r < rows; ++r) block.channels.push_back(r);
  block.data.resize(rows * static_cast<std::size_t>(n));
  std::mt19937 rng(seed_);
  for (auto& v : block.data) v = static_cast<float>(rng() >> 8) * 1e-6f;  // cheap, not zeros
  const FirKernel k = designFir(parseFilterSpec("bandpass:1-40"), 1000.0);

  // Warm-up with the same batch shape: loads the kernels and cuFFT's modules, which stay resident.
  {
    SignalBlock warm = block;
    warm.channels.resize(8);
    warm.data.resize(8 * static_cast<std::size_t>(n));
    JobContext ctx;
    gpu_->applyFir(warm, k, ctx);
  }
  const auto before = cudaMemoryInfo();

  // A watcher thread (as the GUI's cancel button) stops the run in the middle of its second batch.
  std::stop_source stop;
  std::atomic<int> reports{0};
  std::atomic<std::int64_t> requestedNs{0};
  JobContext ctx(stop.get_token(), [&](double, std::string_view) { reports.fetch_add(1); });
  std::jthread watcher([&](std::stop_token quit) {
    while (reports.load() < 1 && !quit.stop_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    requestedNs = std::chrono::steady_clock::now().time_since_epoch().count();
    stop.request_stop();
  });
  bool cancelled = false;
  try {
    gpu_->applyFir(block, k, ctx);
  } catch (const Cancelled&) {
    cancelled = true;
  }
  const auto caughtNs = std::chrono::steady_clock::now().time_since_epoch().count();
  watcher.request_stop();
  watcher.join();
  const double stoppedAfter = static_cast<double>(caughtNs - requestedNs.load()) * 1e-9;
  ASSERT_TRUE(cancelled) << "the run finished (" << reports.load() << " progress reports) before the stop";
  // The stop is seen at the next checkpoint, after the batch in flight: one ~100 ms batch plus
  // freeing; 0.5 s leaves margin for a loaded machine (the whole run takes about 1 s).
  EXPECT_LT(stoppedAfter, 0.5);
  const auto after = cudaMemoryInfo();
  // One batch holds ~900 MiB; a leak of it would be plain. 64 MiB absorbs the driver's pool
  // granularity and cuFFT's lazily loaded code.
  const double leakedMiB = (static_cast<double>(before.freeBytes) - static_cast<double>(after.freeBytes)) /
                           (1024.0 * 1024.0);
  EXPECT_LT(leakedMiB, 64.0) << "free before " << before.freeBytes << ", after " << after.freeBytes;
}
#else
TEST(GpuPreprocessCancel, CancelStopsWithinABatchAndFreesDeviceMemory) {
  GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend (MODESCOPE_HAVE_CUDA is "
                  "undefined)";
}
#endif

}  // namespace
}  // namespace modescope
