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

namespace modescope {
namespace {

constexpr double kPi = 3.14159265358979323846;

SignalBlock makeBlock(int channels, int64_t n, double rate = 256.0) {
  SignalBlock b;
  for (int c = 0; c < channels; ++c) b.channels.push_back(static_cast<std::size_t>(c));
  b.sampleRate = rate;
  b.samples = n;
  b.data.assign(static_cast<std::size_t>(channels) * static_cast<std::size_t>(n), 0.0f);
  return b;
}

// Rehman and Mandic's hexavariate example (memd.m header, syn_hex_inp): 2 Hz on channels 1, 2, 4;
// 8 Hz on 1-3, 5; 16 Hz on all; 32 Hz on 1, 3, 4, 6; white noise on 1-3.
const std::vector<std::pair<double, std::vector<int>>> kTones = {
    {2.0, {0, 1, 3}}, {8.0, {0, 1, 2, 4}}, {16.0, {0, 1, 2, 3, 4, 5}}, {32.0, {0, 2, 3, 5}}};

SignalBlock hexavariate(double rate, int64_t n) {
  SignalBlock b = makeBlock(6, n, rate);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.3);
  for (const auto& [f, chans] : kTones)
    for (int c : chans)
      for (int64_t i = 0; i < n; ++i)
        b.channel(static_cast<std::size_t>(c))[i] +=
            static_cast<float>(std::sin(2 * kPi * f * static_cast<double>(i) / rate + c));
  for (int c = 0; c < 3; ++c)
    for (int64_t i = 0; i < n; ++i)
      b.channel(static_cast<std::size_t>(c))[i] += static_cast<float>(noise(rng));
  return b;
}

// Amplitude of the f Hz component of row r (least-squares sine and cosine fit).
double toneAmplitude(const EmdChannelModes& m, int r, int64_t n, double rate, double f) {
  double s = 0, c = 0;
  const float* x = m.row(r, n);
  for (int64_t i = 0; i < n; ++i) {
    const double ph = 2 * kPi * f * static_cast<double>(i) / rate;
    s += x[i] * std::sin(ph);
    c += x[i] * std::cos(ph);
  }
  return 2 * std::hypot(s, c) / static_cast<double>(n);
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
    if (dims == 32) EXPECT_NEAR(meanAbs1 / K, 0.156, 0.01);
    if (dims >= 6) EXPECT_LT(meanAbs1 / K, 0.4) << dims << " dims";
  }
}

TEST(MemdCpu, ModeAlignmentHexavariate) {
  const double rate = 256;
  const int64_t n = 2048;
  const SignalBlock b = hexavariate(rate, n);
  JobContext ctx;
  const MemdResult r = memdCpu(b, MemdParams{}, 2, ctx);
  ASSERT_EQ(r.channels.size(), 6u);
  EXPECT_EQ(r.directions, 64);
  const int rows = r.channels[0].rows;
  ASSERT_GE(rows, 5);
  for (const auto& m : r.channels) EXPECT_EQ(m.rows, rows);
  for (const auto& [f, chans] : kTones) {
    std::vector<int> where;
    for (int c : chans) {
      const EmdChannelModes& m = r.channels[static_cast<std::size_t>(c)];
      int best = 0;
      double bestA = -1;
      for (int k = 0; k < rows - 1; ++k) {
        const double a = toneAmplitude(m, k, n, rate, f);
        if (a > bestA) {
          bestA = a;
          best = k;
        }
      }
      where.push_back(best);
      EXPECT_GT(bestA, 0.6) << f << " Hz on channel " << c + 1 << " spread over IMFs";
    }
    for (std::size_t i = 1; i < where.size(); ++i)
      EXPECT_EQ(where[i], where[0])
          << f << " Hz: channel " << chans[i] + 1 << " has it in IMF " << where[i] + 1
          << ", channel " << chans[0] + 1 << " in IMF " << where[0] + 1;
  }
  // Scales ordered: higher tones in earlier IMFs.
  auto imfOf = [&](double f) {
    int best = 0;
    double bestA = -1;
    for (int k = 0; k < rows - 1; ++k) {
      const double a = toneAmplitude(r.channels[0], k, n, rate, f);
      if (a > bestA) bestA = a, best = k;
    }
    return best;
  };
  EXPECT_LT(imfOf(32), imfOf(16));
  EXPECT_LT(imfOf(16), imfOf(8));
  EXPECT_LT(imfOf(8), imfOf(2));
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
