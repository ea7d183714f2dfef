// Spherical-spline interpolation of bad channels (engine/spatial/channel_interpolation.h,
// app/core/interpolation_job.h) against what the method must do whatever its implementation:
// a constant field is reproduced exactly (rows of W sum to 1, the c0 term), a smooth field on the
// 10-10 montage is recovered closely at a removed electrode, lambda = 0 is exact at the sources,
// the job leaves every other channel bit for bit as it was, and bad input is refused naming the
// channel. Agreement with MNE-Python's numbers is tests/integration/cli_interpolate_test.cpp.
#include "engine/spatial/channel_interpolation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

#include "app/core/interpolation_job.h"
#include "engine/core/error.h"
#include "error_message_support.h"
#include "montage_1010_support.h"

namespace modescope {
namespace {

// The 10-10 montage at 100 Hz; the plan normalises positions itself, so they are given as the
// shared helper makes them.
std::vector<ChannelInfo> montage1010() {
  std::vector<ChannelInfo> channels = test_support::montage1010();
  for (ChannelInfo& c : channels) c.sampleRate = 100.0;
  return channels;
}

std::size_t indexOf(const std::vector<ChannelInfo>& channels, const std::string& name) {
  for (std::size_t i = 0; i < channels.size(); ++i)
    if (channels[i].name == name) return i;
  ADD_FAILURE() << name << " is not in the bundled 10-10 table";
  return 0;
}

Position3 unit(const Position3& p) {
  const double n = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  return {p.x / n, p.y / n, p.z / n};
}

// A smooth scalp field: a dipole-like low-order pattern.
double field(const Position3& p) {
  const Position3 u = unit(p);
  return 3.0 * u.x - 2.0 * u.y * u.z + u.z * u.z + 0.5;
}

TEST(ChannelInterpolation, RowsSumToOneSoConstantsAreReproduced) {
  const auto channels = montage1010();
  const std::vector<std::size_t> bad = {indexOf(channels, "C3"), indexOf(channels, "Pz"),
                                        indexOf(channels, "Fp1")};
  const ChannelInterpolationPlan plan = planChannelInterpolation(channels, bad);
  ASSERT_EQ(plan.filter.outputCount(), 3u);
  ASSERT_EQ(plan.filter.inputCount(), channels.size() - 3);
  for (std::size_t r = 0; r < 3; ++r) {
    double sum = 0.0;
    for (std::size_t c = 0; c < plan.filter.inputCount(); ++c) sum += plan.filter.weight(r, c);
    EXPECT_NEAR(sum, 1.0, 1e-9) << plan.filter.outputNames[r];
  }
  EXPECT_EQ(plan.filter.outputNames[0], "C3");
}

TEST(ChannelInterpolation, RecoversASmoothFieldAtARemovedElectrode) {
  const auto channels = montage1010();
  for (const char* name : {"C3", "Cz", "P4", "Oz"}) {
    const std::size_t b = indexOf(channels, name);
    const ChannelInterpolationPlan plan = planChannelInterpolation(channels, {b});
    double estimate = 0.0;
    for (std::size_t c = 0; c < plan.sources.size(); ++c)
      estimate += plan.filter.weight(0, c) * field(*channels[plan.sources[c]].position);
    // The field spans about 7 units over the head; a neighbour-only guess (nearest electrode)
    // misses by ~0.3 here, the spline by far less.
    EXPECT_NEAR(estimate, field(*channels[b].position), 0.02) << name;
  }
}

TEST(ChannelInterpolation, LambdaZeroIsExactAtTheSources) {
  const auto channels = montage1010();
  std::vector<Position3> from, to;
  for (std::size_t i = 0; i < 20; ++i) from.push_back(*channels[i].position);
  to = {from[3], from[11]};
  const std::vector<double> w = splineInterpolationMatrix(from, to, {4, 50, 0.0});
  for (std::size_t c = 0; c < from.size(); ++c) {
    EXPECT_NEAR(w[c], c == 3 ? 1.0 : 0.0, 1e-6);
    EXPECT_NEAR(w[from.size() + c], c == 11 ? 1.0 : 0.0, 1e-6);
  }
  // With MNE's lambda the fit smooths: the weight on the electrode itself falls below 1.
  const std::vector<double> smooth = splineInterpolationMatrix(from, to, {});
  EXPECT_LT(smooth[3], 0.999);
}

TEST(ChannelInterpolation, SourcesAreGoodEegChannelsWithPositionsAtTheRate) {
  auto channels = montage1010();
  const std::size_t c3 = indexOf(channels, "C3"), cz = indexOf(channels, "Cz");
  const std::size_t eog = indexOf(channels, "Fp2"), noPos = indexOf(channels, "O1");
  const std::size_t otherRate = indexOf(channels, "T8"), excluded = indexOf(channels, "F4");
  channels[eog].type = ChannelType::EOG;
  channels[noPos].position.reset();
  channels[otherRate].sampleRate = 200.0;
  const auto plan = planChannelInterpolation(channels, {c3}, {}, {excluded});
  for (std::size_t s : plan.sources) {
    EXPECT_NE(s, c3);
    EXPECT_NE(s, eog);
    EXPECT_NE(s, noPos);
    EXPECT_NE(s, otherRate);
    EXPECT_NE(s, excluded);
  }
  EXPECT_EQ(plan.sources.size(), channels.size() - 5);  // C3 and the four left out
  EXPECT_NE(std::find(plan.sources.begin(), plan.sources.end(), cz), plan.sources.end());
  EXPECT_EQ(plan.filter.inputChannels, plan.sources);
}

TEST(ChannelInterpolation, RefusesWhatItCannotDoNamingTheChannel) {
  using test_support::messageOf;
  auto channels = montage1010();
  const std::size_t c3 = indexOf(channels, "C3");
  channels[c3].position.reset();
  std::string m =
      messageOf<InvalidParameterError>([&] { planChannelInterpolation(channels, {c3}); });
  EXPECT_NE(m.find("C3 without an electrode position"), std::string::npos) << m;
  m = messageOf<InvalidParameterError>([&] { planChannelInterpolation(channels, {}); });
  EXPECT_NE(m.find("--bad"), std::string::npos) << m;
  m = messageOf<InvalidParameterError>([&] { planChannelInterpolation(channels, {2, 2}); });
  EXPECT_NE(m.find("listed twice"), std::string::npos) << m;
  std::vector<ChannelInfo> few(channels.begin(), channels.begin() + 3);
  m = messageOf<InvalidParameterError>([&] { planChannelInterpolation(few, {0}); });
  EXPECT_NE(m.find("at least 3 good EEG channels"), std::string::npos) << m;
  m = messageOf<InvalidParameterError>([&] {
    planChannelInterpolation(montage1010(), {1}, {4, 0, 1e-5});
  });
  EXPECT_NE(m.find("terms"), std::string::npos) << m;
}

TEST(InterpolationJob, ReplacesOnlyTheBadChannels) {
  auto channels = montage1010();
  channels.resize(24);
  const int64_t n = 300;
  std::vector<std::vector<float>> samples(channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i) {
    channels[i].sampleCount = n;
    samples[i].resize(static_cast<std::size_t>(n));
    const double v = field(*channels[i].position);
    for (int64_t t = 0; t < n; ++t)
      samples[i][static_cast<std::size_t>(t)] = static_cast<float>(v * std::sin(0.05 * t) + 7.0);
  }
  const std::size_t bad = 10;
  samples[bad].assign(static_cast<std::size_t>(n), 999.0f);  // the artefact
  auto rec = std::make_shared<Recording>();
  rec->channels = channels;
  rec->source = std::make_shared<InMemorySource>(samples);
  JobContext ctx;
  auto backend = makeCpuBackend(1);
  const InterpolationJobResult r = runInterpolationJob(rec, {.bad = {bad}}, *backend, ctx);
  ASSERT_EQ(r.recording->channelCount(), channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const std::vector<float> got = r.recording->readChannel(i, 0, n);
    if (i == bad) {
      const double v = field(*channels[i].position);
      for (int64_t t = 0; t < n; t += 37)
        EXPECT_NEAR(got[static_cast<std::size_t>(t)], v * std::sin(0.05 * t) + 7.0, 0.1) << t;
    } else {
      EXPECT_EQ(got, samples[i]) << channels[i].name;
    }
  }
  EXPECT_EQ(r.provenance.method, "spherical spline interpolation");
  bool named = false;
  for (const auto& [k, v] : r.provenance.parameters)
    named |= k == "interpolated" && v == channels[bad].name;
  EXPECT_TRUE(named) << channels[bad].name;
}

}  // namespace
}  // namespace modescope
