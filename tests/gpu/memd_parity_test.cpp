// CUDA MEMD against the CPU reference (engine/memd/memd.h): fixed sifts in float64 (the same
// steps on the same numbers: rows agree to the float32 storage), the 'stop' rule with automatic
// IMF count in float64 (same IMF count and sift counts), float32 within its tolerance, several
// direction chunks, NA-MEMD, mode alignment on the device, bad input with the CPU's messages,
// cancel. Device buffers are poisoned with NaN. Skips loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/memd/memd.h"
#include "tests/gpu/gpu_test_support.h"
#include "tests/unit/memd_test_support.h"

namespace modescope {
namespace {

// float64: the device contracts a*b+c into FMAs, so rows differ from the CPU's in the last bits
// of double; stored as float, 1e-6 of the input's largest value leaves room for the storage
// rounding and nothing else (a changed extremum moves a row by O(1)).
constexpr double kFloat64Tolerance = 1e-6;
// float32: rounding of 6e-8 per operation carried over a few sifts and IMFs; an extremum between
// two samples closer than float rounding may move by one sample. Rows are compared by their
// correlation with the CPU's rows instead of sample by sample.
constexpr double kFloat32Correlation = 0.99;

constexpr double kPi = 3.14159265358979323846;

SignalBlock tones(int channels, int64_t n, unsigned seed) {
  SignalBlock b;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.sampleRate = 256;
  b.samples = n;
  b.data.resize(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n));
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.2);
  const double freqs[] = {2, 8, 16, 32};
  for (int c = 0; c < channels; ++c)
    for (int64_t i = 0; i < n; ++i) {
      double v = noise(rng);
      for (int f = 0; f < 4; ++f)
        if ((c + f) % 3 != 0) v += std::sin(2 * kPi * freqs[f] * static_cast<double>(i) / 256 + c);
      b.channel(static_cast<std::size_t>(c))[i] = static_cast<float>(v);
    }
  return b;
}

double maxAbs(const SignalBlock& b) {
  double m = 0;
  for (float v : b.data) m = std::max(m, std::fabs(static_cast<double>(v)));
  return m;
}

void expectRowsClose(const MemdResult& gpu, const MemdResult& cpu, int64_t n, double tol) {
  ASSERT_EQ(gpu.channels.size(), cpu.channels.size());
  ASSERT_EQ(gpu.imfCount(), cpu.imfCount());
  for (std::size_t c = 0; c < cpu.channels.size(); ++c)
    for (int k = 0; k < cpu.channels[c].rows; ++k) {
      const float* a = gpu.channels[c].row(k, n);
      const float* b = cpu.channels[c].row(k, n);
      double worst = 0;
      for (int64_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
      EXPECT_LE(worst, tol) << "channel " << c << ", row " << k;
    }
}

double correlation(const float* a, const float* b, int64_t n) {
  double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
  for (int64_t i = 0; i < n; ++i) {
    sa += a[i];
    sb += b[i];
  }
  const double ma = sa / n, mb = sb / n;
  for (int64_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb + 1e-300);
}

class GpuMemd : public gpu_test::ParityTest {};

TEST_F(GpuMemd, Float64FixedSiftsMatchCpu) {
  for (auto [channels, n, dirs] :
       {std::tuple{2, 257, 8}, std::tuple{6, 1000, 64}, std::tuple{16, 4097, 32}}) {
    const SignalBlock b = tones(channels, n, seed_);
    MemdParams p;
    p.stop = MemdStopKind::Fixed;
    p.fixedSifts = 10;
    p.maxImfs = 6;
    p.directions = dirs;
    p.gpuPrecision = GpuPrecision::Float64;
    JobContext ctx;
    const MemdResult cpu = cpu_->memd(b, p, ctx);
    const MemdResult gpu = gpu_->memd(b, p, ctx);
    SCOPED_TRACE(std::to_string(channels) + " x " + std::to_string(n));
    expectRowsClose(gpu, cpu, n, kFloat64Tolerance * maxAbs(b));
    EXPECT_EQ(gpu.sifts, cpu.sifts);
  }
}

TEST_F(GpuMemd, StreamedDirectionChunksGiveTheSameRows) {
  const SignalBlock b = tones(5, 1200, seed_);
  MemdParams p;
  p.stop = MemdStopKind::Fixed;
  p.maxImfs = 4;
  p.directions = 40;
  p.gpuPrecision = GpuPrecision::Float64;
  JobContext ctx;
  const MemdResult whole = gpu_->memd(b, p, ctx);
#ifdef MODESCOPE_HAVE_CUDA
  setCudaTestHooks({.poisonAllocations = true, .memdMaxChunk = 7});  // 6 chunks, the last of 5
#endif
  const MemdResult chunked = gpu_->memd(b, p, ctx);
  gpu_test::setHooks(true);
  for (std::size_t c = 0; c < 5; ++c) EXPECT_EQ(chunked.channels[c].data, whole.channels[c].data);
  expectRowsClose(chunked, cpu_->memd(b, p, ctx), b.samples, kFloat64Tolerance * maxAbs(b));
}

TEST_F(GpuMemd, TooLargeSaysWhatFitsBeforeAnyWork) {
#ifdef MODESCOPE_HAVE_CUDA
  setCudaTestHooks({.poisonAllocations = true, .memdBudgetBytes = std::int64_t{8} << 20});
#endif
  const std::size_t before = gpu_test::freeDeviceBytes();
  JobContext ctx;
  try {
    gpu_->memd(tones(32, 30504, seed_), MemdParams{}, ctx);
    ADD_FAILURE() << "32 x 30504 planned in 8 MiB";
  } catch (const OutOfDeviceMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("At most"), std::string::npos) << m;
    EXPECT_NE(m.find("samples fit with 32 channels"), std::string::npos) << m;
  }
  gpu_test::setHooks(true);
  EXPECT_GE(gpu_test::freeDeviceBytes() + (std::size_t{16} << 20), before);
}

TEST_F(GpuMemd, Float64StopRuleAndAutomaticCountMatchCpu) {
  const SignalBlock b = tones(6, 2048, seed_);
  MemdParams p;  // memd.m defaults
  p.gpuPrecision = GpuPrecision::Float64;
  JobContext ctx;
  const MemdResult cpu = cpu_->memd(b, p, ctx);
  const MemdResult gpu = gpu_->memd(b, p, ctx);
  EXPECT_EQ(gpu.sifts, cpu.sifts);
  expectRowsClose(gpu, cpu, b.samples, kFloat64Tolerance * maxAbs(b));
}

TEST_F(GpuMemd, Float32RowsCorrelateWithCpu) {
  const SignalBlock b = tones(8, 3000, seed_);
  MemdParams p;
  p.stop = MemdStopKind::Fixed;
  p.fixedSifts = 10;
  p.maxImfs = 5;
  JobContext ctx;
  const MemdResult cpu = cpu_->memd(b, p, ctx);
  const MemdResult gpu = gpu_->memd(b, p, ctx);
  ASSERT_EQ(gpu.imfCount(), cpu.imfCount());
  for (std::size_t c = 0; c < cpu.channels.size(); ++c)
    for (int k = 0; k < 3; ++k)  // the first IMFs carry the tones; later ones are tiny
      EXPECT_GT(correlation(gpu.channels[c].row(k, b.samples), cpu.channels[c].row(k, b.samples),
                            b.samples),
                kFloat32Correlation)
          << "channel " << c << ", IMF " << k + 1;
  // Rows still sum to the input on the device.
  for (std::size_t c = 0; c < gpu.channels.size(); ++c)
    for (int64_t i = 0; i < b.samples; i += 7) {
      double s = 0;
      for (int k = 0; k < gpu.channels[c].rows; ++k) s += gpu.channels[c].row(k, b.samples)[i];
      ASSERT_NEAR(s, b.channel(c)[i], 1e-3);
    }
}

TEST_F(GpuMemd, NoiseAssistedMatchesCpuAndDropsNoise) {
  const SignalBlock b = tones(3, 1500, seed_);
  MemdParams p = memdPreset("na-memd");
  p.ensembleSize = 2;
  p.stop = MemdStopKind::Fixed;
  p.maxImfs = 5;
  p.gpuPrecision = GpuPrecision::Float64;
  JobContext ctx;
  const MemdResult cpu = cpu_->memd(b, p, ctx);
  const MemdResult gpu = gpu_->memd(b, p, ctx);
  EXPECT_EQ(gpu.channels.size(), 3u);
  EXPECT_EQ(gpu.dims, 7);
  expectRowsClose(gpu, cpu, b.samples, kFloat64Tolerance * maxAbs(b) * 10);
}

TEST_F(GpuMemd, ModeAlignmentOnTheDeviceInFloat32) {
  JobContext ctx;
  const MemdResult r = gpu_->memd(memd_test::hexavariate(256, 2048), MemdParams{}, ctx);
  memd_test::expectModeAlignment(r);
}

TEST_F(GpuMemd, BadInputGetsTheCpuMessages) {
  JobContext ctx;
  SignalBlock one = tones(1, 100, 1);
  std::string cpuMsg, gpuMsg;
  try {
    cpu_->memd(one, MemdParams{}, ctx);
  } catch (const InvalidParameterError& e) {
    cpuMsg = e.what();
  }
  try {
    gpu_->memd(one, MemdParams{}, ctx);
  } catch (const InvalidParameterError& e) {
    gpuMsg = e.what();
  }
  EXPECT_FALSE(gpuMsg.empty());
  EXPECT_EQ(gpuMsg, cpuMsg);
  SignalBlock bad = tones(4, 100, 1);
  bad.channel(2)[5] = NAN;
  EXPECT_THROW(gpu_->memd(bad, MemdParams{}, ctx), InvalidInputError);
}

TEST_F(GpuMemd, CancelStopsAndFreesMemory) {
  const std::size_t before = gpu_test::freeDeviceBytes();
  std::stop_source stop;
  int reports = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++reports == 1) stop.request_stop();
  });
  EXPECT_THROW(gpu_->memd(tones(8, 4096, seed_), MemdParams{}, ctx), Cancelled);
  const std::size_t after = gpu_test::freeDeviceBytes();
  EXPECT_GE(after + (std::size_t{64} << 20), before);
}

}  // namespace
}  // namespace modescope
