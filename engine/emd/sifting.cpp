// Sifting of one signal in double precision (sifting.h): the shared primitives composed as emd.m
// composes extr, boundary_conditions, interp1 'spline' and stop_sifting.
#include "engine/emd/sifting.h"

#include <algorithm>
#include <cmath>

namespace modescope {
namespace {

sift::StopKind stopKind(StopRuleKind k) {
  switch (k) {
    case StopRuleKind::Rilling:
      return sift::StopKind::Rilling;
    case StopRuleKind::FixedSifts:
      return sift::StopKind::Fixed;
    case StopRuleKind::SNumber:
      return sift::StopKind::SNumber;
  }
  return sift::StopKind::Rilling;
}

// One envelope's knots: mirrored left knots, the extrema, mirrored right knots (emd.m's
// [tlmax t(indmax) trmax] and the matching values).
int gatherKnots(const double* x, const int32_t* idx, int count, const sift::EndKnots& ends,
                std::vector<int32_t>& t, std::vector<double>& y) {
  const int total = ends.leftCount + count + ends.rightCount;
  if (static_cast<int>(t.size()) < total) {
    t.resize(static_cast<std::size_t>(total));
    y.resize(static_cast<std::size_t>(total));
  }
  int c = 0;
  for (int k = 0; k < ends.leftCount; ++k, ++c) {
    t[c] = ends.leftPos[k];
    y[c] = x[ends.leftSrc[k]];
  }
  for (int k = 0; k < count; ++k, ++c) {
    t[c] = idx[k];
    y[c] = x[idx[k]];
  }
  for (int k = 0; k < ends.rightCount; ++k, ++c) {
    t[c] = ends.rightPos[k];
    y[c] = x[ends.rightSrc[k]];
  }
  return total;
}

double maxAbs(const double* x, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

}  // namespace

bool envelopeMean(const double* x, int64_t n, const StopRule& rule, double* mean,
                  sift::SiftStats& stats, SiftWorkspace& ws) {
  stats = sift::SiftStats{};
  const auto un = static_cast<std::size_t>(n);
  if (ws.flags.size() < un) ws.flags.resize(un);
  ws.imax.clear();
  ws.imin.clear();
  int64_t zeros = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (sift::startsRun(x, i)) {
      const int64_t j = sift::classifyRun(x, n, i, ws.flags.data());
      for (int64_t k = i; k <= j; ++k) {
        if (ws.flags[k] == sift::kMaximum) ws.imax.push_back(static_cast<int32_t>(k));
        if (ws.flags[k] == sift::kMinimum) ws.imin.push_back(static_cast<int32_t>(k));
      }
    }
    zeros += sift::zeroCrossingsAt(x, n, i);
  }
  stats.maxima = static_cast<int64_t>(ws.imax.size());
  stats.minima = static_cast<int64_t>(ws.imin.size());
  stats.zeroCrossings = zeros;

  auto fail = [&] {
    std::fill(mean, mean + n, 0.0);
    stats.envelopeFailed = true;
    return false;
  };
  if (sift::tooFewExtrema(stats.maxima, stats.minima)) return fail();
  sift::Boundaries b;
  if (!sift::mirrorBoundaries(x, static_cast<int32_t>(n), ws.imax.data(),
                              static_cast<int>(ws.imax.size()), ws.imin.data(),
                              static_cast<int>(ws.imin.size()), b))
    return fail();

  const int cu =
      gatherKnots(x, ws.imax.data(), static_cast<int>(ws.imax.size()), b.max, ws.knotT, ws.knotY);
  const int cl =
      gatherKnots(x, ws.imin.data(), static_cast<int>(ws.imin.size()), b.min, ws.knotT2, ws.knotY2);
  const auto most = static_cast<std::size_t>(std::max(cu, cl));
  if (ws.slopes.size() < most) ws.slopes.resize(most);
  if (ws.slopes2.size() < most) ws.slopes2.resize(most);
  if (ws.work.size() < most) ws.work.resize(most);
  sift::splineSlopes(ws.knotT.data(), ws.knotY.data(), cu, ws.slopes.data(), ws.work.data());
  sift::splineSlopes(ws.knotT2.data(), ws.knotY2.data(), cl, ws.slopes2.data(), ws.work.data());

  // The pieces are found by walking forward with p: the same index splinePiece's binary search
  // returns (the largest k <= count - 2 with t[k] <= p), without its log factor per sample.
  int64_t above1 = 0, above2 = 0;
  int ku = sift::splinePiece(ws.knotT.data(), cu, 0);
  int kl = sift::splinePiece(ws.knotT2.data(), cl, 0);
  for (int64_t p = 0; p < n; ++p) {
    while (ku < cu - 2 && ws.knotT[ku + 1] <= p) ++ku;
    while (kl < cl - 2 && ws.knotT2[kl + 1] <= p) ++kl;
    const double upper =
        sift::splineValue(ws.knotT.data(), ws.knotY.data(), ws.slopes.data(), ku, p);
    const double lower =
        sift::splineValue(ws.knotT2.data(), ws.knotY2.data(), ws.slopes2.data(), kl, p);
    mean[p] = (upper + lower) / 2;
    const double ratio = sift::stopRatio(upper, lower);
    if (ratio > rule.threshold1) ++above1;
    if (ratio > rule.threshold2) ++above2;
  }
  stats.aboveThreshold1 = above1;
  stats.aboveThreshold2 = above2;
  return true;
}

int extractImf(const double* y, int64_t n, const StopRule& rule, double* imf, SiftWorkspace& ws) {
  const auto un = static_cast<std::size_t>(n);
  if (ws.mean.size() < un) ws.mean.resize(un);
  double* mean = ws.mean.data();
  std::copy(y, y + n, imf);
  double* m = imf;

  sift::SiftStats stats;
  envelopeMean(m, n, rule, mean, stats, ws);
  if (sift::tooFewExtrema(stats.maxima, stats.minima)) return -1;
  if (maxAbs(m, n) < 1e-10 * maxAbs(y, n)) return -1;

  const sift::StopKind kind = stopKind(rule.kind);
  const int cap = rule.kind == StopRuleKind::FixedSifts ? rule.fixedSifts : rule.maxSifts;
  int sCount = 0;
  int nbit = 0;
  bool stop = sift::stopSifting(stats, n, kind, rule.tolerance, rule.sNumber, sCount);
  while (!stop && nbit < cap) {
    if (ws.context) ws.context->checkpoint();
    for (int64_t i = 0; i < n; ++i) m[i] -= mean[i];
    ++nbit;
    if (nbit < cap) {
      envelopeMean(m, n, rule, mean, stats, ws);
      stop = sift::stopSifting(stats, n, kind, rule.tolerance, rule.sNumber, sCount);
    }
  }
  if (!stop && rule.kind != StopRuleKind::FixedSifts) ++ws.capReached;
  return nbit;
}

int empiricalModes(const double* x, int64_t n, const StopRule& rule, int maxImfs,
                   std::vector<double>& rows, std::vector<int>& sifts, SiftWorkspace& ws) {
  const auto un = static_cast<std::size_t>(n);
  rows.clear();
  sifts.clear();
  ws.residue.assign(x, x + n);
  double* r = ws.residue.data();
  const double scale = maxAbs(x, n);
  std::vector<double> imf(un);
  int k = 0;
  const int limit = imfLimit(maxImfs, n);
  while (k < limit) {
    // emd.m's forced stop compares the residue with the original signal, not with itself.
    if (maxAbs(r, n) < 1e-10 * scale) break;
    const int nbit = extractImf(r, n, rule, imf.data(), ws);
    if (nbit < 0) break;
    rows.insert(rows.end(), imf.begin(), imf.end());
    sifts.push_back(nbit);
    for (int64_t i = 0; i < n; ++i) r[i] -= imf[i];
    ++k;
  }
  rows.insert(rows.end(), r, r + n);
  return k;
}

}  // namespace modescope
