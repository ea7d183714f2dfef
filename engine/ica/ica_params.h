// Parameters of (extended) Infomax ICA: Bell and Sejnowski 1995 with the natural gradient (Amari
// 1996), extended to sub-Gaussian sources by Lee, Girolami and Sejnowski 1999, run the way
// EEGLAB's runica.m does it (the reference) or the way MNE-Python 1.3's
// mne.preprocessing.infomax() does it. The defaults of both are tabulated, with their
// sources, in docs/ica.md ("Parameters and presets").
//
// Fields whose value 0 means "automatic" are resolved from the data by resolveIcaParams(), using
// the rules of `rules` (runica's or MNE's), because the defaults depend on the channel and sample
// counts.
//
// Thread rules: plain values; the functions here are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/method/param_table.h"

namespace modescope {

// Whose automatic values fill the fields left at 0.
enum class IcaRules {
  // runica.m: learning rate 0.00065 / ln(channels), block ceil(min(5 ln N, 0.3 N)), stop 1e-6
  // (1e-7 above 32 components), anneal factor 0.98 extended / 0.90 logistic.
  Runica,
  // MNE 1.3 infomax(): learning rate 0.01 / ln(components^2), block floor(sqrt(N / 3)),
  // stop 1e-12, anneal factor 0.9.
  Mne,
};

// How the data are whitened before the Infomax iterations.
enum class IcaSphering {
  // runica: sphere = 2 * inv(sqrtm(cov)) (symmetric, "ZCA"; sphered covariance 4 I). The factor 2
  // is part of runica's learning dynamics (with its learning rate and block size).
  Runica,
  // MNE's ICA: PCA whitening to unit variance, sphere = D^-1/2 E^T (E eigenvectors, D eigenvalues
  // of the covariance).
  PcaUnit,
};

// Arithmetic of the GPU passes' matrix products (the CPU always computes in double).
enum class IcaGpuMath {
  // Tensor cores: TF32 inputs (10-bit mantissa) with FP32 accumulation, split into a high and a
  // low TF32 part for the weights and the data ("3xTF32") so the products keep FP32 accuracy:
  // the weights take thousands of small sequential updates, which plain TF32 rounding would
  // swamp near convergence.
  Tf32x3,
  // Tensor cores, plain TF32 inputs (fastest; the change per step bottoms out near 1e-6).
  Tf32,
  // CUDA cores, FP32 fused multiply-adds (no tensor cores).
  Fp32,
};

// Extended mode: the per-component switch between the super-Gaussian (sign +1) and sub-Gaussian
// (sign -1) rule, chosen from the kurtosis of the current activations.
struct IcaExtendedParams {
  // Estimate the kurtosis every `extBlocks` blocks (runica 'extended', N with N > 0). <= 0: the
  // signs stay fixed with `subGaussian` sub-Gaussian components (runica 'extended', -N).
  int extBlocks = 1;
  int subGaussian = 1;            // components 1..subGaussian start with sign -1 (runica nsub)
  int kurtosisSamples = 6000;     // runica kurtsize (binica/CUDAICA "pdfsize"); capped at N
  double kurtosisMomentum = 0.5;  // kk = m * kk_old + (1 - m) * kk (runica extmomentum)
  double signsBias = 0.02;        // signs = sign(kurtosis + bias): ties go super-Gaussian
  int signCountThreshold = 25;    // after this many unchanged sign vectors ...
  double signCountStep = 2.0;     // ... extBlocks *= this (fewer estimates once signs settle)
  // runica uses raw moments m4 / m2^2 - 3 of the activations; MNE (scipy.stats.kurtosis) centres
  // them first. The data are mean-free, so the two differ only by sampling noise.
  bool centredKurtosis = false;
};

struct IcaParams {
  bool extended = true;  // extended Infomax (tanh + kurtosis signs); false: logistic Infomax
  IcaRules rules = IcaRules::Runica;
  double learningRate = 0.0;    // initial; 0 = automatic (rules); at most 0.1 (runica MAX_LRATE)
  int blockSize = 0;            // samples per weight update; 0 = automatic (rules)
  double annealDegrees = 60.0;  // anneal when the angle between weight changes exceeds this
  double annealFactor = 0.0;    // learning rate *= this on annealing; 0 = automatic (rules)
  double stopTolerance = 0.0;   // stop when ||W_k - W_k-1||_F^2 < this (steps > 2); 0 = automatic
  int maxSteps = 512;           // passes over the data (one pass = every block once)
  // Components. 0 = the detected rank of the data (PCA reduction when the data are
  // rank-deficient, e.g. average-referenced). A positive value forces a PCA reduction to that
  // many components (at most the detected rank).
  int pcaRank = 0;
  // Rank detection: eigenvalues of the covariance above rankTolerance * largest eigenvalue
  // count. float32 storage noise sits near (2^-24)^2 ~ 4e-15 of the largest eigenvalue, a real EEG
  // component is rarely below 1e-8 of it, so 1e-10 separates the two with margin on both sides.
  double rankTolerance = 1e-10;
  IcaSphering sphering = IcaSphering::Runica;
  bool bias = true;  // the bias term u = W x + b of both rules
  // The CUDA backend's products (ignored on the CPU). Plain TF32 by default: tensor-core
  // products, and on an H100 4.8x faster than 3xTF32 (docs/ica.md) with the same separation
  // in every test (Amari index, and every real-EEG component matched to the CPU's with |corr|
  // 1.0000); tf32x3 keeps FP32 accuracy for runs that must track the CPU's weights closely.
  IcaGpuMath gpuMath = IcaGpuMath::Tf32;
  // Philox key of the per-step sample permutations and the kurtosis sample draws.
  uint64_t seed = 1;
  IcaExtendedParams ext;

  // Safety rules (runica: MAX_WEIGHT 1e8, DEFAULT_BLOWUP 1e9 / 0.8, DEFAULT_RESTART_FAC 0.9,
  // MIN_LRATE 1e-6; MNE: 1e8, blowup 1e4 / 0.5, 0.9, 1e-10).
  double maxWeight = 1e8;         // max |W| above this (or a non-finite change): restart
  double restartFactor = 0.9;     // learning rate *= this on a restart from the start weights
  double blowupChange = 1e9;      // a change above this lowers the learning rate ...
  double blowupFactor = 0.8;      // ... by this factor, without restarting
  double minLearningRate = 1e-6;  // restarts below this give up (the weights cannot converge)
  // MNE only: stop once more than this many consecutive steps had an angle <= annealDegrees
  // (n_small_angle). 0 = off (runica).
  int maxSmallAngleSteps = 0;
};

// Values after the automatic rules: what actually ran (recorded in IcaResult).
struct ResolvedIcaParams {
  double learningRate = 0.0;
  int blockSize = 0;
  double annealFactor = 0.0;
  double stopTolerance = 0.0;
  int components = 0;
};

// `channels` = channel count of the input (runica's learning rate uses it even after PCA),
// `components` = rank used, `samples` = N.
ResolvedIcaParams resolveIcaParams(const IcaParams& p, int channels, int components,
                                   int64_t samples);

// Named parameter sets; every preset sets every field.
//   "eeglab-runica": EEGLAB pop_runica's default call, runica(data, 'extended', 1), runica.m
//                    defaults (EEGLAB 2024).
//   "mne-infomax":   mne.preprocessing.infomax() 1.3 defaults (extended=True, max_iter=200,
//                    w_change=1e-12, anneal 60 / 0.9, blowup 1e4 / 0.5, n_small_angle 20) after
//                    MNE ICA's PCA whitening. Note that ICA(method='infomax') itself passes
//                    extended=False unless fit_params say otherwise, and max_iter='auto' = 500.
struct IcaPreset {
  std::string name;
  std::string description;  // one line with the source
  IcaParams params;
};
const std::vector<IcaPreset>& icaPresets();
// Throws InvalidParameterError naming the known presets when `name` is unknown.
IcaParams icaPreset(const std::string& name);

// Every IcaParams field declared once (ica_param_table.cpp): validation, provenance, the CLI and
// the dialog are produced from it.
const ParamTable<IcaParams>& icaParamTable();

// Throws InvalidParameterError (parameter, value found, range expected, remedy) for values no run
// can use (the ranges of icaParamTable()): learning rate outside [0, 0.1], block size < 0, angles
// outside (0, 180], factors outside (0, 1], tolerances < 0, maxSteps < 1, pcaRank < 0,
// rankTolerance outside (0, 1), kurtosis settings out of range, safety values not positive.
void validateIcaParams(const IcaParams& p);

const char* icaRulesName(IcaRules r);        // "runica", "mne"
const char* icaSpheringName(IcaSphering s);  // "runica", "pca-unit"
const char* icaGpuMathName(IcaGpuMath m);    // "tf32x3", "tf32", "fp32"
// Throws InvalidParameterError naming the accepted values.
IcaGpuMath parseIcaGpuMath(const std::string& text);
// One line for logs and provenance: "extended, lrate auto, block auto, ..."
std::string describeIcaParams(const IcaParams& p);

}  // namespace modescope
