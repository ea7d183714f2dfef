// Parameters of the time-frequency representations: the STFT spectrogram and vertical
// synchrosqueezing (VSS) of orders 1-4 (Gambrych and Abratkiewicz, "Real-time CUDA implementation
// of high-order vertical synchrosqueezing"; Pham and Meignen 2017 for the fourth order).
// docs/time-frequency.md gives the operators, the conventions and the sources; tf_operators.h the
// per-bin formulas both backends evaluate; tf_cpu.h the procedure.
//
// Thread rules: plain values; every function here is pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope {

enum class TfWindow {
  Gaussian,  // h(k) = exp(-k^2 / 2 sigma^2) / (sqrt(2 pi) sigma): analytic derivatives, every order
  Hann,      // the plain spectrogram only (order 0)
  Hamming,   // the plain spectrogram only (order 0)
};

// What the image holds. Every order keeps complex values (the squeezed STFT), so the signal and
// any band or ridge can be reconstructed from it.
enum class TfOrder {
  Spectrogram,     // 0: the STFT itself (|F|^2 is the spectrogram)
  First,           // 1: omega_hat = Im(j omega - F^{Dh} / F^h)
  Second,          // 2: the 2x2 local-polynomial system (exact on linear chirps)
  Third,           // 3: EVSS1, the 3x3 system (exact on cubic phase)
  ThirdCanonical,  // "3c": CVSS3, IF + chirp rate x delay + jerk x delay^2 (exact on linear chirps)
  Fourth,          // 4: the 4x4 system (Pham and Meignen 2017; exact on quartic phase)
};

struct TfParams {
  TfOrder order = TfOrder::Third;
  TfWindow window = TfWindow::Gaussian;
  // Taps of the window, centred: k = -L/2 .. L - 1 - L/2 (sample k = 0 is the column's time).
  int windowLength = 256;
  // Gaussian sigma in samples; 0 = automatic, L / 10 (the window then spans +-5 sigma, where the
  // Gaussian has fallen to 4e-6 of its peak, so the integration-by-parts identities the operators
  // rest on hold to that level).
  double sigma = 0.0;
  int fftLength = 512;  // N: bins are m * fs / N, m = 0 .. N/2; N >= L
  int hop = 1;          // samples between columns; column c is centred on sample c * hop
  // Bins whose |F^h| is below threshold x RMS(x) x sum(h) stay where they are (not relocated): the
  // operators divide by F^h, and near-zero values give arbitrary frequencies. Keeping them in
  // place (instead of dropping them) keeps every column sum, hence the reconstruction.
  double threshold = 1e-3;
  double minFrequency = 0.0;  // Hz: the lowest bin kept in the image
  double maxFrequency = 0.0;  // Hz; 0 = the Nyquist frequency
  // Rows of the SignalBlock to transform, in this order. Empty: all rows.
  std::vector<std::size_t> rows;
  // The largest image (C x T x K x 8 bytes) a backend may return; planTf refuses more, naming
  // the size. A resource limit set by the caller (the job, a benchmark), not a declared parameter.
  std::size_t maxBytes = std::size_t{8} << 30;
};

// Hard limits, and why:
// - FFT length 16..65536: 65536 bins of 8 bytes per column already make a 2-column image 1 MiB;
//   the GPU keeps one column's bin targets in shared memory.
// - window length 4..65536 taps (at most the FFT length).
// - hop 1..65536 samples.
constexpr int kTfMinFft = 16;
constexpr int kTfMaxFft = 65536;
constexpr int kTfMinWindow = 4;
constexpr int kTfMaxHop = 65536;
// The default largest image held in memory (TfParams::maxBytes): 8 GiB of complex float values.
constexpr std::size_t kTfDefaultMaxBytes = std::size_t{8} << 30;

// Numeric order as files and the CLI write it: 0, 1, 2, 3, "3c", 4.
const char* tfOrderName(TfOrder o);
const char* tfWindowName(TfWindow w);  // "gaussian", "hann", "hamming"
TfOrder parseTfOrder(const std::string& text);
TfWindow parseTfWindow(const std::string& text);

// The polynomial order of the local phase model (0 for the spectrogram, 3 for both third-order
// variants) and the number of modified STFTs it needs (1, 2, 5, 10, 10, 17).
int tfModelOrder(TfOrder o);
int tfStftCount(TfOrder o);

// The Gaussian sigma actually used: p.sigma, or windowLength / 10 when 0.
double tfSigma(const TfParams& p);

// Every user-set TfParams field declared once (tf_param_table.cpp).
const ParamTable<TfParams>& tfParamTable();

// Throws InvalidParameterError naming the field for a value outside its declared range and for
// the rules between fields: FFT length below the window length; an order >= 1 with a window
// other than Gaussian; minFrequency >= maxFrequency (when maxFrequency is set). planTf adds the
// checks that need the signal, and sigma at most window length / 6.
void validateTfParams(const TfParams& p);

}  // namespace modescope
