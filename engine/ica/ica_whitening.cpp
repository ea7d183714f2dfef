// Mean removal, covariance, rank detection, PCA reduction and sphering (ica_whitening.h).
#include "engine/ica/ica_whitening.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"
#include "engine/parallel/worker_team.h"

namespace modescope::ica_detail {
namespace {

// Samples per chunk of a data pass: 64 channels x 4096 samples is 2 MB of doubles, well inside
// the caches' reach and ~1 ms of work, so cancel checks stay frequent.
constexpr int64_t kChunk = 4096;
// Partial covariance sums (enough to keep 16 threads busy; C x C doubles each).
constexpr int64_t kCovarianceParts = 32;

// Copies samples [t0, t0 + n) of every channel, centred, into `out` (C x n, column-major).
void loadCentred(const SignalBlock& block, const Eigen::Ref<const Eigen::VectorXd>& mean,
                 int64_t t0, int64_t n, Eigen::MatrixXd& out) {
  const int c = static_cast<int>(block.channels.size());
  out.resize(c, n);
  for (int ch = 0; ch < c; ++ch) {
    const float* x = block.channel(static_cast<std::size_t>(ch)) + t0;
    const double m = mean(ch);
    for (int64_t j = 0; j < n; ++j) out(ch, j) = static_cast<double>(x[j]) - m;
  }
}

}  // namespace

void parallelRanges(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  const int64_t parts = std::clamp<int64_t>(threads, 1, count);
  if (parts == 1) {
    body(0, count);
    return;
  }
  TeamLease team(threads);
  team->run(static_cast<std::size_t>(parts), [&](int, std::size_t i) {
    const auto p = static_cast<int64_t>(i);
    body(count * p / parts, count * (p + 1) / parts);
  });
}

ChannelMoments channelMoments(const SignalBlock& block, int threads, JobContext& ctx) {
  const int c = static_cast<int>(block.channels.size());
  const int64_t n = block.samples;
  ChannelMoments m;

  // Mean in double (runica promotes to double before anything).
  m.mean = Eigen::VectorXd::Zero(c);
  parallelRanges(c, threads, [&](int64_t b, int64_t e) {
    for (int64_t ch = b; ch < e; ++ch) {
      const float* x = block.channel(static_cast<std::size_t>(ch));
      double s = 0.0;
      for (int64_t t = 0; t < n; ++t) s += x[t];
      m.mean(ch) = s / static_cast<double>(n);
    }
  });
  ctx.checkpoint();

  // Covariance: partial sums over a fixed split of the chunks (independent of `threads`), added
  // in a fixed order, so every thread count gives bit-identical results.
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const int64_t parts = std::min<int64_t>(chunks, kCovarianceParts);
  std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(parts),
                                       Eigen::MatrixXd::Zero(c, c));
  parallelRanges(parts, threads, [&](int64_t pb, int64_t pe) {
    Eigen::MatrixXd x;
    for (int64_t p = pb; p < pe; ++p) {
      for (int64_t k = chunks * p / parts; k < chunks * (p + 1) / parts; ++k) {
        ctx.checkpoint();
        const int64_t t0 = k * kChunk;
        loadCentred(block, m.mean, t0, std::min(kChunk, n - t0), x);
        partial[static_cast<std::size_t>(p)].selfadjointView<Eigen::Lower>().rankUpdate(x);
      }
    }
  });
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(c, c);
  for (const auto& p : partial) sum += p;
  sum.triangularView<Eigen::StrictlyUpper>() = sum.transpose();
  m.covariance = sum / static_cast<double>(n - 1);
  return m;
}

Whitening computeWhitening(const SignalBlock& block, const IcaParams& params, int threads,
                           JobContext& ctx, Diagnostics& diagnostics) {
  return whiteningFrom(channelMoments(block, threads, ctx), block, params, diagnostics);
}

Whitening whiteningFrom(ChannelMoments moments, const SignalBlock& block, const IcaParams& params,
                        Diagnostics& diagnostics) {
  const int c = static_cast<int>(block.channels.size());
  Whitening w;
  w.mean = std::move(moments.mean);
  w.covariance = std::move(moments.covariance);

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(w.covariance);
  if (eig.info() != Eigen::Success)
    throw InvalidInputError("selection", "covariance of " + std::to_string(c) + " channels",
                            "an eigen decomposition that did not converge",
                            "a finite, non-degenerate covariance",
                            "exclude flat or duplicated channels");
  // Eigen returns ascending order; runica's PCA and our rank test want descending.
  w.eigenvalues = eig.eigenvalues().reverse();
  w.eigenvectors = eig.eigenvectors().rowwise().reverse();

  const double largest = std::max(w.eigenvalues(0), 0.0);
  int rank = 0;
  for (int i = 0; i < c; ++i)
    if (w.eigenvalues(i) > params.rankTolerance * largest) ++rank;
  w.detectedRank = rank;
  if (rank == 0)
    throw InvalidInputError("selection", "samples",
                            "every channel constant (the covariance is zero)", "signals that vary",
                            "choose channels that carry signal");

  if (params.pcaRank > rank)
    throw InvalidParameterError(
        "pcaRank", std::to_string(params.pcaRank),
        "at most the data rank " + std::to_string(rank) + " of " + std::to_string(c) + " channels",
        "use " + std::to_string(rank) + " or 0 (automatic): the data hold only " +
            std::to_string(rank) +
            " independent dimensions (average reference, interpolated or bridged channels remove "
            "one each)");
  w.components = params.pcaRank > 0 ? params.pcaRank : rank;
  const int r = w.components;

  if (params.pcaRank == 0 && rank < c) {
    // Name channels that are flat on their own: the most common cause besides re-referencing.
    std::string flat;
    for (int ch = 0; ch < c; ++ch)
      if (w.covariance(ch, ch) <= params.rankTolerance * largest)
        flat += (flat.empty() ? "" : ", ") +
                std::to_string(block.channels[static_cast<std::size_t>(ch)]);
    std::string msg = "the data have rank " + std::to_string(rank) + " of " + std::to_string(c) +
                      " channels (an average reference or interpolated channels remove one "
                      "dimension each); ICA runs on " +
                      std::to_string(rank) +
                      " components after a PCA reduction. Set the PCA rank to force another count";
    if (!flat.empty()) msg += "; flat channels (recording indices): " + flat;
    addDiagnostic(diagnostics, Severity::Warning, "ica.rankReduced", msg);
  } else if (params.pcaRank > 0 && params.pcaRank < c) {
    addDiagnostic(diagnostics, Severity::Info, "ica.pcaReduced",
                  "PCA reduction to " + std::to_string(r) + " components as requested (data rank " +
                      std::to_string(rank) + " of " + std::to_string(c) + " channels)");
  }

  const Eigen::VectorXd d = w.eigenvalues.head(r);
  const Eigen::MatrixXd e = w.eigenvectors.leftCols(r);
  const Eigen::VectorXd invSqrt = d.array().rsqrt().matrix();
  if (params.sphering == IcaSphering::PcaUnit) {
    w.sphere = invSqrt.asDiagonal() * e.transpose();
  } else if (r == c) {
    // runica: 2 * inv(sqrtm(cov)) = 2 V D^-1/2 V^T, symmetric.
    w.sphere = 2.0 * e * invSqrt.asDiagonal() * e.transpose();
  } else {
    // runica with 'pca', r: project onto the top r eigenvectors, then 2 * inv(sqrtm(cov)) of the
    // projected data, whose covariance is diag(d): the sphere is 2 D^-1/2 there.
    w.sphere = 2.0 * invSqrt.asDiagonal() * e.transpose();
  }
  return w;
}

Eigen::MatrixXd sphereData(const SignalBlock& block, const Eigen::Ref<const Eigen::VectorXd>& mean,
                           const Eigen::Ref<const Eigen::MatrixXd>& sphere, int threads,
                           JobContext& ctx) {
  const int64_t n = block.samples;
  Eigen::MatrixXd out(sphere.rows(), n);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  parallelRanges(chunks, threads, [&](int64_t kb, int64_t ke) {
    Eigen::MatrixXd x;
    for (int64_t k = kb; k < ke; ++k) {
      ctx.checkpoint();
      const int64_t t0 = k * kChunk;
      const int64_t len = std::min(kChunk, n - t0);
      loadCentred(block, mean, t0, len, x);
      out.middleCols(t0, len).noalias() = sphere * x;
    }
  });
  return out;
}

}  // namespace modescope::ica_detail

namespace modescope {

IcaChannelMoments icaChannelMoments(const SignalBlock& block, int threads) {
  JobContext ctx;
  const ica_detail::ChannelMoments m = ica_detail::channelMoments(block, threads, ctx);
  return {std::vector<double>(m.mean.data(), m.mean.data() + m.mean.size()),
          std::vector<double>(m.covariance.data(), m.covariance.data() + m.covariance.size())};
}

std::vector<double> icaSpheredData(const SignalBlock& block, const std::vector<double>& mean,
                                   const std::vector<double>& sphere, int components, int threads) {
  const auto c = static_cast<Eigen::Index>(block.channels.size());
  JobContext ctx;
  const Eigen::MatrixXd out = ica_detail::sphereData(
      block, Eigen::Map<const Eigen::VectorXd>(mean.data(), c),
      Eigen::Map<const Eigen::MatrixXd>(sphere.data(), components, c), threads, ctx);
  return std::vector<double>(out.data(), out.data() + out.size());
}

}  // namespace modescope
