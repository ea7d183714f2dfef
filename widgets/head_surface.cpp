#include "widgets/head_surface.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace modescope {
namespace {

Position3 normalised(const Position3& p) {
  const double n = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  if (!(n > 0) || !std::isfinite(n)) return {0, 0, 1};
  return {p.x / n, p.y / n, p.z / n};
}

// The per-axis scale at direction u: the surface point is (sx u.x, sy u.y, sz u.z).
std::array<double, 3> axisScales(const Position3& u, const HeadShape& s) {
  return {s.halfWidth * (1.0 - s.taper * u.y), s.halfLength,
          u.z >= 0 ? s.height : s.height * s.depthScale};
}

}  // namespace

Position3 headPoint(const Position3& direction, const HeadShape& shape) {
  const Position3 u = normalised(direction);
  const auto sc = axisScales(u, shape);
  return {sc[0] * u.x, sc[1] * u.y, sc[2] * u.z};
}

Position3 headNormal(const Position3& direction, const HeadShape& shape) {
  // The surface (x/a)^2 + (y/b)^2 + (z/c)^2 = 1 through p = (a u.x, b u.y, c u.z) has its
  // gradient along (u.x/a, u.y/b, u.z/c).
  const Position3 u = normalised(direction);
  const auto sc = axisScales(u, shape);
  return normalised({u.x / sc[0], u.y / sc[1], u.z / sc[2]});
}

HeadMesh buildHeadMesh(double cutPolarDegrees, int rings, int sectors, const HeadShape& shape) {
  HeadMesh m;
  m.rings = std::max(rings, 2);
  m.sectors = std::max(sectors, 3);
  m.cutPolarDegrees = std::clamp(cutPolarDegrees, 1.0, 179.0);
  const double cut = m.cutPolarDegrees * std::numbers::pi / 180.0;

  m.directions.reserve(1 + static_cast<std::size_t>(m.rings) * m.sectors);
  m.directions.push_back({0, 0, 1});
  for (int k = 1; k <= m.rings; ++k) {
    const double theta = cut * k / m.rings;
    for (int j = 0; j < m.sectors; ++j) {
      const double phi = 2.0 * std::numbers::pi * j / m.sectors;
      m.directions.push_back(
          {std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)});
    }
  }
  m.points.reserve(m.directions.size());
  for (const Position3& d : m.directions) m.points.push_back(headPoint(d, shape));

  auto at = [&](int ring, int j) { return 1 + (ring - 1) * m.sectors + (j % m.sectors); };
  // Winding: azimuth grows counter-clockwise seen from above and rings go down, so (a, below-a,
  // next-a) faces outward.
  for (int j = 0; j < m.sectors; ++j) m.triangles.push_back({0, at(1, j), at(1, j + 1)});
  for (int k = 1; k < m.rings; ++k) {
    for (int j = 0; j < m.sectors; ++j) {
      const int a = at(k, j), b = at(k, j + 1), c = at(k + 1, j), d = at(k + 1, j + 1);
      m.triangles.push_back({a, c, b});
      m.triangles.push_back({b, c, d});
    }
  }
  for (int j = 0; j < m.sectors; ++j) m.rim.push_back(at(m.rings, j));
  return m;
}

double headCutForElectrodes(const std::vector<Position3>& electrodes) {
  double lowest = 0;  // polar angle of the lowest electrode, degrees
  for (const Position3& e : electrodes) {
    const Position3 u = normalised(e);
    lowest = std::max(lowest, std::acos(std::clamp(u.z, -1.0, 1.0)) * 180.0 / std::numbers::pi);
  }
  return std::clamp(lowest + 12.0, 120.0, 165.0);
}

}  // namespace modescope
