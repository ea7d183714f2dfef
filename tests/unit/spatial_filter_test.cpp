// Spatial filters against closed forms: the CAR identities (rows and
// outputs sum to zero, B*B = B, a common signal vanishes), the matrix product against
// a naive double loop, Laplacian neighbour sets of known 10-10 sites (the textbook sets, McFarland
// et al. 1997), a constant field giving zero, a linear field on an exactly symmetric ring giving
// (1 - cos theta) v(centre), user-matrix files read, written and refused with their line and
// column, and missing positions refused with the channel names.
#include "engine/spatial/spatial_filter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "engine/montage/position_files.h"
#include "error_message_support.h"
#include "montage_1010_support.h"

namespace modescope {
namespace {

using test_support::montage1010;

std::vector<std::size_t> all(const std::vector<ChannelInfo>& channels) {
  std::vector<std::size_t> s(channels.size());
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = i;
  return s;
}

std::size_t indexOf(const std::vector<ChannelInfo>& channels, const std::string& name) {
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].name == name) return i;
  }
  ADD_FAILURE() << name << " is not in the bundled 10-10 table";
  return 0;
}

std::set<std::string> neighbourNames(const std::vector<ChannelInfo>& channels,
                                     const std::vector<std::vector<std::size_t>>& nb,
                                     const std::string& site) {
  std::set<std::string> names;
  for (std::size_t j : nb[indexOf(channels, site)]) names.insert(channels[j].name);
  return names;
}

SignalBlock randomBlock(std::size_t channels, int64_t samples, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 50.0f);
  SignalBlock b;
  b.sampleRate = 160.0;
  b.samples = samples;
  for (std::size_t c = 0; c < channels; ++c) b.channels.push_back(c);
  b.data.resize(channels * static_cast<std::size_t>(samples));
  for (auto& v : b.data) v = g(rng);
  return b;
}

std::vector<ChannelInfo> unnamedChannels(std::size_t n) {
  std::vector<ChannelInfo> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i].label = c[i].name = "ch" + std::to_string(i + 1);
  return c;
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("modescope_spatial_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string writeText(const std::string& name, const std::string& text) {
  const std::string path = tempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// ---- Common average reference -------------------------------------------------------------

TEST(SpatialFilter, CarMatrixIdentities) {
  const auto channels = unnamedChannels(9);
  const std::vector<std::size_t> sel = {0, 2, 3, 5, 6, 8, 1};
  const SpatialFilter f = commonAverageReference(channels, sel);
  const std::size_t c = sel.size();
  ASSERT_EQ(f.outputCount(), c);
  ASSERT_EQ(f.inputCount(), c);
  EXPECT_EQ(f.inputChannels, sel);
  // Weights are 1 - 1/C and -1/C, each within one rounding of double: sums over C terms are
  // therefore within C ulps of 0.
  for (std::size_t r = 0; r < c; ++r) {
    double s = 0;
    for (std::size_t k = 0; k < c; ++k) s += f.weight(r, k);
    EXPECT_NEAR(s, 0.0, 1e-15 * c);
    EXPECT_DOUBLE_EQ(f.weight(r, r), 1.0 - 1.0 / c);
  }
  // B*B = B (a projection).
  for (std::size_t r = 0; r < c; ++r) {
    for (std::size_t k = 0; k < c; ++k) {
      double s = 0;
      for (std::size_t m = 0; m < c; ++m) s += f.weight(r, m) * f.weight(m, k);
      EXPECT_NEAR(s, f.weight(r, k), 1e-15 * c);
    }
  }
  EXPECT_EQ(f.outputNames[0], "ch1");
  EXPECT_EQ(f.outputNames[1], "ch3");
}

TEST(SpatialFilter, CarAppliedOutputsSumToZeroAndIsIdempotent) {
  const auto channels = unnamedChannels(16);
  const SignalBlock in = randomBlock(16, 5000, 7);  // crosses the 4096-sample chunk boundary
  const SpatialFilter f = commonAverageReference(channels, all(channels));
  const SignalBlock once = applySpatialFilter(f, in);
  ASSERT_EQ(once.channels.size(), 16u);
  ASSERT_EQ(once.samples, 5000);
  // The outputs are float32: each carries a rounding of at most 2^-24 of its magnitude (values
  // ~50, at most ~300), so the sum of 16 is within 16 * 300 * 6e-8 ~ 3e-4.
  for (int64_t t = 0; t < once.samples; ++t) {
    double s = 0;
    for (std::size_t c = 0; c < 16; ++c) s += once.channel(c)[t];
    ASSERT_NEAR(s, 0.0, 3e-4) << "sample " << t;
  }
  // CAR twice equals CAR once (B*B = B); the second pass sees the float-rounded first output,
  // whose mean is within the bound above / 16, so outputs agree to ~2e-5 absolute.
  SignalBlock again = applySpatialFilter(f, once);
  for (std::size_t i = 0; i < once.data.size(); ++i) {
    ASSERT_NEAR(again.data[i], once.data[i], 3e-5) << "index " << i;
  }
}

TEST(SpatialFilter, CarOfACommonSignalIsZero) {
  const auto channels = unnamedChannels(12);
  SignalBlock in = randomBlock(12, 300, 3);
  for (std::size_t c = 1; c < 12; ++c) {
    std::copy(in.channel(0), in.channel(0) + 300, in.channel(c));
  }
  const SignalBlock out = applySpatialFilter(commonAverageReference(channels, all(channels)), in);
  // In double, x(1 - 1/C) + (C - 1) x (-1/C) cancels to a few ulps of |x| (<= ~250): 1e-12.
  for (float v : out.data) ASSERT_NEAR(v, 0.0f, 1e-12);
}

// ---- Matrix product ----------------------------------------------------------------------

TEST(SpatialFilter, ApplyMatchesANaiveDoubleProductAndMapsChannels) {
  const std::size_t cin = 8, cout = 5;
  const auto channels = unnamedChannels(10);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  SpatialFilter f;
  f.inputChannels = {9, 0, 4, 2, 7, 1, 3, 5};
  for (std::size_t c : f.inputChannels) f.inputNames.push_back(channels[c].name);
  for (std::size_t r = 0; r < cout; ++r) f.outputNames.push_back("o" + std::to_string(r));
  for (std::size_t i = 0; i < cin * cout; ++i) f.matrix.push_back(u(rng));

  // The block holds every recording channel, in its own order, channel 6 and 8 unused.
  SignalBlock in = randomBlock(10, 4500, 5);
  in.channels = {3, 1, 4, 0, 5, 9, 2, 6, 8, 7};
  in.firstSample = 1234;
  const SignalBlock out = applySpatialFilter(f, in);
  ASSERT_EQ(out.channels.size(), cout);
  EXPECT_EQ(out.firstSample, 1234);
  EXPECT_EQ(out.sampleRate, in.sampleRate);
  for (std::size_t r = 0; r < cout; ++r) {
    for (int64_t t = 0; t < in.samples; t += 7) {
      double ref = 0;
      for (std::size_t c = 0; c < cin; ++c) {
        const auto row = std::find(in.channels.begin(), in.channels.end(), f.inputChannels[c]) -
                         in.channels.begin();
        ref += f.weight(r, c) * in.channel(static_cast<std::size_t>(row))[t];
      }
      // Only the final float32 store rounds: 2^-24 relative, plus the double sums' ~1e-15.
      ASSERT_NEAR(out.channel(r)[t], ref, 1e-7 * std::abs(ref) + 1e-12) << r << "," << t;
    }
  }

  SignalBlock partial = in;
  partial.channels = {3, 1, 4, 0, 5, 6, 2, 6, 8, 7};  // channel 9 ("ch10") absent
  const std::string m =
      test_support::messageOf<InvalidParameterError>([&] { applySpatialFilter(f, partial); });
  EXPECT_NE(m.find("ch10"), std::string::npos) << m;

  SpatialFilter unbound = f;
  unbound.inputChannels.clear();
  EXPECT_THROW(applySpatialFilter(unbound, in), InvalidParameterError);
}

// ---- Laplacian neighbours ----------------------------------------------------------------

TEST(SpatialFilter, LaplacianNeighbourSetsOfKnown1010Sites) {
  const auto channels = montage1010();
  const auto small = laplacianNeighbours(channels, all(channels), LaplacianSize::Small);
  const auto large = laplacianNeighbours(channels, all(channels), LaplacianSize::Large);
  using S = std::set<std::string>;
  // The textbook sets: nearest ring at 10 % spacing, next ring at 20 % (McFarland et al. 1997).
  EXPECT_EQ(neighbourNames(channels, small, "C3"), (S{"FC3", "C1", "CP3", "C5"}));
  EXPECT_EQ(neighbourNames(channels, large, "C3"), (S{"F3", "Cz", "P3", "T7"}));
  EXPECT_EQ(neighbourNames(channels, small, "C4"), (S{"FC4", "C2", "CP4", "C6"}));
  EXPECT_EQ(neighbourNames(channels, large, "C4"), (S{"F4", "Cz", "P4", "T8"}));
  EXPECT_EQ(neighbourNames(channels, small, "Cz"), (S{"FCz", "C1", "C2", "CPz"}));
  EXPECT_EQ(neighbourNames(channels, large, "Cz"), (S{"Fz", "C3", "C4", "Pz"}));
  // Edge sites keep only the axis neighbours that exist: T9 lies below T7, nothing beyond T9;
  // the bundled 10-10 table has no AF3, so Fp1 keeps AF7 and Fpz, not the diagonal AFz (24 deg).
  EXPECT_EQ(neighbourNames(channels, small, "T7"), (S{"FT7", "C5", "TP7", "T9"}));
  EXPECT_EQ(neighbourNames(channels, large, "T7"), (S{"F7", "C3", "P7"}));
  EXPECT_EQ(neighbourNames(channels, small, "Fp1"), (S{"AF7", "Fpz"}));
  // On the 10-20 subset alone the nearest ring of C3 is the 20 % ring.
  std::vector<std::size_t> sel1020;
  for (const char* n : {"Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8", "T7", "C3", "Cz", "C4", "T8",
                        "P7", "P3", "Pz", "P4", "P8", "O1", "O2"}) {
    sel1020.push_back(indexOf(channels, n));
  }
  const auto small1020 = laplacianNeighbours(channels, sel1020, LaplacianSize::Small);
  const std::size_t c3 = static_cast<std::size_t>(
      std::find(sel1020.begin(), sel1020.end(), indexOf(channels, "C3")) - sel1020.begin());
  S names;
  for (std::size_t j : small1020[c3]) names.insert(channels[sel1020[j]].name);
  EXPECT_EQ(names, (S{"F3", "Cz", "P3", "T7"}));
}

TEST(SpatialFilter, LaplacianOfAConstantFieldIsZero) {
  const auto channels = montage1010();
  SignalBlock in;
  in.samples = 3;
  in.channels = all(channels);
  in.data.assign(channels.size() * 3, 42.5f);
  for (auto size : {LaplacianSize::Small, LaplacianSize::Large}) {
    for (auto w : {LaplacianWeighting::Equal, LaplacianWeighting::InverseDistance}) {
      const SpatialFilter f = surfaceLaplacian(channels, all(channels), size, w);
      const SignalBlock out = applySpatialFilter(f, in);
      // Each row is 1 minus weights summing to 1 in double: |out| <= a few ulps of 42.5.
      for (float v : out.data) ASSERT_NEAR(v, 0.0f, 1e-12);
    }
  }
}

TEST(SpatialFilter, LaplacianOfALinearFieldOnASymmetricRing) {
  // Centre p and two rings at angles theta and 2 theta along +-north and +-east. For a linear field
  // v(q) = a . q, each opposite pair averages to cos(angle) v(p) exactly (q1 + q2 = 2 cos p), so
  // the Laplacian at p is (1 - cos theta) v(p) (small) and (1 - cos 2 theta) v(p) (large), for
  // both weightings (all ring distances equal).
  const double theta = 0.31;
  const double pr[3] = {-0.55, 0.12, 0.83};
  const double pn = std::sqrt(pr[0] * pr[0] + pr[1] * pr[1] + pr[2] * pr[2]);
  const double p[3] = {pr[0] / pn, pr[1] / pn, pr[2] / pn};
  double north[3] = {-p[1] * p[0], 1 - p[1] * p[1], -p[1] * p[2]};
  const double nn = std::sqrt(north[0] * north[0] + north[1] * north[1] + north[2] * north[2]);
  for (double& v : north) v /= nn;
  const double east[3] = {north[1] * p[2] - north[2] * p[1], north[2] * p[0] - north[0] * p[2],
                          north[0] * p[1] - north[1] * p[0]};
  std::vector<ChannelInfo> channels;
  auto add = [&](double ang, const double* dir, double sign) {
    ChannelInfo c;
    c.name = c.label = "s" + std::to_string(channels.size());
    c.position = Position3{std::cos(ang) * p[0] + sign * std::sin(ang) * dir[0],
                           std::cos(ang) * p[1] + sign * std::sin(ang) * dir[1],
                           std::cos(ang) * p[2] + sign * std::sin(ang) * dir[2]};
    channels.push_back(c);
  };
  add(0.0, north, 1.0);
  for (double ring : {theta, 2 * theta}) {
    add(ring, north, 1.0);
    add(ring, north, -1.0);
    add(ring, east, 1.0);
    add(ring, east, -1.0);
  }
  const double a[3] = {0.7, -1.3, 2.1};
  SignalBlock in;
  in.samples = 1;
  in.channels = all(channels);
  for (const auto& c : channels) {
    in.data.push_back(
        static_cast<float>(a[0] * c.position->x + a[1] * c.position->y + a[2] * c.position->z));
  }
  const double vp = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
  for (auto w : {LaplacianWeighting::Equal, LaplacianWeighting::InverseDistance}) {
    const auto small = surfaceLaplacian(channels, all(channels), LaplacianSize::Small, w);
    const auto large = surfaceLaplacian(channels, all(channels), LaplacianSize::Large, w);
    for (std::size_t j = 1; j <= 4; ++j) EXPECT_NEAR(small.weight(0, j), -0.25, 1e-12);
    for (std::size_t j = 5; j <= 8; ++j) EXPECT_NEAR(large.weight(0, j), -0.25, 1e-12);
    // The inputs are float32 values of the field (relative rounding 6e-8 of |v| <= 2.6), so the
    // combination is within ~3e-7 of the exact closed form.
    EXPECT_NEAR(applySpatialFilter(small, in).data[0], (1 - std::cos(theta)) * vp, 3e-7);
    EXPECT_NEAR(applySpatialFilter(large, in).data[0], (1 - std::cos(2 * theta)) * vp, 3e-7);
  }
}

TEST(SpatialFilter, LaplacianOfXAtCzIsZeroOnTheMirrorSymmetricMontage) {
  // v = x is odd under the left-right mirror, and Cz's rings (C1/C2, C3/C4 with FCz/CPz, Fz/Pz on
  // the midline) are mirror pairs in the bundled table, so the Laplacian of v = x at Cz is 0 up to
  // the table's 4-decimal rounding (weights differ by <1e-4 relative for inverse distance).
  const auto channels = montage1010();
  SignalBlock in;
  in.samples = 1;
  in.channels = all(channels);
  for (const auto& c : channels) in.data.push_back(static_cast<float>(c.position->x));
  const std::size_t cz = indexOf(channels, "Cz");
  for (auto size : {LaplacianSize::Small, LaplacianSize::Large}) {
    for (auto w : {LaplacianWeighting::Equal, LaplacianWeighting::InverseDistance}) {
      const SignalBlock out =
          applySpatialFilter(surfaceLaplacian(channels, all(channels), size, w), in);
      EXPECT_NEAR(out.data[cz], 0.0, 1e-4);
    }
  }
  // Inverse-distance weights are (1/d_j) / sum (1/d_j) with d the great-circle angle.
  const auto f = surfaceLaplacian(channels, all(channels), LaplacianSize::Small,
                                  LaplacianWeighting::InverseDistance);
  const std::size_t c3 = indexOf(channels, "C3");
  const auto& p3 = *channels[c3].position;
  double total = 0, wFc3 = 0;
  for (const char* n : {"FC3", "C1", "CP3", "C5"}) {
    const auto& q = *channels[indexOf(channels, n)].position;
    const double d = std::acos(std::clamp(p3.x * q.x + p3.y * q.y + p3.z * q.z, -1.0, 1.0));
    total += 1 / d;
    if (std::string(n) == "FC3") wFc3 = 1 / d;
  }
  EXPECT_NEAR(f.weight(c3, indexOf(channels, "FC3")), -wFc3 / total, 1e-9);
}

TEST(SpatialFilter, LaplacianRefusesMissingPositionsAndIsolatedChannels) {
  auto channels = montage1010();
  const std::size_t fp1 = indexOf(channels, "Fp1"), oz = indexOf(channels, "Oz");
  channels[fp1].position.reset();
  channels[oz].position.reset();
  const std::string m = test_support::messageOf<InvalidInputError>(
      [&] { surfaceLaplacian(channels, all(channels), LaplacianSize::Small); });
  EXPECT_NE(m.find("Fp1"), std::string::npos) << m;
  EXPECT_NE(m.find("Oz"), std::string::npos) << m;
  EXPECT_NE(m.find("montage"), std::string::npos) << m;
  EXPECT_NE(m.find("2 of"), std::string::npos) << m;

  // A selection of two far-apart sites: the large ring of C3 is empty.
  const auto full = montage1010();
  const std::vector<std::size_t> sel = {indexOf(full, "C3"), indexOf(full, "C1")};
  EXPECT_NO_THROW(surfaceLaplacian(full, sel, LaplacianSize::Small));
  const std::string m2 = test_support::messageOf<InvalidParameterError>(
      [&] { surfaceLaplacian(full, sel, LaplacianSize::Large); });
  EXPECT_NE(m2.find("C3"), std::string::npos) << m2;
  EXPECT_THROW(commonAverageReference(full, {}), InvalidParameterError);
  EXPECT_THROW(commonAverageReference(full, {1, 1}), InvalidParameterError);
}

// ---- User matrices -----------------------------------------------------------------------

TEST(SpatialFilter, UserMatrixRoundTripsExactly) {
  const auto channels = montage1010();
  std::vector<std::size_t> sel;
  for (const char* n : {"FC3", "C5", "C3", "C1", "CP3", "Cz", "F3", "P3", "T7"}) {
    sel.push_back(indexOf(channels, n));
  }
  const SpatialFilter lap =
      surfaceLaplacian(channels, sel, LaplacianSize::Small, LaplacianWeighting::InverseDistance);
  const std::string path = tempPath("roundtrip.tsv");
  saveSpatialFilter(lap, path);
  SpatialFilter back = loadSpatialFilter(path);
  EXPECT_EQ(back.inputNames, lap.inputNames);
  EXPECT_EQ(back.outputNames, lap.outputNames);
  EXPECT_EQ(back.matrix, lap.matrix);  // 17 significant digits round-trip doubles exactly
  EXPECT_TRUE(back.inputChannels.empty());
  bindSpatialFilter(back, channels);
  EXPECT_EQ(back.inputChannels, sel);
  std::remove(path.c_str());
}

TEST(SpatialFilter, UserMatrixLayouts) {
  const auto channels = unnamedChannels(4);
  // CSV with a corner cell, comments, blank lines, CRLF and a leading '+'.
  const std::string csv = writeText(
      "a.csv", "# bipolar pairs\r\noutput,ch1,ch2,ch3\r\n\r\nb12,1,-1,0\r\nb23,0,+1,-1e0\r\n");
  SpatialFilter f = loadSpatialFilter(csv);
  EXPECT_EQ(f.inputNames, (std::vector<std::string>{"ch1", "ch2", "ch3"}));
  EXPECT_EQ(f.outputNames, (std::vector<std::string>{"b12", "b23"}));
  EXPECT_EQ(f.matrix, (std::vector<double>{1, -1, 0, 0, 1, -1}));
  bindSpatialFilter(f, channels);
  EXPECT_EQ(f.inputChannels, (std::vector<std::size_t>{0, 1, 2}));

  // Whitespace header without a corner cell.
  const std::string ws = writeText("b.txt", "ch4 ch2\nx  0.5   0.25\n");
  f = loadSpatialFilter(ws);
  EXPECT_EQ(f.inputNames, (std::vector<std::string>{"ch4", "ch2"}));
  EXPECT_EQ(f.matrix, (std::vector<double>{0.5, 0.25}));
  bindSpatialFilter(f, channels);
  EXPECT_EQ(f.inputChannels, (std::vector<std::size_t>{3, 1}));

  // Plain numbers (tab-separated): columns map to the selection in order.
  const std::string plain = writeText("c.tsv", "1\t0\t-1\n0.5\t0.5\t0\n");
  f = loadSpatialFilter(plain);
  EXPECT_EQ(f.outputNames, (std::vector<std::string>{"out1", "out2"}));
  EXPECT_EQ(f.inputCount(), 3u);
  bindSpatialFilter(f, channels, {2, 0, 3});
  EXPECT_EQ(f.inputChannels, (std::vector<std::size_t>{2, 0, 3}));
  EXPECT_THROW(bindSpatialFilter(f, channels, {0, 1}), InvalidInputError);
  for (const auto& p : {csv, ws, plain}) std::remove(p.c_str());
}

TEST(SpatialFilter, BadUserMatricesAreRefusedWithLineAndColumn) {
  struct Case {
    const char* name;
    const char* text;
    std::vector<std::string> inMessage;
  };
  const std::vector<Case> cases = {
      {"bad_number.csv",
       "output,C3,C4\nlap,1,-0.5\nx,0.5,abc\n",
       {"line 3, column 3", "'abc'", "C4"}},
      {"short_row.csv", "output,C3,C4\nlap,1,-0.5\nx,0.5\n", {"line 3", "2 cells", "3 cells"}},
      {"plain_ragged.txt", "1 2 3\n4 5\n", {"line 2", "2 cells"}},
      {"nan.tsv", "output\tC3\nlap\tnan\n", {"line 2, column 2", "finite"}},
      {"dup_input.csv", "output,C3,c3\nlap,1,-1\n", {"line 1, column 3", "second time"}},
      {"dup_output.csv", "output,C3\nlap,1\nlap,2\n", {"line 3", "second time"}},
      {"empty.csv", "# nothing\n\n", {"no matrix rows"}},
      {"header_only.csv", "output,C3,C4\n", {"line 1", "header"}},
      {"header_mismatch.csv", "output,C3,C4\nlap,1,2,3,4\n", {"line 2", "5 cells"}},
  };
  for (const auto& c : cases) {
    const std::string path = writeText(c.name, c.text);
    const std::string m =
        test_support::messageOf<InvalidInputError>([&] { loadSpatialFilter(path); });
    EXPECT_NE(m.find(c.name), std::string::npos) << m;
    for (const auto& part : c.inMessage)
      EXPECT_NE(m.find(part), std::string::npos) << c.name << ": " << m;
    std::remove(path.c_str());
  }
  EXPECT_THROW(loadSpatialFilter(tempPath("does_not_exist.csv")), InvalidInputError);

  // Names that match no channel are listed.
  SpatialFilter f;
  f.inputNames = {"C3", "Xyz", "Q9"};
  f.outputNames = {"o"};
  f.matrix = {1, 0, 0};
  const std::string m =
      test_support::messageOf<InvalidInputError>([&] { bindSpatialFilter(f, montage1010()); });
  EXPECT_NE(m.find("Xyz, Q9"), std::string::npos) << m;
}

}  // namespace
}  // namespace modescope
