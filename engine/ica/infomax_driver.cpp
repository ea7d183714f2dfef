// The Infomax driver shared by every backend (runInfomax in infomax.h): checks, whitening, the
// per-step permutations, change and angle, annealing, blow-up restarts, stopping and the sorted
// outputs of runica.m (steps 1-3, 5 and 6 of the procedure in infomax.h). The passes over the data
// (step 4) come from the backend's InfomaxPasses. Written from the published algorithm and
// runica's documented defaults (docs/ica.md: "What is computed", "Parameters and presets").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <future>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/core/philox.h"
#include "engine/core/text.h"
#include "engine/ica/ica_whitening.h"
#include "engine/ica/infomax.h"
#include "engine/ica/infomax_passes.h"
#include "engine/parallel/worker_team.h"

namespace modescope {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using ica_detail::Whitening;

std::string blockChannelName(const SignalBlock& block, std::size_t row) {
  return "channel " + std::to_string(block.channels.size() > row ? block.channels[row] : row) +
         " (row " + std::to_string(row) + " of the selection)";
}

void checkInput(const SignalBlock& block) {
  const std::size_t c = block.channels.size();
  if (block.samples < 0 || block.data.size() != c * static_cast<std::size_t>(block.samples))
    throw InvalidParameterError(
        "block", std::to_string(block.data.size()) + " samples in all",
        std::to_string(c) + " channels x " + std::to_string(block.samples) + " samples");
  if (c < 2)
    throw InvalidParameterError("channels", std::to_string(c), "at least 2 channels",
                                "select the channels to unmix (ICA separates mixtures of "
                                "several channels)");
  for (std::size_t ch = 0; ch < c; ++ch) {
    requireFiniteSamples(blockChannelName(block, ch), block.channel(ch), block.samples,
                         block.sampleRate, "selection");
  }
}

void checkSampleCount(const SignalBlock& block, int components, Diagnostics& diagnostics) {
  const IcaSampleRequirement need = icaSampleRequirement(components);
  auto duration = [&](int64_t samples) {
    if (block.sampleRate <= 0) return std::string();
    return " (" +
           formatNumber(std::round(static_cast<double>(samples) / block.sampleRate * 10) / 10) +
           " s at " + formatNumber(block.sampleRate) + " Hz)";
  };
  const std::string r = std::to_string(components);
  if (block.samples < need.minimum)
    throw InvalidParameterError(
        "samples", std::to_string(block.samples) + duration(block.samples),
        "at least " + std::to_string(need.minimum) + duration(need.minimum) + " for " + r +
            " components (one sample per unmixing weight, r^2); " +
            std::to_string(need.recommended) + duration(need.recommended) + " recommended (20 r^2)",
        "select a longer time range, or fewer components (PCA rank)");
  if (block.samples < need.recommended)
    addDiagnostic(diagnostics, Severity::Warning, "ica.fewSamples",
                  std::to_string(block.samples) + " samples" + duration(block.samples) + " for " +
                      r + " components is less than the 20 r^2 = " +
                      std::to_string(need.recommended) + duration(need.recommended) +
                      " that stable components need (EEGLAB's rule of thumb); components may not "
                      "be reproducible. Use a longer recording or a lower PCA rank");
}

// In-place Fisher-Yates with uniforms from `rng`: a fresh uniform permutation of 0..n-1.
void randomPermutation(std::vector<int32_t>& perm, PhiloxStream& rng) {
  std::iota(perm.begin(), perm.end(), int32_t{0});
  for (int64_t i = static_cast<int64_t>(perm.size()) - 1; i > 0; --i) {
    const int64_t j = std::min<int64_t>(i, static_cast<int64_t>(rng.nextUniform() * (i + 1)));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
}

std::string describeChange(double change) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", change);
  return b;
}

IcaMatrix toIcaMatrix(const MatrixXd& m) {
  IcaMatrix out(static_cast<int>(m.rows()), static_cast<int>(m.cols()));
  for (int i = 0; i < out.rows; ++i)
    for (int j = 0; j < out.cols; ++j) out(i, j) = m(i, j);
  return out;
}

MatrixXd pseudoInverse(const MatrixXd& a) {
  if (a.rows() == a.cols()) {
    Eigen::FullPivLU<MatrixXd> lu(a);
    if (lu.isInvertible()) return lu.inverse();
  }
  return a.completeOrthogonalDecomposition().pseudoInverse();
}

}  // namespace

IcaResult runInfomax(const SignalBlock& block, const IcaParams& params, int threads,
                     JobContext& ctx, const InfomaxPassFactory& makePasses,
                     const InfomaxMoments& backendMoments) {
  const auto started = std::chrono::steady_clock::now();
  validateIcaParams(params);
  checkInput(block);
  threads = threadsOrAll(threads);

  IcaResult res;
  res.params = params;
  res.channels = block.channels;
  res.samples = block.samples;
  const int c = static_cast<int>(block.channels.size());
  const int64_t n = block.samples;
  if (n < icaSampleRequirement(2).minimum)
    throw InvalidParameterError("samples", std::to_string(n),
                                "at least " + std::to_string(icaSampleRequirement(2).minimum) +
                                    " (and r^2 for r components)",
                                "select a longer time range");
  if (n > std::numeric_limits<int32_t>::max())
    throw InvalidParameterError("samples", std::to_string(n), "fewer than 2^31 (2147483648)",
                                "select a shorter time range or decimate the recording");

  // The permutations come from one sequential stream whatever happens (restarts included):
  // permutation k is that stream's uniforms k (n - 1) .. (k + 1) (n - 1) - 1. A permutation of
  // 460,800 samples takes ~15 ms to draw, longer than a GPU pass, so kPermutationsAhead of them
  // are drawn at once on helper threads while the backend runs the current pass. These stay
  // std::async tasks rather than WorkerTeam items: they must run in the background while this
  // thread runs the pass (WorkerTeam::run returns only when its batch is done), and the CPU passes
  // use a team of their own meanwhile; one thread start per step is noise beside a 15 ms draw.
  // The first ones are drawn while the data are whitened.
  constexpr int kPermutationsAhead = 3;
  const uint64_t seed = params.seed;
  int64_t permutationsDrawn = 0;
  std::deque<std::future<std::vector<int32_t>>> ahead;
  auto drawAhead = [&] {
    while (static_cast<int>(ahead.size()) < kPermutationsAhead) {
      const int64_t k = permutationsDrawn++;
      ahead.push_back(std::async(std::launch::async, [seed, n, k] {
        PhiloxStream rng(seed, kIcaPermutationStream);
        rng.skipUniforms(static_cast<uint64_t>(k) * static_cast<uint64_t>(n - 1));
        std::vector<int32_t> perm(static_cast<std::size_t>(n));
        randomPermutation(perm, rng);
        return perm;
      }));
    }
  };
  drawAhead();
  auto takePermutation = [&] {
    std::vector<int32_t> perm = ahead.front().get();
    ahead.pop_front();
    drawAhead();
    return perm;
  };

  ctx.progress(0.0, "ICA: covariance");
  ica_detail::ChannelMoments moments;
  if (backendMoments) {
    std::vector<double> mean, covariance;
    backendMoments(block, mean, covariance);
    if (mean.size() != static_cast<std::size_t>(c) ||
        covariance.size() != static_cast<std::size_t>(c) * static_cast<std::size_t>(c))
      throw std::logic_error("runInfomax: the backend's moments have the wrong sizes");
    moments.mean = Eigen::Map<const VectorXd>(mean.data(), c);
    moments.covariance = Eigen::Map<const MatrixXd>(covariance.data(), c, c);
  } else {
    moments = ica_detail::channelMoments(block, threads, ctx);
  }
  ctx.checkpoint();
  const Whitening wh =
      ica_detail::whiteningFrom(std::move(moments), block, params, res.diagnostics);
  const int r = wh.components;
  checkSampleCount(block, r, res.diagnostics);

  const ResolvedIcaParams rp = resolveIcaParams(params, c, r, n);
  res.resolved = rp;
  res.components = r;
  res.detectedRank = wh.detectedRank;
  if (params.extended && params.ext.extBlocks > 0 &&
      std::min<int64_t>(params.ext.kurtosisSamples, n) < 2000)
    addDiagnostic(res.diagnostics, Severity::Info, "ica.smallKurtosisSample",
                  "the kurtosis that picks sub- or super-Gaussian rules is estimated on only " +
                      std::to_string(std::min<int64_t>(params.ext.kurtosisSamples, n)) +
                      " samples (runica warns below 2000); the signs may flicker");

  InfomaxSetup setup;
  setup.block = &block;
  setup.mean = wh.mean.data();
  setup.sphere = wh.sphere.data();
  setup.components = r;
  setup.samples = n;
  setup.params = params;
  setup.resolved = rp;
  setup.ctx = &ctx;
  setup.threads = threads;
  ctx.progress(0.0, "ICA: sphering the data");
  const std::unique_ptr<InfomaxPasses> passes = makePasses(setup);

  MatrixXd oldWeights = MatrixXd::Identity(r, r);
  MatrixXd oldDelta = MatrixXd::Zero(r, r);
  double oldChange = 0.0;
  double lrate = rp.learningRate;
  int step = 0;
  int maxSteps = params.maxSteps;
  int smallAngle = 0;
  int lowered = 0;
  int firstRestartStep = 0;
  double lastChange = 0.0;
  res.stopReason = "max steps";

  auto toEigen = [r](const IcaMatrix& m) {
    MatrixXd e(r, r);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j) e(i, j) = m(i, j);
    return e;
  };
  MatrixXd w = oldWeights;
  // Each pass is given the next permutation too, so a backend can stage it during the pass.
  std::vector<int32_t> perm = takePermutation();
  while (step < maxSteps) {
    ctx.checkpoint();
    std::vector<int32_t> next = takePermutation();
    bool blowup = !passes->pass(perm, lrate, next);
    perm = std::move(next);
    if (!blowup) w = toEigen(passes->weights());

    double change = 0.0;
    MatrixXd delta;
    if (!blowup) {
      delta = w - oldWeights;
      change = delta.squaredNorm();
      if (!std::isfinite(change)) blowup = true;
    }
    if (blowup) {
      // runica: restart from the start weights with a lower learning rate.
      if (!res.history.empty()) res.history.back().restartedAfter = true;
      if (res.restarts == 0) firstRestartStep = step + 1;
      ++res.restarts;
      lrate *= params.restartFactor;
      if (lrate < params.minLearningRate)
        throw InvalidInputError(
            "selection", "Infomax weights",
            "weights that blew up " + std::to_string(res.restarts) +
                " times, down to a learning rate of " + formatNumber(lrate),
            "weights that stay below " + formatNumber(params.maxWeight),
            "the unmixing matrix may not be invertible: reduce the PCA rank (duplicated, bridged "
            "or interpolated channels lower the rank), remove flat channels or large artifacts, "
            "or start from a lower learning rate");
      step = 0;
      passes->restart();
      w.setIdentity();
      oldWeights.setIdentity();
      oldDelta.setZero();
      oldChange = 0.0;
      smallAngle = 0;
      ctx.progress(0.0,
                   "ICA: weights blew up, restarting with learning rate " + formatNumber(lrate));
      continue;
    }

    ++step;
    double angle = 0.0;
    if (step > 2) {
      const double denom = std::sqrt(change * oldChange);
      const double cosine = denom > 0 ? (delta.array() * oldDelta.array()).sum() / denom : 1.0;
      angle = std::acos(std::clamp(cosine, -1.0, 1.0)) * (180.0 / 3.14159265358979323846);
    }
    IcaStep rec;
    rec.step = step;
    rec.change = change;
    rec.angleDegrees = angle;
    rec.learningRate = lrate;
    if (params.extended) {
      const std::vector<int> sg = passes->signs();
      rec.subGaussian = static_cast<int>(std::count(sg.begin(), sg.end(), -1));
    }
    res.history.push_back(rec);
    lastChange = change;

    oldWeights = w;
    if (angle > params.annealDegrees) {
      lrate *= rp.annealFactor;
      oldDelta = delta;
      oldChange = change;
      smallAngle = 0;
    } else {
      if (step == 1) {
        oldDelta = delta;
        oldChange = change;
      }
      if (params.maxSmallAngleSteps > 0 && ++smallAngle > params.maxSmallAngleSteps) {
        maxSteps = step;  // MNE's n_small_angle rule
        res.converged = true;
        res.stopReason = "small-angle rule";
      }
    }
    if (step > 2 && change < rp.stopTolerance) {
      res.converged = true;
      res.stopReason = "tolerance";
      maxSteps = step;
    } else if (change > params.blowupChange) {
      lrate *= params.blowupFactor;
      ++lowered;
    }
    ctx.progress(static_cast<double>(step) / params.maxSteps,
                 "ICA step " + std::to_string(step) + ", change " + describeChange(change));
  }
  res.steps = step;
  res.kurtosisEstimates = passes->kurtosisEstimates();
  res.finalLearningRate = lrate;

  if (res.restarts > 0)
    addDiagnostic(res.diagnostics, Severity::Warning, "ica.restarted",
                  "the weights blew up " + std::to_string(res.restarts) +
                      " time(s) (first at step " + std::to_string(firstRestartStep) +
                      "); each time the run restarted from the identity with the learning rate "
                      "lowered by " +
                      formatNumber(params.restartFactor) + ", finally " + formatNumber(lrate) +
                      " (runica does the same)");
  if (lowered > 0)
    addDiagnostic(res.diagnostics, Severity::Info, "ica.learningRateLowered",
                  "a weight change above " + formatNumber(params.blowupChange) +
                      " lowered the learning rate " + std::to_string(lowered) + " time(s)");
  if (!res.converged)
    addDiagnostic(res.diagnostics, Severity::Warning, "ica.notConverged",
                  "did not converge in " + std::to_string(params.maxSteps) +
                      " steps: the last weight change " + describeChange(lastChange) +
                      " is above the stop tolerance " + describeChange(rp.stopTolerance) +
                      ". Try more steps (maxSteps), a longer recording, a 1 Hz high-pass, or "
                      "fewer components (PCA rank). runica stops at its step limit the same way; "
                      "such components are often usable but check that two seeds agree");

  // Outputs, sorted by runica's back-projected variance. Sum_t s_k(t)^2 = (N - 1) (U cov U^T)_kk
  // because the covariance is that of the same centred data: no second pass over the samples.
  MatrixXd unmixing = w * wh.sphere;
  MatrixXd mixing = pseudoInverse(unmixing);
  const VectorXd actPower =
      (static_cast<double>(n - 1)) * (unmixing * wh.covariance * unmixing.transpose()).diagonal();
  const double totalPower = static_cast<double>(n - 1) * wh.covariance.trace();
  VectorXd meanVar(r);
  for (int k = 0; k < r; ++k)
    meanVar(k) = mixing.col(k).squaredNorm() * actPower(k) /
                 (static_cast<double>(c) * static_cast<double>(n) - 1.0);
  std::vector<int> order(static_cast<std::size_t>(r));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return meanVar(a) > meanVar(b); });

  const std::vector<double> bias = passes->bias();
  const std::vector<int> signs = passes->signs();
  MatrixXd ws(r, r), us(r, c), ms(c, r);
  res.bias.resize(static_cast<std::size_t>(r));
  res.signs.resize(static_cast<std::size_t>(r));
  res.backProjectedVariance.resize(static_cast<std::size_t>(r));
  res.varianceFraction.resize(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) {
    const int o = order[static_cast<std::size_t>(k)];
    ws.row(k) = w.row(o);
    us.row(k) = unmixing.row(o);
    ms.col(k) = mixing.col(o);
    res.bias[static_cast<std::size_t>(k)] = bias[static_cast<std::size_t>(o)];
    res.signs[static_cast<std::size_t>(k)] = signs[static_cast<std::size_t>(o)];
    res.backProjectedVariance[static_cast<std::size_t>(k)] = meanVar(o);
    res.varianceFraction[static_cast<std::size_t>(k)] =
        totalPower > 0 ? mixing.col(o).squaredNorm() * actPower(o) / totalPower : 0.0;
  }
  res.weights = toIcaMatrix(ws);
  res.unmixing = toIcaMatrix(us);
  res.mixing = toIcaMatrix(ms);
  res.sphere = toIcaMatrix(wh.sphere);
  res.mean.assign(wh.mean.data(), wh.mean.data() + c);
  res.eigenvalues.assign(wh.eigenvalues.data(), wh.eigenvalues.data() + c);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ctx.progress(1.0, res.converged ? "ICA converged in " + std::to_string(step) + " steps"
                                  : "ICA stopped at " + std::to_string(step) + " steps");
  return res;
}

}  // namespace modescope
