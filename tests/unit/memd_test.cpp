// MEMD on the CPU (engine/memd): memd.m's Hammersley directions, mode alignment on Rehman and
// Mandic's hexavariate example, NA-MEMD's dropped noise channels, exact reconstruction, thread
// independence, supplied directions, and the bad-input messages.
#include "engine/memd/memd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <stop_token>

#include "engine/core/error.h"
#include "engine/memd/memd_directions.h"
#include "engine/memd/memd_memory.h"
#include "tests/unit/memd_test_support.h"

namespace modescope {
namespace {

using memd_test::hexavariate;
using memd_test::kPi;

SignalBlock makeBlock(int channels, int64_t n, double rate = 256.0) {
  SignalBlock b;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.sampleRate = rate;
  b.samples = n;
  b.data.assign(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n), 0.0f);
  return b;
}

TEST(MemdDirections, MemdMConstructionValues) {
  // Four dimensions, K = 8: seq = ((k + 0.5) / 8, phi_2(k), phi_3(k), phi_5(k)), then the
  // hyperspherical map (values computed independently from memd.m's formulas).
  const std::vector<double> d = hammersleyDirections(4, 8);
  const double k1[] = {-0.6732755930345325, 0.0, -0.3590803162850841, 0.6463445693131509};
  const double k2[] = {-0.5094920066677705, -0.6793226755570274, 0.45288178370468496,
                       0.271729070222811};
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(d[j], k1[j], 1e-12) << j;
    EXPECT_NEAR(d[4 + j], k2[j], 1e-12) << j;
  }
  // Three dimensions: memd.m's special case, d = (st cos phi, st sin phi, tt).
  const std::vector<double> d3 = hammersleyDirections(3, 4);
  const double tt = 2 * (1.5 / 4) - 1, st = std::sqrt(1 - tt * tt);
  EXPECT_NEAR(d3[0], st * std::cos(kPi), 1e-12);
  EXPECT_NEAR(d3[1], st * std::sin(kPi), 1e-12);
  EXPECT_NEAR(d3[2], tt, 1e-12);
  EXPECT_EQ(firstPrimes(6), (std::vector<int>{2, 3, 5, 7, 11, 13}));
}

TEST(MemdDirections, UnitNormsAndSpread) {
  for (int dims : {2, 3, 6, 16, 32, 128}) {
    const int K = std::max(64, 2 * dims);
    const std::vector<double> d = hammersleyDirections(dims, K);
    for (int k = 0; k < K; ++k) {
      double norm = 0;
      for (int j = 0; j < dims; ++j) norm += d[k * dims + j] * d[k * dims + j];
      ASSERT_NEAR(norm, 1.0, 1e-12) << dims << " dims, direction " << k;
    }
    // Every coordinate varies over the set, and the first is not crowded at an end (the published
    // GPU code's MATLAB entry point gives mean |d_1| = 0.96 for 32 dims; memd.m's set about 0.16).
    double meanAbs1 = 0;
    for (int j = 0; j < dims; ++j) {
      double mean = 0, sq = 0;
      for (int k = 0; k < K; ++k) mean += d[k * dims + j];
      mean /= K;
      for (int k = 0; k < K; ++k) sq += (d[k * dims + j] - mean) * (d[k * dims + j] - mean);
      EXPECT_GT(std::sqrt(sq / K), 0.01) << dims << " dims, coordinate " << j;
    }
    for (int k = 0; k < K; ++k) meanAbs1 += std::fabs(d[k * dims]);
    if (dims == 32) {
      EXPECT_NEAR(meanAbs1 / K, 0.156, 0.01);
    }
    if (dims >= 6) {
      EXPECT_LT(meanAbs1 / K, 0.4) << dims << " dims";
    }
  }
}

TEST(MemdCpu, ModeAlignmentHexavariate) {
  const double rate = 256;
  const int64_t n = 2048;
  const SignalBlock b = hexavariate(rate, n);
  JobContext ctx;
  const MemdResult r = memdCpu(b, MemdParams{}, 2, ctx);
  EXPECT_EQ(r.directions, 64);
  memd_test::expectModeAlignment(r);
}

TEST(MemdCpu, RowsSumToInputAndThreadsGiveSameBits) {
  const SignalBlock b = hexavariate(128, 700);
  MemdParams p;
  p.stop = MemdStopKind::Fixed;
  p.fixedSifts = 5;
  p.maxImfs = 4;
  JobContext ctx;
  const MemdResult one = memdCpu(b, p, 1, ctx);
  const MemdResult three = memdCpu(b, p, 3, ctx);
  ASSERT_EQ(one.channels[0].rows, 5);
  EXPECT_EQ(one.sifts, (std::vector<int>{5, 5, 5, 5}));
  for (std::size_t c = 0; c < 6; ++c) {
    EXPECT_EQ(one.channels[c].data, three.channels[c].data) << c;
    for (int64_t i = 0; i < b.samples; ++i) {
      double s = 0;
      for (int k = 0; k < one.channels[c].rows; ++k) s += one.channels[c].row(k, b.samples)[i];
      ASSERT_NEAR(s, b.channel(c)[i], 1e-4) << c << " " << i;
    }
  }
}

TEST(MemdCpu, FixHAndSuppliedDirectionsRepeatTheHammersleySet) {
  const SignalBlock b = hexavariate(128, 512);
  MemdParams p;
  p.stop = MemdStopKind::FixH;
  p.directions = 16;
  JobContext ctx;
  const MemdResult gen = memdCpu(b, p, 2, ctx);
  // The same set written to a file (as MATLAB's writematrix would), read back and supplied.
  const std::string path = ::testing::TempDir() + "memd_dirs.csv";
  {
    std::ofstream out(path);
    out << "% 16 directions of memd.m\n";
    const std::vector<double> d = hammersleyDirections(6, 16);
    char buf[64];
    for (int k = 0; k < 16; ++k) {
      for (int j = 0; j < 6; ++j) {
        std::snprintf(buf, sizeof buf, "%.17g", d[k * 6 + j]);
        out << (j ? "," : "") << buf;
      }
      out << "\n";
    }
  }
  const TextMatrix m = readTextMatrix(path);
  ASSERT_EQ(m.rows, 16);
  ASSERT_EQ(m.columns, 6);
  MemdParams q = p;
  q.directions = 0;
  q.supplied.directions = m.values;
  q.supplied.directionCount = m.rows;
  const MemdResult sup = memdCpu(b, q, 2, ctx);
  ASSERT_EQ(sup.channels[0].rows, gen.channels[0].rows);
  for (std::size_t c = 0; c < 6; ++c) EXPECT_EQ(sup.channels[c].data, gen.channels[c].data);
  // A row of the wrong width says so.
  q.supplied.directions.resize(16 * 5);
  q.supplied.directionCount = 16;
  try {
    memdCpu(b, q, 1, ctx);
    FAIL() << "5-wide directions accepted for 6 channels";
  } catch (const InvalidParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("6 (channels + noise channels)"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(MemdCpu, NoiseAssistedDropsNoiseChannels) {
  SignalBlock b = makeBlock(2, 600);
  for (int64_t i = 0; i < b.samples; ++i) {
    b.channel(0)[i] = static_cast<float>(std::sin(0.3 * i) + 0.5 * std::sin(0.05 * i));
    b.channel(1)[i] = static_cast<float>(std::cos(0.3 * i));
  }
  MemdParams p = memdPreset("na-memd");
  p.noiseChannels = 3;
  p.ensembleSize = 2;
  p.maxImfs = 5;
  p.stop = MemdStopKind::Fixed;
  JobContext ctx;
  const MemdResult r = memdCpu(b, p, 2, ctx);
  EXPECT_EQ(r.dims, 5);
  EXPECT_EQ(r.directions, 64);
  ASSERT_EQ(r.channels.size(), 2u);
  EXPECT_EQ(r.channels[1].channel, 1u);
  for (std::size_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < b.samples; ++i) {
      double s = 0;
      for (int k = 0; k < r.channels[c].rows; ++k) s += r.channels[c].row(k, b.samples)[i];
      ASSERT_NEAR(s, b.channel(c)[i], 1e-4);
    }
  // The same seed repeats; another seed changes the noise.
  EXPECT_EQ(memdCpu(b, p, 1, ctx).channels[0].data, r.channels[0].data);
  p.seed = 2;
  EXPECT_NE(memdCpu(b, p, 1, ctx).channels[0].data, r.channels[0].data);
  // One data channel is fine with noise channels (NA-MEMD of a single signal).
  SignalBlock single = makeBlock(1, 600);
  std::copy(b.channel(0), b.channel(0) + 600, single.channel(0));
  EXPECT_EQ(memdCpu(single, p, 1, ctx).channels.size(), 1u);
}

template <class E>
std::string messageOf(const SignalBlock& b, const MemdParams& p, JobContext& ctx) {
  try {
    memdCpu(b, p, 1, ctx);
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error of the expected type";
  return {};
}

TEST(MemdCpu, BadInputMessages) {
  JobContext ctx;
  const MemdParams p;
  SignalBlock one = makeBlock(1, 100);
  for (int64_t i = 0; i < 100; ++i) one.channel(0)[i] = static_cast<float>(std::sin(i));
  EXPECT_NE(messageOf<InvalidParameterError>(one, p, ctx).find("at least 2 channels"),
            std::string::npos);
  SignalBlock shortBlock = hexavariate(128, 5);
  EXPECT_NE(messageOf<InvalidParameterError>(shortBlock, p, ctx).find("at least 8 samples"),
            std::string::npos);
  SignalBlock bad = hexavariate(128, 200);
  bad.channel(4)[17] = std::nanf("");
  const std::string nan = messageOf<InvalidInputError>(bad, p, ctx);
  EXPECT_NE(nan.find("NaN"), std::string::npos) << nan;
  EXPECT_NE(nan.find("channel 5"), std::string::npos) << nan;
  bad.channel(4)[17] = INFINITY;
  EXPECT_NE(messageOf<InvalidInputError>(bad, p, ctx).find("infinite"), std::string::npos);
  SignalBlock flat = hexavariate(128, 200);
  std::fill(flat.channel(2), flat.channel(2) + 200, 3.0f);
  const std::string f = messageOf<InvalidInputError>(flat, p, ctx);
  EXPECT_NE(f.find("constant"), std::string::npos) << f;
  EXPECT_NE(f.find("channel 3"), std::string::npos) << f;
  MemdParams swapped;
  swapped.sd = 0.9;
  EXPECT_NE(messageOf<InvalidParameterError>(hexavariate(128, 200), swapped, ctx).find("sd2"),
            std::string::npos);
  EXPECT_THROW(memdPreset("nope"), InvalidParameterError);
}

TEST(MemdCpu, CancelStopsBetweenSifts) {
  std::stop_source stop;
  int reports = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++reports == 1) stop.request_stop();
  });
  EXPECT_THROW(memdCpu(hexavariate(256, 1024), MemdParams{}, 2, ctx), Cancelled);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

TEST(MemdMemoryPlan, LargestBenchmarkCaseFitsAnH100AndSmallCardsSayWhatFits) {
  // 128 channels x 102,401 samples x 256 directions in float32 on an 80 GB card (85 % usable):
  // every direction in one chunk, under 48 GB.
  const MemdDevicePlan p = planMemdDevice(128, 102401, 256, 4, 0.85 * 80e9);
  EXPECT_EQ(p.chunk, 256);
  EXPECT_LT(static_cast<double>(p.totalBytes), 48e9);
  // In float64 it fits an 80 GB card too (since the elimination factors are kept once per 32
  // channels); on a 40 GB card the directions are streamed in chunks.
  EXPECT_EQ(planMemdDevice(128, 102401, 256, 8, 0.85 * 80e9).chunk, 256);
  const MemdDevicePlan q = planMemdDevice(128, 102401, 256, 8, 0.85 * 40e9);
  EXPECT_GE(q.chunk, 64);
  EXPECT_LT(q.chunk, 256);
  EXPECT_LE(static_cast<double>(q.totalBytes), 0.85 * 40e9);
  // A 1 GB card cannot hold even one direction: the message says what would fit.
  try {
    planMemdDevice(128, 1000000, 256, 8, 1e9);
    FAIL() << "planned on 1 GB";
  } catch (const OutOfDeviceMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("At most"), std::string::npos) << m;
    EXPECT_NE(m.find("samples fit with 128 channels"), std::string::npos) << m;
    EXPECT_NE(m.find("float32"), std::string::npos) << m;
  }
  // A card with 200 MB free: the sizes below 1 GiB are said in MiB, not rounded to "0.0 GiB".
  try {
    planMemdDevice(32, 1000000, 64, 8, 200e6);
    FAIL() << "planned on 200 MB";
  } catch (const OutOfDeviceMemoryError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find("0.0 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("190.7 MiB is usable"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace modescope
