// Signal and statistics helpers of the ICA artifact flags (engine/ica/ica_flags.h); internal to
// engine/ica. Each follows the MNE 1.3 or ADJUST function named beside it.
//
// Thread rules: pure functions; FFTW plans are made under the engine's planner lock.
#pragma once

#include <cstdint>
#include <vector>

namespace modescope::ica_flags {

// Zero-phase band-pass as MNE's ICA scoring filter (ica.py _band_pass_filter: FIR designed the
// way scipy.signal.firwin2 does it - frequency sampling of a piecewise-linear gain with 0.5 Hz
// transitions, Hann window - 10 s long, applied forwards and backwards, 'zero-double'), centred,
// the ends padded by reflection. Shorter signals get a filter as long as they are.
std::vector<double> bandPass(const float* x, int64_t n, double fs, double lowHz, double highHz);

// Instantaneous phase of the analytic signal (scipy.signal.hilbert), mapped to [0, 1) as
// MNE's ctps _compute_normalized_phase: (angle + pi) / (2 pi).
std::vector<double> normalisedPhase(const double* x, int n);

// Welch PSD as MNE's Raw.compute_psd defaults (psd_array_welch): n_fft = min(256, n), no
// overlap, periodic Hamming window, each segment's mean removed; bins in [lowHz, highHz].
// `freqs` receives the frequencies.
std::vector<double> mnePsd(const float* x, int64_t n, double fs, double lowHz, double highHz,
                           std::vector<double>* freqs);

// Power spectrum with `resolutionHz` bins (Welch, Hann, 50 % overlap), all bins 0..fs/2.
std::vector<double> welchPower(const double* x, int64_t n, double fs, double resolutionHz,
                               double* binHz);

// Least-squares slope of y on x (numpy.polyfit(x, y, 1)[0]).
double fitSlope(const std::vector<double>& x, const std::vector<double>& y);

// Pearson r; 0 for constant series.
double correlation(const double* a, const double* b, int64_t n);

// Kurtosis m4 / m2^2 (3 for a Gaussian: MATLAB's kurtosis, as ADJUST uses it).
double kurtosis(const float* x, int64_t n);

// MNE bads.py _find_outliers(scores, threshold, max_iter=2, tail=0): |z| over the elements not yet
// flagged, twice. Returns the flags and (in *z) the z-scores of the last round.
std::vector<bool> iteratedZOutliers(const std::vector<double>& scores, double threshold,
                                    std::vector<double>* z);

// ADJUST's EM_ADJUST: two Gaussian classes fitted to `values` by expectation-maximisation
// (Bruzzone and Prieto 2000), the threshold where their weighted densities cross between the
// means. Class variances are floored at 1 % of the feature's variance. Falls back to mean + 2 std
// when the fit degenerates.
double emThreshold(const std::vector<double>& values);

// MNE ctps_.py kuiper + _prob_kuiper: the Kuiper statistic of `phases` (values in [0, 1))
// against the uniform law and its normalised probability pk in [0, 1].
double kuiperStatistic(std::vector<double> phases);
double kuiperProbability(double statistic, int samples);

// MNE ICA._get_ctps_threshold(pk_threshold=20): the Kuiper statistic (0.01 steps) whose pk is
// closest to 10^-20, with N = the sample rate as MNE has it.
double ctpsAutomaticThreshold(double sampleRate);

// 1 / (1 + exp(-(value - threshold) / spread)): 0.5 at the threshold.
double logistic(double value, double threshold, double spread);

}  // namespace modescope::ica_flags
