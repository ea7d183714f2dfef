// Linear-phase FIR design by the window method (the building blocks behind designFir() in
// preprocess.h).
//
// A filter is described by its gain at Nyquist (0 or 1) and a list of transitions, each a step of
// the ideal gain between 0 and 1 centred on a cutoff frequency with a transition width. Each
// transition contributes one Hamming-windowed ideal low-pass (windowed sinc, unit gain at DC) whose
// length follows the transition width (length = 3.3 / (width / fs), odd), added when the gain rises
// towards DC and subtracted when it falls; the shorter pieces are centred in the full length.
// This is the construction MNE-Python uses for fir_design='firwin' (facts, not code): a transition
// of width w centred at f_c passes -6 dB (gain 0.5) at f_c and reaches the Hamming window's 53 dB
// stop band about w/2 away on either side. All arithmetic is double precision.
//
// Thread rules: every function here is pure and may be called from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace modescope {

// Hamming window's length factor: a transition of width w Hz needs 3.3 * fs / w taps
// (Hamming: 0.0194 dB pass-band ripple, 53 dB stop-band attenuation).
inline constexpr double kHammingLengthFactor = 3.3;

// MNE's automatic transition widths (filter_length='auto', l/h_trans_bandwidth='auto'), in Hz.
// Low edge: min(max(0.25 * lowHz, 2), lowHz). High edge: min(max(0.25 * highHz, 2), fs/2 - highHz).
double autoLowTransitionHz(double lowHz);
double autoHighTransitionHz(double highHz, double sampleRate);

// Taps needed for a transition of `transitionHz`: ceil(3.3 / transitionHz * fs), made odd.
std::size_t filterLengthFor(double transitionHz, double sampleRate);

// Symmetric Hamming window of `length` points: 0.54 - 0.46 cos(2 pi k / (length - 1)).
std::vector<double> hammingWindow(std::size_t length);

// Hamming-windowed ideal low-pass with its -6 dB point at cutoffHz, `length` taps (odd), scaled
// to unit gain at DC.
std::vector<double> windowedSincLowPass(double cutoffHz, std::size_t length, double sampleRate);

// One step of the ideal gain: below cutoffHz the gain is `gainBelow` (0 or 1), above it is the
// other value; widthHz sets this piece's length.
struct FirTransition {
  double cutoffHz = 0.0;
  double widthHz = 0.0;
  int gainBelow = 1;
};

// Sums the pieces into one odd-length, symmetric filter of `length` taps. `gainAtNyquist` is the
// ideal gain above the highest transition. Transitions must alternate (gains 1,0,1,... going up)
// and each piece must fit into `length`; violations are programming errors (std::logic_error):
// designFir() validates user parameters before it gets here.
std::vector<double> composeFir(const std::vector<FirTransition>& transitions, int gainAtNyquist,
                               std::size_t length, double sampleRate);

}  // namespace modescope
