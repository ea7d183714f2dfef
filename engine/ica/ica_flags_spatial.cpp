#include "engine/ica/ica_flags_spatial.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <numeric>

namespace modescope::ica_flags {
namespace {

constexpr double kDegrees = 180.0 / std::numbers::pi;
constexpr int kGdsfNeighbours = 10;  // ADJUST compute_GD_feat

struct Polar {
  double theta, radius;  // EEGLAB: degrees from the nose (right positive), angle from vertex / 180
};

Polar eeglabPolar(const Position3& p) {
  const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
  return {std::atan2(p.x, p.y) * kDegrees,
          std::acos(std::clamp(p.z / r, -1.0, 1.0)) / std::numbers::pi};
}

double meanOf(const std::vector<double>& a, const std::vector<int>& idx) {
  if (idx.empty()) return 0.0;
  double s = 0.0;
  for (int i : idx) s += a[static_cast<std::size_t>(i)];
  return s / static_cast<double>(idx.size());
}

}  // namespace

std::vector<MapFeatures> mapFeatures(const IcaMatrix& mixing,
                                     const std::vector<std::optional<Position3>>& positions) {
  const int channels = mixing.rows, components = mixing.cols;
  const bool sited =
      static_cast<int>(positions.size()) == channels &&
      std::all_of(positions.begin(), positions.end(), [](const auto& p) { return p.has_value(); });

  // ADJUST's regions and neighbourhoods; MNE's projection and distances.
  std::vector<int> frontal, posterior, leftEye, rightEye;
  std::vector<std::vector<std::pair<int, double>>> neighbours(static_cast<std::size_t>(channels));
  std::vector<double> vertexDistance(static_cast<std::size_t>(channels), 0.0);
  std::vector<double> closeness(static_cast<std::size_t>(channels) * channels, 0.0);
  if (sited) {
    std::vector<std::array<double, 2>> flat(static_cast<std::size_t>(channels));
    for (int c = 0; c < channels; ++c) {
      const Position3& p = *positions[static_cast<std::size_t>(c)];
      const Polar q = eeglabPolar(p);
      if (std::fabs(q.theta) < 60 && q.radius > 0.40) frontal.push_back(c);
      if (std::fabs(q.theta) > 110) posterior.push_back(c);
      if (q.theta > -61 && q.theta < -35 && q.radius > 0.30) leftEye.push_back(c);
      if (q.theta > 34 && q.theta < 61 && q.radius > 0.30) rightEye.push_back(c);
      const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
      const double polar = std::acos(std::clamp(p.z / r, -1.0, 1.0));
      const double azimuth = std::atan2(p.y, p.x);
      flat[static_cast<std::size_t>(c)] = {polar * std::cos(azimuth), polar * std::sin(azimuth)};
    }
    // Centre the projection and measure from the centre (find_bads_muscle: pos -= pos.mean()).
    std::array<double, 2> centre{0, 0};
    for (const auto& f : flat) centre[0] += f[0] / channels, centre[1] += f[1] / channels;
    for (auto& f : flat) f[0] -= centre[0], f[1] -= centre[1];
    double farthest = 0.0, widest = 0.0;
    for (int c = 0; c < channels; ++c) {
      const auto& f = flat[static_cast<std::size_t>(c)];
      vertexDistance[static_cast<std::size_t>(c)] = std::hypot(f[0], f[1]);
      farthest = std::max(farthest, vertexDistance[static_cast<std::size_t>(c)]);
      for (int d = 0; d < channels; ++d) {
        const auto& g = flat[static_cast<std::size_t>(d)];
        const double dist = std::hypot(f[0] - g[0], f[1] - g[1]);
        closeness[static_cast<std::size_t>(c) * channels + d] = dist;
        widest = std::max(widest, dist);
      }
    }
    for (double& v : vertexDistance) v = farthest > 0 ? v / farthest : 0.0;
    for (double& v : closeness) v = widest > 0 ? 1.0 - v / widest : 1.0;
    // GDSF neighbourhoods: the 10 nearest electrodes in 3-D, weighted exp(-distance).
    for (int c = 0; c < channels; ++c) {
      const Position3& p = *positions[static_cast<std::size_t>(c)];
      std::vector<std::pair<double, int>> byDistance;
      for (int d = 0; d < channels; ++d) {
        if (d == c) continue;
        const Position3& q = *positions[static_cast<std::size_t>(d)];
        byDistance.push_back({std::sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) +
                                        (p.z - q.z) * (p.z - q.z)),
                              d});
      }
      std::sort(byDistance.begin(), byDistance.end());
      const std::size_t keep = std::min<std::size_t>(kGdsfNeighbours, byDistance.size());
      for (std::size_t j = 0; j < keep; ++j)
        neighbours[static_cast<std::size_t>(c)].push_back(
            {byDistance[j].second, std::exp(-byDistance[j].first)});
    }
  }

  std::vector<MapFeatures> out(static_cast<std::size_t>(components));
  std::vector<double> map(static_cast<std::size_t>(channels));
  for (int k = 0; k < components; ++k) {
    MapFeatures& f = out[static_cast<std::size_t>(k)];
    double energy = 0.0, peak = -1.0, largest = 0.0;
    for (int c = 0; c < channels; ++c) {
      map[static_cast<std::size_t>(c)] = mixing(c, k);
      const double e = mixing(c, k) * mixing(c, k);
      energy += e;
      if (e > peak) peak = e, f.peakChannel = c;
      largest = std::max(largest, std::fabs(mixing(c, k)));
    }
    f.concentration = energy > 0 ? peak / energy : 0.0;
    f.hasPositions = sited;
    if (!sited || energy <= 0) continue;
    const double norm = std::sqrt(energy);
    for (double& a : map) a /= norm;
    f.sad = std::fabs(meanOf(map, frontal)) - std::fabs(meanOf(map, posterior));
    f.sed = std::fabs(meanOf(map, leftEye) - meanOf(map, rightEye));
    for (int c = 0; c < channels; ++c) {
      double weighted = 0.0, weights = 0.0;
      for (const auto& [d, w] : neighbours[static_cast<std::size_t>(c)])
        weighted += w * map[static_cast<std::size_t>(d)], weights += w;
      if (weights > 0)
        f.gdsf = std::max(f.gdsf, std::fabs(map[static_cast<std::size_t>(c)] - weighted / weights));
    }
    // find_bads_muscle: focus = sum_c dist_c |a_c| / max|a|; smoothness = sum over electrode pairs
    // of closeness times |a_c - a_d| / max |a_c - a_d|.
    double spread = 0.0;
    for (int c = 0; c < channels; ++c) {
      f.focusDistance +=
          vertexDistance[static_cast<std::size_t>(c)] * std::fabs(mixing(c, k)) / largest;
      for (int d = 0; d < channels; ++d)
        spread = std::max(spread, std::fabs(mixing(c, k) - mixing(d, k)));
    }
    if (spread > 0) {
      for (int c = 0; c < channels; ++c)
        for (int d = 0; d < channels; ++d)
          f.smoothness += closeness[static_cast<std::size_t>(c) * channels + d] *
                          std::fabs(mixing(c, k) - mixing(d, k)) / spread;
    }
  }
  return out;
}

}  // namespace modescope::ica_flags
