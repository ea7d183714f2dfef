// Scalp maps: from values at electrodes to a field over the head, shared by the 2-D topography
// (widgets/scalp_map_view), the 3-D VTK view (widgets/scalp_3d_view) and the r^2 / band-power maps
// of later views. No Qt here.
//
// Positions are ModeScope's unit-sphere directions (Position3: x right, y nose, z up; the vertex Cz
// is (0, 0, 1), the 10-20 equator through Fpz/T7/Oz/T8 is z = 0).
//
// Interpolation: spherical splines (Perrin, Pernier, Bertrand and Echallier 1989), the method of
// EEGLAB's and MNE's spherical-spline interpolation: V(r) = c0 + sum_i c_i g(cos(r, r_i)) with
//   g(x) = 1/(4 pi) sum_{n=1}^{terms} (2n + 1) / (n (n + 1))^order P_n(x)
// and the coefficients from [G + lambda I, 1; 1^T, 0] [c; c0] = [v; 0]. It reproduces the values at
// the electrodes (lambda = 0), a constant field exactly, and is smooth over the whole sphere, so
// the 2-D disc and the 3-D surface show the same field.
//
// Thread rules: plain values and pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct SphericalSplineOptions {
  int order = 4;         // m: smoothness (Perrin: 4)
  int terms = 50;        // Legendre terms in g (EEGLAB 7 is coarse; 50 converges for m = 4)
  double lambda = 1e-7;  // regularisation (0 = exact at the electrodes)
};

// A fitted spherical spline for one electrode set; fit once, evaluate many value vectors (every
// component of an ICA shares the electrode set).
class SphericalSpline {
 public:
  // Throws InvalidParameterError when fewer than 3 electrodes are given or two coincide.
  SphericalSpline(std::vector<Position3> electrodes, SphericalSplineOptions options = {});

  std::size_t electrodeCount() const;
  // The field at unit-sphere directions `at` for electrode values `values` (one per electrode,
  // InvalidParameterError otherwise). Non-unit `at` vectors are normalised.
  std::vector<double> evaluate(const std::vector<double>& values,
                               const std::vector<Position3>& at) const;
  // The same for many value vectors at fixed points: precomputes the interpolation matrix
  // (points x electrodes) once. Row-major result: vectors.size() x at.size().
  class Evaluator;
  Evaluator evaluator(const std::vector<Position3>& at) const;

 private:
  // implementation-defined members (the helper adds them)
};

// The 2-D layout EEG users know: azimuthal equidistant projection from the vertex, radius =
// polar angle / 90 degrees, so the z = 0 equator (Fpz, T7, Oz, T8) lies on the unit circle that
// the head outline is drawn at; electrodes below it (z < 0) fall outside the circle, as in EEGLAB
// and MNE. x right, y toward the nose.
struct DiscPoint {
  double x = 0, y = 0;
};
DiscPoint projectToDisc(const Position3& p);
Position3 discToSphere(const DiscPoint& d);  // the inverse (radius up to 2 = the south pole)

// Which channels of a selection can be mapped: those with a position; the rest are reported by
// name (never silently dropped).
struct ScalpLayout {
  std::vector<std::size_t> mapped;     // indices into the channel list given
  std::vector<Position3> positions;    // of the mapped channels, same order
  std::vector<std::string> unmapped;   // names of channels without a position
};
ScalpLayout scalpLayout(const std::vector<ChannelInfo>& channels);

// A square image of the field over the disc: size x size cells covering [-extent, extent]^2 of
// the disc plane (extent = max(1, outermost electrode radius) + a margin), NaN outside the head
// (radius > extent). Row 0 is the front (nose, +y).
struct ScalpGrid {
  int size = 0;
  double extent = 1.0;
  std::vector<double> values;  // size * size, row-major
  double minValue = 0, maxValue = 0;  // over the finite cells and the electrode values
};
ScalpGrid interpolateScalpGrid(const SphericalSpline& spline, const std::vector<Position3>& positions,
                               const std::vector<double>& values, int size);

}  // namespace modescope
