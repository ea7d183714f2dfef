// Where a row of samples stops being finite: the input checks of the methods (EMD, MEMD, AR,
// entropy) name the first NaN or infinite sample of a channel.
#pragma once

#include <cstdint>

namespace modescope {

// The index of the first sample of x[0 .. n) that is NaN or infinite, or n where all are finite.
int64_t firstNonFinite(const float* x, int64_t n);

}  // namespace modescope
