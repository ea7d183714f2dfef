// The per-bin squeezing operators of vertical synchrosqueezing (VSS), written once for the CPU
// (double) and the CUDA kernels (float): docs/time-frequency.md, "Operators".
//
// Convention (local time): F_{a,b}(t, w) = sum_k x(t + k) k^a h^(b)(k) e^{-j w k}, h^(b) the b-th
// analytic derivative of the Gaussian, k and t in samples, w in rad/sample. For the local model
// x(t + k) ~ exp(r0 + r1 k + r2 k^2 / 2 + r3 k^3 / 6 + r4 k^4 / 24), integration by parts gives for
// every base window g = h^(b):
//   j w F^g - F^{Dg} = r1 F^g + r2 F^{Tg} + (r3 / 2) F^{T^2 g} + (r4 / 6) F^{T^3 g}
// and the n equations b = 0..n-1 form the n x n system M u = j w c1 - d, M[b][a] = F_{a,b},
// d[b] = F_{0,b+1}, u = (r1, r2, r3/2, r4/6). Cramer: r1 = j w - det[d, c2, .., cn] / det M, the
// instantaneous frequency Im(r1). Order 1 is F^{Dh} (not D^3 h, a misprint of the seed's (7));
// order 3 is the seed's EVSS1 (its (4)); CVSS3 uses the chirp rate with T D h in the first
// numerator term and the delay t - t_hat = -F^{Th} / F^h (t_hat = t + F^{Th}/F^h in this
// convention; the seed prints the opposite sign).
//
// Every entry is divided by F^h and scaled by sigma^(b - a) before the determinants, so all
// entries are O(1) whatever sigma is (the terms of each determinant then have one scale and float
// keeps its precision).
//
// Thread rules: pure functions.
#pragma once

#include "engine/core/host_device.h"

namespace modescope::tf {

template <class R>
struct Cx {
  R re, im;
};

template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> operator+(Cx<R> a, Cx<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> operator-(Cx<R> a, Cx<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> operator*(Cx<R> a, Cx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> scale(Cx<R> a, R s) {
  return {a.re * s, a.im * s};
}
template <class R>
MODESCOPE_HOST_DEVICE inline R norm2(Cx<R> a) {
  return a.re * a.re + a.im * a.im;
}
// a / b for b != 0.
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> divide(Cx<R> a, Cx<R> b) {
  const R d = norm2(b);
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}

template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> det2(Cx<R> a, Cx<R> b, Cx<R> c, Cx<R> d) {
  return a * d - b * c;  // | a b ; c d |
}

// m is row-major n x n (n <= 4); column `col` replaced by `v` when col >= 0.
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> entry(const Cx<R>* m, int n, int row, int c, int col,
                                         const Cx<R>* v) {
  return c == col ? v[row] : m[row * n + c];
}

template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> det3At(const Cx<R>* m, int n, int r0, int r1, int r2,
                                          const int* cols, int col, const Cx<R>* v) {
  const Cx<R> a = entry(m, n, r0, cols[0], col, v), b = entry(m, n, r0, cols[1], col, v),
              c = entry(m, n, r0, cols[2], col, v);
  const Cx<R> d = entry(m, n, r1, cols[0], col, v), e = entry(m, n, r1, cols[1], col, v),
              f = entry(m, n, r1, cols[2], col, v);
  const Cx<R> g = entry(m, n, r2, cols[0], col, v), h = entry(m, n, r2, cols[1], col, v),
              i = entry(m, n, r2, cols[2], col, v);
  return a * det2(e, f, h, i) - b * det2(d, f, g, i) + c * det2(d, e, g, h);
}

// det of the n x n matrix m (n = 1..4) with column `col` replaced by v (col < 0: none).
template <class R>
MODESCOPE_HOST_DEVICE inline Cx<R> determinant(const Cx<R>* m, int n, int col, const Cx<R>* v) {
  if (n == 1) return entry(m, n, 0, 0, col, v);
  if (n == 2)
    return det2(entry(m, n, 0, 0, col, v), entry(m, n, 0, 1, col, v), entry(m, n, 1, 0, col, v),
                entry(m, n, 1, 1, col, v));
  const int all[3] = {0, 1, 2};
  if (n == 3) return det3At(m, n, 0, 1, 2, all, col, v);
  // n == 4: Laplace expansion along row 0.
  Cx<R> sum{0, 0};
  for (int c = 0; c < 4; ++c) {
    int cols[3], k = 0;
    for (int j = 0; j < 4; ++j)
      if (j != c) cols[k++] = j;
    const Cx<R> minor = det3At(m, n, 1, 2, 3, cols, col, v);
    const Cx<R> term = entry(m, n, 0, c, col, v) * minor;
    sum = (c % 2 == 0) ? sum + term : sum - term;
  }
  return sum;
}

// Which modified STFT holds F_{a,b} for a model of order n (1..4): j = b n + a for a, b < n, and
// j = n^2 for F_{0,n}. Order 0 (the spectrogram) has F_{0,0} alone, at 0.
MODESCOPE_HOST_DEVICE inline int stftIndex(int n, int a, int b) {
  return b == n ? n * n : b * n + a;
}

// The window T^a D^b h of stftIndex(n, a, b): a = powerOf(j), b = derivativeOf(j).
MODESCOPE_HOST_DEVICE inline int powerOf(int n, int j) { return j == n * n ? 0 : j % n; }
MODESCOPE_HOST_DEVICE inline int derivativeOf(int n, int j) { return j == n * n ? n : j / n; }

// Order codes of tf_params.h's TfOrder, as plain ints the kernels take.
enum OrderCode : int { kSpectrogram = 0, kFirst, kSecond, kThird, kThirdCanonical, kFourth };

MODESCOPE_HOST_DEVICE constexpr int modelOrder(int code) {
  return code == kThirdCanonical ? 3 : code == kFourth ? 4 : code;
}

// The modified STFTs J an order needs: n^2 + 1 for a model of order n (stftIndex), 1 for the
// spectrogram. Constexpr, so the CUDA squeeze keeps a bin's J spectra in registers.
MODESCOPE_HOST_DEVICE constexpr int stftCount(int code) {
  const int n = modelOrder(code);
  return n == 0 ? 1 : n * n + 1;
}

// The estimated instantaneous frequency (rad/sample) of bin w from its modified STFTs F[j]
// (stftIndex layout), for a model of order n = modelOrder(code). F[0] = F^h must be non-zero (the
// caller applies the amplitude threshold first). `detFloor` is the smallest |det M| (of the
// normalised system) trusted; below it the first-order estimate is returned. sigma: the
// Gaussian's, in samples.
template <class R>
MODESCOPE_HOST_DEVICE inline R instantaneousFrequency(int code, const Cx<R>* F, R w, R sigma,
                                                      R detFloor) {
  const int n = modelOrder(code);
  // F_{0,1} / F_{0,0}: every order's first-order part.
  const Cx<R> ratio01 = divide(F[stftIndex(n, 0, 1)], F[0]);
  const R first = w - ratio01.im;
  if (n <= 1) return first;
  // Normalised system: E[b][a] = F_{a,b} sigma^(b-a) / F00, D[b] = F_{0,b+1} sigma^(b+1) / F00.
  Cx<R> E[16], D[4];
  R sb = 1;  // sigma^b
  for (int b = 0; b < n; ++b) {
    R sba = sb;  // sigma^(b - a)
    for (int a = 0; a < n; ++a) {
      E[b * n + a] = scale(divide(F[stftIndex(n, a, b)], F[0]), sba);
      sba /= sigma;
    }
    sb *= sigma;
    D[b] = scale(divide(F[stftIndex(n, 0, b + 1)], F[0]), sb);
  }
  const Cx<R> det = determinant(E, n, -1, D);
  if (!(norm2(det) > detFloor * detFloor)) return first;
  if (code == kThirdCanonical) {
    // CVSS3: Im(w~ + q (t - t_hat) + p (t - t_hat)^2), the IF's Taylor expansion about the
    // reassigned time. Normalised: f10 = F10/F00 etc.
    const Cx<R> one{1, 0};
    const Cx<R> f10 = divide(F[stftIndex(n, 1, 0)], F[0]);
    const Cx<R> f20 = divide(F[stftIndex(n, 2, 0)], F[0]);
    const Cx<R> f11 = divide(F[stftIndex(n, 1, 1)], F[0]);
    const Cx<R> qDen = f10 * f10 - f20;
    if (!(norm2(qDen) > detFloor * detFloor * sigma * sigma * sigma * sigma)) return first;
    const Cx<R> q = divide(f11 + one - f10 * ratio01, qDen);
    // p = r3 / 2 = u_2 = -det[c1, c2, d] / det M; in normalised units v_2 = sigma^2 u_2.
    const Cx<R> v2 = scale(divide(determinant(E, n, 2, D), det), R(-1) / sigma);
    const Cx<R> p = scale(v2, R(1) / (sigma * sigma));
    const Cx<R> delay = scale(f10, R(-1));  // t - t_hat
    const Cx<R> wTilde{-ratio01.re, w - ratio01.im};
    return (wTilde + q * delay + p * (delay * delay)).im;
  }
  // r1 = j w - det[D, c2, ..] / (sigma det E).
  const Cx<R> x = divide(determinant(E, n, 0, D), det);
  return w - x.im / sigma;
}

// The bin an estimate lands in: round(|w| N / 2 pi), or -1 when it falls outside [lo, hi] (energy
// squeezed outside the grid is discarded, not wrapped modulo N). A real signal's grid is
// (-fs/2, fs/2]: a negative estimate belongs to the mirror bin -m, whose value is conj F(m), so
// the one-sided image receives conj F at |w| (*mirrored = true). This keeps the column's real
// part, hence the reconstruction, where discarding it would lose the low-frequency energy whose
// estimates fall just below 0 Hz.
template <class R>
MODESCOPE_HOST_DEVICE inline int targetBin(R w, int fftLength, int lo, int hi, bool* mirrored) {
  R x = w * R(fftLength) / R(6.283185307179586476925286766559);
  *mirrored = x < R(0);
  if (*mirrored) x = -x;
  if (!(x > R(lo) - R(0.5) && x < R(hi) + R(0.5))) return -1;  // NaN included
  int k = static_cast<int>(x + R(0.5));
  if (k < lo) k = lo;
  if (k > hi) k = hi;
  return k;
}

}  // namespace modescope::tf
