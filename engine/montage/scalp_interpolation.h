// Scalp maps: from values at electrodes to a field over the head, shared by the 2-D topography
// (widgets/scalp_map_view), the 3-D VTK view (widgets/scalp_3d_view) and the r^2 / band-power maps
// of later views. No Qt here.
//
// Positions are ModeScope's unit-sphere directions (Position3: x right, y nose, z up), the frame of
// the bundled 10-05 tables (resources/montages, sappelhoff/eeg_positions): the vertex Cz is
// (0, 0, 1) and the equator z = 0 runs through Nz, T10, Iz and T9, so the 10-20 ring through
// Fpz, T8, Oz and T7 lies 10 % of the nasion-inion arc above it, at a polar angle of 72 degrees.
//
// Interpolation: spherical splines (Perrin, Pernier, Bertrand and Echallier 1989), the method of
// EEGLAB's and MNE's spherical-spline interpolation: V(r) = c0 + sum_i c_i g(cos(r, r_i)) with
//   g(x) = 1/(4 pi) sum_{n=1}^{terms} (2n + 1) / (n (n + 1))^order P_n(x)
// and the coefficients from [G + lambda I, 1; 1^T, 0] [c; c0] = [v; 0]. It reproduces the values at
// the electrodes (lambda = 0), a constant field exactly, and is smooth over the whole sphere, so
// the 2-D disc and the 3-D surface show the same field.
//
// Thread rules: plain values and pure functions; safe from any thread. A SphericalSpline and its
// Evaluators are immutable after construction and may be shared between threads; copies are
// cheap (the fit is shared, not copied).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct SphericalSplineOptions {
  int order = 4;   // m: smoothness (Perrin: 4); 1..10
  int terms = 50;  // Legendre terms in g (EEGLAB 7 is coarse; 50 converges for m = 4); 1..1000
  // Regularisation added to G's diagonal (0 = exact at the electrodes); >= 0. Not a small number
  // in practice: G's smallest eigenvalues are ~2e-8 for 64 10-10 electrodes and ~1e-12 for the
  // 345 10-05 sites (m = 4), so lambda = 1e-7 already smooths single-electrode features away.
  // Maps show the data, so the default is 0 (the system stays solvable: distinct electrodes,
  // condition ~4e8 for 64 electrodes, ~3e13 for 345).
  double lambda = 0.0;
};

// g(x) of the header comment for a cosine x in [-1, 1] (clamped), summed with the Legendre
// recurrence. Exposed for the 3-D view and for tests against closed forms. terms >= 1, order >= 1.
double sphericalSplineKernel(double cosine, int order, int terms);

// A fitted spherical spline for one electrode set; fit once, evaluate many value vectors (every
// component of an ICA shares the electrode set).
class SphericalSpline {
 public:
  // Throws InvalidParameterError when fewer than 3 electrodes are given, two coincide (closer than
  // 1e-6 rad), a position is zero-length or not finite, or an option is outside its range.
  // Positions need not be unit length (they are normalised). Cost: O(n^3) for n electrodes
  // (about 1 ms for 64, 30 ms for 345).
  SphericalSpline(std::vector<Position3> electrodes, SphericalSplineOptions options = {});

  std::size_t electrodeCount() const;
  const std::vector<Position3>& electrodes() const;  // normalised, in the order given
  const SphericalSplineOptions& options() const;

  // The field at unit-sphere directions `at` for electrode values `values` (one per electrode,
  // InvalidParameterError otherwise). Non-unit `at` vectors are normalised; a zero-length or
  // non-finite one gives NaN.
  std::vector<double> evaluate(const std::vector<double>& values,
                               const std::vector<Position3>& at) const;

  // The same for many value vectors at fixed points: precomputes the interpolation matrix
  // (points x electrodes) once, so that any number of value vectors costs one matrix product.
  class Evaluator {
   public:
    Evaluator() = default;
    std::size_t pointCount() const { return points_; }
    std::size_t electrodeCount() const { return electrodes_; }
    // Row-major points x electrodes: field(point p) = sum_e weights[p * electrodes + e] * v[e].
    const std::vector<double>& weights() const { return weights_; }

    // One value vector (electrodeCount() entries) -> pointCount() values.
    std::vector<double> evaluate(const std::vector<double>& values) const;
    // Row-major result: vectors.size() x pointCount().
    std::vector<double> evaluateMany(const std::vector<std::vector<double>>& vectors) const;
    // The columns of a row-major electrodes x `columns` matrix (e.g. an ICA mixing matrix: column
    // k is component k's map). Row-major result: columns x pointCount(). `matrix` must hold
    // electrodeCount() * columns values (InvalidParameterError otherwise).
    std::vector<double> evaluateColumns(const std::vector<double>& matrix, int columns) const;

   private:
    friend class SphericalSpline;
    std::size_t points_ = 0, electrodes_ = 0;
    std::vector<double> weights_;
    std::vector<bool> valid_;  // false where the point was zero-length or not finite (NaN out)
  };
  Evaluator evaluator(const std::vector<Position3>& at) const;

 private:
  struct Fit;
  std::shared_ptr<const Fit> fit_;
};

// The 2-D layout EEG users know: azimuthal equidistant projection from the vertex, radius =
// polar angle / 72 degrees, so the 10-20 ring (Fpz, T8, Oz, T7) lies on the unit circle that the
// head outline is drawn at, as in EEGLAB's topoplot (its head circle is that ring); the lower
// 10-05 rows (Nz, T9, Iz, T10 at 1.25, the "h" rows between) fall outside the circle, as in
// EEGLAB and MNE. x right, y toward the nose.
constexpr double kHeadCirclePolarDegrees = 72.0;
struct DiscPoint {
  double x = 0, y = 0;
};
// `p` need not be unit length. A zero-length or non-finite `p` gives (NaN, NaN).
// `headPolarDegrees` is the polar angle drawn on the head circle: 72 for ModeScope's frame (the
// bundled tables); a position set in another frame (BESA .elp puts the 10-20 ring at 90 degrees,
// digitised heads anywhere near it) gets its own from scalpLayout().
DiscPoint projectToDisc(const Position3& p, double headPolarDegrees = kHeadCirclePolarDegrees);
// The inverse (radius clamped to the south pole, 180 / headPolarDegrees).
Position3 discToSphere(const DiscPoint& d, double headPolarDegrees = kHeadCirclePolarDegrees);

// Which channels of a selection can be mapped: those with a position; the rest are reported by
// name (never silently dropped). A position that is zero-length or not finite counts as none.
struct ScalpLayout {
  std::vector<std::size_t> mapped;    // indices into the channel list given
  std::vector<Position3> positions;   // of the mapped channels, same order (unit length)
  std::vector<std::string> unmapped;  // names of channels without a position (name, else label)
  // The head circle of this set: the mean polar angle of the 10-20 circumference sites present
  // (Fpz, Fp1/2, AF7/8, F7/8, FT7/8, T7/8 (T3/4), TP7/8, P7/8 (T5/6), PO7/8, O1/2, Oz) when at
  // least 4 are, else kHeadCirclePolarDegrees; clamped to 50..120 degrees. So the nose sits at
  // Fpz whatever frame the positions came in.
  double headPolarDegrees = kHeadCirclePolarDegrees;
};
ScalpLayout scalpLayout(const std::vector<ChannelInfo>& channels);
// The same with the channels whose value cannot be drawn (noValue[i], e.g. NaN) left out too,
// listed as "X (no value)". noValue has one entry per channel.
ScalpLayout scalpLayout(const std::vector<ChannelInfo>& channels, const std::vector<bool>& noValue);

// A square image of the field over the disc: size x size cells covering [-extent, extent]^2 of
// the disc plane. `radius` is where the map ends: 1 (the head circle) when every electrode lies
// within it (radius <= 1.001), otherwise 1.02 x the outermost electrode's radius (electrodes below
// the equator: the map reaches them, as EEGLAB's plotrad does); `extent` = radius plus two cells,
// so an image scaled smoothly and clipped at `radius` has no faded rim. Cells with their centre
// beyond `extent` are NaN. Row 0 is the front (nose, +y); column 0 the left (-x). Cell (row, col)
// has its centre at
//   x = -extent + (col + 0.5) * 2 extent / size,  y = extent - (row + 0.5) * 2 extent / size.
struct ScalpGrid {
  int size = 0;
  double radius = 1.0;
  double extent = 1.0;
  std::vector<double> values;         // size * size, row-major
  double minValue = 0, maxValue = 0;  // over the cells within `radius` and the electrode values
};

// Grid geometry and interpolation matrix for one electrode set, built once: every value vector
// then costs one matrix product (a grid of 64 component maps at 67 x 67 is a single product).
class ScalpGridInterpolator {
 public:
  ScalpGridInterpolator() = default;
  // `positions` are the electrodes of `spline` (the same order); size 8..1024 cells
  // (InvalidParameterError otherwise, or when the position count differs from the spline's).
  ScalpGridInterpolator(const SphericalSpline& spline, const std::vector<Position3>& positions,
                        int size, double headPolarDegrees = kHeadCirclePolarDegrees);

  int size() const { return size_; }
  double radius() const { return radius_; }
  double extent() const { return extent_; }
  std::size_t electrodeCount() const { return evaluator_.electrodeCount(); }

  ScalpGrid grid(const std::vector<double>& values) const;
  // The columns of a row-major electrodes x `columns` matrix, one grid each.
  std::vector<ScalpGrid> gridsForColumns(const std::vector<double>& matrix, int columns) const;

 private:
  ScalpGrid assemble(const double* cellValues, const double* electrodeValues,
                     std::size_t electrodeStride) const;

  int size_ = 0;
  double radius_ = 1.0, extent_ = 1.0;
  double headPolarDegrees_ = kHeadCirclePolarDegrees;
  std::vector<int> cells_;  // grid cell index of each evaluated point
  SphericalSpline::Evaluator evaluator_;
};

// One grid in one call (builds a ScalpGridInterpolator; prefer that class for many vectors).
ScalpGrid interpolateScalpGrid(const SphericalSpline& spline,
                               const std::vector<Position3>& positions,
                               const std::vector<double>& values, int size);

}  // namespace modescope
