// CUDA epoch averages (cuda/epoch_average_gpu.cpp) against the CPU reference (averageEpochsCpu):
// the same means and standard errors per condition, channel and sample, whether the epochs go up
// in one chunk or many, with conditions of 0, 1 and many epochs.
//
// Tolerances: both accumulate the float samples in double, in the same epoch order within a
// condition, but the GPU adds per-chunk runs into the accumulator (a different grouping of the
// same additions), so 1e-12 relative to the data's scale.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/epochs/epoch_average.h"
#include "tests/gpu/gpu_test_support.h"

namespace modescope {
namespace {

class EpochAverageParity : public gpu_test::ParityTest {};

// E epochs of C channels x S samples, offsets of +-1000 (a DC the two-pass SE must survive) and
// noise of SD 20; conditions assigned at random among K, with condition K-1 left empty and
// condition 0 given exactly one epoch.
EpochSet makeSet(unsigned seed, int E, int C, int S, int K) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 20.0f);
  std::uniform_int_distribution<int> pick(1, K - 2);
  EpochSet set;
  for (int k = 0; k < K; ++k) set.conditions.push_back("c" + std::to_string(k));
  for (int c = 0; c < C; ++c) {
    set.channels.push_back(static_cast<std::size_t>(c));
    set.channelNames.push_back("ch" + std::to_string(c));
    set.units.push_back("uV");
  }
  set.sampleRate = 250.0;
  set.samples = S;
  set.data.resize(static_cast<std::size_t>(E) * C * S);
  for (int e = 0; e < E; ++e) {
    set.condition.push_back(e == 3 ? 0 : pick(rng));
    set.onset.push_back(e);
    for (int c = 0; c < C; ++c)
      for (int s = 0; s < S; ++s)
        set.data[(static_cast<std::size_t>(e) * C + c) * S + s] =
            (c % 2 ? 1000.0f : -1000.0f) + noise(rng);
  }
  return set;
}

void expectSame(const EpochAverages& cpu, const EpochAverages& gpu) {
  ASSERT_EQ(cpu.counts, gpu.counts);
  ASSERT_EQ(cpu.mean.size(), gpu.mean.size());
  ASSERT_EQ(cpu.standardError.size(), gpu.standardError.size());
  double worstMean = 0, worstSe = 0;
  for (std::size_t i = 0; i < cpu.mean.size(); ++i) {
    ASSERT_EQ(std::isnan(cpu.mean[i]), std::isnan(gpu.mean[i])) << i;
    ASSERT_EQ(std::isnan(cpu.standardError[i]), std::isnan(gpu.standardError[i])) << i;
    if (!std::isnan(cpu.mean[i]))
      worstMean = std::max(worstMean, std::abs(cpu.mean[i] - gpu.mean[i]));
    if (!std::isnan(cpu.standardError[i]))
      worstSe = std::max(worstSe, std::abs(cpu.standardError[i] - gpu.standardError[i]));
  }
  EXPECT_LT(worstMean, 1e-9);  // 1e-12 of the 1000 uV offsets
  EXPECT_LT(worstSe, 1e-9);
  std::cout << "[ parity   ] max |mean diff| " << worstMean << " uV, max |SE diff| " << worstSe
            << " uV\n";
}

TEST_F(EpochAverageParity, MeansAndErrorsAgreeWithTheCpu) {
  const EpochSet set = makeSet(seed_, 300, 64, 257, 5);
  JobContext ctx;
  const EpochAverages cpu = cpu_->averageEpochs(set, ctx);
  const EpochAverages gpu = gpu_->averageEpochs(set, ctx);
  expectSame(cpu, gpu);
  EXPECT_EQ(gpu.counts.back(), 0);   // the empty condition: NaN means, no crash
  EXPECT_EQ(gpu.counts.front(), 1);  // one epoch: a mean, NaN SE
}

TEST_F(EpochAverageParity, ChunkedUploadsGiveTheSameResult) {
  const EpochSet set = makeSet(seed_, 97, 16, 101, 4);
  JobContext ctx;
  const EpochAverages cpu = cpu_->averageEpochs(set, ctx);
  // At most 7 epochs of 16 x 101 samples per upload: 14 chunks, two passes each.
  gpu_test::setHooks(true, 7 * 16 * 101);
  const EpochAverages gpu = gpu_->averageEpochs(set, ctx);
  gpu_test::setHooks(true);
  expectSame(cpu, gpu);
}

}  // namespace
}  // namespace modescope
