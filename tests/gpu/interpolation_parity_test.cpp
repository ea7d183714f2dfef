// Interpolation of bad channels (app/core/interpolation_job.h) on the CUDA backend against the
// CPU's, on the PhysioNet 64-channel recording: the same plan (the interpolation matrix is built
// on the host in double), applied by ComputeBackend::spatialFilter as one SGEMM on the GPU and in
// double on the CPU.
//
// Tolerance: the SGEMM accumulates ~60 float products per sample in float; its error is a few
// ulps times sqrt(60) of the row's magnitude, bounded here by 1e-5 of the largest interpolated
// value (as the spatial-filter parity test, ar_parity_test.cpp). The good channels are not
// computed at all: they must be bit for bit the input on both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "app/core/interpolation_job.h"
#include "engine/io/recording_io.h"
#include "tests/gpu/gpu_test_support.h"

namespace modescope {
namespace {

using InterpolationParity = gpu_test::ParityTest;

TEST_F(InterpolationParity, BadChannelsMatchTheCpuAndGoodOnesAreUntouched) {
  const auto rec = openRecording(std::string(MODESCOPE_TEST_DATA) + "/physionet_S001R03_64ch.h5");
  ASSERT_GE(rec->channelCount(), 64u);
  // A random handful of bad channels (the seed is printed), and the usual neighbours C3, C4.
  std::mt19937 rng(seed_);
  std::vector<std::size_t> bad = {static_cast<std::size_t>(rec->findChannel("C3")),
                                  static_cast<std::size_t>(rec->findChannel("C4"))};
  std::uniform_int_distribution<std::size_t> pick(0, rec->channelCount() - 1);
  while (bad.size() < 6) {
    const std::size_t c = pick(rng);
    if (std::find(bad.begin(), bad.end(), c) == bad.end()) bad.push_back(c);
  }
  InterpolationJobSpec spec;
  spec.bad = bad;
  JobContext ctx;
  const InterpolationJobResult g = runInterpolationJob(rec, spec, *gpu_, ctx);
  const InterpolationJobResult c = runInterpolationJob(rec, spec, *cpu_, ctx);
  EXPECT_NE(g.backend.find("GPU"), std::string::npos) << g.backend;
  ASSERT_EQ(g.plan.sources, c.plan.sources);
  const int64_t n = rec->channels[0].sampleCount;
  for (std::size_t b : bad) {
    const auto gv = g.recording->readChannel(b, 0, n);
    const auto cv = c.recording->readChannel(b, 0, n);
    ASSERT_EQ(gv.size(), cv.size());
    float peak = 0, worst = 0;
    for (std::size_t i = 0; i < cv.size(); ++i) {
      peak = std::max(peak, std::abs(cv[i]));
      worst = std::max(worst, std::abs(gv[i] - cv[i]));
    }
    EXPECT_LE(worst, 1e-5f * peak) << rec->channels[b].name;
    EXPECT_GT(peak, 0.0f);
  }
  for (const char* good : {"Cz", "Fp1", "Oz"}) {
    const int i = rec->findChannel(good);
    if (std::find(bad.begin(), bad.end(), static_cast<std::size_t>(i)) != bad.end()) continue;
    EXPECT_EQ(g.recording->readChannel(i, 0, n), rec->readChannel(i, 0, n)) << good;
  }
}

}  // namespace
}  // namespace modescope
