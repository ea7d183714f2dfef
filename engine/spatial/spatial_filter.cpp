// Common average reference, surface Laplacians and the CPU matrix product (spatial_filter.h).
#include "engine/spatial/spatial_filter.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
namespace {

// Samples per product chunk: 4096 samples x 256 channels of doubles is 8 MB for input and output,
// which bounds memory for hour-long blocks while keeping each GEMM large enough to be efficient.
constexpr int64_t kChunk = 4096;

// Small-neighbour candidates lie within this factor of the nearest distance: the 4 axis neighbours
// of a 10-10 site are at 17-18 degrees, the diagonal ones at ~25 (x1.4), the next ring at ~36 (x2).
constexpr double kSmallBand = 1.5;
// Two neighbours of one ring must differ in direction by at least this much (degrees): the axis
// neighbours of a grid site are 90 degrees apart, a diagonal one 45 degrees from two of them, so
// the midpoint keeps the axes and drops the diagonals.
constexpr double kMinSeparationDeg = 67.5;
// A large neighbour is the channel nearest to the point twice as far as a small neighbour along
// the same great circle, accepted within this fraction of the small neighbour's distance.
constexpr double kLargeTolerance = 0.5;

void checkSelection(const std::vector<ChannelInfo>& channels,
                    const std::vector<std::size_t>& selection, const char* method) {
  if (selection.empty()) {
    throw InvalidParameterError(std::string(method) + " channel selection", "no channels",
                                "at least one channel", "select the channels to filter");
  }
  std::set<std::size_t> seen;
  for (std::size_t i : selection) {
    if (i >= channels.size()) {
      throw InvalidParameterError(std::string(method) + " channel selection",
                                  "index " + std::to_string(i),
                                  "an index below " + std::to_string(channels.size()));
    }
    if (!seen.insert(i).second) {
      throw InvalidParameterError(std::string(method) + " channel selection",
                                  "channel '" + channels[i].name + "' twice",
                                  "each channel at most once");
    }
  }
}

std::vector<std::string> namesOf(const std::vector<ChannelInfo>& channels,
                                 const std::vector<std::size_t>& selection) {
  std::vector<std::string> names;
  names.reserve(selection.size());
  for (std::size_t i : selection) names.push_back(channels[i].name);
  return names;
}

struct Vec3 {
  double x, y, z;
};
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Vec3 normalised(Vec3 a) {
  const double n = std::sqrt(dot(a, a));
  return n > 0 ? (1.0 / n) * a : a;
}

// Great-circle angle between two directions (atan2 form: accurate for small angles too).
double angleBetween(Vec3 a, Vec3 b) {
  return std::atan2(std::sqrt(dot(cross(a, b), cross(a, b))), dot(a, b));
}

// Unit tangent at p of the great circle from p toward q (zero for q = +-p).
Vec3 tangentToward(Vec3 p, Vec3 q) { return normalised(q - dot(q, p) * p); }

// The small ring of channel k: candidates within kSmallBand of the nearest distance, nearest first,
// each accepted when its direction differs by kMinSeparationDeg from every accepted one; at most 4.
std::vector<std::size_t> smallRing(const std::vector<Vec3>& pos, std::size_t k,
                                   const std::vector<double>& dist) {
  double nearest = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < pos.size(); ++j) {
    if (j != k && dist[j] > 0) nearest = std::min(nearest, dist[j]);
  }
  std::vector<std::size_t> candidates;
  for (std::size_t j = 0; j < pos.size(); ++j) {
    if (j != k && dist[j] > 0 && dist[j] <= kSmallBand * nearest) candidates.push_back(j);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::size_t a, std::size_t b) { return dist[a] < dist[b]; });
  const double minCos = std::cos(kMinSeparationDeg * std::numbers::pi / 180.0);
  std::vector<std::size_t> ring;
  std::vector<Vec3> directions;
  for (std::size_t j : candidates) {
    if (ring.size() == 4) break;
    const Vec3 t = tangentToward(pos[k], pos[j]);
    bool separate = true;
    for (const Vec3& u : directions) separate = separate && dot(t, u) <= minCos;
    if (separate) {
      ring.push_back(j);
      directions.push_back(t);
    }
  }
  return ring;
}

// The large ring of channel k: for each small neighbour j at distance d, the channel nearest to the
// point at 2d along the great circle from k through j, if within kLargeTolerance * d of it.
std::vector<std::size_t> largeRing(const std::vector<Vec3>& pos, std::size_t k,
                                   const std::vector<double>& dist,
                                   const std::vector<std::size_t>& small) {
  std::vector<std::size_t> ring;
  for (std::size_t j : small) {
    const Vec3 t = tangentToward(pos[k], pos[j]);
    const double d2 = 2.0 * dist[j];
    const Vec3 ideal{std::cos(d2) * pos[k].x + std::sin(d2) * t.x,
                     std::cos(d2) * pos[k].y + std::sin(d2) * t.y,
                     std::cos(d2) * pos[k].z + std::sin(d2) * t.z};
    std::size_t best = pos.size();
    double bestMiss = std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < pos.size(); ++q) {
      if (q == k || dist[q] <= 0) continue;
      const double miss = angleBetween(ideal, pos[q]);
      if (miss < bestMiss) {
        bestMiss = miss;
        best = q;
      }
    }
    if (best != pos.size() && bestMiss <= kLargeTolerance * dist[j] &&
        std::find(ring.begin(), ring.end(), best) == ring.end()) {
      ring.push_back(best);
    }
  }
  return ring;
}

const char* sizeName(LaplacianSize size) {
  return size == LaplacianSize::Small ? "small Laplacian" : "large Laplacian";
}

}  // namespace

SpatialFilter commonAverageReference(const std::vector<ChannelInfo>& channels,
                                     const std::vector<std::size_t>& selection) {
  checkSelection(channels, selection, "common average reference");
  const std::size_t c = selection.size();
  SpatialFilter f;
  f.inputNames = namesOf(channels, selection);
  f.outputNames = f.inputNames;
  f.inputChannels = selection;
  f.matrix.assign(c * c, -1.0 / static_cast<double>(c));
  for (std::size_t i = 0; i < c; ++i) f.matrix[i * c + i] += 1.0;
  f.description = "common average reference over " + std::to_string(c) + " channels";
  return f;
}

std::vector<std::vector<std::size_t>> laplacianNeighbours(const std::vector<ChannelInfo>& channels,
                                                          const std::vector<std::size_t>& selection,
                                                          LaplacianSize size) {
  checkSelection(channels, selection, sizeName(size));
  std::vector<std::string> missing;
  for (std::size_t i : selection) {
    // A zero or non-finite vector has no direction: as good as no position.
    const auto& p = channels[i].position;
    const double n2 = p ? p->x * p->x + p->y * p->y + p->z * p->z : 0.0;
    if (!p || !std::isfinite(n2) || n2 < 1e-24) missing.push_back(channels[i].name);
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t m = 0; m < missing.size(); ++m) list += (m ? ", " : "") + missing[m];
    throw InvalidInputError(
        "channel positions", sizeName(size),
        "no position for " + list + " (" + std::to_string(missing.size()) + " of " +
            std::to_string(selection.size()) + " selected channels)",
        "a montage position for every selected channel (the Laplacian's neighbours are found "
        "from them)",
        "Set a montage (standard 10-05 names) or load an electrode position file (.tsv, .elp, "
        ".sfp, .elc), or leave these channels out of the selection");
  }

  const std::size_t c = selection.size();
  std::vector<Vec3> pos(c);
  for (std::size_t k = 0; k < c; ++k) {
    const Position3& p = *channels[selection[k]].position;
    pos[k] = normalised(Vec3{p.x, p.y, p.z});
  }

  std::vector<std::vector<std::size_t>> result(c);
  std::vector<double> dist(c);
  for (std::size_t k = 0; k < c; ++k) {
    for (std::size_t j = 0; j < c; ++j) {
      dist[j] = angleBetween(pos[k], pos[j]);
      // Coincident electrodes (distance ~0) cannot serve as a ring: marked and skipped.
      if (dist[j] <= 1e-9) dist[j] = -1.0;
    }
    const std::vector<std::size_t> small = smallRing(pos, k, dist);
    result[k] = size == LaplacianSize::Small ? small : largeRing(pos, k, dist, small);
    if (result[k].empty()) {
      throw InvalidParameterError(
          std::string(sizeName(size)) + " channel selection",
          "no neighbour for channel '" + channels[selection[k]].name + "' among " +
              std::to_string(c) + " selected channels",
          "at least one selected channel in the channel's " +
              (size == LaplacianSize::Small
                   ? std::string("nearest ring")
                   : std::string("second ring (twice as far as a nearest-ring neighbour)")),
          "Select the surrounding channels too, use the small Laplacian, or leave this channel "
          "out");
    }
    std::sort(result[k].begin(), result[k].end());
  }
  return result;
}

SpatialFilter surfaceLaplacian(const std::vector<ChannelInfo>& channels,
                               const std::vector<std::size_t>& selection, LaplacianSize size,
                               LaplacianWeighting weighting) {
  const auto neighbours = laplacianNeighbours(channels, selection, size);
  const std::size_t c = selection.size();
  SpatialFilter f;
  f.inputNames = namesOf(channels, selection);
  f.outputNames = f.inputNames;
  f.inputChannels = selection;
  f.matrix.assign(c * c, 0.0);
  for (std::size_t k = 0; k < c; ++k) {
    const Position3& pk = *channels[selection[k]].position;
    const Vec3 a = normalised(Vec3{pk.x, pk.y, pk.z});
    std::vector<double> w(neighbours[k].size(), 1.0);
    if (weighting == LaplacianWeighting::InverseDistance) {
      for (std::size_t n = 0; n < w.size(); ++n) {
        const Position3& pj = *channels[selection[neighbours[k][n]]].position;
        w[n] = 1.0 / angleBetween(a, normalised(Vec3{pj.x, pj.y, pj.z}));
      }
    }
    double total = 0.0;
    for (double v : w) total += v;
    f.matrix[k * c + k] = 1.0;
    for (std::size_t n = 0; n < w.size(); ++n) f.matrix[k * c + neighbours[k][n]] -= w[n] / total;
  }
  f.description = std::string(sizeName(size)) +
                  (weighting == LaplacianWeighting::InverseDistance ? " (inverse-distance weights)"
                                                                    : " (equal weights)") +
                  " over " + std::to_string(c) + " channels";
  return f;
}

std::vector<std::size_t> spatialFilterInputRows(const SpatialFilter& filter,
                                                const SignalBlock& block) {
  const std::size_t cin = filter.inputCount();
  const std::size_t cout = filter.outputCount();
  if (filter.matrix.size() != cin * cout || cin == 0 || cout == 0) {
    throw InvalidParameterError("spatial filter matrix",
                                std::to_string(filter.matrix.size()) + " weights for " +
                                    std::to_string(cout) + " outputs x " + std::to_string(cin) +
                                    " inputs",
                                "a non-empty matrix of outputs x inputs weights");
  }
  if (filter.inputChannels.size() != cin) {
    throw InvalidParameterError("spatial filter inputs",
                                std::to_string(filter.inputChannels.size()) + " bound channels",
                                std::to_string(cin) + " (one per input column)",
                                "bind the filter to the recording's channels first");
  }
  if (block.data.size() != block.channels.size() * static_cast<std::size_t>(block.samples)) {
    throw InvalidParameterError("signal block", std::to_string(block.data.size()) + " samples",
                                std::to_string(block.channels.size()) + " channels x " +
                                    std::to_string(block.samples) + " samples");
  }
  // Row of the block holding each input column.
  std::vector<std::size_t> rowOf(cin);
  std::vector<std::string> absent;
  for (std::size_t c = 0; c < cin; ++c) {
    const auto it =
        std::find(block.channels.begin(), block.channels.end(), filter.inputChannels[c]);
    if (it == block.channels.end()) {
      absent.push_back(filter.inputNames[c].empty() ? "input " + std::to_string(c + 1)
                                                    : filter.inputNames[c]);
    } else {
      rowOf[c] = static_cast<std::size_t>(it - block.channels.begin());
    }
  }
  if (!absent.empty()) {
    std::string list;
    for (std::size_t m = 0; m < absent.size(); ++m) list += (m ? ", " : "") + absent[m];
    throw InvalidParameterError("spatial filter inputs", "block without " + list,
                                "a block holding every input channel of the filter",
                                "Include these channels in the selection");
  }
  return rowOf;
}

SignalBlock spatialFilterOutputFrame(const SpatialFilter& filter, const SignalBlock& block) {
  const std::size_t cout = filter.outputCount();
  SignalBlock out;
  out.sampleRate = block.sampleRate;
  out.firstSample = block.firstSample;
  out.samples = block.samples;
  out.channels.resize(cout);
  for (std::size_t r = 0; r < cout; ++r) out.channels[r] = r;
  return out;
}

SignalBlock applySpatialFilter(const SpatialFilter& filter, const SignalBlock& block) {
  const std::vector<std::size_t> rowOf = spatialFilterInputRows(filter, block);
  const std::size_t cin = filter.inputCount();
  const std::size_t cout = filter.outputCount();

  SignalBlock out = spatialFilterOutputFrame(filter, block);
  out.data.assign(cout * static_cast<std::size_t>(block.samples), 0.0f);

  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMatrix> b(filter.matrix.data(), static_cast<Eigen::Index>(cout),
                                      static_cast<Eigen::Index>(cin));
  RowMatrix in, res;
  for (int64_t t0 = 0; t0 < block.samples; t0 += kChunk) {
    const int64_t n = std::min<int64_t>(kChunk, block.samples - t0);
    in.resize(static_cast<Eigen::Index>(cin), n);
    for (std::size_t c = 0; c < cin; ++c) {
      const float* x = block.channel(rowOf[c]) + t0;
      for (int64_t j = 0; j < n; ++j) in(static_cast<Eigen::Index>(c), j) = x[j];
    }
    res.noalias() = b * in;
    for (std::size_t r = 0; r < cout; ++r) {
      float* y = out.channel(r) + t0;
      for (int64_t j = 0; j < n; ++j)
        y[j] = static_cast<float>(res(static_cast<Eigen::Index>(r), j));
    }
  }
  return out;
}

}  // namespace modescope
