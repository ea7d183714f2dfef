// Extended Infomax ICA on the CPU, computed as EEGLAB's runica.m computes it (the procedure below
// is what a GPU backend must follow too):
//
//  1. Check the block: finite samples (else InvalidInputError naming channel and sample), at least
//     2 channels, enough samples (icaSampleRequirement).
//  2. Remove each channel's mean. Covariance with 1/(N-1); its eigenvalues give the rank
//     (eigenvalues above rankTolerance * largest). r = pcaRank if forced (at most the rank), else
//     the rank; r < C projects onto the top r eigenvectors (runica's 'pca' / pcsquash) and adds a
//     diagnostic saying so (average reference makes EEG rank C - 1).
//  3. Sphere: runica 2 * inv(sqrtm(cov)) of the (reduced) data, or PCA whitening (MNE). The
//     stored sphere is r x C and maps centred channels straight to sphered components.
//  4. Weights W = I (r x r), bias b = 0. Each step draws a fresh permutation of the N samples
//     (Fisher-Yates on Philox stream 0 of `seed`), cuts it into floor(N / block) consecutive blocks
//     (the last partial block is skipped) and for each block X (r x block):
//        U = W X + b 1^T
//        extended: Y = tanh(U);  W += lr (block I - K Y U^T - U U^T) W;  b += lr * sum(-2 Y)
//        logistic: Y = 1 - 2 sigmoid(U) = -tanh(U/2);  W += lr (block I + Y U^T) W;  b += lr sum(Y)
//     K = diag(signs). max|W| > maxWeight aborts the pass (blow-up). Extended mode: every extBlocks
//     blocks the kurtosis m4/m2^2 - 3 of W X on kurtosisSamples random samples (the counter-based
//     Philox draws of infomax_passes.h), smoothed with momentum, gives signs =
//     sign(kurt + signsBias); 25 unchanged sign vectors double extBlocks.
//  5. After each pass: change = ||W - W_prev||_F^2; from step 3 the angle between this change and
//     the reference change; an angle above annealDegrees multiplies lr by annealFactor and makes
//     this change the reference (step 1's change is the first reference). Stop when step > 2 and
//     change < stopTolerance (converged), or at maxSteps (not converged: a diagnostic says what to
//     try). change > blowupChange: lr *= blowupFactor. A blow-up (or a non-finite change)
//     restarts from W = I, b = 0 with lr *= restartFactor; below minLearningRate the run gives up
//     with InvalidInputError (the data are probably rank-deficient beyond what was detected).
//  6. unmixing = W sphere, mixing = pinv(unmixing); components sorted by runica's back-projected
//     variance.
//
// Everything is double precision. Thread rules: runInfomaxCpu is re-entrant; `threads` bounds the
// worker threads of the data passes (covariance, sphering, sorting) and of the block updates'
// products. The blocks are sequential (each uses the weights of the previous one), so the threads
// share each update's products by rows of W, in pieces that depend on r alone: any thread count
// gives the same bits.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"
#include "engine/ica/ica_result.h"
#include "engine/ica/infomax_passes.h"

namespace modescope {

// Samples a decomposition into `components` components needs. Below `minimum` (one sample per
// unmixing weight, r^2, and at least 10) ICA is refused: the weights are underdetermined.
// Below `recommended` (20 r^2: EEGLAB's rule of thumb that stable components need k r^2 samples
// with k of 20-30) it runs with a warning diagnostic.
struct IcaSampleRequirement {
  int64_t minimum = 0;
  int64_t recommended = 0;
};
IcaSampleRequirement icaSampleRequirement(int components);

// Runs the procedure above on all channels and samples of `block`. Throws InvalidParameterError
// (bad parameters, fewer than 2 channels, too few samples, pcaRank above the data rank),
// InvalidInputError (NaN/Inf samples, weights that keep blowing up), Cancelled. Progress: "step k,
// change x" once per step. threads <= 0 = hardware concurrency.
IcaResult runInfomaxCpu(const SignalBlock& block, const IcaParams& params, int threads,
                        JobContext& ctx);

// The same procedure with the passes (step 4) of another backend (infomax_passes.h): the CUDA
// backend calls this with its device passes and moments; runInfomaxCpu with the double-precision
// Eigen passes and the driver's own moments (`moments` empty).
IcaResult runInfomax(const SignalBlock& block, const IcaParams& params, int threads,
                     JobContext& ctx, const InfomaxPassFactory& passes,
                     const InfomaxMoments& moments = {});

// Steps 2 and 3's data passes on the CPU, in plain types: the CPU twins of the CUDA backend's
// device whitening (cudaIcaMoments and cudaIcaSphered in cuda/cuda_backend.h). Channel means (C)
// and covariance (C x C, column-major, 1/(n - 1)) of `block`; and sphere * (x - mean) for `sphere`
// r x C column-major, as r x n doubles, column-major (one sample per column).
struct IcaChannelMoments {
  std::vector<double> mean;
  std::vector<double> covariance;
};
IcaChannelMoments icaChannelMoments(const SignalBlock& block, int threads);
std::vector<double> icaSpheredData(const SignalBlock& block, const std::vector<double>& mean,
                                   const std::vector<double>& sphere, int components, int threads);

// Activations s = unmixing * (x - mean), r x N row-major float (component-major like a block).
// `block` must have the result's channels (same count; throws InvalidParameterError otherwise);
// any length.
std::vector<float> icaActivations(const IcaResult& result, const SignalBlock& block);

// Cleaned data: x - mixing(:, rejected) * s_rejected. Channel means and whatever lies outside the
// r-dimensional component space (the PCA residual) are kept, so an empty rejection list returns
// the input unchanged (up to float rounding). Rejected indices are 0-based component numbers in
// the result's (sorted) order; out-of-range ones throw InvalidParameterError.
SignalBlock icaBackProject(const IcaResult& result, const SignalBlock& block,
                           const std::vector<int>& rejected);

// Amari index of a square matrix P (e.g. unmixing * true mixing): 0 when P is a scaled
// permutation, up to 1. Normalised as 1/(2n(n-1)) [sum_i (sum_j |p_ij| / max_j |p_ij| - 1) +
// sum_j (sum_i |p_ij| / max_i |p_ij| - 1)].
double amariIndex(const IcaMatrix& p);

}  // namespace modescope
