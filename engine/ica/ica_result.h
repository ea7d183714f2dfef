// What an Infomax ICA run produces (engine/ica/infomax.h). The model is runica's:
//   activations s = unmixing * (x - mean),  unmixing = weights * sphere   (r x C)
//   x - mean ~ mixing * s,                  mixing = pinv(unmixing)      (C x r)
// with C input channels and r components (r < C after PCA reduction). The columns of `mixing` are
// the scalp maps (EEGLAB's icawinv), the rows of `unmixing` the spatial filters (EEGLAB's
// icaweights * icasphere). Components are sorted by descending back-projected variance, as runica
// sorts them. Activations are not stored (64 channels x 30 min at 1 kHz would be 460 MB); compute
// them with icaActivations().
//
// Thread rules: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/ica/ica_params.h"

namespace modescope {

// A dense row-major matrix of doubles.
struct IcaMatrix {
  int rows = 0, cols = 0;
  std::vector<double> values;  // rows * cols, row-major

  IcaMatrix() = default;
  IcaMatrix(int r, int c) : rows(r), cols(c), values(static_cast<std::size_t>(r) * c, 0.0) {}
  double& operator()(int r, int c) { return values[static_cast<std::size_t>(r) * cols + c]; }
  double operator()(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
};

// One pass over the data (runica's "step").
struct IcaStep {
  int step = 0;         // 1-based within the current start (a restart begins again at 1)
  double change = 0.0;  // ||W_step - W_step-1||_F^2
  double angleDegrees =
      0.0;  // angle between this change and the reference change (0 for steps 1-2)
  double learningRate = 0.0;    // the rate used during this step
  bool restartedAfter = false;  // the weights blew up during the next pass (restart follows)
  int subGaussian = 0;          // extended mode: components with sign -1 at the end of the step
};

struct IcaResult {
  std::vector<std::size_t> channels;  // recording channel indices (the input block's)
  int components = 0;                 // r: the rank used
  int detectedRank = 0;               // rank of the covariance found by the eigenvalue test
  std::vector<double> eigenvalues;    // of the covariance (1/(N-1)), descending, all C of them
  std::vector<double> mean;           // per channel, removed before everything (C)
  IcaMatrix sphere;    // r x C: runica 2 inv(sqrtm(cov)) (r = C) or the PCA/whitening projection
  IcaMatrix weights;   // r x r: the Infomax weights (rows sorted with the components)
  IcaMatrix unmixing;  // r x C = weights * sphere
  IcaMatrix mixing;    // C x r = pinv(unmixing)
  std::vector<double> bias;  // r: the final bias (not part of the linear model; for diagnostics)
  std::vector<int> signs;    // r: extended mode +1 super-, -1 sub-Gaussian; logistic: all +1
  // runica's meanvar: sum(mixing(:,k)^2) * sum_t s_k(t)^2 / (C * N - 1), descending.
  std::vector<double> backProjectedVariance;
  // The same numerator over sum of (x - mean)^2: the share of the data's power that component k
  // back-projects (components are not orthogonal in channel space, so these need not sum to 1).
  std::vector<double> varianceFraction;

  // Convergence.
  IcaParams params;               // as requested
  ResolvedIcaParams resolved;     // what ran (automatic values filled; initial learning rate)
  std::vector<IcaStep> history;   // every completed step of every start, in order
  int steps = 0;                  // steps of the final start
  int restarts = 0;               // weight blow-ups that restarted with a lower learning rate
  int64_t kurtosisEstimates = 0;  // extended mode: sign estimates over the whole run
  bool converged = false;         // the change fell below the stop tolerance (or MNE's angle rule)
  std::string stopReason;         // "tolerance", "small-angle rule" (MNE) or "max steps"
  double finalLearningRate = 0.0;
  int64_t samples = 0;      // N used
  double seconds = 0.0;     // wall time of the run
  Diagnostics diagnostics;  // rank reduction, few samples, restarts, non-convergence, ...
};

}  // namespace modescope
