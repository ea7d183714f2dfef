// Spherical splines and the scalp disc against closed forms: the Legendre kernel against the
// closed form of its order-1 series, exact reproduction of electrode values and of a constant
// field, first-degree spherical harmonics (v = x, v = z) recovered at held-out 10-05 sites, the
// projection of known sites, the grid against the spline evaluated directly, and bad input.
#include "engine/montage/scalp_interpolation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>
#include <random>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "engine/montage/channel_names.h"
#include "engine/montage/position_files.h"
#include "error_message_support.h"

namespace modescope {
namespace {

struct Site {
  std::string name;
  Position3 position;
};

// A bundled table read with the position-file reader (an independent path from channel_names).
std::vector<Site> bundled(const std::string& which) {
  const ElectrodeLocations file =
      readElectrodeLocations(std::string(MODESCOPE_SOURCE_DIR) +
                             "/resources/montages/eeg_positions_standard_" + which + "_3D.tsv");
  std::vector<Site> sites;
  for (const auto& e : file.electrodes) {
    if (e.label == "NAS" || e.label == "LPA" || e.label == "RPA") continue;
    sites.push_back({e.label, e.position});
  }
  return sites;
}

std::vector<Position3> positionsOf(const std::vector<Site>& sites) {
  std::vector<Position3> p;
  for (const auto& s : sites) p.push_back(s.position);
  return p;
}

Position3 unitOf(const Position3& p) {
  const double n = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  return {p.x / n, p.y / n, p.z / n};
}

template <class F>
std::vector<double> field(const std::vector<Position3>& at, F f) {
  std::vector<double> v;
  for (const auto& p : at) v.push_back(f(unitOf(p)));
  return v;
}

// sum_{n>=1} (2n + 1) / (n (n + 1)) P_n(x) = -1 - ln((1 - x) / 2) for |x| < 1 (the Green's function
// of the Laplace-Beltrami operator on the sphere; from the generating function of P_n integrated
// once). The coefficients c_n ~ 2/n decrease monotonically and the partial sums of P_n(x) are
// bounded for |x| < 1 (by about 2 / sqrt(2 (1 - x)) for the x used here), so by Dirichlet's test
// the tail after N terms is below 2 c_(N+1) sup |partial sums| ~ 4 / N * 3 = 6e-5 for N = 2e5.
// A wrong recurrence or factor errs by O(1).
TEST(SphericalSplineKernel, OrderOneMatchesClosedForm) {
  constexpr int kTerms = 200000;
  for (double x : {-0.9, -0.5, 0.0, 0.3, 0.7, 0.9}) {
    const double expected = (-1.0 - std::log((1.0 - x) / 2.0)) / (4.0 * std::numbers::pi);
    EXPECT_NEAR(sphericalSplineKernel(x, 1, kTerms), expected, 6e-5 / (4.0 * std::numbers::pi))
        << "x = " << x;
  }
}

// g(1) = 1/(4 pi) sum (2n + 1) / (n (n + 1))^m since P_n(1) = 1: a direct sum, independent of the
// recurrence.
TEST(SphericalSplineKernel, AtOneIsTheSumOfFactors) {
  double sum = 0.0;
  for (int n = 1; n <= 50; ++n) sum += (2.0 * n + 1.0) / std::pow(n * (n + 1.0), 4);
  EXPECT_NEAR(sphericalSplineKernel(1.0, 4, 50), sum / (4.0 * std::numbers::pi), 1e-15);
  // P_n(-1) = (-1)^n.
  double alternating = 0.0;
  for (int n = 1; n <= 50; ++n)
    alternating += (n % 2 ? -1.0 : 1.0) * (2.0 * n + 1.0) / std::pow(n * (n + 1.0), 4);
  EXPECT_NEAR(sphericalSplineKernel(-1.0, 4, 50), alternating / (4.0 * std::numbers::pi), 1e-15);
}

// With lambda = 0 the spline passes through the data. The 10-20 system (21 electrodes) gives a
// well-conditioned system (cond ~ 1e5 here); rounding then costs ~ cond * 1e-16 of the value
// range, so 1e-8 leaves a wide margin while a wrong system (a missing border row, a sign) errs
// by O(1).
TEST(SphericalSpline, ReproducesElectrodeValuesWithoutRegularisation) {
  const auto sites = positionsOf(bundled("1020"));
  ASSERT_EQ(sites.size(), 21u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-50.0, 50.0);
  std::vector<double> values(sites.size());
  for (double& v : values) v = u(rng);
  const SphericalSpline spline(sites, {4, 50, 0.0});
  const auto back = spline.evaluate(values, sites);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(back[i], values[i], 1e-8 * 100);
  // The evaluator (the precomputed matrix) agrees with the direct sum.
  const auto viaEvaluator = spline.evaluator(sites).evaluate(values);
  for (std::size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(viaEvaluator[i], values[i], 1e-8 * 100);
}

// The default (lambda = 0) passes through the data for the densest bundled set too: the 345
// 10-05 sites give a condition number ~3e13, so rounding costs up to ~3e13 * 2.2e-16 ~ 7e-3 of
// the value scale (observed ~2e-5); white noise is the hardest case (no smoothness to lean on).
TEST(SphericalSpline, DefaultOptionsReproduceNoiseOnThe1005Set) {
  const auto sites = positionsOf(bundled("1005"));
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> values(sites.size());
  for (double& v : values) v = n(rng);
  const SphericalSpline spline(sites);
  const auto back = spline.evaluate(values, sites);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(back[i], values[i], 7e-3 * 4.0);
}

// lambda > 0 smooths: on 64 10-10 sites G's smallest eigenvalues are ~2e-8, so lambda = 1e-7
// damps the rough part of white noise, and the fitted values carry clearly less energy than the
// data (a lambda that were ignored would reproduce the data exactly).
TEST(SphericalSpline, RegularisationSmoothsNoise) {
  const auto ten10 = positionsOf(bundled("1010"));
  const std::vector<Position3> sites(ten10.begin(), ten10.begin() + 64);
  std::mt19937 rng(9);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> values(sites.size());
  for (double& v : values) v = n(rng);
  const SphericalSpline spline(sites, {4, 50, 1e-7});
  const auto back = spline.evaluate(values, sites);
  double data = 0.0, fitted = 0.0, mean = 0.0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    data += (values[i] - mean) * (values[i] - mean);
    fitted += (back[i] - mean) * (back[i] - mean);
  }
  EXPECT_LT(fitted, 0.8 * data);
}

// A constant field is c = 0, c0 = const for any lambda: exact everywhere on the sphere.
TEST(SphericalSpline, ReproducesAConstantField) {
  const auto sites = positionsOf(bundled("1010"));
  const SphericalSpline spline(sites);
  std::vector<double> values(sites.size(), 3.7);
  std::vector<Position3> anywhere;
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int i = 0; i < 200; ++i) anywhere.push_back({n(rng), n(rng), n(rng)});
  for (double v : spline.evaluate(values, anywhere)) EXPECT_NEAR(v, 3.7, 1e-9);
}

// First-degree spherical harmonics at 10-05 sites that are not in the fitted set. Along any great
// circle these fields are a cos(s) + b sin(s) with |second derivative| <= 1, so even piecewise-
// linear interpolation over spacing h errs by at most h^2 / 8; the spline (a smoother
// interpolant) must do at least as well. h: the 10-10 spacing is 10 % of the 180-degree
// nasion-inion arc (18 degrees), the 10-20 one 20 % on the main arcs but up to 36 degrees between
// neighbours (F7-T7); the held-out sites are inside the caps (z > 0.35, polar angle < 70 degrees),
// where the spline interpolates rather than extrapolates.
TEST(SphericalSpline, InterpolatesFirstDegreeHarmonicsAtHeldOutSites) {
  const auto all = bundled("1005");
  struct Case {
    const char* fitted;
    double spacingDegrees;
  };
  for (const Case c : {Case{"1010", 18.0}, Case{"1020", 36.0}}) {
    const auto fittedSites = bundled(c.fitted);
    std::set<std::string> fittedNames;
    for (const auto& s : fittedSites) fittedNames.insert(s.name);
    std::vector<Position3> heldOut;
    for (const auto& s : all) {
      if (!fittedNames.count(s.name) && unitOf(s.position).z > 0.35) heldOut.push_back(s.position);
    }
    ASSERT_GT(heldOut.size(), 30u) << c.fitted;
    const double h = c.spacingDegrees * std::numbers::pi / 180.0;
    const double tolerance = h * h / 8.0;
    const auto fitted = positionsOf(fittedSites);
    const SphericalSpline spline(fitted);
    for (int axis = 0; axis < 3; ++axis) {
      auto component = [axis](const Position3& p) {
        return axis == 0 ? p.x : axis == 1 ? p.y : p.z;
      };
      const auto got = spline.evaluate(field(fitted, component), heldOut);
      const auto want = field(heldOut, component);
      double worst = 0.0;
      for (std::size_t i = 0; i < heldOut.size(); ++i)
        worst = std::max(worst, std::abs(got[i] - want[i]));
      EXPECT_LT(worst, tolerance) << c.fitted << " axis " << axis;
    }
  }
}

// Leave every fifth 10-05 site out of the full set: a denser fit (spacing 5 % of the arc, 9
// degrees) recovers v = x + 2 z within h^2 / 8 * |second derivative bound| (sqrt(5)).
TEST(SphericalSpline, LeaveOutOnTheFull1005Set) {
  const auto all = positionsOf(bundled("1005"));
  std::vector<Position3> fitted, heldOut;
  for (std::size_t i = 0; i < all.size(); ++i) {
    ((i % 5 == 2 && unitOf(all[i]).z > 0.2) ? heldOut : fitted).push_back(all[i]);
  }
  auto f = [](const Position3& p) { return p.x + 2.0 * p.z; };
  const SphericalSpline spline(fitted);
  const auto got = spline.evaluate(field(fitted, f), heldOut);
  const auto want = field(heldOut, f);
  const double h = 9.0 * std::numbers::pi / 180.0;
  for (std::size_t i = 0; i < heldOut.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], std::sqrt(5.0) * h * h / 8.0) << i;
  }
}

// The 10-20 sites on the head circle: Fpz, T8, Oz, T7 lie at polar 72 degrees in the bundled
// frame (10 % of the nasion-inion arc above Nz/Iz), Cz at the vertex, Nz/Iz on the equator.
TEST(ScalpDisc, ProjectsKnownSites) {
  struct Want {
    const char* name;
    double x, y;
  };
  for (const Want w : {Want{"Cz", 0, 0}, Want{"Fpz", 0, 1}, Want{"T8", 1, 0}, Want{"Oz", 0, -1},
                       Want{"T7", -1, 0}, Want{"Fz", 0, 0.5}, Want{"C4", 0.5, 0},
                       Want{"Pz", 0, -0.5}, Want{"Nz", 0, 1.25}, Want{"Iz", 0, -1.25}}) {
    const auto p = standardPosition(w.name);
    ASSERT_TRUE(p) << w.name;
    const DiscPoint d = projectToDisc(*p);
    // The table's coordinates have 4 decimals: ~1e-4 rad, 1e-3 of a disc radius.
    EXPECT_NEAR(d.x, w.x, 2e-3) << w.name;
    EXPECT_NEAR(d.y, w.y, 2e-3) << w.name;
  }
  // Left hemisphere on the left, front at the top: F3 has x < 0, y > 0.
  const DiscPoint f3 = projectToDisc(*standardPosition("F3"));
  EXPECT_LT(f3.x, 0.0);
  EXPECT_GT(f3.y, 0.0);
  // Equidistant: a point at polar angle 36 degrees, azimuth 30 degrees, has radius 0.5.
  const double polar = 36.0 * std::numbers::pi / 180.0, az = std::numbers::pi / 6.0;
  const DiscPoint d = projectToDisc(
      {std::sin(polar) * std::cos(az), std::sin(polar) * std::sin(az), std::cos(polar)});
  EXPECT_NEAR(d.x, 0.5 * std::cos(az), 1e-12);
  EXPECT_NEAR(d.y, 0.5 * std::sin(az), 1e-12);
  // Scale does not matter; a zero vector has no projection.
  const DiscPoint scaled = projectToDisc({0.0, 0.0, 7.0});
  EXPECT_NEAR(scaled.x, 0.0, 1e-12);
  EXPECT_NEAR(scaled.y, 0.0, 1e-12);
  EXPECT_TRUE(std::isnan(projectToDisc({0, 0, 0}).x));
}

TEST(ScalpDisc, DiscToSphereInvertsTheProjection) {
  for (const auto& name : standardSiteNames()) {
    const Position3 p = unitOf(*standardPosition(name));
    const Position3 q = discToSphere(projectToDisc(p));
    EXPECT_NEAR(q.x, p.x, 1e-12) << name;
    EXPECT_NEAR(q.y, p.y, 1e-12) << name;
    EXPECT_NEAR(q.z, p.z, 1e-12) << name;
  }
  const Position3 south = discToSphere({0.0, 3.0});
  EXPECT_NEAR(south.z, -1.0, 1e-12);
}

TEST(ScalpLayout, ReportsChannelsWithoutPositionByName) {
  std::vector<ChannelInfo> channels(5);
  channels[0].name = "Fz";
  channels[0].position = standardPosition("Fz");
  channels[1].name = "EOG1";  // no position
  channels[2].name = "Cz";
  channels[2].position = standardPosition("Cz");
  channels[3].label = "X9";  // no name: reported by label
  channels[4].name = "Bad";
  channels[4].position = Position3{0, 0, 0};  // zero-length counts as none
  const ScalpLayout layout = scalpLayout(channels);
  EXPECT_EQ(layout.mapped, (std::vector<std::size_t>{0, 2}));
  ASSERT_EQ(layout.positions.size(), 2u);
  EXPECT_NEAR(layout.positions[1].z, 1.0, 1e-12);
  EXPECT_EQ(layout.unmapped, (std::vector<std::string>{"EOG1", "X9", "Bad"}));
}

// The head circle follows the position set's frame: the bundled tables put the 10-20
// circumference at polar 72 degrees, BESA's spherical .elp convention at 90 (Fp1 "-92 -72"). In
// both, the nose must sit at Fpz and T8 on the right edge of the circle.
TEST(ScalpLayout, HeadCircleFollowsTheFrameOfThePositions) {
  const char* const names[] = {"Fpz", "F7", "F8", "T7", "T8", "P7", "P8", "Oz", "Cz", "C3", "C4"};
  std::vector<ChannelInfo> bundled;
  for (const char* n : names) {
    ChannelInfo c;
    c.name = n;
    c.position = standardPosition(n);
    bundled.push_back(c);
  }
  const ScalpLayout a = scalpLayout(bundled);
  EXPECT_NEAR(a.headPolarDegrees, kHeadCirclePolarDegrees, 1.0);
  // The same sites in a BESA-like frame: every polar angle scaled by 90 / 72 (azimuth kept).
  std::vector<ChannelInfo> besa = bundled;
  for (ChannelInfo& c : besa) {
    const Position3 u = unitOf(*c.position);
    const double polar = std::acos(std::clamp(u.z, -1.0, 1.0)) * 90.0 / 72.0;
    const double az = std::atan2(u.y, u.x);
    c.position =
        Position3{std::sin(polar) * std::cos(az), std::sin(polar) * std::sin(az), std::cos(polar)};
  }
  const ScalpLayout b = scalpLayout(besa);
  EXPECT_NEAR(b.headPolarDegrees, 90.0 * a.headPolarDegrees / 72.0, 1e-9);
  const DiscPoint fpz = projectToDisc(b.positions[0], b.headPolarDegrees);
  const DiscPoint t8 = projectToDisc(b.positions[4], b.headPolarDegrees);
  // Fpz and T8 lie within a degree of the ring's mean polar angle in the bundled table: 1/72.
  EXPECT_NEAR(fpz.x, 0.0, 1e-9);
  EXPECT_NEAR(fpz.y, 1.0, 1.0 / 72.0);
  EXPECT_NEAR(t8.x, 1.0, 1.0 / 72.0);
  // Fewer than 4 circumference sites: the default.
  const ScalpLayout few = scalpLayout({besa[0], besa[8], besa[9], besa[10]});
  EXPECT_EQ(few.headPolarDegrees, kHeadCirclePolarDegrees);
}

// The grid's cells against the spline evaluated directly at the same sphere points (the direct
// sum of evaluate(), not the precomputed matrix), and the geometry the header documents.
TEST(ScalpGrid, CellsMatchTheSplineAndGeometry) {
  const auto sites = positionsOf(bundled("1020"));
  const auto values = field(sites, [](const Position3& p) { return p.y; });  // front positive
  const SphericalSpline spline(sites);
  const ScalpGrid g = interpolateScalpGrid(spline, sites, values, 67);
  EXPECT_EQ(g.size, 67);
  EXPECT_DOUBLE_EQ(g.radius, 1.0);  // every 10-20 electrode is on or inside the head circle
  EXPECT_NEAR(g.extent, 1.0 / (1.0 - 4.0 / 67.0), 1e-12);
  ASSERT_EQ(g.values.size(), 67u * 67u);
  const double cell = 2.0 * g.extent / 67;
  int checked = 0;
  for (int row = 0; row < 67; row += 6) {
    for (int col = 0; col < 67; col += 6) {
      const DiscPoint d{-g.extent + (col + 0.5) * cell, g.extent - (row + 0.5) * cell};
      const double v = g.values[static_cast<std::size_t>(row * 67 + col)];
      if (std::hypot(d.x, d.y) > g.extent) {
        EXPECT_TRUE(std::isnan(v));
        continue;
      }
      const double direct = spline.evaluate(values, {discToSphere(d)})[0];
      EXPECT_NEAR(v, direct, 1e-9);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
  // Row 0 is the front: the top centre is positive, the bottom centre negative; the field there
  // is y = sin(polar) on the midline (within the 10-20 h^2/8 bound, 0.05).
  const double front = g.values[static_cast<std::size_t>(2 * 67 + 33)];
  const double back = g.values[static_cast<std::size_t>(64 * 67 + 33)];
  EXPECT_GT(front, 0.8);
  EXPECT_LT(back, -0.8);
  EXPECT_GE(g.maxValue, front);
  EXPECT_LE(g.minValue, back);
}

// A set that ends inside the head circle is masked 2 % beyond its outermost electrode (EEGLAB's
// topoplot intrad), not painted out to the circle.
TEST(ScalpGrid, EndsAtTheOutermostElectrodeInsideTheHead) {
  std::vector<Position3> sites;
  for (const auto& p : positionsOf(bundled("1020"))) {
    const DiscPoint d = projectToDisc(p);
    if (std::hypot(d.x, d.y) < 0.6) sites.push_back(p);
  }
  ASSERT_GE(sites.size(), 5u);
  double outermost = 0.0;
  for (const auto& p : sites) {
    const DiscPoint d = projectToDisc(p);
    outermost = std::max(outermost, std::hypot(d.x, d.y));
  }
  const SphericalSpline spline(sites);
  const ScalpGridInterpolator grid(spline, sites, 33);
  EXPECT_NEAR(grid.radius(), 1.02 * outermost, 1e-12);
  EXPECT_LT(grid.radius(), 0.7);
}

// Electrodes below the equator stretch the map to them (1.02 x the outermost radius).
TEST(ScalpGrid, ReachesElectrodesBelowTheHeadCircle) {
  const auto sites = positionsOf(bundled("1005"));
  double outermost = 0.0;
  for (const auto& p : sites) {
    const DiscPoint d = projectToDisc(p);
    outermost = std::max(outermost, std::hypot(d.x, d.y));
  }
  ASSERT_GT(outermost, 1.25);  // the 10-05 set reaches below the Nz-Iz equator
  const SphericalSpline spline(sites);
  const ScalpGridInterpolator grid(spline, sites, 33);
  EXPECT_NEAR(grid.radius(), 1.02 * outermost, 1e-12);
}

// One product for 64 component maps at 67 x 67 (the requirement: well under 100 ms), and the
// columns agree with one grid per vector.
TEST(ScalpGrid, SixtyFourMapsInOneProduct) {
  const auto ten10 = bundled("1010");
  std::vector<Position3> sites;
  for (std::size_t i = 0; i < 64; ++i) sites.push_back(ten10[i].position);
  const int columns = 64;
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> mixing(sites.size() * columns);  // row-major channels x components
  for (double& v : mixing) v = n(rng);

  const auto t0 = std::chrono::steady_clock::now();
  const SphericalSpline spline(sites);
  const ScalpGridInterpolator interpolator(spline, sites, 67);
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<ScalpGrid> grids = interpolator.gridsForColumns(mixing, columns);
  const auto t2 = std::chrono::steady_clock::now();
  const double fitMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double mapsMs = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::printf("scalp grid: fit + interpolation matrix %.1f ms, 64 maps at 67x67 %.1f ms\n", fitMs,
              mapsMs);
  EXPECT_LT(mapsMs, 100.0);
  ASSERT_EQ(grids.size(), 64u);
  for (int k : {0, 17, 63}) {
    std::vector<double> column(sites.size());
    for (std::size_t e = 0; e < sites.size(); ++e) column[e] = mixing[e * columns + k];
    const ScalpGrid one = interpolator.grid(column);
    for (std::size_t i = 0; i < one.values.size(); ++i) {
      if (std::isnan(one.values[i])) {
        EXPECT_TRUE(std::isnan(grids[static_cast<std::size_t>(k)].values[i]));
      } else {
        EXPECT_NEAR(grids[static_cast<std::size_t>(k)].values[i], one.values[i], 1e-9);
      }
    }
    EXPECT_DOUBLE_EQ(grids[static_cast<std::size_t>(k)].maxValue, one.maxValue);
  }
  // evaluateMany is the same product by rows.
  const SphericalSpline::Evaluator e = spline.evaluator(sites);
  std::vector<std::vector<double>> rows(2, std::vector<double>(sites.size()));
  for (std::size_t i = 0; i < sites.size(); ++i) {
    rows[0][i] = mixing[i * columns];
    rows[1][i] = mixing[i * columns + 1];
  }
  const auto both = e.evaluateMany(rows);
  ASSERT_EQ(both.size(), 2 * sites.size());
  for (std::size_t i = 0; i < sites.size(); ++i) {
    EXPECT_NEAR(both[i], rows[0][i], 1e-6);  // at the electrodes: the data (lambda = 0)
    EXPECT_NEAR(both[sites.size() + i], rows[1][i], 1e-6);
  }
}

TEST(SphericalSpline, RefusesBadInputWithMessages) {
  const Position3 cz{0, 0, 1}, fz{0, 0.6, 0.8}, c4{0.6, 0, 0.8};
  EXPECT_NE(test_support::messageOf<InvalidParameterError>([&] {
              SphericalSpline({cz, fz});
            }).find("at least 3"),
            std::string::npos);
  const std::string dup = test_support::messageOf<InvalidParameterError>([&] {
    SphericalSpline({cz, fz, c4, Position3{0, 0, 2}});
  });
  EXPECT_NE(dup.find("electrodes 1 and 4"), std::string::npos) << dup;
  EXPECT_NE(dup.find("same place"), std::string::npos) << dup;
  EXPECT_NE(test_support::messageOf<InvalidParameterError>([&] {
              SphericalSpline({cz, fz, Position3{0, 0, 0}});
            }).find("electrode 3"),
            std::string::npos);
  EXPECT_NE(test_support::messageOf<InvalidParameterError>([&] {
              SphericalSpline({cz, fz, Position3{NAN, 0, 1}});
            }).find("finite"),
            std::string::npos);
  EXPECT_NE(test_support::messageOf<InvalidParameterError>([&] {
              SphericalSpline({cz, fz, c4}, {4, 50, -1.0});
            }).find("lambda"),
            std::string::npos);
  EXPECT_NE(test_support::messageOf<InvalidParameterError>([&] {
              SphericalSpline({cz, fz, c4}, {0, 50, 0.0});
            }).find("order"),
            std::string::npos);
  const SphericalSpline ok({cz, fz, c4});
  const std::string count = test_support::messageOf<InvalidParameterError>([&] {
    ok.evaluate({1.0, 2.0}, {cz});
  });
  EXPECT_NE(count.find("2 value(s)"), std::string::npos) << count;
  EXPECT_NE(count.find("3 (one per electrode)"), std::string::npos) << count;
  EXPECT_FALSE(test_support::messageOf<InvalidParameterError>([&] {
                 ok.evaluator({cz}).evaluate({1.0});
               }).empty());
  EXPECT_FALSE(test_support::messageOf<InvalidParameterError>([&] {
                 ok.evaluator({cz}).evaluateColumns({1, 2, 3, 4}, 2);
               }).empty());
  EXPECT_FALSE(test_support::messageOf<InvalidParameterError>([&] {
                 ScalpGridInterpolator(ok, {cz, fz, c4}, 4);
               }).empty());
  EXPECT_FALSE(test_support::messageOf<InvalidParameterError>([&] {
                 ScalpGridInterpolator(ok, {cz, fz}, 32);
               }).empty());
  // A point without a direction evaluates to NaN instead of throwing.
  EXPECT_TRUE(std::isnan(ok.evaluate({1, 2, 3}, {Position3{0, 0, 0}})[0]));
}

}  // namespace
}  // namespace modescope
