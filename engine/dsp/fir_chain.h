// Display filter chains: a high-pass, a low-pass and a notch applied together, as one FIR.
//
// Each filter of the chain is designed by designFir (preprocess.h); applying them one after the
// other equals applying the convolution of their kernels (linear, time-invariant filters
// compose by convolution and commute). Each kernel is odd-length and symmetric (zero phase
// about its centre), so their convolution is too, and the browser's padding rule (half the
// length of real neighbouring samples) stays exact. The response is what the chain does:
// the product of the gains.
//
// Thread rules: pure functions.
#pragma once

#include <vector>

#include "engine/compute/backend.h"
#include "engine/dsp/preprocess.h"

namespace modescope {

// The chain as one kernel (description: the filters' descriptions joined by " + ", with the
// total taps). An empty chain is an error (InvalidParameterError): "no filter" is no kernel.
// Throws what designFir throws for a filter that does not fit the rate, naming that filter.
FirKernel designFirChain(const std::vector<FilterSpec>& chain, double sampleRate);

// Gain in dB of a symmetric FIR at each frequency (Hz): the zero-phase amplitude
// A(f) = h[c] + 2 sum_k h[c+k] cos(2 pi f k / fs), as 20 log10 |A| (floored at -200 dB).
std::vector<double> firGainDb(const FirKernel& kernel, const std::vector<double>& frequencies);

}  // namespace modescope
