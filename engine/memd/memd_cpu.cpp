// The CPU MemdSiftEngine (double precision) and memdCpu (memd.h). envelopeMean runs the
// directions in parallel on a WorkerTeam: each direction writes its own slot (its (U + L) / 2 per
// channel and its |U - L| / 2), and the slots are added in direction order, so the result does not
// depend on the thread count. The extrema, mirrored ends and not-a-knot splines are the EMD
// family's (engine/emd/sift_primitives.h).
#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/emd/sift_primitives.h"
#include "engine/memd/memd_sift.h"
#include "engine/parallel/worker_team.h"

namespace modescope {
namespace {

// One worker's buffers for one direction, grown on demand.
struct DirectionScratch {
  std::vector<double> proj, sq;
  std::vector<uint8_t> flags;
  std::vector<int32_t> imax, imin;
  std::vector<int32_t> t[2], src[2];  // knots and the samples their values come from (max, min)
  std::vector<int> piece[2];          // spline piece covering each sample
  std::vector<double> y[2], s[2], work;
};

struct DirectionOutcome {
  int64_t extrema = 0, zeroCrossings = 0;
  bool kept = false;
};

// Knots of one envelope: mirrored left knots, the extrema, mirrored right knots.
void gatherKnots(const int32_t* idx, int count, const sift::EndKnots& ends, std::vector<int32_t>& t,
                 std::vector<int32_t>& src) {
  t.clear();
  src.clear();
  for (int k = 0; k < ends.leftCount; ++k) {
    t.push_back(ends.leftPos[k]);
    src.push_back(ends.leftSrc[k]);
  }
  for (int k = 0; k < count; ++k) {
    t.push_back(idx[k]);
    src.push_back(idx[k]);
  }
  for (int k = 0; k < ends.rightCount; ++k) {
    t.push_back(ends.rightPos[k]);
    src.push_back(ends.rightSrc[k]);
  }
}

// envelopeMean's work for direction d of m (dims x n): the slot receives (U + L) / 2 per channel
// (dims x n) and |U - L| / 2 (n values) when the direction is kept.
DirectionOutcome oneDirection(const double* m, int dims, int64_t n, const double* d,
                              DirectionScratch& w, double* meanSlot, double* ampSlot) {
  const auto un = static_cast<std::size_t>(n);
  DirectionOutcome out;
  w.proj.assign(un, 0.0);
  for (int c = 0; c < dims; ++c) {
    const double dc = d[c];
    const double* x = m + static_cast<std::size_t>(c) * un;
    for (std::size_t p = 0; p < un; ++p) w.proj[p] += dc * x[p];
  }
  const double* y = w.proj.data();
  if (w.flags.size() < un) w.flags.resize(un);
  w.imax.clear();
  w.imin.clear();
  for (int64_t i = 0; i < n; ++i) {
    if (sift::startsRun(y, i)) {
      const int64_t j = sift::classifyRun(y, n, i, w.flags.data());
      for (int64_t k = i; k <= j; ++k) {
        if (w.flags[k] == sift::kMaximum) w.imax.push_back(static_cast<int32_t>(k));
        if (w.flags[k] == sift::kMinimum) w.imin.push_back(static_cast<int32_t>(k));
      }
    }
    out.zeroCrossings += sift::zeroCrossingsAt(y, n, i);
  }
  const int nmax = static_cast<int>(w.imax.size()), nmin = static_cast<int>(w.imin.size());
  out.extrema = nmax + nmin;
  if (sift::tooFewExtrema(nmax, nmin)) return out;
  sift::Boundaries b;
  // The mirror is decided on the projection (memd.m boundary_conditions(..., y, m, NBSYM)).
  if (!sift::mirrorBoundaries(y, static_cast<int32_t>(n), w.imax.data(), nmax, w.imin.data(), nmin,
                              b))
    return out;
  gatherKnots(w.imax.data(), nmax, b.max, w.t[0], w.src[0]);
  gatherKnots(w.imin.data(), nmin, b.min, w.t[1], w.src[1]);
  std::size_t most = 0;
  for (int e = 0; e < 2; ++e) {
    const int count = static_cast<int>(w.t[e].size());
    most = std::max(most, w.t[e].size());
    w.piece[e].resize(un);
    int k = sift::splinePiece(w.t[e].data(), count, 0);
    for (int64_t p = 0; p < n; ++p) {
      while (k < count - 2 && w.t[e][k + 1] <= p) ++k;
      w.piece[e][p] = k;
    }
  }
  for (int e = 0; e < 2; ++e) {
    w.y[e].resize(most);
    w.s[e].resize(most);
  }
  w.work.resize(most);
  w.sq.assign(un, 0.0);
  // All channels share the knots (one tridiagonal matrix per envelope); each has its own values.
  for (int c = 0; c < dims; ++c) {
    const double* x = m + static_cast<std::size_t>(c) * un;
    for (int e = 0; e < 2; ++e) {
      const int count = static_cast<int>(w.t[e].size());
      for (int j = 0; j < count; ++j) w.y[e][j] = x[w.src[e][j]];
      sift::splineSlopes(w.t[e].data(), w.y[e].data(), count, w.s[e].data(), w.work.data());
    }
    double* mean = meanSlot + static_cast<std::size_t>(c) * un;
    for (int64_t p = 0; p < n; ++p) {
      const double upper =
          sift::splineValue(w.t[0].data(), w.y[0].data(), w.s[0].data(), w.piece[0][p], p);
      const double lower =
          sift::splineValue(w.t[1].data(), w.y[1].data(), w.s[1].data(), w.piece[1][p], p);
      mean[p] = (upper + lower) / 2;
      w.sq[p] += (upper - lower) * (upper - lower);
    }
  }
  for (std::size_t p = 0; p < un; ++p) ampSlot[p] = std::sqrt(w.sq[p]) / 2;
  out.kept = true;
  return out;
}

class CpuMemdEngine final : public MemdSiftEngine {
 public:
  CpuMemdEngine(int dims, int64_t n, int directions, int threads)
      : dims_(dims), n_(n), K_(directions), team_(threads), scratch_(team_->size()) {
    const std::size_t perSlot = static_cast<std::size_t>(dims + 1) * static_cast<std::size_t>(n);
    // Slots for a batch of directions: enough for the workers, within about 512 MiB.
    const std::size_t byMemory = std::max<std::size_t>(1, (std::size_t{512} << 20) / (8 * perSlot));
    batch_ = static_cast<int>(std::min<std::size_t>(
        K_, std::max<std::size_t>(1, std::min<std::size_t>(4 * team_->size(), byMemory))));
    slots_.resize(static_cast<std::size_t>(batch_) * perSlot);
  }

  void load(const std::vector<double>& x, const std::vector<double>& directions) override {
    r_ = x;
    d_ = directions;
    imfs_.clear();
  }
  void startImf() override { m_ = r_; }

  MemdEnvelopeStats envelopeMean(const MemdParams& params) override {
    const auto un = static_cast<std::size_t>(n_);
    const std::size_t block = static_cast<std::size_t>(dims_) * un;
    const std::size_t perSlot = block + un;
    MemdEnvelopeStats st;
    st.extrema.resize(static_cast<std::size_t>(K_));
    st.zeroCrossings.resize(static_cast<std::size_t>(K_));
    mean_.assign(block, 0.0);
    amp_.assign(un, 0.0);
    for (double v : m_) st.maxAbs = std::max(st.maxAbs, std::fabs(v));
    std::vector<DirectionOutcome> outcome(static_cast<std::size_t>(batch_));
    for (int first = 0; first < K_; first += batch_) {
      const int count = std::min(batch_, K_ - first);
      team_->run(static_cast<std::size_t>(count), [&](int worker, std::size_t i) {
        const int k = first + static_cast<int>(i);
        double* slot = slots_.data() + i * perSlot;
        outcome[i] =
            oneDirection(m_.data(), dims_, n_, d_.data() + static_cast<std::size_t>(k) * dims_,
                         scratch_[static_cast<std::size_t>(worker)], slot, slot + block);
      });
      // Sum the kept slots in direction order, rows in parallel (dims mean rows + the amp row).
      team_->run(static_cast<std::size_t>(dims_ + 1), [&](int, std::size_t row) {
        double* dst = row < static_cast<std::size_t>(dims_) ? mean_.data() + row * un : amp_.data();
        for (int i = 0; i < count; ++i) {
          if (!outcome[static_cast<std::size_t>(i)].kept) continue;
          const double* src = slots_.data() + static_cast<std::size_t>(i) * perSlot + row * un;
          for (std::size_t p = 0; p < un; ++p) dst[p] += src[p];
        }
      });
      for (int i = 0; i < count; ++i) {
        const DirectionOutcome& o = outcome[static_cast<std::size_t>(i)];
        st.extrema[static_cast<std::size_t>(first + i)] = o.extrema;
        st.zeroCrossings[static_cast<std::size_t>(first + i)] = o.zeroCrossings;
        st.kept += o.kept ? 1 : 0;
      }
    }
    if (st.kept == 0) {
      std::fill(mean_.begin(), mean_.end(), 0.0);
      return st;
    }
    const double inv = 1.0 / st.kept;
    bool ampZero = false;
    for (double& v : mean_) v *= inv;
    for (double& v : amp_) {
      v *= inv;
      ampZero = ampZero || v == 0;
    }
    // sigma = |mean| / amp over the channels; memd.m divides only when every amp is nonzero.
    std::vector<double> norm(un, 0.0);
    for (int c = 0; c < dims_; ++c) {
      const double* mc = mean_.data() + static_cast<std::size_t>(c) * un;
      for (std::size_t p = 0; p < un; ++p) norm[p] += mc[p] * mc[p];
    }
    for (std::size_t p = 0; p < un; ++p) {
      const double sigma = ampZero ? std::sqrt(norm[p]) : std::sqrt(norm[p]) / amp_[p];
      if (sigma > params.sd) ++st.aboveSd;
      if (sigma > params.sd2) ++st.aboveSd2;
    }
    return st;
  }

  void subtractMean() override {
    for (std::size_t i = 0; i < m_.size(); ++i) m_[i] -= mean_[i];
  }
  void finishImf() override {
    imfs_.insert(imfs_.end(), m_.begin(), m_.end());
    for (std::size_t i = 0; i < r_.size(); ++i) r_[i] -= m_[i];
  }
  void takeRows(MemdRows& rows) override {
    imfs_.insert(imfs_.end(), r_.begin(), r_.end());
    if (rows.empty())
      rows = std::move(imfs_);
    else
      rows.insert(rows.end(), imfs_.begin(), imfs_.end());
    imfs_.clear();
  }

 private:
  int dims_;
  int64_t n_;
  int K_;
  TeamLease team_;
  std::vector<DirectionScratch> scratch_;
  int batch_ = 1;
  std::vector<double> slots_, r_, m_, d_, mean_, amp_;
  MemdRows imfs_;  // the IMFs finished so far, IMF-major (dims x n each)
};

}  // namespace

MemdResult memdCpu(const SignalBlock& block, const MemdParams& params, int threads,
                   JobContext& ctx) {
  threads = threadsOrAll(threads);
  return runMemd(
      block, params,
      [threads](int dims, int64_t n, int K) {
        return std::make_unique<CpuMemdEngine>(dims, n, K, threads);
      },
      ctx);
}

}  // namespace modescope
