// Reduces a trace to what a pixel column can show: the minimum and maximum of the samples that
// fall in each column, in the order they occur (so the line to the next column starts where the
// signal really was), plus the mean for DC removal. Samples may arrive in chunks, so a page far
// longer than memory allows is reduced while it is read.
//
// Column c of a page [start, start + length) over `columns` columns holds the samples whose time
// i / rate lies in [start + c * dt, start + (c + 1) * dt), dt = length / columns. When a column
// would hold fewer than two samples the reducer keeps the samples themselves instead (zoomed in).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace modescope::browser {

// One channel's polyline in page units: x in columns (0 = left edge of the page, a column's
// centre is c + 0.5), y in microvolts after montage/filter. `offset` is the mean of the page's
// samples, which the renderer subtracts so every trace sits on its row (as MNE's remove_dc).
struct DecimatedTrace {
  int channel = -1;
  std::vector<float> x, y;
  float offset = 0.0f;
  bool decimated = false;  // true: min/max pairs per column; false: raw samples
};

// Where the columns of a page start, in samples at one rate. Shared by all channels at that
// rate (computing it costs as much as reducing a short channel).
struct ColumnGrid {
  ColumnGrid(double rate, double start, double length, int columns);
  double rate, start, dt;
  int columns;
  bool raw;                        // fewer than two samples per column
  int64_t firstNeeded, endNeeded;  // samples the page needs, [firstNeeded, endNeeded)
  std::vector<int64_t> bounds;     // bounds[c] = first sample of column c, c = 0..columns
};

class ColumnReducer {
 public:
  explicit ColumnReducer(std::shared_ptr<const ColumnGrid> grid);
  ColumnReducer(double rate, double start, double length, int columns);

  // Samples [first, first + count) of the channel (absolute indices at `rate`). Chunks must come
  // in increasing order and must not overlap; samples outside the page are ignored (except one
  // on each side in raw mode, so the line runs to the page edges).
  void add(const float* samples, int64_t first, int64_t count);
  // Samples the page needs, [firstNeeded, endNeeded): callers read exactly this range.
  int64_t firstNeeded() const { return grid_->firstNeeded; }
  int64_t endNeeded() const { return grid_->endNeeded; }
  bool raw() const { return grid_->raw; }

  // The polyline, values multiplied by `scale` (unit -> uV).
  DecimatedTrace finish(double scale) const;

 private:
  std::shared_ptr<const ColumnGrid> grid_;
  // Decimated mode, per column.
  std::vector<float> lo_, hi_;
  std::vector<int64_t> ilo_, ihi_;
  // Raw mode: samples [firstNeeded, endNeeded), NaN where none was delivered.
  std::vector<float> rawValues_;
  double sum_ = 0.0;
  int64_t n_ = 0;
};

// One-shot form of ColumnReducer for a contiguous array: samples [0, count) start at absolute
// sample `first`. Exposed for tests and the benchmark.
DecimatedTrace decimateTrace(const float* samples, int64_t first, int64_t count, double rate,
                             double start, double length, int columns, double scale);

}  // namespace modescope::browser
