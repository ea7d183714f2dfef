// CUDA entropy matrices (ComputeBackend::entropyMatrices on the GPU) against the CPU's double
// precision brute force on the same blocks.
//
// The GPU finds matches through sorted candidate windows and compares in float, handing the
// distances within float rounding of r to the host's double z-scores (cuda/entropy_kernels.cuh),
// so every match count must equal the CPU's exactly. The values then differ only by the order in
// which the GPU sums the logs of the counts (a block reduction): 1e-9 covers ~1000 terms of ~5.
// The closed-form oracles of tests/unit/entropy_test.cpp are checked on the GPU too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/entropy/entropy_cpu.h"
#include "engine/io/recording_io.h"
#include "gpu_test_support.h"

namespace modescope {
namespace {

class EntropyParity : public gpu_test::ParityTest {
 protected:
  EntropyMatrixResult onGpu(const SignalBlock& b, const EntropyParams& p) {
    JobContext ctx;
    return gpu_->entropyMatrices(b, p, ctx);
  }
  EntropyMatrixResult onCpu(const SignalBlock& b, const EntropyParams& p) {
    JobContext ctx;
    return cpu_->entropyMatrices(b, p, ctx);
  }
};

SignalBlock gaussianBlock(std::size_t channels, int64_t samples, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  SignalBlock b;
  b.sampleRate = 200.0;
  b.samples = samples;
  for (std::size_t c = 0; c < channels; ++c) b.channels.push_back(c);
  b.data.resize(channels * static_cast<std::size_t>(samples));
  // Channel c mixes its own noise with channel 0's, so pairs differ in how much they match.
  std::vector<float> common(static_cast<std::size_t>(samples));
  for (auto& v : common) v = g(rng);
  for (std::size_t c = 0; c < channels; ++c) {
    const float w = 0.15f * static_cast<float>(c % 6);
    for (int64_t t = 0; t < samples; ++t)
      b.data[c * samples + t] = w * common[t] + (1 - w) * g(rng) + 3.0f * static_cast<float>(c);
  }
  return b;
}

EntropyParams params(EntropyMeasure measure, int m, double r, int64_t epoch, ApEnBias bias) {
  EntropyParams p;
  p.measure = measure;
  p.m = m;
  p.r = r;
  p.epochSamples = epoch;
  p.bias = bias;
  p.keepCounts = true;
  return p;
}

void expectParity(const EntropyMatrixResult& g, const EntropyMatrixResult& c,
                  const std::string& what) {
  ASSERT_EQ(g.epochValues.size(), c.epochValues.size()) << what;
  ASSERT_EQ(g.counts.size(), c.counts.size()) << what;
  long long countDiff = 0, total = 0;
  for (std::size_t k = 0; k < c.counts.size(); ++k) {
    countDiff += std::llabs(g.counts[k].matchesM - c.counts[k].matchesM) +
                 std::llabs(g.counts[k].matchesM1 - c.counts[k].matchesM1) +
                 std::abs(g.counts[k].noMatchM - c.counts[k].noMatchM);
    total += c.counts[k].matchesM;
  }
  double worst = 0;
  for (std::size_t k = 0; k < c.epochValues.size(); ++k) {
    const double a = g.epochValues[k], b = c.epochValues[k];
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << what << " entry " << k;
      continue;
    }
    worst = std::max(worst, std::abs(a - b));
  }
  std::printf("[ parity   ] %s: %lld of %lld matches differ, largest value difference %.3g\n",
              what.c_str(), countDiff, total, worst);
  EXPECT_EQ(countDiff, 0) << what;
  EXPECT_LE(worst, 1e-9) << what;
  for (std::size_t k = 0; k < c.average.size(); ++k) {
    if (std::isnan(c.average[k])) continue;
    EXPECT_NEAR(g.average[k], c.average[k], 1e-9) << what << " average " << k;
  }
}

TEST_F(EntropyParity, CountsAndValuesMatchForBothMeasuresAndTemplateLengths) {
  const SignalBlock b = gaussianBlock(7, 3 * 300 + 17, seed_);
  for (EntropyMeasure measure :
       {EntropyMeasure::ApproximateEntropy, EntropyMeasure::SampleEntropy}) {
    for (int m : {1, 2, 3}) {
      for (ApEnBias bias : {ApEnBias::Zero, ApEnBias::Max}) {
        if (measure == EntropyMeasure::SampleEntropy && bias == ApEnBias::Zero) continue;
        const EntropyParams p = params(measure, m, m == 3 ? 0.35 : 0.2, 300, bias);
        expectParity(onGpu(b, p), onCpu(b, p),
                     std::string(entropyMeasureName(measure)) + " m=" + std::to_string(m) +
                         " bias " + apEnBiasName(bias));
      }
    }
  }
}

TEST_F(EntropyParity, DemoRecordingMatches) {
  const auto rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  std::vector<std::size_t> all(rec->channels.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  const SignalBlock b = extractBlock(*rec, all, 0.0, 4 * 1024 / 160.0);
  const EntropyParams p = params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 1024, ApEnBias::Max);
  expectParity(onGpu(b, p), onCpu(b, p), "demo, 64 channels x 4 epochs of 1024");
}

#ifdef MODESCOPE_HAVE_CUDA
TEST_F(EntropyParity, DeviceZScoresEqualTheHostsBitForBit) {
  // The counts can equal the CPU's exactly only if the double z-scores that decide distances near
  // r are the host's to the last bit: the device must round every step as zscoreSeries does.
  // A channel subset out of order, a constant epoch, both SD conventions, and the demo's EEG.
  SignalBlock b = gaussianBlock(6, 3 * 500 + 11, seed_ + 5);
  std::fill_n(b.channel(4) + 500, 500, 7.25f);
  const auto rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  std::vector<std::size_t> all(rec->channels.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  const SignalBlock demo = extractBlock(*rec, all, 0.0, 8 * 1024 / 160.0);
  struct Case {
    const SignalBlock* block;
    std::vector<std::size_t> rows;
    int64_t epoch;
    SdConvention sd;
  };
  for (const Case& c :
       {Case{&b, {5, 0, 4, 2}, 500, SdConvention::Population},
        Case{&b, {}, 500, SdConvention::Sample}, Case{&demo, {}, 1024, SdConvention::Population}}) {
    EntropyParams p = params(EntropyMeasure::ApproximateEntropy, 1, 0.2, c.epoch, ApEnBias::Max);
    p.rows = c.rows;
    p.sd = c.sd;
    const std::vector<double> host = planEntropy(*c.block, p).zscored;
    const std::vector<double> device = cudaEntropyZScores(*c.block, p);
    ASSERT_EQ(device.size(), host.size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < host.size(); ++k)
      differ += std::memcmp(&host[k], &device[k], sizeof(double)) != 0;
    std::printf("[ parity   ] z-scores: %zu of %zu differ in any bit\n", differ, host.size());
    EXPECT_EQ(differ, 0u);
  }
}
#endif  // MODESCOPE_HAVE_CUDA

TEST_F(EntropyParity, LongEpochsReadFromGlobalMemory) {
  // 20,000-sample epochs need 320 kB of shared memory per block: above every device's limit.
  const SignalBlock b = gaussianBlock(2, 20000, seed_ + 1);
  const EntropyParams p = params(EntropyMeasure::ApproximateEntropy, 1, 0.1, 20000, ApEnBias::Max);
  expectParity(onGpu(b, p), onCpu(b, p), "20000-sample epoch");
}

TEST_F(EntropyParity, OraclesHoldOnTheGpu) {
  // Diagonal = ApEn, affine invariance: channel 1 = 3 * channel 0 + 5.
  SignalBlock b = gaussianBlock(2, 300, seed_ + 2);
  for (int64_t t = 0; t < 300; ++t) b.channel(1)[t] = 3.0f * b.channel(0)[t] + 5.0f;
  const EntropyMatrixResult r =
      onGpu(b, params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 0, ApEnBias::Zero));
  EXPECT_NEAR(r.averageAt(0, 1), r.averageAt(0, 0), 1e-5);
  EXPECT_NEAR(r.averageAt(1, 0), r.averageAt(1, 1), 1e-5);
  // Alternating 0,1,0,1 (N = 10): ApEn = -0.006185604 (closed form).
  SignalBlock alt;
  alt.sampleRate = 1.0;
  alt.samples = 10;
  alt.channels = {0};
  for (int t = 0; t < 10; ++t) alt.data.push_back(static_cast<float>(t % 2));
  EXPECT_NEAR(onGpu(alt, params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 0, ApEnBias::Max))
                  .averageAt(0, 0),
              -0.006185604, 1e-7);
  // u = 1..6, v = 6..1: bias 0 gives ln(5/6), bias max gives 0.
  SignalBlock ramps;
  ramps.sampleRate = 1.0;
  ramps.samples = 6;
  ramps.channels = {0, 1};
  for (int t = 0; t < 6; ++t) ramps.data.push_back(static_cast<float>(t + 1));
  for (int t = 0; t < 6; ++t) ramps.data.push_back(static_cast<float>(6 - t));
  EXPECT_NEAR(onGpu(ramps, params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 0, ApEnBias::Zero))
                  .averageAt(0, 1),
              std::log(5.0 / 6.0), 1e-7);
  EXPECT_NEAR(onGpu(ramps, params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 0, ApEnBias::Max))
                  .averageAt(0, 1),
              0.0, 1e-7);
}

TEST_F(EntropyParity, AnEpochsValueDoesNotDependOnItsBatch) {
  const SignalBlock many = gaussianBlock(5, 6 * 256, seed_ + 3);
  const EntropyParams p = params(EntropyMeasure::ApproximateEntropy, 2, 0.2, 256, ApEnBias::Max);
  const EntropyMatrixResult all = onGpu(many, p);
  // Epoch 4 alone, with channels 3 and 1 only.
  SignalBlock one;
  one.sampleRate = many.sampleRate;
  one.samples = 256;
  one.channels = {3, 1};
  for (std::size_t c : {3u, 1u})
    one.data.insert(one.data.end(), many.channel(c) + 4 * 256, many.channel(c) + 5 * 256);
  const EntropyMatrixResult alone = onGpu(one, p);
  EXPECT_DOUBLE_EQ(alone.at(0, 0, 1), all.at(4, 3, 1));
  EXPECT_DOUBLE_EQ(alone.at(0, 1, 0), all.at(4, 1, 3));
  EXPECT_DOUBLE_EQ(alone.at(0, 0, 0), all.at(4, 3, 3));
}

TEST_F(EntropyParity, RejectsWhatTheCpuRejects) {
  auto message = [&](ComputeBackend& backend, const SignalBlock& b, const EntropyParams& p) {
    try {
      JobContext ctx;
      backend.entropyMatrices(b, p, ctx);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  SignalBlock b = gaussianBlock(3, 600, seed_ + 4);
  b.channel(1)[123] = std::numeric_limits<float>::infinity();
  const EntropyParams p = params(EntropyMeasure::ApproximateEntropy, 1, 0.2, 200, ApEnBias::Max);
  EXPECT_EQ(message(*gpu_, b, p), message(*cpu_, b, p));
  b.channel(1)[123] = 0.0f;
  EXPECT_EQ(
      message(*gpu_, b, params(EntropyMeasure::ApproximateEntropy, 1, -0.2, 200, ApEnBias::Max)),
      message(*cpu_, b, params(EntropyMeasure::ApproximateEntropy, 1, -0.2, 200, ApEnBias::Max)));
  std::fill_n(b.channel(2), 600, 4.0f);
  EXPECT_EQ(message(*gpu_, b, p), message(*cpu_, b, p));
}

}  // namespace
}  // namespace modescope
