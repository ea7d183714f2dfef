// The CPU passes of extended Infomax (InfomaxPasses, infomax_passes.h) in double precision with
// Eigen: the block updates of runica.m, written from the published algorithm and runica's
// documented defaults (../shared/notes/peers.md section 3, seed-000-memd-ica.md section 3.2).
#include <algorithm>
#include <cmath>
#include <Eigen/Dense>

#include "engine/core/philox.h"
#include "engine/ica/infomax.h"
#include "engine/ica/infomax_passes.h"

namespace modescope {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kCheckpointBlocks = 32;  // blocks between cancel checks (~ a few ms)

class CpuInfomaxPasses final : public InfomaxPasses {
 public:
  explicit CpuInfomaxPasses(const InfomaxSetup& s)
      : setup_(s),
        data_(s.sphered, s.components, s.samples),
        r_(s.components),
        block_(s.resolved.blockSize),
        w_(MatrixXd::Identity(r_, r_)),
        bias_(VectorXd::Zero(r_)),
        xb_(r_, block_), u_(r_, block_), y_(r_, block_), g_(r_, r_), gw_(r_, r_) {
    if (s.params.extended) signs_.reset(r_, s.params.ext);
  }

  bool pass(const std::vector<int32_t>& perm, double lrate) override {
    const int64_t blocks = setup_.samples / block_;  // the last partial block is skipped
    const bool extended = setup_.params.extended, useBias = setup_.params.bias;
    for (int64_t b = 0; b < blocks; ++b) {
      if (b % kCheckpointBlocks == 0) setup_.ctx->checkpoint();
      const int32_t* idx = perm.data() + b * block_;
      for (int j = 0; j < block_; ++j) xb_.col(j) = data_.col(idx[j]);
      u_.noalias() = w_ * xb_;
      if (useBias) u_.colwise() += bias_;
      if (extended) {
        y_ = u_.array().tanh();
        if (useBias) bias_.noalias() += (-2.0 * lrate) * y_.rowwise().sum();
        // g = block I - K Y U^T - U U^T = block I - (K Y + U) U^T, K = diag(signs): one product.
        for (int k = 0; k < r_; ++k) y_.row(k) *= signs_.signs[static_cast<std::size_t>(k)];
        y_ += u_;
        g_.noalias() = -y_ * u_.transpose();
      } else {
        // 1 - 2 sigmoid(u) = -tanh(u / 2): no overflow of exp(-u) for large |u|.
        y_ = -(0.5 * u_.array()).tanh();
        g_.noalias() = y_ * u_.transpose();
        if (useBias) bias_.noalias() += lrate * y_.rowwise().sum();
      }
      g_.diagonal().array() += static_cast<double>(block_);
      gw_.noalias() = g_ * w_;
      w_.noalias() += lrate * gw_;
      ++blockNo_;
      if (!(w_.cwiseAbs().maxCoeff() <= setup_.params.maxWeight)) return false;  // NaN too
      if (extended && signs_.extBlocks > 0 &&
          blockNo_ % static_cast<int64_t>(signs_.extBlocks) == 0)
        estimateKurtosis();
    }
    return true;
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
  // One kurtosis estimate on the counter-based sample draws of infomax_passes.h.
  void estimateKurtosis() {
    const IcaExtendedParams& e = setup_.params.ext;
    const int64_t n = setup_.samples;
    const int64_t m = std::min<int64_t>(e.kurtosisSamples, n);
    MatrixXd act;
    if (m < n) {
      const Philox4x32 rng(setup_.params.seed);
      MatrixXd part(r_, m);
      const uint64_t base = static_cast<uint64_t>(signs_.estimates) * static_cast<uint64_t>(m);
      for (int64_t j = 0; j < m; ++j) {
        const double u = rng.uniformDouble(kIcaKurtosisStream, base + static_cast<uint64_t>(j));
        part.col(j) = data_.col(std::min<int64_t>(n - 1, static_cast<int64_t>(u * n)));
      }
      act.noalias() = w_ * part;
    } else {
      act.noalias() = w_ * data_;
    }
    if (e.centredKurtosis) act.colwise() -= act.rowwise().mean();
    const VectorXd m2 = act.array().square().rowwise().mean();
    const VectorXd m4 = act.array().square().square().rowwise().mean();
    const VectorXd kurt = (m4.array() / m2.array().square() - 3.0).matrix();
    signs_.apply(std::vector<double>(kurt.data(), kurt.data() + r_), e);
  }

  InfomaxSetup setup_;
  Eigen::Map<const MatrixXd> data_;
  int r_;
  int block_;
  MatrixXd w_;
  VectorXd bias_;
  IcaSignState signs_;
  int64_t blockNo_ = 0;
  MatrixXd xb_, u_, y_, g_, gw_;
};

}  // namespace

IcaResult runInfomaxCpu(const SignalBlock& block, const IcaParams& params, int threads,
                        JobContext& ctx) {
  return runInfomax(block, params, threads, ctx, [](const InfomaxSetup& s) {
    return std::unique_ptr<InfomaxPasses>(new CpuInfomaxPasses(s));
  });
}

}  // namespace modescope
