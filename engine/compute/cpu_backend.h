// The CPU compute backend (makeCpuBackend() in backend.h) and the FFT helpers it shares with the
// CUDA backend. Arithmetic is double precision inside; blocks stay float32.
//
// FIR filtering is overlap-save FFT convolution (FFTW, real-to-complex), one channel at a time per
// worker thread, so memory stays bounded by a few channel lengths per thread whatever the block
// size. The signal is extended at both ends by its odd reflection about the end samples,
// x[-k] = 2 x[0] - x[k] and x[n-1+k] = 2 x[n-1] - x[n-1-k] for k = 1..P with
// P = min((taps - 1) / 2, n - 1), and by zeros beyond that; the convolution's group delay
// (taps - 1) / 2 is removed. This equals MNE-Python's pad='reflect_limited' with phase='zero'
// (MNE pads min(taps, n) - 1 samples; samples beyond the half-length never reach the output).
//
// Thread rules: FFTW plans are made and destroyed under the planner lock (fftwPlannerMutex() in
// engine/parallel/fftw_owners.h).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace modescope {

// DFT of `taps` zero-padded to `fftSize` (even): bins 0..fftSize/2, in double. The CUDA backend
// takes its kernel spectrum from here so both backends filter with the same spectrum.
std::vector<std::complex<double>> firSpectrum(const std::vector<double>& taps, std::size_t fftSize);

// Overlap-save FFT length for `taps` taps over `samples` samples: the power of two that
// minimises the estimated FFT work per output sample (at most 2^20, at least the next power of
// two at or above `taps`).
std::size_t overlapSaveFftSize(std::size_t taps, int64_t samples);

// "Intel(R) Xeon(R) ..." from /proc/cpuinfo, or "unknown CPU".
std::string cpuModelName();

}  // namespace modescope
