// Burg AR spectra per channel over sliding windows, on the CPU (double precision, threads over
// channels): the BCI2000 ARFilter / Wilson and Williams (2009) feature extraction. docs/ar.md
// ("What is computed") gives the method; a GPU backend
// (batched over channels x windows) follows this procedure step by step:
//
//  1. validateBurgArParams(params, block.sampleRate); N, step = resolveArLengths(). The block must
//     hold channels x samples values, at least N samples (else InvalidParameterError "window"),
//     and finite samples (else InvalidInputError naming the channel and the sample).
//  2. Windows start at w * step, w = 0..W-1, W = floor((S - N) / step) + 1 (S = block samples);
//     the tail that does not fill a window is not used.
//  3. For each (channel, window), x = the N float samples widened to double:
//     a. flat: all N samples equal -> a = 0, sigma^2 = 0, every bin value 0 (a flat or
//        disconnected electrode has no spectrum; a diagnostic counts these windows).
//     b. detrend: Mean: x -= sum(x)/N. Linear: with u_t = t - (N-1)/2, x -= mean(x) + s u_t,
//        s = sum(u_t x_t) / sum(u_t^2), sum(u_t^2) = N (N^2 - 1) / 12.
//     c. Burg of order p on x (burg.h). orderReached < p is counted for a diagnostic.
//     d. Power: for bin b (centres arBinCenters) and its E frequencies f_{b,e}
//        (arEvaluationFrequencies): w = 2 pi f / fs, z = e^{-i w},
//        A = 1 - sum_{k=1..p} a_k z^k (Horner: s = 0; for k = p..1: s = s z + a_k; s = s z;
//        A = 1 - s), P(f) = 2 sigma^2 / (fs |A|^2)  [one-sided PSD, unit^2/Hz: the paper's Eq. 4
//        sigma^2/|A|^2 per sample, times 2 for one side, divided by fs for per-Hz], and the bin
//        value is the mean over e of P(f_{b,e}) (Eq. 5: a mean, not a sum, so it does not scale
//        with the bin width). Amplitude: sqrt of the bin mean. Coefficients: a_1..a_p.
//        With this scaling integral_0^{fs/2} P(f) df = sigma_0^2 (Parseval; the raw mean square).
//  4. Values and sigma_p^2 are stored as float; diagnostics: "ar.flatWindows" and
//     "ar.orderReduced" (warnings, one per affected channel, with the window count).
//
// Thread rules: computeArSpectraCpu is re-entrant; `threads` workers (<= 0: hardware concurrency)
// take whole channels; progress ("AR spectra: c/C channels") is reported from the calling thread
// only; workers check for a stop request after every window, and the call then throws Cancelled.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ar/ar_params.h"
#include "engine/ar/ar_result.h"
#include "engine/ar/burg.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {

// Wilson and Williams' Eq. 4 in per-sample units: sigma^2 / |1 - sum a_k e^{-i w k}|^2, w in
// rad/sample. a has `order` values a_1..a_p.
double arPsdPerSample(const double* a, int order, double noiseVariance, double omega);

// One-sided physical PSD at f Hz (unit^2/Hz): 2 sigma^2 / (fs |A(e^{i 2 pi f / fs})|^2).
double arPsd(const BurgModel& model, double frequencyHz, double sampleRate);

// Bin means of arPsd over each bin's evaluation frequencies (step 3d), one per arBinCenters(p);
// Amplitude takes the square root. p.output must be Power or Amplitude.
std::vector<double> arBinValues(const BurgModel& model, const BurgArParams& p, double sampleRate);

// Step 3b on x[0..n) in place.
void arDetrend(double* x, int64_t n, ArDetrend detrend);

// Host pieces every backend shares, so the GPU returns the same frame, angles and messages:
//  - arResultFrame: validates params and the block's shape (step 1: channels, length >= N; the
//    data are not read, so a backend may pass a block whose samples live on its device) and
//    returns the result with every field but the values set (values and variances zero);
//  - checkArBlock: the rest of step 1, on the samples (size, finite);
//  - arEvaluationAngles: w = 2 pi f / fs of every evaluation, bin-major (bins x E); empty for
//    Coefficients;
//  - addArDiagnostics: step 4's warnings from per-channel counts (block row order).
void checkArBlock(const SignalBlock& block);
ArSpectrumResult arResultFrame(const SignalBlock& block, const BurgArParams& params);
std::vector<double> arEvaluationAngles(const BurgArParams& params, double sampleRate);
struct ArChannelCounts {
  int64_t flat = 0;     // windows flat (step 3a, or flat after detrending)
  int64_t reduced = 0;  // windows whose model stopped below the order
  int minOrder = 0;     // the lowest order reached among them
};
void addArDiagnostics(ArSpectrumResult& r, const SignalBlock& block,
                      const std::vector<ArChannelCounts>& counts);

// The procedure above. Throws InvalidParameterError, InvalidInputError, Cancelled.
ArSpectrumResult computeArSpectraCpu(const SignalBlock& block, const BurgArParams& params,
                                     int threads, JobContext& ctx);

}  // namespace modescope
