// Axis ticks for the plot views of decomposition results (IMF stack, Hilbert and marginal
// spectra): "nice" 1-2-5 steps on linear axes and decades (with 2 and 5 when few decades show)
// on logarithmic ones, plus compact number labels.
//
// Thread rules: pure functions.
#pragma once

#include <QString>
#include <vector>

namespace modescope {

// Ticks at multiples of a 1-2-5 step inside [lo, hi], about `targetCount` of them (at least 2
// when the range is not empty).
std::vector<double> linearTicks(double lo, double hi, int targetCount);

// Ticks for a logarithmic axis over [lo, hi] (lo > 0): powers of ten, and 2 and 5 times them when
// the range spans fewer than three decades. Falls back to linearTicks when lo <= 0.
std::vector<double> logTicks(double lo, double hi);

// The smallest 1-2-5 number (times a power of ten) >= value; value itself when <= 0.
double niceCeil(double value);

// "0.5", "12", "1e+03" style, at most 3 significant digits, no trailing zeros.
QString formatTick(double value);

}  // namespace modescope
