// What is read from a time-frequency image (tf_result.h): the reconstructed signal, a band, the
// ridges, and the Renyi entropy as a concentration measure. Backend-independent host code.
//
// Reconstruction: squeezing only moves each STFT value within its column, so every column keeps
// its sum, and for a real signal with the one-sided bins 0..N/2 (the DC and Nyquist values
// halved, tf_cpu.h) x(t) = 2 / (N h(0)) Re sum_k T(t, k) (the discrete form of
// x(t) = (1 / 2 pi h(0)) integral F dw under the local-time convention). Energy squeezed outside
// the image's bins, or a frequency range narrower than 0..fs/2, leaves out that part.
//
// Thread rules: pure functions.
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

#include "engine/tf/tf_result.h"

namespace modescope {

// x_hat(t) for every column of image channel c (the signal at the columns' samples: with hop 1,
// the whole signal). Throws InvalidParameterError for c out of range.
std::vector<double> tfReconstruct(const TfResult& r, std::size_t c);

// The part of x between lowHz and highHz (image rows whose frequency lies in [lowHz, highHz]).
// Throws InvalidParameterError when the band holds no row.
std::vector<double> tfReconstructBand(const TfResult& r, std::size_t c, double lowHz,
                                      double highHz);

struct TfRidgeParams {
  int count = 1;         // ridges to extract, strongest first
  double penalty = 0.1;  // cost per squared bin of jump between columns
  int halfWidth = 2;     // bins either side of a ridge that belong to it (reconstruction, and
                         // removed before the next ridge is searched)
};

// Ridges of image channel c by dynamic programming: the path k(t) minimising
// sum_t [-ln(E(t, k(t)) + 1e-12) + penalty (k(t) - k(t-1))^2], E = |T|^2 / max |T|^2 (Carmona,
// Hwang and Torresani 1997's penalised ridge; the squared jump solved exactly with a distance
// transform, Felzenszwalb and Huttenlocher 2012, so each column costs O(K)). Each next ridge is
// searched with the bins within halfWidth of the previous ones removed. Returns count x T image
// row indices. Throws InvalidParameterError for a bad channel, count < 1, penalty < 0 or
// halfWidth < 0.
std::vector<std::vector<int>> tfRidges(const TfResult& r, std::size_t c, const TfRidgeParams& p);

// The mode along one ridge: per column, the rows within halfWidth of ridge[t], reconstructed as
// above.
std::vector<double> tfReconstructRidge(const TfResult& r, std::size_t c,
                                       const std::vector<int>& ridge, int halfWidth);

// Renyi entropy (bits) of |T|^2 of image channel c normalised to unit sum:
// 1 / (1 - alpha) log2 sum p^alpha (Baraniuk, Flandrin, Janssen and Michel 2001; alpha = 3 is
// usual). Lower is more concentrated. Throws InvalidParameterError for alpha <= 0, alpha == 1, or
// an all-zero image.
double tfRenyiEntropy(const TfResult& r, std::size_t c, double alpha = 3.0);

// The Renyi entropy of order 3 of a channel whose image arrives in tiles (engine/tf/tf_tiles.h):
// the sums of |T|^2 and |T|^6, so that sum p^3 = sum |T|^6 / (sum |T|^2)^3. Equal to
// tfRenyiEntropy(r, c, 3) up to rounding (tested); NaN for an all-zero channel (a flat channel has
// no distribution to measure).
class TfRenyiSums {
 public:
  void add(const float* magnitude, std::size_t count);
  void add(const std::complex<float>* values, std::size_t count);
  double entropy() const;

 private:
  double power_ = 0.0, sixth_ = 0.0;
};

// The reconstruction quality factor 10 log10(|x|^2 / |x - x_hat|^2) in dB over the common length.
double tfReconstructionQuality(const std::vector<double>& x, const std::vector<double>& xHat);

}  // namespace modescope
