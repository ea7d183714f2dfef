// EEMD, CEEMDAN and ICEEMDAN of one channel on the CPU, exactly as the procedure in emd.h.
// Members run in parallel in batches; each member writes its own slot and the slots are added
// into the ensemble sum in member order, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/emd/emd_internal.h"

namespace modescope::emd_detail {
namespace {

// Sift-count bookkeeping of one stage (or one IMF row for EEMD).
struct SiftTally {
  int64_t sum = 0, count = 0;
  void add(int s) {
    if (s >= 0) {
      sum += s;
      ++count;
    }
  }
  int mean() const {
    return count > 0 ? static_cast<int>(
                           std::lround(static_cast<double>(sum) / static_cast<double>(count)))
                     : 0;
  }
};

// One member's work: fills out[0..width) and sifts[0..siftWidth) (-1: no IMF at that slot).
using MemberFn = std::function<void(int64_t member, SiftWorkspace& ws, double* out, int* sifts)>;

// Runs every member and adds their outputs into acc[0..width) in member order; tallies the sift
// counts per slot and counts members whose slot 0 had no IMF (degenerate). Progress after each
// batch, as the fraction of members done.
void sumMembers(WorkerPool& pool, int members, std::size_t width, int siftWidth,
                const MemberFn& member, double* acc, std::vector<SiftTally>& tallies,
                int64_t& degenerate, const std::function<void(double)>& progress) {
  std::fill(acc, acc + width, 0.0);
  tallies.assign(static_cast<std::size_t>(siftWidth), SiftTally{});
  // Batch: enough items to keep every worker busy, few enough that the slots stay small
  // (at most ~256 MiB of slots unless one member alone needs more).
  const std::size_t byMemory =
      std::max<std::size_t>(1, (std::size_t{256} << 20) / (width * sizeof(double)));
  const int batch = static_cast<int>(std::min<std::size_t>(
      {static_cast<std::size_t>(members), static_cast<std::size_t>(pool.size()) * 4, byMemory}));
  std::vector<double> slots(static_cast<std::size_t>(batch) * width);
  std::vector<int> sifts(static_cast<std::size_t>(batch) * static_cast<std::size_t>(siftWidth));
  for (int start = 0; start < members; start += batch) {
    const int count = std::min(batch, members - start);
    pool.run(count, [&](int64_t b, int worker) {
      member(start + b, pool.workspace(worker), slots.data() + static_cast<std::size_t>(b) * width,
             sifts.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(siftWidth));
    });
    for (int b = 0; b < count; ++b) {
      const double* slot = slots.data() + static_cast<std::size_t>(b) * width;
      for (std::size_t s = 0; s < width; ++s) acc[s] += slot[s];
      const int* sf =
          sifts.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(siftWidth);
      for (int k = 0; k < siftWidth; ++k) tallies[static_cast<std::size_t>(k)].add(sf[k]);
      if (sf[0] < 0) ++degenerate;
    }
    progress(static_cast<double>(start + count) / static_cast<double>(members));
  }
}

double* ensureScratch(std::vector<double>& v, int64_t n) {
  if (v.size() < static_cast<std::size_t>(n)) v.resize(static_cast<std::size_t>(n));
  return v.data();
}

int64_t countExtrema(const double* x, int64_t n, SiftWorkspace& ws) {
  if (ws.flags.size() < static_cast<std::size_t>(n)) ws.flags.resize(static_cast<std::size_t>(n));
  int64_t c = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!sift::startsRun(x, i)) continue;
    const int64_t j = sift::classifyRun(x, n, i, ws.flags.data());
    for (int64_t k = i; k <= j; ++k) c += ws.flags[k] != sift::kNotExtremum;
  }
  return c;
}

// x / std(x) into a new vector; returns std(x).
double standardise(const double* x, int64_t n, std::vector<double>& out) {
  const double sx = sampleStd(x, n);
  out.assign(x, x + n);
  for (double& v : out) v /= sx;
  return sx;
}

// Estimated number of stages for progress only.
int stageEstimate(const EmdParams& p, int64_t n) {
  if (p.maxImfs > 0) return p.maxImfs;
  return std::max(1, static_cast<int>(std::floor(std::log2(static_cast<double>(n)))) - 1);
}

// Progress of a channel made of a noise stage (weight noiseShare) and stages 1..estimate.
struct StageProgress {
  const ChannelProgress& sink;
  double noiseShare;
  int estimate;
  void noise(double f) const { sink(noiseShare * f, "noise modes"); }
  void stage(int k, double f) const {
    const double done = std::min(0.99, (k - 1 + f) / std::max(estimate, k));
    sink(noiseShare + (1 - noiseShare) * done, "mode " + std::to_string(k));
  }
};

}  // namespace

ChannelDecomposition eemdChannel(const double* x, int64_t n, uint64_t channel, const EmdParams& p,
                                 WorkerPool& pool, const ChannelProgress& progress) {
  const int K = eemdImfCount(p, n);
  const auto un = static_cast<std::size_t>(n);
  const double amplitude = p.noiseStd * sampleStd(x, n);
  ChannelDecomposition out;
  out.rows = K + 1;
  out.data.assign(static_cast<std::size_t>(K + 1) * un, 0.0);
  pool.resetCapReached();
  std::vector<SiftTally> tallies;
  int64_t unused = 0;
  const MemberFn member = [&](int64_t i, SiftWorkspace& ws, double* slot, int* sifts) {
    double* y = ensureScratch(ws.scratch, n);
    // pairedNoise: members 2j and 2j+1 share stream j with opposite signs.
    const int64_t stream = p.pairedNoise ? i / 2 : i;
    const double sign = p.pairedNoise && (i % 2) ? -1.0 : 1.0;
    whiteNoise(p.seed, channel, static_cast<uint64_t>(stream), n, y);
    for (int64_t s = 0; s < n; ++s) y[s] = x[s] + sign * amplitude * y[s];
    std::vector<double> rows;
    std::vector<int> counts;
    const int k = empiricalModes(y, n, p.stop, K, rows, counts, ws);
    std::copy(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(k) * n, slot);
    std::fill(slot + static_cast<std::ptrdiff_t>(k) * n, slot + static_cast<std::ptrdiff_t>(K) * n,
              0.0);
    for (int r = 0; r < K; ++r) sifts[r] = r < k ? counts[static_cast<std::size_t>(r)] : -1;
  };
  sumMembers(pool, p.ensembleSize, static_cast<std::size_t>(K) * un, K, member, out.data.data(),
             tallies, unused, [&](double f) { progress(f, "ensemble members"); });
  const double inv = 1.0 / p.ensembleSize;
  for (std::size_t s = 0; s < static_cast<std::size_t>(K) * un; ++s) out.data[s] *= inv;
  // residue = x - sum_k d_k: the rows sum to x exactly (to rounding).
  double* residue = out.data.data() + static_cast<std::size_t>(K) * un;
  for (std::size_t s = 0; s < un; ++s) {
    double sum = 0;
    for (int r = 0; r < K; ++r) sum += out.data[static_cast<std::size_t>(r) * un + s];
    residue[s] = x[s] - sum;
  }
  for (const SiftTally& t : tallies) out.sifts.push_back(t.mean());
  for (const SiftTally& t : tallies) out.extractions += t.count;
  out.capReached = pool.capReached();
  return out;
}

ChannelDecomposition ceemdanChannel(const double* x, int64_t n, uint64_t channel,
                                    const EmdParams& p, WorkerPool& pool,
                                    const ChannelProgress& progress) {
  const auto un = static_cast<std::size_t>(n);
  const StageProgress prog{progress, p.maxImfs == 1 ? 0.0 : 0.3, stageEstimate(p, n)};
  std::vector<double> xs;
  const double sx = standardise(x, n, xs);
  ChannelDecomposition out;

  // Stage k >= 2 uses E_{k-1}: at most maxImfs - 1 noise modes (none for a single IMF).
  NoiseModes noise;
  pool.resetCapReached();
  if (p.maxImfs != 1) {
    prog.noise(0);
    noise = computeNoiseModes(p, channel, n, p.maxImfs > 0 ? p.maxImfs - 1 : 0, pool);
    prog.noise(1);
  }
  out.noiseCapReached = pool.capReached();
  pool.resetCapReached();

  std::vector<double> r = xs, d(un);
  std::vector<SiftTally> tallies;
  const int limit = imfLimit(p, n);
  for (int k = 1;; ++k) {
    if (k > 1 && countExtrema(r.data(), n, pool.workspace(0)) < 3) break;
    if (k > limit) {  // r still has 3 extrema: an automatic count stops here
      out.imfLimitReached = p.maxImfs == 0;
      break;
    }
    const double beta = k == 1 ? p.noiseStd : p.noiseStd * sampleStd(r.data(), n);
    const MemberFn member = [&](int64_t i, SiftWorkspace& ws, double* slot, int* sifts) {
      double* y = ensureScratch(ws.scratch, n);
      const int mi = static_cast<int>(i);
      if (k == 1) {
        whiteNoise(p.seed, channel, static_cast<uint64_t>(i), n, y);  // raw noise at stage 1
        for (int64_t s = 0; s < n; ++s) y[s] = r[static_cast<std::size_t>(s)] + beta * y[s];
      } else if (noise.modes(mi) >= k - 1 && noise.stds[i][static_cast<std::size_t>(k - 2)] > 0) {
        const double* e = noise.mode(mi, k - 1);
        const double c = beta / noise.stds[i][static_cast<std::size_t>(k - 2)];
        for (int64_t s = 0; s < n; ++s) y[s] = r[static_cast<std::size_t>(s)] + c * e[s];
      } else {
        std::copy(r.begin(), r.end(), y);  // no noise for a member without that mode
      }
      sifts[0] = extractImf(y, n, p.stop, slot, ws);
      if (sifts[0] < 0) std::fill(slot, slot + n, 0.0);  // no IMF: it contributes zeros
    };
    sumMembers(pool, p.ensembleSize, un, 1, member, d.data(), tallies, out.degenerateMembers,
               [&](double f) { prog.stage(k, f); });
    for (double& v : d) v /= p.ensembleSize;
    for (std::size_t s = 0; s < un; ++s) r[s] -= d[s];
    out.data.insert(out.data.end(), d.begin(), d.end());
    out.sifts.push_back(tallies[0].mean());
    out.extractions += tallies[0].count;
  }
  out.data.insert(out.data.end(), r.begin(), r.end());
  out.rows = static_cast<int>(out.sifts.size()) + 1;
  for (double& v : out.data) v *= sx;
  out.capReached = pool.capReached();
  return out;
}

ChannelDecomposition iceemdanChannel(const double* x, int64_t n, uint64_t channel,
                                     const EmdParams& p, WorkerPool& pool,
                                     const ChannelProgress& progress) {
  const auto un = static_cast<std::size_t>(n);
  const StageProgress prog{progress, 0.3, stageEstimate(p, n)};
  std::vector<double> xs;
  const double sx = standardise(x, n, xs);
  ChannelDecomposition out;

  // Stage k uses E_k: at most maxImfs noise modes.
  pool.resetCapReached();
  prog.noise(0);
  const NoiseModes noise = computeNoiseModes(p, channel, n, p.maxImfs, pool);
  prog.noise(1);
  out.noiseCapReached = pool.capReached();
  pool.resetCapReached();

  std::vector<double> prev = xs, next(un), probe(un);
  std::vector<SiftTally> tallies;
  const int limit = imfLimit(p, n);
  for (int k = 1;; ++k) {
    if (k > limit && p.maxImfs > 0) break;
    if (k > 1) {
      // iceemdan.m's es_imf: go on only while sifting changes r_{k-1} (>= 3 extrema and not
      // already an IMF by the stop rule). This probe is not a member: keep it out of the tally.
      SiftWorkspace& ws = pool.workspace(0);
      const int64_t before = ws.capReached;
      const int nbit = extractImf(prev.data(), n, p.stop, probe.data(), ws);
      ws.capReached = before;
      if (nbit <= 0) break;
    }
    if (k > limit) {  // an automatic count, and r_{k-1} still has an IMF
      out.imfLimitReached = true;
      break;
    }
    // Stage 1: eps_0 E_1 / std(E_1) (std of the standardised signal is 1); stage k: beta_{k-1}
    // E_k, E_k re-normalised only for Constant scaling.
    const double beta = k == 1 ? p.noiseStd : p.noiseStd * sampleStd(prev.data(), n);
    const bool normalise = k == 1 || p.noiseScaling == NoiseScaling::Constant;
    const MemberFn member = [&](int64_t i, SiftWorkspace& ws, double* slot, int* sifts) {
      double* y = ensureScratch(ws.scratch, n);
      const int mi = static_cast<int>(i);
      const double sd = noise.modes(mi) >= k ? noise.stds[i][static_cast<std::size_t>(k - 1)] : 0;
      if (noise.modes(mi) >= k && (!normalise || sd > 0)) {
        const double* e = noise.mode(mi, k);
        const double c = normalise ? beta / sd : beta;
        for (int64_t s = 0; s < n; ++s) y[s] = prev[static_cast<std::size_t>(s)] + c * e[s];
      } else {
        std::copy(prev.begin(), prev.end(), y);  // no noise for a member without mode k
      }
      // M(y) = y - IMF_1(y), or y itself when y has no IMF (a degenerate member).
      sifts[0] = extractImf(y, n, p.stop, slot, ws);
      if (sifts[0] < 0) {
        std::copy(y, y + n, slot);
      } else {
        for (int64_t s = 0; s < n; ++s) slot[s] = y[s] - slot[s];
      }
    };
    sumMembers(pool, p.ensembleSize, un, 1, member, next.data(), tallies, out.degenerateMembers,
               [&](double f) { prog.stage(k, f); });
    for (double& v : next) v /= p.ensembleSize;
    for (std::size_t s = 0; s < un; ++s) probe[s] = prev[s] - next[s];  // d_k = r_{k-1} - r_k
    out.data.insert(out.data.end(), probe.begin(), probe.end());
    out.sifts.push_back(tallies[0].mean());
    out.extractions += tallies[0].count;
    std::swap(prev, next);
  }
  out.data.insert(out.data.end(), prev.begin(), prev.end());
  out.rows = static_cast<int>(out.sifts.size()) + 1;
  for (double& v : out.data) v *= sx;
  out.capReached = pool.capReached();
  return out;
}

}  // namespace modescope::emd_detail
