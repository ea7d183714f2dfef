// The CPU passes of extended Infomax (InfomaxPasses, infomax_passes.h) in double precision with
// Eigen: the block updates of runica.m, written from the published algorithm and runica's
// documented defaults (docs/ica.md: "What is computed", "Parameters and presets").
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "engine/core/philox.h"
#include "engine/ica/ica_whitening.h"
#include "engine/ica/infomax.h"
#include "engine/ica/infomax_passes.h"
#include "engine/parallel/worker_team.h"

namespace modescope {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kCheckpointBlocks = 32;  // blocks between cancel checks (~ a few ms)

// Rows of W per piece of the threaded products. A function of r alone, never of the thread
// count, so every machine splits each product the same way and gets the same bits. Below 48
// components one piece: an update is then a few microseconds of work, less than waking threads.
// Above, pieces of 8-32 rows (multiples of 8 suit Eigen's kernels), at most ~16-32 of them.
int rowsPerPiece(int r) {
  if (r < 48) return r;
  const int rows = (r / 16 + 7) / 8 * 8;
  return std::clamp(rows, 8, 32);
}

struct RowRange {
  int begin = 0, count = 0;
};

class CpuInfomaxPasses final : public InfomaxPasses {
 public:
  explicit CpuInfomaxPasses(const InfomaxSetup& s)
      : setup_(s),
        sphered_(ica_detail::sphereData(
            *s.block,
            Eigen::Map<const VectorXd>(s.mean, static_cast<Eigen::Index>(s.block->channels.size())),
            Eigen::Map<const MatrixXd>(s.sphere, s.components,
                                       static_cast<Eigen::Index>(s.block->channels.size())),
            s.threads, *s.ctx)),
        data_(sphered_.data(), s.components, s.samples),
        r_(s.components),
        block_(s.resolved.blockSize),
        pieceRows_(rowsPerPiece(r_)),
        pieces_((r_ + pieceRows_ - 1) / pieceRows_),
        team_(std::min(std::max(1, s.threads), pieces_)),
        w_(MatrixXd::Identity(r_, r_)),
        bias_(VectorXd::Zero(r_)),
        xb_(r_, block_),
        xbNext_(r_, block_),
        u_(r_, block_),
        y_(r_, block_),
        g_(r_, r_),
        gw_(r_, r_),
        blownUp_(static_cast<std::size_t>(pieces_), 0) {
    if (s.params.extended) signs_.reset(r_, s.params.ext);
  }

  // Each block update is two batches for the team: (1) the previous block's update added to W's
  // rows, then this block's activations U, Y and bias on the same rows (row-local work);
  // (2) the rows of G = Y' U^T + block I and of G W, which read all of U and W, and a share of
  // the next block's samples. The previous update is added at the start of (1), not at the end
  // of (2), because (2) still reads every row of W. A kurtosis estimate needs the updated W first.
  bool pass(const std::vector<int32_t>& perm, double lrate,
            const std::vector<int32_t>& /*next: the CPU reads permutations in place*/) override {
    const int64_t blocks = setup_.samples / block_;  // the last partial block is skipped
    if (blocks == 0) return true;
    const bool extended = setup_.params.extended;
    for (int j = 0; j < block_; ++j) xb_.col(j) = data_.col(perm[static_cast<std::size_t>(j)]);
    bool pending = false;  // gw_ holds an update not yet added to W
    for (int64_t b = 0; b < blocks; ++b) {
      if (b % kCheckpointBlocks == 0) setup_.ctx->checkpoint();
      const int32_t* next = b + 1 < blocks ? perm.data() + (b + 1) * block_ : nullptr;
      team_->run(static_cast<std::size_t>(pieces_), [&](int, std::size_t p) {
        if (pending) addUpdate(p, lrate);
        activations(piece(p), lrate);
      });
      if (pending && blewUp()) return false;
      team_->run(static_cast<std::size_t>(pieces_), [&](int, std::size_t p) {
        gradient(piece(p));
        if (next) gatherShare(next, p, xbNext_);
      });
      xb_.swap(xbNext_);
      pending = true;
      ++blockNo_;
      if (extended && signs_.extBlocks > 0 &&
          blockNo_ % static_cast<int64_t>(signs_.extBlocks) == 0) {
        if (!addPendingUpdate(lrate)) return false;
        pending = false;
        estimateKurtosis();
      }
    }
    return !pending || addPendingUpdate(lrate);
  }

  void restart() override {
    w_.setIdentity();
    bias_.setZero();
    blockNo_ = 1;  // runica restarts its block counter at 1
    if (setup_.params.extended) signs_.reset(r_, setup_.params.ext);
  }

  IcaMatrix weights() const override {
    IcaMatrix m(r_, r_);
    for (int i = 0; i < r_; ++i)
      for (int j = 0; j < r_; ++j) m(i, j) = w_(i, j);
    return m;
  }
  int64_t kurtosisEstimates() const override { return signs_.estimates; }
  std::vector<double> bias() const override { return {bias_.data(), bias_.data() + r_}; }
  std::vector<int> signs() const override {
    std::vector<int> s(static_cast<std::size_t>(r_), 1);
    if (setup_.params.extended)
      for (int k = 0; k < r_; ++k) s[static_cast<std::size_t>(k)] = signs_.signs[k] < 0 ? -1 : 1;
    return s;
  }

 private:
  RowRange piece(std::size_t p) const {
    const int begin = static_cast<int>(p) * pieceRows_;
    return {begin, std::min(pieceRows_, r_ - begin)};
  }
  // Columns [begin, end) of a block of `width` that piece p gathers.
  std::pair<int, int> columnShare(std::size_t p, int width) const {
    const auto share = [&](std::size_t k) {
      return static_cast<int>(static_cast<int64_t>(width) * static_cast<int64_t>(k) / pieces_);
    };
    return {share(p), share(p + 1)};
  }

  void gatherShare(const int32_t* idx, std::size_t p, MatrixXd& into) const {
    const auto [begin, end] = columnShare(p, block_);
    for (int j = begin; j < end; ++j) into.col(j) = data_.col(idx[j]);
  }

  // U, the nonlinearity and the bias on rows; y_ ends as Y' with G = Y' U^T + block I.
  void activations(RowRange rows, double lrate) {
    auto u = u_.middleRows(rows.begin, rows.count);
    auto y = y_.middleRows(rows.begin, rows.count);
    auto bias = bias_.segment(rows.begin, rows.count);
    const bool useBias = setup_.params.bias;
    u.noalias() = w_.middleRows(rows.begin, rows.count) * xb_;
    if (useBias) u.colwise() += bias;
    if (setup_.params.extended) {
      y = u.array().tanh();
      if (useBias) bias.noalias() += (-2.0 * lrate) * y.rowwise().sum();
      // G = block I - K tanh(U) U^T - U U^T = block I - (K tanh(U) + U) U^T, K = diag(signs).
      for (int k = 0; k < rows.count; ++k)
        y.row(k) *= -signs_.signs[static_cast<std::size_t>(rows.begin + k)];
      y -= u;
    } else {
      // 1 - 2 sigmoid(u) = -tanh(u / 2): no overflow of exp(-u) for large |u|.
      y = -(0.5 * u.array()).tanh();
      if (useBias) bias.noalias() += lrate * y.rowwise().sum();
    }
  }

  void gradient(RowRange rows) {
    auto g = g_.middleRows(rows.begin, rows.count);
    g.noalias() = y_.middleRows(rows.begin, rows.count) * u_.transpose();
    for (int k = 0; k < rows.count; ++k) g(k, rows.begin + k) += static_cast<double>(block_);
    gw_.middleRows(rows.begin, rows.count).noalias() = g * w_;
  }

  // W += lrate G W on piece p's rows, noting whether they blew up (max|W| above maxWeight or
  // not finite: NaN fails every comparison).
  void addUpdate(std::size_t p, double lrate) {
    const RowRange rows = piece(p);
    auto w = w_.middleRows(rows.begin, rows.count);
    w.noalias() += lrate * gw_.middleRows(rows.begin, rows.count);
    blownUp_[p] = !(w.array().abs() <= setup_.params.maxWeight).all();
  }
  bool blewUp() const {
    return std::any_of(blownUp_.begin(), blownUp_.end(), [](char b) { return b != 0; });
  }
  bool addPendingUpdate(double lrate) {
    team_->run(static_cast<std::size_t>(pieces_), [&](int, std::size_t p) { addUpdate(p, lrate); });
    return !blewUp();
  }

  // One kurtosis estimate on the counter-based sample draws of infomax_passes.h; the draws and
  // the activations' moments are shared out like the block updates (each row's moments are its
  // own).
  void estimateKurtosis() {
    const IcaExtendedParams& e = setup_.params.ext;
    const int64_t n = setup_.samples;
    const int64_t m = std::min<int64_t>(e.kurtosisSamples, n);
    std::vector<double> kurt(static_cast<std::size_t>(r_));
    if (m < n) {
      const Philox4x32 rng(setup_.params.seed);
      MatrixXd part(r_, m);
      const uint64_t base = static_cast<uint64_t>(signs_.estimates) * static_cast<uint64_t>(m);
      team_->run(static_cast<std::size_t>(pieces_), [&](int, std::size_t p) {
        const auto [begin, end] = columnShare(p, static_cast<int>(m));
        for (int j = begin; j < end; ++j) {
          const double u = rng.uniformDouble(kIcaKurtosisStream, base + static_cast<uint64_t>(j));
          part.col(j) = data_.col(std::min<int64_t>(n - 1, static_cast<int64_t>(u * n)));
        }
      });
      team_->run(static_cast<std::size_t>(pieces_),
                 [&](int, std::size_t p) { kurtosisRows(part, piece(p), kurt); });
    } else {
      team_->run(static_cast<std::size_t>(pieces_),
                 [&](int, std::size_t p) { kurtosisRows(data_, piece(p), kurt); });
    }
    signs_.apply(kurt, e);
  }
  template <typename Samples>
  void kurtosisRows(const Samples& samples, RowRange rows, std::vector<double>& kurt) const {
    MatrixXd act = w_.middleRows(rows.begin, rows.count) * samples;
    if (setup_.params.ext.centredKurtosis) act.colwise() -= act.rowwise().mean();
    const VectorXd m2 = act.array().square().rowwise().mean();
    const VectorXd m4 = act.array().square().square().rowwise().mean();
    for (int k = 0; k < rows.count; ++k)
      kurt[static_cast<std::size_t>(rows.begin + k)] = m4(k) / (m2(k) * m2(k)) - 3.0;
  }

  InfomaxSetup setup_;
  MatrixXd sphered_;  // r x n: the data these passes read
  Eigen::Map<const MatrixXd> data_;
  int r_;
  int block_;
  int pieceRows_, pieces_;
  TeamLease team_;  // engine/parallel/worker_team.h
  MatrixXd w_;
  VectorXd bias_;
  IcaSignState signs_;
  int64_t blockNo_ = 0;
  MatrixXd xb_, xbNext_, u_, y_, g_, gw_;
  std::vector<char> blownUp_;  // per piece, from the last addUpdate
};

}  // namespace

IcaResult runInfomaxCpu(const SignalBlock& block, const IcaParams& params, int threads,
                        JobContext& ctx) {
  return runInfomax(block, params, threads, ctx, [](const InfomaxSetup& s) {
    return std::unique_ptr<InfomaxPasses>(new CpuInfomaxPasses(s));
  });
}

}  // namespace modescope
