// The CUDA MEMD backend's memory plan, in the engine so it can be tested without a device
// (tests/unit/memd_test.cpp): what stays resident (the residue, the candidate, the mean and the
// amplitude: 3 dims n + n values; the directions) and what one direction of a chunk needs (its
// projection, extremum flags, knots, and per channel and envelope the knot values, slopes and
// Thomas scratch: about n (R + 5) + 3 dims n R bytes). Directions are streamed through the chunk,
// so memory grows with the chunk, not with K (the published GPU code keeps 11 arrays of K x dims x
// n values: 44 bytes per direction x channel x sample in float).
//
// Thread rules: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace modescope {

// Knots one envelope of one projection can have: at most n / 2 extrema plus 4 mirrored knots.
constexpr int64_t memdKnotCapacity(int64_t n) { return n / 2 + 8; }

struct MemdDevicePlan {
  int chunk = 0;                 // directions per chunk (<= K)
  std::size_t fixedBytes = 0;    // resident whatever the chunk
  std::size_t perDirection = 0;  // per direction of a chunk
  std::size_t totalBytes = 0;    // fixed + chunk x perDirection
};

std::size_t memdFixedBytes(int dims, int64_t n, int directions, int valueBytes);
std::size_t memdPerDirectionBytes(int dims, int64_t n, int valueBytes);

// The largest chunk (at most `directions`) whose total fits in budgetBytes. Throws
// OutOfDeviceMemoryError when not even one direction fits, saying how many samples (at this
// channel count) and how many channels (at this length) would fit, and that float32 halves it.
MemdDevicePlan planMemdDevice(int dims, int64_t n, int directions, int valueBytes,
                              double budgetBytes);

}  // namespace modescope
