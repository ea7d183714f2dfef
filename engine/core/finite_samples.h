// Where a row of samples stops being finite: the input checks of the methods (EMD, MEMD, AR,
// entropy) name the first NaN or infinite sample of a channel.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modescope {

// The index of the first sample of x[0 .. n) that is NaN or infinite, or n where all are finite.
int64_t firstNonFinite(const float* x, int64_t n);

// The batch methods' input check (EMD, MEMD, ICA, AR): throws InvalidInputError naming `channel`,
// its first NaN or infinite sample and, where sampleRate > 0, that sample's time "s into the
// <span>" (the block or the selection the method was given), with what to do. Returns where every
// sample of x[0 .. n) is finite.
void requireFiniteSamples(const std::string& channel, const float* x, int64_t n, double sampleRate,
                          std::string_view span);

}  // namespace modescope
