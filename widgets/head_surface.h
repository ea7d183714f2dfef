// The head-shaped surface of the 3-D scalp view (widgets/scalp_3d_view): a map from unit-sphere
// directions (ModeScope's electrode positions: x right, y nose, z up) onto a head, and a
// triangle mesh of it whose every vertex remembers the direction it came from. The scalp field
// is a function on the unit sphere (spherical splines); colouring a vertex by the field at its
// direction and placing an electrode at headPoint(its direction) keep field and electrodes in
// register on the deformed surface.
//
// Shape: an ellipsoid longer front-back than wide (cephalic index about 0.8), a little narrower
// at the forehead than at the back, flattened below the nasion-inion plane (z = 0: the bundled
// montage puts Nz, LPA, RPA and Iz there, Fpz/T7/Oz/T8 at z = 0.31), cut at a polar angle below
// the lowest electrode. The numbers are a plausible adult head scaled to a vertex
// height of 1, not a measured one: the surface is an orientation aid, not an anatomy.
//
// Thread rules: plain values and pure functions; no Qt, no VTK.
#pragma once

#include <array>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct HeadShape {
  double halfWidth = 0.86;   // x semi-axis (ear to ear)
  double halfLength = 1.05;  // y semi-axis (inion to nasion)
  double height = 1.0;       // z semi-axis above z = 0 (the vertex, Cz, stays at z = 1)
  double depthScale = 0.8;   // z is multiplied by this below z = 0 (a flatter lower head)
  double taper = 0.06;       // the width shrinks by this fraction toward the forehead (y = 1)
};

// The point of the head surface in direction `direction` (normalised here; the zero vector maps
// to the vertex).
Position3 headPoint(const Position3& direction, const HeadShape& shape = {});
// The outward unit normal of the surface at headPoint(direction). Exact for the ellipsoid
// without taper; the taper tilts the true normal by under 2 degrees, irrelevant for what it is
// used for (which labels face the camera, how far to lift a marker off the surface).
Position3 headNormal(const Position3& direction, const HeadShape& shape = {});

struct HeadMesh {
  double cutPolarDegrees = 0;                 // the lowest ring's angle from the vertex (+z)
  int rings = 0, sectors = 0;                 // latitude rings below the pole, points per ring
  std::vector<Position3> directions;          // unit directions, one per vertex
  std::vector<Position3> points;              // headPoint(directions[i])
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside
  std::vector<int> rim;  // the vertices of the lowest ring, in order (the cut edge)
};

// Vertex 0 is the pole (0, 0, 1); then `rings` rings of `sectors` vertices each, at polar angles
// cut * k / rings (k = 1..rings), azimuth 2 pi j / sectors from +x toward +y.
// rings >= 2, sectors >= 3, cutPolarDegrees in (0, 180) (clamped).
HeadMesh buildHeadMesh(double cutPolarDegrees, int rings = 80, int sectors = 160,
                       const HeadShape& shape = {});

// Where to cut the surface for these electrodes: 12 degrees below the lowest one, at least 120
// degrees from the vertex (below the ears, so the head reads as a head), at most 165 (the head
// closes toward the neck; electrodes lower than that still get a marker off the surface edge).
double headCutForElectrodes(const std::vector<Position3>& electrodes);

}  // namespace modescope
