// The part of extended Infomax that a compute backend provides: the passes over the data (step 4
// of the procedure in infomax.h). Everything around them — whitening, the per-step permutation,
// the change and angle, annealing, blow-up restarts, stopping, sorting the components — is one
// driver (runInfomax in infomax.h) shared by the CPU and the GPU, so both run the same
// procedure and differ only in the arithmetic of the block updates.
//
// Plain types only (no Eigen, no CUDA), so cuda/ can implement it.
//
// Kurtosis sample draws (extended mode) are counter-based so that every backend draws the same
// samples: estimate e (counted from the start of the run, restarts included), draw j picks sample
//   t = min(n - 1, floor(Philox(seed).uniformDouble(kIcaKurtosisStream, e * m + j) * n)),
// m = min(kurtosisSamples, n); when m = n all samples are used in order.
//
// Thread rules: a pass object is used by one thread (the driver's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_params.h"
#include "engine/ica/ica_result.h"

namespace modescope {

inline constexpr uint64_t kIcaPermutationStream = 0;  // Philox stream of the permutations
inline constexpr uint64_t kIcaKurtosisStream = 1;     // Philox stream of the kurtosis draws

// Extended mode's switching state (runica's signs, old_kk, signcount, extblocks).
struct IcaSignState {
  std::vector<double> signs;        // r: +1 super-, -1 sub-Gaussian rule
  std::vector<double> oldKurtosis;  // r: momentum-smoothed kurtosis of the last estimate
  std::vector<double> oldSigns;     // r
  int signCount = 0;                // consecutive estimates with unchanged signs
  double extBlocks = 1;             // blocks between estimates
  int64_t estimates = 0;            // estimates so far (the Philox counter of the draws)

  // Start (or restart after a blow-up): signs from subGaussian, oldSigns 0, extBlocks from the
  // parameters. oldKurtosis and signCount carry over a restart, as in runica.
  void reset(int r, const IcaExtendedParams& e);
  // Applies one kurtosis vector (m4 / m2^2 - 3 per component): momentum, signs, the sign count
  // and the extBlocks doubling. Both backends call this, the GPU one on the device-side copy.
  void apply(const std::vector<double>& kurtosis, const IcaExtendedParams& e);
};

// What a pass reads: the data, how to sphere them, and the settings that ran. Each backend
// spheres the data itself (sphered = sphere * (x - mean), one r-vector per sample), so the CPU
// keeps doubles in host memory and the GPU computes its floats on the device from the raw block,
// without an r x n double copy on the host.
struct InfomaxSetup {
  const SignalBlock* block = nullptr;  // C channels x n samples, as given to the driver
  const double* mean = nullptr;        // C: the channel means
  const double* sphere = nullptr;      // r x C, column-major
  int components = 0;                  // r
  int64_t samples = 0;                 // n
  IcaParams params;                    // as requested (extended, bias, ext, maxWeight, seed)
  ResolvedIcaParams resolved;          // block size and the rest as resolved
  JobContext* ctx = nullptr;           // a pass calls ctx->checkpoint() every few ms of work
  int threads = 1;                     // CPU threads a pass may use (the CUDA passes ignore it)
};

class InfomaxPasses {
 public:
  virtual ~InfomaxPasses() = default;
  // One pass: blocks of resolved.blockSize consecutive entries of `permutation` (n entries; the
  // last partial block is skipped), each followed by the update of W and b and, in extended mode,
  // every extBlocks blocks a kurtosis estimate. Returns false as soon as max|W| exceeds
  // params.maxWeight or is not finite (a blow-up; the weights are then unusable until restart()).
  // 32-bit entries (the driver refuses 2^31 samples or more): the GPU reads them as they are, so
  // no conversion sits between two passes. `next` is the permutation of the following pass (the
  // driver's stream of permutations goes on through restarts), which a backend may copy ahead
  // while this pass runs; the following call's `permutation` is then that same vector, moved.
  virtual bool pass(const std::vector<int32_t>& permutation, double learningRate,
                    const std::vector<int32_t>& next) = 0;
  // Back to W = I, b = 0 and the signs' start values; the block counter restarts at 1 (runica).
  virtual void restart() = 0;
  virtual IcaMatrix weights() const = 0;  // r x r
  virtual std::vector<double> bias() const = 0;
  virtual std::vector<int> signs() const = 0;     // +1 / -1 (all +1 for logistic Infomax)
  virtual int64_t kurtosisEstimates() const = 0;  // extended mode: estimates so far
};

using InfomaxPassFactory = std::function<std::unique_ptr<InfomaxPasses>(const InfomaxSetup&)>;

// A backend's own channel means (C) and covariance (C x C, column-major, 1/(n - 1), of the centred
// data) of the block, in double; the driver computes them on the CPU where a backend gives none.
using InfomaxMoments = std::function<void(const SignalBlock& block, std::vector<double>& mean,
                                          std::vector<double>& covariance)>;

}  // namespace modescope
