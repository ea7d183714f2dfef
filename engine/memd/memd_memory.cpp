// The CUDA MEMD backend's memory plan (memd_memory.h).
#include "engine/memd/memd_memory.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope {
std::size_t memdFixedBytes(int dims, int64_t n, int directions, int valueBytes) {
  const auto d = static_cast<std::size_t>(dims), un = static_cast<std::size_t>(n);
  const auto k = static_cast<std::size_t>(directions), r = static_cast<std::size_t>(valueBytes);
  // r, m, its transpose, mean (dims x n each), amp (n), directions (K x dims), per-direction
  // counters (K x 16), and the host's double staging of one dims x n block.
  return (4 * d * un + un + k * d) * r + 16 * k + (std::size_t{1} << 20);
}

std::size_t memdPerDirectionBytes(int dims, int64_t n, int valueBytes) {
  const auto d = static_cast<std::size_t>(dims), un = static_cast<std::size_t>(n);
  const auto cap = static_cast<std::size_t>(memdKnotCapacity(n));
  const auto r = static_cast<std::size_t>(valueBytes);
  // projection (n R) + flags (n bytes) + knot positions (2 cap int32) + per channel and envelope
  // the values and slopes at the knots (2 x 2 x dims x cap R) + per envelope and group of 32
  // channels the elimination factors (2 x groups x cap R) + a few counters.
  const std::size_t groups = (d + 31) / 32;
  return un * r + un + 2 * cap * 4 + (4 * d + 2 * groups) * cap * r + 64;
}

MemdDevicePlan planMemdDevice(int dims, int64_t n, int directions, int valueBytes,
                              double budgetBytes) {
  MemdDevicePlan plan;
  plan.fixedBytes = memdFixedBytes(dims, n, directions, valueBytes);
  plan.perDirection = memdPerDirectionBytes(dims, n, valueBytes);
  const double room = budgetBytes - static_cast<double>(plan.fixedBytes);
  const double chunk = room / static_cast<double>(plan.perDirection);
  if (chunk < 1) {
    // Both parts grow linearly with n and (nearly) with dims: search the largest that fits.
    auto fits = [&](int d, int64_t len) {
      return static_cast<double>(memdFixedBytes(d, len, directions, valueBytes) +
                                 memdPerDirectionBytes(d, len, valueBytes)) <= budgetBytes;
    };
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(dims, mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    int dlo = 0, dhi = dims;
    while (dlo < dhi) {
      const int mid = dlo + (dhi - dlo + 1) / 2;
      if (fits(mid, n))
        dlo = mid;
      else
        dhi = mid - 1;
    }
    std::string what = "MEMD of " + std::to_string(dims) + " channels x " + std::to_string(n) +
                       " samples needs at least " +
                       formatByteSize(static_cast<double>(plan.fixedBytes + plan.perDirection)) +
                       " of GPU memory (one direction at a time); " + formatByteSize(budgetBytes) +
                       " is usable. ";
    what += "At most " + std::to_string(lo) + " samples fit with " + std::to_string(dims) +
            " channels, or " + std::to_string(dlo) + " channels with " + std::to_string(n) +
            " samples";
    what += valueBytes > 4 ? "; float32 precision needs about half. " : ". ";
    what += "Select a shorter time range or fewer channels, or use the CPU backend.";
    throw OutOfDeviceMemoryError(what);
  }
  plan.chunk = static_cast<int>(std::min<double>(directions, chunk));
  plan.totalBytes = plan.fixedBytes + static_cast<std::size_t>(plan.chunk) * plan.perDirection;
  return plan;
}

}  // namespace modescope
