// Spherical splines, the disc projection and the scalp grid (scalp_interpolation.h).
#include "engine/montage/scalp_interpolation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/parallel/worker_team.h"

namespace modescope {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Two electrodes closer than this (radians on the unit sphere) make the system singular.
constexpr double kCoincident = 1e-6;
double toRadians(double degrees) { return degrees * std::numbers::pi / 180.0; }

// The sites on the 10-20 head circumference (polar 90 degrees in the 10-20 system's own terms).
bool onHeadCircumference(const std::string& name) {
  static const char* const kSites[] = {"FPZ", "FP1", "FP2", "AF7", "AF8", "F7",  "F8",  "FT7",
                                       "FT8", "T7",  "T8",  "T3",  "T4",  "TP7", "TP8", "P7",
                                       "P8",  "T5",  "T6",  "PO7", "PO8", "O1",  "O2",  "OZ"};
  std::string upper;
  for (char ch : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const char* s : kSites)
    if (upper == s) return true;
  return false;
}

bool finite(const Position3& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

double norm(const Position3& p) { return std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z); }

// The unit direction of `p`, or false when it has none.
bool unit(const Position3& p, Position3* out) {
  if (!finite(p)) return false;
  const double n = norm(p);
  if (!(n > 0.0) || !std::isfinite(n)) return false;
  *out = {p.x / n, p.y / n, p.z / n};
  return true;
}

double dot(const Position3& a, const Position3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

std::string positionText(const Position3& p) {
  return "(" + formatNumber(p.x) + ", " + formatNumber(p.y) + ", " + formatNumber(p.z) + ")";
}

// (2n + 1) / (n (n + 1))^order / (4 pi) for n = 0..terms (entry 0 unused: the constant term is c0).
std::vector<double> kernelFactors(int order, int terms) {
  std::vector<double> f(static_cast<std::size_t>(terms) + 1, 0.0);
  for (int n = 1; n <= terms; ++n) {
    const double nn = static_cast<double>(n) * (n + 1);
    f[static_cast<std::size_t>(n)] =
        (2.0 * n + 1.0) / std::pow(nn, order) / (4.0 * std::numbers::pi);
  }
  return f;
}

// sum_{n>=1} factors[n] P_n(x), P_n by Bonnet's recurrence (n P_n = (2n-1) x P_{n-1} - (n-1)
// P_{n-2}), which is stable for |x| <= 1.
double kernelSum(double x, const std::vector<double>& factors) {
  x = std::clamp(x, -1.0, 1.0);
  const std::size_t terms = factors.size() - 1;
  if (terms == 0) return 0.0;
  double previous = 1.0, current = x;  // P_0, P_1
  double sum = factors[1] * current;
  for (std::size_t n = 2; n <= terms; ++n) {
    const double dn = static_cast<double>(n);
    const double next = ((2.0 * dn - 1.0) * x * current - (dn - 1.0) * previous) / dn;
    previous = current;
    current = next;
    sum += factors[n] * current;
  }
  return sum;
}

// kernelSum for many cosines at once: the same recurrence with the cosines as the inner loop, so
// the compiler vectorises it (the evaluator's points x electrodes kernels are its main cost).
void kernelSums(const double* x, std::size_t count, const std::vector<double>& factors,
                double* out) {
  constexpr std::size_t kBlock = 64;
  const std::size_t terms = factors.size() - 1;
  double xs[kBlock], previous[kBlock], current[kBlock], sum[kBlock];
  for (std::size_t b = 0; b < count; b += kBlock) {
    const std::size_t m = std::min(kBlock, count - b);
    for (std::size_t i = 0; i < m; ++i) {
      xs[i] = std::clamp(x[b + i], -1.0, 1.0);
      previous[i] = 1.0;
      current[i] = xs[i];
      sum[i] = terms >= 1 ? factors[1] * xs[i] : 0.0;
    }
    for (std::size_t n = 2; n <= terms; ++n) {
      const double dn = static_cast<double>(n);
      const double a = (2.0 * dn - 1.0) / dn, c = (dn - 1.0) / dn, f = factors[n];
      for (std::size_t i = 0; i < m; ++i) {
        const double next = a * xs[i] * current[i] - c * previous[i];
        previous[i] = current[i];
        current[i] = next;
        sum[i] += f * next;
      }
    }
    for (std::size_t i = 0; i < m; ++i) out[b + i] = sum[i];
  }
}

// Runs body(begin, end) over contiguous ranges of [0, count) on a leased team of the host's
// hardware threads when the work is large enough to pay for them.
template <class Body>
void parallelRanges(std::size_t count, double workPerItem, const Body& body) {
  const int hw = hardwareThreads();
  const std::size_t parts =
      std::min<std::size_t>({static_cast<std::size_t>(hw), count,
                             static_cast<std::size_t>(count * workPerItem / 2e6) + 1});
  if (parts <= 1) {
    body(std::size_t{0}, count);
    return;
  }
  TeamLease team(hw);
  team->run(parts, [&](int, std::size_t p) { body(count * p / parts, count * (p + 1) / parts); });
}

void checkOptions(const SphericalSplineOptions& o) {
  if (o.order < 1 || o.order > 10) {
    throw InvalidParameterError("spherical spline order", std::to_string(o.order), "1 to 10",
                                "use 4 (Perrin et al.), the usual choice");
  }
  if (o.terms < 1 || o.terms > 1000) {
    throw InvalidParameterError("spherical spline terms", std::to_string(o.terms), "1 to 1000",
                                "use 50, which converges for order 4");
  }
  if (!std::isfinite(o.lambda) || o.lambda < 0.0) {
    throw InvalidParameterError("spherical spline lambda", formatNumber(o.lambda),
                                "a finite value >= 0", "use 1e-7, or 0 for exact interpolation");
  }
}

}  // namespace

double sphericalSplineKernel(double cosine, int order, int terms) {
  if (order < 1 || terms < 1) {
    throw InvalidParameterError("spherical spline kernel order/terms",
                                std::to_string(order) + "/" + std::to_string(terms), "both >= 1");
  }
  return kernelSum(cosine, kernelFactors(order, terms));
}

// The fit: the electrodes and the linear map from electrode values to [c; c0].
struct SphericalSpline::Fit {
  std::vector<Position3> electrodes;
  SphericalSplineOptions options;
  std::vector<double> factors;
  Eigen::MatrixXd solution;  // (n + 1) x n: [c; c0] = solution * v
};

SphericalSpline::SphericalSpline(std::vector<Position3> electrodes,
                                 SphericalSplineOptions options) {
  checkOptions(options);
  const std::size_t n = electrodes.size();
  if (n < 3) {
    throw InvalidParameterError("scalp map electrodes", std::to_string(n) + " electrode(s)",
                                "at least 3 electrodes with positions",
                                "select more channels with known positions (10-05 names or a "
                                "position file)");
  }
  auto fit = std::make_shared<Fit>();
  fit->options = options;
  fit->electrodes.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!unit(electrodes[i], &fit->electrodes[i])) {
      throw InvalidParameterError("scalp map electrode " + std::to_string(i + 1) + " position",
                                  positionText(electrodes[i]), "a finite, non-zero direction",
                                  "check the channel's position (montage or position file)");
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const Position3& a = fit->electrodes[i];
      const Position3& b = fit->electrodes[j];
      const Position3 d{a.x - b.x, a.y - b.y, a.z - b.z};
      if (norm(d) < kCoincident) {
        throw InvalidParameterError(
            "scalp map electrode positions",
            "electrodes " + std::to_string(i + 1) + " and " + std::to_string(j + 1) +
                " at the same place " + positionText(a),
            "distinct positions",
            "leave one of the two channels out, or correct the position file");
      }
    }
  }
  fit->factors = kernelFactors(options.order, options.terms);

  // The bordered system [G + lambda I, 1; 1^T, 0].
  const Eigen::Index m = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd system(m + 1, m + 1);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = i; j < m; ++j) {
      const double g = kernelSum(dot(fit->electrodes[static_cast<std::size_t>(i)],
                                     fit->electrodes[static_cast<std::size_t>(j)]),
                                 fit->factors);
      system(i, j) = g;
      system(j, i) = g;
    }
    system(i, i) += options.lambda;
    system(i, m) = 1.0;
    system(m, i) = 1.0;
  }
  system(m, m) = 0.0;
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(m + 1, m);
  rhs.topRows(m).setIdentity();
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(system);
  fit->solution = lu.solve(rhs);
  // An exactly singular system (it should not be, with distinct electrodes) shows as a
  // non-finite solution or a residual of the order of the data: the residual's largest entry is
  // how far a unit value at one electrode misses itself (rounding gives ~ condition * 1e-16, about
  // 1e-5 for the 345 10-05 sites at lambda = 0).
  const double residual = (system * fit->solution - rhs).cwiseAbs().maxCoeff();
  if (!fit->solution.allFinite() || !(residual < 1e-2)) {
    throw InvalidParameterError("spherical spline system",
                                "a singular or near-singular system (residual " +
                                    formatNumber(residual) + " of a unit value)",
                                "a solvable system",
                                "raise lambda (e.g. 1e-9) or remove nearly coincident electrodes");
  }
  fit_ = std::move(fit);
}

std::size_t SphericalSpline::electrodeCount() const { return fit_->electrodes.size(); }

const std::vector<Position3>& SphericalSpline::electrodes() const { return fit_->electrodes; }

const SphericalSplineOptions& SphericalSpline::options() const { return fit_->options; }

std::vector<double> SphericalSpline::evaluate(const std::vector<double>& values,
                                              const std::vector<Position3>& at) const {
  const std::size_t n = electrodeCount();
  if (values.size() != n) {
    throw InvalidParameterError("scalp map values", std::to_string(values.size()) + " value(s)",
                                std::to_string(n) + " (one per electrode)");
  }
  const Eigen::Map<const Eigen::VectorXd> v(values.data(), static_cast<Eigen::Index>(n));
  const Eigen::VectorXd coefficients = fit_->solution * v;
  std::vector<double> out(at.size(), kNaN);
  for (std::size_t p = 0; p < at.size(); ++p) {
    Position3 u;
    if (!unit(at[p], &u)) continue;
    double sum = coefficients(static_cast<Eigen::Index>(n));
    for (std::size_t e = 0; e < n; ++e) {
      sum += coefficients(static_cast<Eigen::Index>(e)) *
             kernelSum(dot(u, fit_->electrodes[e]), fit_->factors);
    }
    out[p] = sum;
  }
  return out;
}

SphericalSpline::Evaluator SphericalSpline::evaluator(const std::vector<Position3>& at) const {
  const std::size_t n = electrodeCount();
  const Eigen::Index points = static_cast<Eigen::Index>(at.size());
  const Eigen::Index m = static_cast<Eigen::Index>(n);
  Evaluator e;
  e.points_ = at.size();
  e.electrodes_ = n;
  e.valid_.assign(at.size(), false);
  // [g(at_p . r_i) ..., 1] (points x (n + 1)) times the solution ((n + 1) x n).
  RowMatrix kernel(points, m + 1);
  // The bodies only write their own rows and flags (vector<bool> packs bits: use a char buffer).
  std::vector<char> valid(at.size(), 0);
  parallelRanges(at.size(), static_cast<double>(n) * fit_->options.terms,
                 [&](std::size_t begin, std::size_t end) {
                   std::vector<double> cosines(n);
                   for (std::size_t p = begin; p < end; ++p) {
                     const Eigen::Index row = static_cast<Eigen::Index>(p);
                     Position3 u;
                     if (!unit(at[p], &u)) {
                       kernel.row(row).setZero();
                       kernel(row, m) = 1.0;
                       continue;
                     }
                     valid[p] = 1;
                     for (std::size_t i = 0; i < n; ++i) cosines[i] = dot(u, fit_->electrodes[i]);
                     kernelSums(cosines.data(), n, fit_->factors, &kernel(row, 0));
                     kernel(row, m) = 1.0;
                   }
                 });
  for (std::size_t p = 0; p < at.size(); ++p) e.valid_[p] = valid[p] != 0;
  RowMatrix weights = kernel * fit_->solution;
  e.weights_.assign(weights.data(), weights.data() + weights.size());
  return e;
}

std::vector<double> SphericalSpline::Evaluator::evaluate(const std::vector<double>& values) const {
  if (values.size() != electrodes_) {
    throw InvalidParameterError("scalp map values", std::to_string(values.size()) + " value(s)",
                                std::to_string(electrodes_) + " (one per electrode)");
  }
  return evaluateColumns(values, 1);
}

std::vector<double> SphericalSpline::Evaluator::evaluateMany(
    const std::vector<std::vector<double>>& vectors) const {
  const Eigen::Index k = static_cast<Eigen::Index>(vectors.size());
  const Eigen::Index m = static_cast<Eigen::Index>(electrodes_);
  RowMatrix v(k, m);
  for (Eigen::Index r = 0; r < k; ++r) {
    const auto& row = vectors[static_cast<std::size_t>(r)];
    if (row.size() != electrodes_) {
      throw InvalidParameterError("scalp map value vector " + std::to_string(r + 1),
                                  std::to_string(row.size()) + " value(s)",
                                  std::to_string(electrodes_) + " (one per electrode)");
    }
    for (Eigen::Index c = 0; c < m; ++c) v(r, c) = row[static_cast<std::size_t>(c)];
  }
  // Columns of v^T: the same product as evaluateColumns on the transposed matrix.
  std::vector<double> transposed(static_cast<std::size_t>(k * m));
  Eigen::Map<RowMatrix>(transposed.data(), m, k) = v.transpose();
  return evaluateColumns(transposed, static_cast<int>(k));
}

std::vector<double> SphericalSpline::Evaluator::evaluateColumns(const std::vector<double>& matrix,
                                                                int columns) const {
  if (columns < 0 || matrix.size() != electrodes_ * static_cast<std::size_t>(columns)) {
    throw InvalidParameterError(
        "scalp map value matrix",
        std::to_string(matrix.size()) + " value(s) for " + std::to_string(columns) + " column(s)",
        std::to_string(electrodes_) + " rows (one per electrode) x the column count");
  }
  const Eigen::Index m = static_cast<Eigen::Index>(electrodes_);
  const Eigen::Index p = static_cast<Eigen::Index>(points_);
  const Eigen::Map<const RowMatrix> values(matrix.data(), m, columns);
  const Eigen::Map<const RowMatrix> w(weights_.data(), p, m);
  std::vector<double> out(static_cast<std::size_t>(p) * static_cast<std::size_t>(columns));
  Eigen::Map<RowMatrix> result(out.data(), columns, p);
  result.noalias() = values.transpose() * w.transpose();
  for (std::size_t i = 0; i < points_; ++i) {
    if (valid_[i]) continue;
    for (int c = 0; c < columns; ++c) out[static_cast<std::size_t>(c) * points_ + i] = kNaN;
  }
  return out;
}

DiscPoint projectToDisc(const Position3& p, double headPolarDegrees) {
  Position3 u;
  if (!unit(p, &u)) return {kNaN, kNaN};
  const double polar = std::acos(std::clamp(u.z, -1.0, 1.0));
  const double r = polar / toRadians(headPolarDegrees);
  const double rho = std::hypot(u.x, u.y);
  if (rho == 0.0) return {0.0, u.z > 0.0 ? 0.0 : -r};  // a pole: the south pole put behind
  return {r * u.x / rho, r * u.y / rho};
}

Position3 discToSphere(const DiscPoint& d, double headPolarDegrees) {
  const double rho = std::hypot(d.x, d.y);
  if (!std::isfinite(rho)) return {kNaN, kNaN, kNaN};
  if (rho == 0.0) return {0.0, 0.0, 1.0};
  const double head = toRadians(headPolarDegrees);
  const double polar = std::min(rho, std::numbers::pi / head) * head;
  const double s = std::sin(polar);
  return {s * d.x / rho, s * d.y / rho, std::cos(polar)};
}

ScalpLayout scalpLayout(const std::vector<ChannelInfo>& channels) {
  return scalpLayout(channels, std::vector<bool>(channels.size(), false));
}

ScalpLayout scalpLayout(const std::vector<ChannelInfo>& channels,
                        const std::vector<bool>& noValue) {
  ScalpLayout layout;
  double ringPolar = 0.0;
  int ringSites = 0;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const ChannelInfo& ch = channels[i];
    const std::string name = ch.name.empty() ? ch.label : ch.name;
    Position3 u;
    if (i < noValue.size() && noValue[i] && ch.position) {
      layout.unmapped.push_back(name + " (no value)");
    } else if (ch.position && unit(*ch.position, &u)) {
      layout.mapped.push_back(i);
      layout.positions.push_back(u);
      if (onHeadCircumference(ch.name)) {
        ringPolar += std::acos(std::clamp(u.z, -1.0, 1.0)) * 180.0 / std::numbers::pi;
        ++ringSites;
      }
    } else {
      layout.unmapped.push_back(name);
    }
  }
  if (ringSites >= 4) layout.headPolarDegrees = std::clamp(ringPolar / ringSites, 50.0, 120.0);
  return layout;
}

ScalpGridInterpolator::ScalpGridInterpolator(const SphericalSpline& spline,
                                             const std::vector<Position3>& positions, int size,
                                             double headPolarDegrees)
    : headPolarDegrees_(headPolarDegrees) {
  if (size < 8 || size > 1024) {
    throw InvalidParameterError("scalp grid size", std::to_string(size), "8 to 1024 cells",
                                "use 67 (EEGLAB's default grid)");
  }
  if (positions.size() != spline.electrodeCount()) {
    throw InvalidParameterError(
        "scalp grid positions", std::to_string(positions.size()) + " position(s)",
        std::to_string(spline.electrodeCount()) + " (the spline's electrodes, in the same order)");
  }
  double outermost = 0.0;
  for (const Position3& p : positions) {
    const DiscPoint d = projectToDisc(p, headPolarDegrees_);
    if (std::isfinite(d.x)) outermost = std::max(outermost, std::hypot(d.x, d.y));
  }
  size_ = size;
  // The map ends 2 % beyond the outermost electrode, as EEGLAB's topoplot masks its
  // interpolation at intrad = max electrode radius * 1.02: no colour is invented where no
  // electrode is (a set of central sites is not painted out to the ears). A full cap, whose ring
  // sits on the head circle, ends at the circle; sites below the equator take the map past it
  // (to the south pole at most).
  radius_ = outermost <= 1.001
                ? std::min(1.0, outermost * 1.02)
                : std::min(outermost * 1.02, std::numbers::pi / toRadians(headPolarDegrees_));
  if (!(radius_ > 0)) radius_ = 1.0;  // one electrode at the vertex: nothing to mask against
  // Two cells of margin: extent = radius + 2 * (2 extent / size).
  extent_ = radius_ / (1.0 - 4.0 / size);
  const double cell = 2.0 * extent_ / size;
  std::vector<Position3> at;
  for (int row = 0; row < size; ++row) {
    for (int col = 0; col < size; ++col) {
      const DiscPoint d{-extent_ + (col + 0.5) * cell, extent_ - (row + 0.5) * cell};
      if (std::hypot(d.x, d.y) > extent_) continue;
      cells_.push_back(row * size + col);
      at.push_back(discToSphere(d, headPolarDegrees_));
    }
  }
  evaluator_ = spline.evaluator(at);
}

ScalpGrid ScalpGridInterpolator::assemble(const double* cellValues, const double* electrodeValues,
                                          std::size_t electrodeStride) const {
  ScalpGrid g;
  g.size = size_;
  g.radius = radius_;
  g.extent = extent_;
  g.values.assign(static_cast<std::size_t>(size_) * size_, kNaN);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  const double cell = 2.0 * extent_ / size_;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const int index = cells_[i];
    const double v = cellValues[i];
    g.values[static_cast<std::size_t>(index)] = v;
    const double x = -extent_ + (index % size_ + 0.5) * cell;
    const double y = extent_ - (index / size_ + 0.5) * cell;
    if (std::isfinite(v) && std::hypot(x, y) <= radius_) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  for (std::size_t e = 0; e < evaluator_.electrodeCount(); ++e) {
    const double v = electrodeValues[e * electrodeStride];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  g.minValue = lo <= hi ? lo : 0.0;
  g.maxValue = lo <= hi ? hi : 0.0;
  return g;
}

ScalpGrid ScalpGridInterpolator::grid(const std::vector<double>& values) const {
  if (size_ == 0) throw InvalidParameterError("scalp grid", "an empty interpolator", "a built one");
  const std::vector<double> cells = evaluator_.evaluate(values);
  return assemble(cells.data(), values.data(), 1);
}

std::vector<ScalpGrid> ScalpGridInterpolator::gridsForColumns(const std::vector<double>& matrix,
                                                              int columns) const {
  if (size_ == 0) throw InvalidParameterError("scalp grid", "an empty interpolator", "a built one");
  const std::vector<double> cells = evaluator_.evaluateColumns(matrix, columns);
  std::vector<ScalpGrid> grids;
  grids.reserve(static_cast<std::size_t>(columns));
  for (int c = 0; c < columns; ++c) {
    grids.push_back(assemble(cells.data() + static_cast<std::size_t>(c) * evaluator_.pointCount(),
                             matrix.data() + c, static_cast<std::size_t>(columns)));
  }
  return grids;
}

ScalpGrid interpolateScalpGrid(const SphericalSpline& spline,
                               const std::vector<Position3>& positions,
                               const std::vector<double>& values, int size) {
  return ScalpGridInterpolator(spline, positions, size).grid(values);
}

}  // namespace modescope
