// The numerical steps of one EMD sifting iteration, written once for the CPU and CUDA backends
// (MODESCOPE_HOST_DEVICE: __host__ __device__ under nvcc, plain inline functions otherwise), so
// both backends decide extrema, boundaries and splines identically and parity tests compare like
// with like. Each function follows Rilling and Flandrin's emd.m (version 3.2007), the reference
// the thesis validates against (docs/emd.md, "Stop rules" and "Extrema, boundaries and splines"):
//
//   extrema      emd.m `extr`: strict local maxima/minima of the interior samples; a run of equal
//                samples (plateau) bounded by a rise and a fall counts once, at its middle
//                (MATLAB's round((first + last) / 2)); end samples are never extrema; plateaus
//                touching either end are not extrema.
//   zero count   emd.m `extr`'s indzer: sign changes between neighbours plus runs of exact zeros.
//                (Signs are compared, not products, so float and double agree where a product of
//                two tiny values would underflow.)
//   boundaries   emd.m `boundary_conditions` with NBSYM = 2: the first and last two extrema are
//                mirrored about the first/last extremum or the end sample, as emd.m chooses.
//   envelopes    MATLAB `interp1(..., 'spline')`: a not-a-knot cubic spline (a parabola for three
//                knots, a line for two), evaluated at every sample; samples outside the knots
//                use the end pieces (MATLAB's ppval).
//   stop test    emd.m `stop_sifting` / `stop_sifting_fixe` / `stop_sifting_fixe_h`.
//
// The spline is solved for its slopes (as MATLAB's spline.m) with the two not-a-knot end rows
// eliminated into their neighbours: the remaining tridiagonal system is strictly diagonally
// dominant, so the Thomas algorithm without pivoting is stable (the raw not-a-knot rows are not
// dominant).
//
// Knot positions are sample indices (int32, mirrored ones may be negative or >= n): the spline
// arithmetic on them is exact in float up to 2^24 samples between knots.
//
// Thread rules: pure functions of their arguments; each call touches only the memory it is given.
#pragma once

#include <math.h>
#include <stdint.h>

#include "engine/core/philox.h"  // MODESCOPE_HOST_DEVICE

// Full unrolling of the fixed-size chunk loops below (nvcc), so the chunk stays in registers.
#if defined(__CUDA_ARCH__)
#define MODESCOPE_UNROLL _Pragma("unroll")
#else
#define MODESCOPE_UNROLL
#endif

namespace modescope::sift {

enum : uint8_t { kNotExtremum = 0, kMaximum = 1, kMinimum = 2 };

// ---- Extrema and zero crossings ------------------------------------------------------------

// Sample i of x[0..n) starts a run of equal values (a run of length 1 included).
template <class R>
MODESCOPE_HOST_DEVICE inline bool startsRun(const R* x, int64_t i) {
  return i == 0 || x[i - 1] != x[i];
}

// The sample a run x[first..last] of equal values is flagged at when it is an extremum: MATLAB's
// round((first+1 + last+1) / 2) - 1, halves rounding up.
MODESCOPE_HOST_DEVICE inline int64_t runMiddle(int64_t first, int64_t last) {
  return (first + last + 1) / 2;
}

// Called for the first sample i of every run of equal values (startsRun): writes flags[i..j] for
// the whole run x[i..j] (kNotExtremum everywhere except at most one kMaximum/kMinimum at the
// run's middle) and returns j. Calling it for every run start writes every flag exactly once,
// which lets one GPU thread per sample fill the array without races.
template <class R>
MODESCOPE_HOST_DEVICE inline int64_t classifyRun(const R* x, int64_t n, int64_t i, uint8_t* flags) {
  int64_t j = i;
  while (j + 1 < n && x[j + 1] == x[i]) ++j;
  for (int64_t k = i; k <= j; ++k) flags[k] = kNotExtremum;
  if (i == 0 || j == n - 1) return j;  // touches an end: never an extremum (emd.m extr)
  const R left = x[i] - x[i - 1];      // nonzero: i starts the run
  const R right = x[j + 1] - x[j];     // nonzero: j ends it
  const int64_t middle = runMiddle(i, j);
  if (left > 0 && right < 0) flags[middle] = kMaximum;
  if (left < 0 && right > 0) flags[middle] = kMinimum;
  return j;
}

// Contribution of sample i to the zero-crossing count: a sign change between i and i + 1, and
// the start of a run of exact zeros at i.
// The same from the sample's value and its neighbours' (hasPrev: i > 0, hasNext: i + 1 < n; a
// missing neighbour's value is not read).
template <class R>
MODESCOPE_HOST_DEVICE inline int zeroCrossingsAt(R prev, R cur, R next, bool hasPrev,
                                                 bool hasNext) {
  int c = 0;
  if (hasNext && ((cur < 0 && next > 0) || (cur > 0 && next < 0))) ++c;
  if (cur == 0 && (!hasPrev || prev != 0)) ++c;
  return c;
}
template <class R>
MODESCOPE_HOST_DEVICE inline int zeroCrossingsAt(const R* x, int64_t n, int64_t i) {
  const bool hasPrev = i > 0, hasNext = i + 1 < n;
  return zeroCrossingsAt(hasPrev ? x[i - 1] : R(0), x[i], hasNext ? x[i + 1] : R(0), hasPrev,
                         hasNext);
}

// ---- Mirrored boundaries (emd.m boundary_conditions, NBSYM = 2) ---------------------------------

constexpr int kMirrored = 2;  // NBSYM

// The extra knots outside the extrema, in ascending position: left[0..leftCount) come before the
// first extremum, right[0..rightCount) after the last.
struct EndKnots {
  int leftCount = 0, rightCount = 0;
  int32_t leftPos[kMirrored], rightPos[kMirrored];
  int32_t leftSrc[kMirrored], rightSrc[kMirrored];  // sample whose value the knot takes
};

struct Boundaries {
  EndKnots max, min;
};

namespace detail {
// dst = reverse(src[from..to)) (MATLAB fliplr of a slice), optionally followed by `extra`.
MODESCOPE_HOST_DEVICE inline int flipSlice(const int32_t* src, int from, int to, int32_t* dst,
                                           int extra = -1) {
  int c = 0;
  for (int k = to - 1; k >= from; --k) dst[c++] = src[k];
  if (extra >= 0) dst[c++] = extra;
  return c;
}
MODESCOPE_HOST_DEVICE inline int smaller(int a, int b) { return a < b ? a : b; }
// The spline sweep reads its knots and writes its slopes in runs of 4 elements that start on a
// 4-element boundary where it can: on the device such a run is one 16-byte access (two for
// double). Each GPU thread walks its own piece of a system, so the 32 threads of a warp touch 32
// places far apart and every access instruction costs 32 cache-line requests; with whole runs
// the GPU solve of an ICEEMDAN run of 500 x 102,401 samples took 62.5 ms instead of 72.0 (ncu,
// H200; the first IMF's 1.75 -> 1.47 ms per iteration). The arithmetic in the source is the same
// either way; float32 bits can differ where nvcc fuses the multiply-adds differently (docs/emd.md,
// "Third session").
// Position of p within its run of 4 elements (0 = at a boundary).
template <class T>
MODESCOPE_HOST_DEVICE inline int runOffset(const T* p) {
  return static_cast<int>((reinterpret_cast<uintptr_t>(p) / sizeof(T)) % 4);
}

// v[k0 + 1 + j] for the steps k0 + j <= stop of a chunk of N steps of the spline sweep (the knot
// after each step's row); entries past `stop` are left alone. (The chunk stays in registers.)
template <int N, class T>
MODESCOPE_HOST_DEVICE inline void loadKnotChunk(const T* v, int k0, int stop, T (&out)[N]) {
#if defined(__CUDA_ARCH__)
  static_assert(N * sizeof(T) % 16 == 0, "a chunk is whole 16-byte runs");
  if (k0 + N - 1 <= stop && runOffset(v + k0 + 1) == 0) {
    constexpr int kPerAccess = 16 / sizeof(T);
    const auto* runs = reinterpret_cast<const uint4*>(v + k0 + 1);
    MODESCOPE_UNROLL
    for (int q = 0; q < N / kPerAccess; ++q) {
      const uint4 w = runs[q];
      memcpy(&out[q * kPerAccess], &w, sizeof w);
    }
    return;
  }
#endif
  MODESCOPE_UNROLL
  for (int j = 0; j < N; ++j)
    if (k0 + j <= stop) out[j] = v[k0 + 1 + j];
}
// s[j] = v[j] for j < 8 (a group of the back substitution, ascending).
template <class R>
MODESCOPE_HOST_DEVICE inline void storeSlopeGroup(R* s, const R (&v)[8]) {
#if defined(__CUDA_ARCH__)
  if (runOffset(s) == 0) {
    constexpr int kPerAccess = 16 / sizeof(R);
    auto* runs = reinterpret_cast<uint4*>(s);
    MODESCOPE_UNROLL
    for (int q = 0; q < 8 / kPerAccess; ++q) {
      uint4 w;
      memcpy(&w, &v[q * kPerAccess], sizeof w);
      runs[q] = w;
    }
    return;
  }
#endif
  MODESCOPE_UNROLL
  for (int j = 0; j < 8; ++j) s[j] = v[j];
}
MODESCOPE_HOST_DEVICE inline int larger(int a, int b) { return a > b ? a : b; }
}  // namespace detail

// Mirrors the extrema at both ends as emd.m does. imax[0..nmax) and imin[0..nmin) are the
// extremum sample indices in ascending order. Returns false where emd.m raises an error (too few
// extrema for the mirror: its stop test then stops with a zero mean envelope). Requires
// nmax >= 1 and nmin >= 1.
template <class R>
MODESCOPE_HOST_DEVICE inline bool mirrorBoundaries(const R* x, int32_t n, const int32_t* imax,
                                                   int nmax, const int32_t* imin, int nmin,
                                                   Boundaries& out) {
  using detail::flipSlice;
  using detail::larger;
  using detail::smaller;
  constexpr int nb = kMirrored;
  if (nmax < 1 || nmin < 1) return false;
  int32_t lmax[nb], lmin[nb], rmax[nb], rmin[nb];
  int nlmax, nlmin, nrmax, nrmin;
  int32_t lsym, rsym;
  // Left end.
  if (imax[0] < imin[0]) {
    if (x[0] > x[imin[0]]) {
      nlmax = flipSlice(imax, 1, smaller(nmax, nb + 1), lmax);
      nlmin = flipSlice(imin, 0, smaller(nmin, nb), lmin);
      lsym = imax[0];
    } else {
      nlmax = flipSlice(imax, 0, smaller(nmax, nb), lmax);
      nlmin = flipSlice(imin, 0, smaller(nmin, nb - 1), lmin, 0);
      lsym = 0;
    }
  } else {
    if (x[0] < x[imax[0]]) {
      nlmax = flipSlice(imax, 0, smaller(nmax, nb), lmax);
      nlmin = flipSlice(imin, 1, smaller(nmin, nb + 1), lmin);
      lsym = imin[0];
    } else {
      nlmax = flipSlice(imax, 0, smaller(nmax, nb - 1), lmax, 0);
      nlmin = flipSlice(imin, 0, smaller(nmin, nb), lmin);
      lsym = 0;
    }
  }
  // Right end.
  const int32_t last = n - 1;
  if (imax[nmax - 1] < imin[nmin - 1]) {
    if (x[last] < x[imax[nmax - 1]]) {
      nrmax = flipSlice(imax, larger(nmax - nb, 0), nmax, rmax);
      nrmin = flipSlice(imin, larger(nmin - nb - 1, 0), nmin - 1, rmin);
      rsym = imin[nmin - 1];
    } else {
      rmax[0] = last;
      nrmax = 1 + flipSlice(imax, larger(nmax - nb + 1, 0), nmax, rmax + 1);
      nrmin = flipSlice(imin, larger(nmin - nb, 0), nmin, rmin);
      rsym = last;
    }
  } else {
    if (x[last] > x[imin[nmin - 1]]) {
      nrmax = flipSlice(imax, larger(nmax - nb - 1, 0), nmax - 1, rmax);
      nrmin = flipSlice(imin, larger(nmin - nb, 0), nmin, rmin);
      rsym = imax[nmax - 1];
    } else {
      nrmax = flipSlice(imax, larger(nmax - nb, 0), nmax, rmax);
      rmin[0] = last;
      nrmin = 1 + flipSlice(imin, larger(nmin - nb + 1, 0), nmin, rmin + 1);
      rsym = last;
    }
  }
  // "In case symmetrized parts do not extend enough": MATLAB evaluates tlmin(1) first, so an
  // empty list there (or in tlmax when tlmin(1) does not already decide) is its index error.
  if (nlmin == 0) return false;
  if (2 * lsym - lmin[0] > 0 || (nlmax == 0 ? false : 2 * lsym - lmax[0] > 0)) {
    if (nlmax == 0 && !(2 * lsym - lmin[0] > 0)) return false;
    if (lsym == imax[0]) {
      nlmax = flipSlice(imax, 0, smaller(nmax, nb), lmax);
    } else {
      nlmin = flipSlice(imin, 0, smaller(nmin, nb), lmin);
    }
    if (lsym == 0) return false;  // emd.m: error('bug')
    lsym = 0;
  } else if (nlmax == 0) {
    return false;
  }
  if (nrmin == 0) return false;
  if (2 * rsym - rmin[nrmin - 1] < last ||
      (nrmax == 0 ? false : 2 * rsym - rmax[nrmax - 1] < last)) {
    if (nrmax == 0 && !(2 * rsym - rmin[nrmin - 1] < last)) return false;
    if (rsym == imax[nmax - 1]) {
      nrmax = flipSlice(imax, larger(nmax - nb, 0), nmax, rmax);
    } else {
      nrmin = flipSlice(imin, larger(nmin - nb, 0), nmin, rmin);
    }
    if (rsym == last) return false;  // emd.m: error('bug')
    rsym = last;
  } else if (nrmax == 0) {
    return false;
  }
  // Mirrored positions 2*sym - p; the lists are reversed, so the positions come out ascending.
  out.max.leftCount = nlmax;
  out.min.leftCount = nlmin;
  out.max.rightCount = nrmax;
  out.min.rightCount = nrmin;
  for (int k = 0; k < nlmax; ++k) {
    out.max.leftPos[k] = 2 * lsym - lmax[k];
    out.max.leftSrc[k] = lmax[k];
  }
  for (int k = 0; k < nlmin; ++k) {
    out.min.leftPos[k] = 2 * lsym - lmin[k];
    out.min.leftSrc[k] = lmin[k];
  }
  for (int k = 0; k < nrmax; ++k) {
    out.max.rightPos[k] = 2 * rsym - rmax[k];
    out.max.rightSrc[k] = rmax[k];
  }
  for (int k = 0; k < nrmin; ++k) {
    out.min.rightPos[k] = 2 * rsym - rmin[k];
    out.min.rightSrc[k] = rmin[k];
  }
  return true;
}

// ---- Not-a-knot cubic spline through (t[k], y[k]), k < count, t strictly ascending ------------

// The not-a-knot system for the slopes (spline.m solves s * c = b; transposed):
//   0:      dx1 s0 + x31 s1 = b0
//   k:      dx_k s_{k-1} + 2 (dx_{k-1} + dx_k) s_k + dx_{k-1} s_{k+1}
//             = 3 (dx_k dd_{k-1} + dx_{k-1} dd_k)
//   n-1:    xn s_{n-2} + dx_{n-3} s_{n-1} = b_{n-1}
// Row 0 eliminated into row 1 gives (dx0 + dx1) s1 + dx0 s2 = b1 - b0, row n-1 into row n-2
// gives dx_{n-2} s_{n-3} + (dx_{n-3} + dx_{n-2}) s_{n-2} = b_{n-2} - b_{n-1}: the reduced system
// in s1..s_{n-2}. Each of its rows has |diag| = 2 (|sub| + |sup|) (rows 1 and n-2: more), so
// in the Thomas algorithm |work[k]| <= 1/2, and a change of the right-hand side at one row moves
// the solution at a row d rows away by at most 2^-d of it.
template <class R>
struct SplineEnds {
  R x31, xn, b0, bn;
};

// y(k): the value at knot k (an accessor, so that values stored with a stride can be used).
template <class R, class Values>
MODESCOPE_HOST_DEVICE inline SplineEnds<R> splineEndsOf(const int32_t* t, Values y, int n) {
  auto dx = [&](int k) { return static_cast<R>(t[k + 1] - t[k]); };
  auto dd = [&](int k) { return (y(k + 1) - y(k)) / dx(k); };
  SplineEnds<R> e;
  e.x31 = static_cast<R>(t[2] - t[0]);
  e.xn = static_cast<R>(t[n - 1] - t[n - 3]);
  e.b0 = ((dx(0) + 2 * e.x31) * dx(1) * dd(0) + dx(0) * dx(0) * dd(1)) / e.x31;
  e.bn =
      (dx(n - 2) * dx(n - 2) * dd(n - 3) + (2 * e.xn + dx(n - 2)) * dx(n - 3) * dd(n - 2)) / e.xn;
  return e;
}

template <class R>
MODESCOPE_HOST_DEVICE inline SplineEnds<R> splineEnds(const int32_t* t, const R* y, int n) {
  return splineEndsOf<R>(
      t, [y](int k) { return y[k]; }, n);
}

// Rows [first, last) of the reduced system's solution (1 <= first < last <= n - 1), by the
// Thomas algorithm started `overlap` rows before `first` and ended `overlap` rows after `last`
// (clipped to the system): outside the whole system the coupling is dropped, which changes
// the rows kept by at most 2^-overlap of the solution (see above), below double rounding for
// overlap >= 64. first = 1, last = n - 1 is the plain Thomas algorithm on the whole system (what
// the CPU runs; the GPU splits long systems over a warp's lanes). Writes s[first..last) and uses
// work[first..last) as scratch; overlap <= kSplineOverlap.
constexpr int kSplineOverlap = 64;

// One forward step of the Thomas sweep at row k of the reduced system (rows from `start`; the
// coupling to row start - 1 is dropped): from the previous row's modified super-diagonal and
// right-hand side (prevWork, prevS) to this row's. dxPrev/ddPrev: the step and divided difference
// before knot k, dxk/ddk after it.
template <class R>
MODESCOPE_HOST_DEVICE inline void splineSweepRow(int k, int start, int n, const SplineEnds<R>& ends,
                                                 R dxPrev, R dxk, R ddPrev, R ddk, R& prevWork,
                                                 R& prevS) {
  R diag = 2 * (dxPrev + dxk), sup = dxPrev;
  R rhs = 3 * (dxk * ddPrev + dxPrev * ddk);
  if (k == 1) {
    diag -= ends.x31;  // 2 (dx0 + dx1) - x31 = dx0 + dx1; the sub-diagonal is eliminated
    rhs -= ends.b0;
  } else if (k > start) {
    diag -= dxk * prevWork;  // sub-diagonal entry dx_k
    rhs -= dxk * prevS;
  }
  if (k == n - 2) {
    sup = 0;
    diag -= ends.xn;
    rhs -= ends.bn;
  }
  const R inv = R(1) / diag;
  prevWork = sup * inv;
  prevS = rhs * inv;
}
// Where the sweep keeps rows [first, last) between the forward sweep and the back substitution:
// put(k, work, rhs) in the sweep, get(k, work, rhs) in the substitution, which then writes the
// slope s[k] (after get(k), so a store may keep rhs in s). The CPU keeps them in the arrays
// `work` and `s` (SweepArrays); a GPU solve of many pieces may lay them out differently.
template <class R>
struct SweepArrays {
  R* work;
  R* s;
  MODESCOPE_HOST_DEVICE void put(int k, R w, R rhs) const {
    work[k] = w;
    s[k] = rhs;
  }
  MODESCOPE_HOST_DEVICE void get(int k, R& w, R& rhs) const {
    w = work[k];
    rhs = s[k];
  }
};

// Knots per chunk of the forward sweep's loads (splineSlopeRowsWith), unless a caller says.
constexpr int kSweepChunk = 16;
// splineSlopeRows with the sweep's rows kept by `rows` (SweepArrays's interface), the knots
// loaded kChunk at a time (a multiple of 4; cuda/sift_splines.cu takes 24 for its large float
// systems).
template <int kChunk = kSweepChunk, class R, class Rows>
MODESCOPE_HOST_DEVICE inline void splineSlopeRowsWith(const int32_t* t, const R* y, int n,
                                                      const SplineEnds<R>& ends, int first,
                                                      int last, int overlap, const Rows& rows,
                                                      R* s) {
  const int start = first - overlap > 1 ? first - overlap : 1;
  const int stop = last - 1 + overlap < n - 2 ? last - 1 + overlap : n - 2;  // inclusive
  R tailWork[kSplineOverlap], tailS[kSplineOverlap];
  // Forward sweep: modified super-diagonal and right-hand side. The previous step's values are
  // carried in registers, and the knots are loaded kChunk at a time, one chunk ahead of use: on a
  // GPU one thread walks one system, so a load latency on every step (instead of once per chunk,
  // hidden behind the previous chunk's steps) would be the whole cost. One division per step on
  // the chain: diag's reciprocal.
  R prevWork = 0, prevS = 0;
  R dxPrev = static_cast<R>(t[start] - t[start - 1]);
  R ddPrev = (y[start] - y[start - 1]) / dxPrev;
  int32_t tCur = t[start];
  R yCur = y[start];
  int32_t tNext[kChunk];
  R yNext[kChunk];
  detail::loadKnotChunk(t, start, stop, tNext);
  detail::loadKnotChunk(y, start, stop, yNext);
  // The first chunk is cut short so that the knots of every later one start on a run boundary
  // (detail::runOffset; t's and y's elements line up, their arrays being allocated alike).
  int chunk = kChunk - detail::runOffset(t + start + 1);
  for (int k0 = start; k0 <= stop; k0 += chunk, chunk = kChunk) {
    const int m = (stop + 1 - k0) < chunk ? (stop + 1 - k0) : chunk;  // steps k0 .. k0 + m - 1
    int32_t tAhead[kChunk];
    R yAhead[kChunk];
    detail::loadKnotChunk(t, k0 + chunk, stop, tAhead);
    detail::loadKnotChunk(y, k0 + chunk, stop, yAhead);
    MODESCOPE_UNROLL
    for (int j = 0; j < kChunk; ++j) {
      if (j < m) {
        const int k = k0 + j;
        const R dxk = static_cast<R>(tNext[j] - tCur);
        const R ddk = (yNext[j] - yCur) / dxk;
        splineSweepRow(k, start, n, ends, dxPrev, dxk, ddPrev, ddk, prevWork, prevS);
        if (k >= first && k < last) {
          rows.put(k, prevWork, prevS);
        } else if (k >= last) {
          tailWork[k - last] = prevWork;
          tailS[k - last] = prevS;
        }
        dxPrev = dxk;
        ddPrev = ddk;
        tCur = tNext[j];
        yCur = yNext[j];
      }
    }
    MODESCOPE_UNROLL
    for (int j = 0; j < kChunk; ++j) {
      tNext[j] = tAhead[j];
      yNext[j] = yAhead[j];
    }
  }
  // Back substitution from `stop` (where the truncated coupling is dropped) down to `first`, the
  // rows loaded kBack at a time ahead of their steps.
  R next = prevS;
  // One step of the back substitution: the slope of the row below from the row's work and rhs.
  auto step = [&next](R work, R rhs) {
    next = rhs - work * next;
    return next;
  };
  // The overlap rows after `last`, kBack at a time with their loads first. One row at a time,
  // each step waited for its own load from the tail arrays (local memory on a GPU): ncu on an
  // H200 put 17 % of a dense solve's stall samples on that one step. (The solve's time moved by
  // about 1 % with this and the loads ahead below; docs/emd.md, fourth session.)
  constexpr int kBack = 8;
  for (int k0 = stop - 1; k0 >= last; k0 -= kBack) {
    R w[kBack], r[kBack];
    MODESCOPE_UNROLL
    for (int j = 0; j < kBack; ++j) {
      if (k0 - j >= last) {
        w[j] = tailWork[k0 - j - last];
        r[j] = tailS[k0 - j - last];
      }
    }
    MODESCOPE_UNROLL
    for (int j = 0; j < kBack; ++j)
      if (k0 - j >= last) step(w[j], r[j]);
  }
  int k1 = last - 1;
  if (stop == last - 1) {  // the system's last row is ours: its value is the sweep's last
    s[k1] = next;
    --k1;
  }
  // Groups of kBack rows, the first cut short so that every later group's lowest slope starts a
  // run (detail::storeSlopeGroup). Each group's rows are loaded before the previous group's
  // steps, so that the loads of one overlap the steps of the other.
  // The group's lowest slope is s[k1 - 7], whose run offset is runOffset(s + k1) + 1 mod 4 (no
  // pointer before the array is formed).
  static_assert(kBack == 8, "the offset below assumes groups of 8");
  const int offset = k1 >= first ? (detail::runOffset(s + k1) + 1) % 4 : 0;
  int group = offset == 0 ? kBack : offset + 4;
  R w[kBack] = {}, r[kBack] = {};
  MODESCOPE_UNROLL
  for (int j = 0; j < kBack; ++j)
    if (j < group && k1 - j >= first) rows.get(k1 - j, w[j], r[j]);
  for (; k1 >= first; k1 -= group, group = kBack) {
    R wAhead[kBack] = {}, rAhead[kBack] = {};
    MODESCOPE_UNROLL
    for (int j = 0; j < kBack; ++j)
      if (k1 - group - j >= first) rows.get(k1 - group - j, wAhead[j], rAhead[j]);
    if (group == kBack && k1 - (kBack - 1) >= first) {
      R out[kBack];
      MODESCOPE_UNROLL
      for (int j = 0; j < kBack; ++j) out[kBack - 1 - j] = step(w[j], r[j]);
      detail::storeSlopeGroup(s + k1 - (kBack - 1), out);
    } else {
      MODESCOPE_UNROLL
      for (int j = 0; j < kBack; ++j) {
        if (j < group && k1 - j >= first) s[k1 - j] = step(w[j], r[j]);
      }
    }
    MODESCOPE_UNROLL
    for (int j = 0; j < kBack; ++j) {
      w[j] = wAhead[j];
      r[j] = rAhead[j];
    }
  }
}

template <class R>
MODESCOPE_HOST_DEVICE inline void splineSlopeRows(const int32_t* t, const R* y, int n,
                                                  const SplineEnds<R>& ends, int first, int last,
                                                  int overlap, R* s, R* work) {
  splineSlopeRowsWith(t, y, n, ends, first, last, overlap, SweepArrays<R>{work, s}, s);
}

// The two end slopes from their eliminated rows, once s[1] and s[n-2] are known.
template <class R>
MODESCOPE_HOST_DEVICE inline R splineLeftEndSlope(const int32_t* t, const SplineEnds<R>& ends,
                                                  R s1) {
  return (ends.b0 - ends.x31 * s1) / static_cast<R>(t[2] - t[1]);
}
template <class R>
MODESCOPE_HOST_DEVICE inline R splineRightEndSlope(const int32_t* t, int n,
                                                   const SplineEnds<R>& ends, R sBeforeLast) {
  return (ends.bn - ends.xn * sBeforeLast) / static_cast<R>(t[n - 2] - t[n - 3]);
}
template <class R>
MODESCOPE_HOST_DEVICE inline void splineEndSlopes(const int32_t* t, int n,
                                                  const SplineEnds<R>& ends, R* s) {
  s[0] = splineLeftEndSlope(t, ends, s[1]);
  s[n - 1] = splineRightEndSlope(t, n, ends, s[n - 2]);
}

// Slopes s[k] of MATLAB's spline(t, y) (not-a-knot ends; count 3: the parabola; count 2: the
// line). work: count scratch values. count >= 2.
template <class R>
MODESCOPE_HOST_DEVICE inline void splineSlopes(const int32_t* t, const R* y, int count, R* s,
                                               R* work) {
  const int n = count;
  auto dx = [&](int k) { return static_cast<R>(t[k + 1] - t[k]); };
  auto dd = [&](int k) { return (y[k + 1] - y[k]) / dx(k); };
  if (n == 2) {
    s[0] = s[1] = dd(0);
    return;
  }
  if (n == 3) {  // the parabola p(t) = y0 + c1 (t - t0) + c2 (t - t0)^2 (spline.m)
    const R c2 = (dd(1) - dd(0)) / static_cast<R>(t[2] - t[0]);
    const R c1 = dd(0) - c2 * dx(0);
    for (int k = 0; k < 3; ++k) s[k] = c1 + 2 * c2 * static_cast<R>(t[k] - t[0]);
    return;
  }
  const SplineEnds<R> ends = splineEnds(t, y, n);
  splineSlopeRows(t, y, n, ends, 1, n - 1, 0, s, work);
  splineEndSlopes(t, n, ends, s);
}

// Index of the spline piece that covers sample position p: the largest k in [0, count - 2] with
// t[k] <= p (the end pieces extend beyond the knots, as MATLAB's ppval).
MODESCOPE_HOST_DEVICE inline int splinePiece(const int32_t* t, int count, int64_t p) {
  int lo = 0, hi = count - 2;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (t[mid] <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The quadratic and cubic coefficients of piece k (cubic Hermite form of spline.m's pp
// coefficients): on the piece, value = y[k] + u (s[k] + u (c2 + u c3)) with u = p - t[k].
// The same from the piece's two knots (t0, t1), values (y0, y1) and slopes (s0, s1).
template <class R>
MODESCOPE_HOST_DEVICE inline void splineCoefficientsOf(int32_t t0, int32_t t1, R y0, R y1, R s0,
                                                       R s1, R& c2, R& c3) {
  const R h = static_cast<R>(t1 - t0);
  const R d = (y1 - y0) / h;
  c2 = (3 * d - 2 * s0 - s1) / h;
  c3 = (s0 + s1 - 2 * d) / (h * h);
}

template <class R>
MODESCOPE_HOST_DEVICE inline void splinePieceCoefficients(const int32_t* t, const R* y, const R* s,
                                                          int k, R& c2, R& c3) {
  splineCoefficientsOf(t[k], t[k + 1], y[k], y[k + 1], s[k], s[k + 1], c2, c3);
}

// u: the sample's offset from the piece's knot (any integer type: every type converts the same
// integer to the same R).
template <class R, class Offset>
MODESCOPE_HOST_DEVICE inline R splineValueFrom(R y, R s, R c2, R c3, Offset u) {
  const R v = static_cast<R>(u);
  return y + v * (s + v * (c2 + v * c3));
}

// The spline's value at p on piece k. (The GPU computes the piece coefficients once per piece
// with splinePieceCoefficients and evaluates with splineValueFrom: the same arithmetic.)
template <class R>
MODESCOPE_HOST_DEVICE inline R splineValue(const int32_t* t, const R* y, const R* s, int k,
                                           int64_t p) {
  R c2, c3;
  splinePieceCoefficients(t, y, s, k, c2, c3);
  return splineValueFrom(y[k], s[k], c2, c3, p - t[k]);
}

// ---- Stop tests --------------------------------------------------------------------------------

// sigma = |mean envelope| / envelope amplitude at one sample (emd.m: sx = abs(envmoy) ./ amp);
// a zero amplitude gives 0 for a zero mean and +infinity otherwise (MATLAB's 0/0 = NaN compares
// false, x/0 = Inf compares true: the same decisions).
template <class R>
MODESCOPE_HOST_DEVICE inline R stopRatio(R upper, R lower) {
  const R mean = (upper + lower) / 2;
  const R amp = fabs(upper - lower) / 2;
  if (amp == 0) return mean == 0 ? R(0) : R(INFINITY);
  return fabs(mean) / amp;
}

// Everything a stop test needs about one candidate, gathered over its samples.
struct SiftStats {
  int64_t maxima = 0, minima = 0, zeroCrossings = 0;
  int64_t aboveThreshold1 = 0;  // samples with sigma > threshold1
  int64_t aboveThreshold2 = 0;  // samples with sigma > threshold2
  bool envelopeFailed = false;  // too few extrema to build the envelopes (emd.m's catch)
};

enum class StopKind : int { Rilling = 0, Fixed = 1, SNumber = 2 };

// emd.m's three tests. Returns true when sifting stops at this candidate. `sCount` carries the
// S-number rule's consecutive count between iterations (start at 0).
MODESCOPE_HOST_DEVICE inline bool stopSifting(const SiftStats& st, int64_t n, StopKind kind,
                                              double threshold1Fraction /* tolerance */,
                                              int sNumber, int& sCount) {
  if (st.envelopeFailed) return true;
  const int64_t extrema = st.maxima + st.minima;
  const int64_t diff =
      st.zeroCrossings > extrema ? st.zeroCrossings - extrema : extrema - st.zeroCrossings;
  switch (kind) {
    case StopKind::Rilling: {
      const bool keep =
          (static_cast<double>(st.aboveThreshold1) / static_cast<double>(n) > threshold1Fraction ||
           st.aboveThreshold2 > 0) &&
          extrema > 2;
      return !keep && diff <= 1;
    }
    case StopKind::Fixed:
      return false;
    case StopKind::SNumber:
      if (diff > 1) {
        sCount = 0;
        return false;
      }
      ++sCount;
      return sCount >= sNumber;
  }
  return true;
}

// emd.m's stop_EMD: a residue with fewer than 3 extrema is monotonic enough to end the
// decomposition.
MODESCOPE_HOST_DEVICE inline bool tooFewExtrema(int64_t maxima, int64_t minima) {
  return maxima + minima < 3;
}

}  // namespace modescope::sift
