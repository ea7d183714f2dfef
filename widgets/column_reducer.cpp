#include "widgets/column_reducer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace modescope::browser {

ColumnGrid::ColumnGrid(double rate_, double start_, double length, int columns_)
    : rate(rate_),
      start(start_),
      dt(length / std::max(columns_, 1)),
      columns(std::max(columns_, 1)) {
  raw = rate * dt < 2.0;
  if (raw) {
    // One sample beyond each edge so the drawn line reaches the page borders.
    firstNeeded = static_cast<int64_t>(std::floor(start * rate)) - 1;
    endNeeded = static_cast<int64_t>(std::ceil((start + length) * rate)) + 2;
    return;
  }
  bounds.resize(static_cast<std::size_t>(columns) + 1);
  for (int c = 0; c <= columns; ++c) {
    bounds[static_cast<std::size_t>(c)] = static_cast<int64_t>(std::ceil((start + c * dt) * rate));
  }
  firstNeeded = bounds.front();
  endNeeded = bounds.back();
}

ColumnReducer::ColumnReducer(double rate, double start, double length, int columns)
    : ColumnReducer(std::make_shared<const ColumnGrid>(rate, start, length, columns)) {}

ColumnReducer::ColumnReducer(std::shared_ptr<const ColumnGrid> grid) : grid_(std::move(grid)) {
  const auto columns = static_cast<std::size_t>(grid_->columns);
  if (grid_->raw) {
    rawValues_.assign(static_cast<std::size_t>(grid_->endNeeded - grid_->firstNeeded),
                      std::numeric_limits<float>::quiet_NaN());
  } else {
    lo_.assign(columns, std::numeric_limits<float>::infinity());
    hi_.assign(columns, -std::numeric_limits<float>::infinity());
    ilo_.assign(columns, 0);
    ihi_.assign(columns, 0);
  }
}

void ColumnReducer::add(const float* samples, int64_t first, int64_t count) {
  const ColumnGrid& g = *grid_;
  const int64_t a0 = std::max(first, g.firstNeeded);
  const int64_t a1 = std::min(first + count, g.endNeeded);
  if (a1 <= a0) return;
  if (g.raw) {
    std::copy(samples + (a0 - first), samples + (a1 - first),
              rawValues_.begin() + (a0 - g.firstNeeded));
    for (int64_t i = a0; i < a1; ++i) {
      const double t = static_cast<double>(i) / g.rate;
      if (t >= g.start && t < g.start + g.dt * g.columns) {
        sum_ += samples[i - first];
        ++n_;
      }
    }
    return;
  }
  // First column that holds a0: bounds_ is sorted.
  const std::vector<int64_t>& bounds = g.bounds;
  int c = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), a0) - bounds.begin()) - 1;
  int64_t i = a0;
  while (i < a1 && c < g.columns) {
    const int64_t end = std::min(a1, bounds[static_cast<std::size_t>(c) + 1]);
    if (end > i) {
      const float* p = samples + (i - first);
      const int64_t m = end - i;
      float lo = lo_[c], hi = hi_[c];
      int64_t ilo = ilo_[c], ihi = ihi_[c];
      double s = 0.0;
      for (int64_t k = 0; k < m; ++k) {
        const float v = p[k];
        s += v;
        if (v < lo) {
          lo = v;
          ilo = i + k;
        }
        if (v > hi) {
          hi = v;
          ihi = i + k;
        }
      }
      lo_[c] = lo, hi_[c] = hi, ilo_[c] = ilo, ihi_[c] = ihi;
      sum_ += s;
      n_ += m;
      i = end;
    }
    ++c;
  }
}

DecimatedTrace ColumnReducer::finish(double scale) const {
  const ColumnGrid& g = *grid_;
  DecimatedTrace t;
  t.decimated = !g.raw;
  t.offset = n_ > 0 ? static_cast<float>(sum_ / static_cast<double>(n_) * scale) : 0.0f;
  if (g.raw) {
    for (std::size_t k = 0; k < rawValues_.size(); ++k) {
      if (std::isnan(rawValues_[k])) continue;  // not delivered: outside the channel
      const double time = static_cast<double>(g.firstNeeded + static_cast<int64_t>(k)) / g.rate;
      t.x.push_back(static_cast<float>((time - g.start) / g.dt));
      t.y.push_back(static_cast<float>(rawValues_[k] * scale));
    }
    return t;
  }
  t.x.resize(2 * lo_.size());
  t.y.resize(2 * lo_.size());
  std::size_t k = 0;
  for (int c = 0; c < g.columns; ++c) {
    if (!(lo_[c] <= hi_[c])) continue;  // no samples: before or after the channel
    const bool minFirst = ilo_[c] <= ihi_[c];
    const float xc = static_cast<float>(c) + 0.5f;
    t.x[k] = xc;
    t.y[k++] = static_cast<float>((minFirst ? lo_[c] : hi_[c]) * scale);
    t.x[k] = xc;
    t.y[k++] = static_cast<float>((minFirst ? hi_[c] : lo_[c]) * scale);
  }
  t.x.resize(k);
  t.y.resize(k);
  return t;
}

DecimatedTrace decimateTrace(const float* samples, int64_t first, int64_t count, double rate,
                             double start, double length, int columns, double scale) {
  if (count <= 0 || rate <= 0 || length <= 0 || columns <= 0) return {};
  ColumnReducer r(rate, start, length, columns);
  r.add(samples, first, count);
  return r.finish(scale);
}

}  // namespace modescope::browser
