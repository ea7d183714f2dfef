#include "engine/ica/ica_flags_signal.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <numeric>

#include "engine/parallel/fftw_owners.h"

namespace modescope::ica_flags {
namespace {

constexpr double kPi = std::numbers::pi;

std::size_t nextPowerOfTwo(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Forward or inverse complex FFT of `data` in place (size a power of two or anything FFTW takes).
void fft(std::vector<std::complex<double>>& data, bool inverse) {
  const int n = static_cast<int>(data.size());
  auto buf = fftwAlloc<fftw_complex>(data.size());
  std::unique_ptr<FftwPlan> plan;
  {
    std::lock_guard lock(fftwPlannerMutex());
    plan = std::make_unique<FftwPlan>(
        fftw_plan_dft_1d(n, buf.get(), buf.get(), inverse ? FFTW_BACKWARD : FFTW_FORWARD,
                         FFTW_ESTIMATE),
        "the ICA flags' transform");
  }
  for (int i = 0; i < n; ++i) buf[i][0] = data[i].real(), buf[i][1] = data[i].imag();
  fftw_execute(plan->get());
  const double scale = inverse ? 1.0 / n : 1.0;
  for (int i = 0; i < n; ++i) data[i] = {buf[i][0] * scale, buf[i][1] * scale};
}

// Reflect-pads `x` by `pad` on each side (numpy 'reflect', repeated for very short inputs).
double reflected(const std::vector<double>& x, int64_t i) {
  const auto n = static_cast<int64_t>(x.size());
  if (n == 1) return x[0];
  const int64_t period = 2 * (n - 1);
  int64_t k = ((i % period) + period) % period;
  if (k >= n) k = period - k;
  return x[static_cast<std::size_t>(k)];
}

// Zero-phase convolution of x with a symmetric odd-length kernel, by FFT.
std::vector<double> convolveCentred(const std::vector<double>& x, const std::vector<double>& h) {
  const auto n = static_cast<int64_t>(x.size());
  const auto half = static_cast<int64_t>(h.size() / 2);
  const std::size_t padded = static_cast<std::size_t>(n + 2 * half);
  const std::size_t size = nextPowerOfTwo(padded + h.size() - 1);
  std::vector<std::complex<double>> a(size), b(size);
  for (std::size_t i = 0; i < padded; ++i) a[i] = reflected(x, static_cast<int64_t>(i) - half);
  for (std::size_t i = 0; i < h.size(); ++i) b[i] = h[i];
  fft(a, false);
  fft(b, false);
  for (std::size_t i = 0; i < size; ++i) a[i] *= b[i];
  fft(a, true);
  std::vector<double> y(x.size());
  for (int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = a[i + 2 * half].real();
  return y;
}

}  // namespace

std::vector<double> bandPass(const float* x, int64_t n, double fs, double lowHz, double highHz) {
  std::vector<double> y(x, x + n);
  if (n < 3) return y;
  const double nyquist = fs / 2.0;
  // filter_length '10s' made odd (_check_zero_phase_length), at most the signal's length.
  auto taps = static_cast<std::size_t>(std::llround(10.0 * fs)) | 1u;
  taps = std::min(taps, static_cast<std::size_t>((n - 1) | 1));
  // The desired gain through (0, 0), (low - 0.5, 0), (low, 1), (high, 1), (high + 0.5, 0),
  // (Nyquist, 0), sampled on firwin2's grid of 1 + 2^ceil(log2(taps)) frequencies.
  constexpr double kTransition = 0.5;
  const double lowStop = std::max(0.0, lowHz - kTransition);
  const double highStop = std::min(nyquist, highHz + kTransition);
  auto desired = [&](double f) {
    if (f <= lowStop || f >= highStop) return 0.0;
    if (f < lowHz) return (f - lowStop) / (lowHz - lowStop);
    if (f > highHz) return (highStop - f) / (highStop - highHz);
    return 1.0;
  };
  const std::size_t grid = nextPowerOfTwo(taps) + 1;
  const std::size_t size = 2 * (grid - 1);
  std::vector<std::complex<double>> spectrum(size);
  for (std::size_t k = 0; k < grid; ++k) {
    const double f = nyquist * static_cast<double>(k) / static_cast<double>(grid - 1);
    // Delay by (taps - 1) / 2 samples so the impulse response starts at 0 (firwin2's shift).
    const double phase =
        -kPi * static_cast<double>(k) * static_cast<double>(taps - 1) / static_cast<double>(size);
    spectrum[k] = desired(f) * std::polar(1.0, phase);
    if (k > 0 && k < grid - 1) spectrum[size - k] = std::conj(spectrum[k]);
  }
  fft(spectrum, true);
  std::vector<double> h(taps);
  for (std::size_t j = 0; j < taps; ++j) {
    const double hann =
        taps > 1 ? 0.5 - 0.5 * std::cos(2.0 * kPi * static_cast<double>(j) / (taps - 1)) : 1.0;
    h[j] = spectrum[j].real() * hann;
  }
  return convolveCentred(convolveCentred(y, h), h);
}

std::vector<double> normalisedPhase(const double* x, int n) {
  std::vector<std::complex<double>> a(x, x + n);
  fft(a, false);
  // Analytic signal: keep DC (and Nyquist), double the positive frequencies, drop the negative.
  for (int k = 1; k < n; ++k) {
    if (2 * k < n)
      a[k] *= 2.0;
    else if (2 * k > n)
      a[k] = 0.0;
  }
  fft(a, true);
  std::vector<double> phase(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) phase[i] = (std::arg(a[i]) + kPi) / (2.0 * kPi);
  return phase;
}

std::vector<double> mnePsd(const float* x, int64_t n, double fs, double lowHz, double highHz,
                           std::vector<double>* freqs) {
  const int len = static_cast<int>(std::min<int64_t>(256, n));
  std::vector<double> window(static_cast<std::size_t>(len));
  for (int i = 0; i < len; ++i) window[i] = 0.54 - 0.46 * std::cos(2.0 * kPi * i / len);
  const int bins = len / 2 + 1;
  std::vector<double> power(static_cast<std::size_t>(bins), 0.0);
  const int64_t segments = n / len;
  std::vector<std::complex<double>> seg(static_cast<std::size_t>(len));
  for (int64_t g = 0; g < segments; ++g) {
    double mean = 0.0;  // scipy.signal.spectrogram's detrend='constant'
    for (int i = 0; i < len; ++i) mean += x[g * len + i];
    mean /= len;
    for (int i = 0; i < len; ++i) seg[i] = (x[g * len + i] - mean) * window[i];
    fft(seg, false);
    for (int k = 0; k < bins; ++k) power[k] += std::norm(seg[k]);
  }
  std::vector<double> out;
  freqs->clear();
  for (int k = 0; k < bins; ++k) {
    const double f = k * fs / len;
    if (f < lowHz || f > highHz) continue;
    freqs->push_back(f);
    out.push_back(power[k] / static_cast<double>(std::max<int64_t>(segments, 1)));
  }
  return out;
}

std::vector<double> welchPower(const double* x, int64_t n, double fs, double resolutionHz,
                               double* binHz) {
  int len = static_cast<int>(std::min<int64_t>(n, std::llround(fs / resolutionHz)));
  len = std::max(len, 2);
  const int step = std::max(1, len / 2);
  std::vector<double> window(static_cast<std::size_t>(len));
  for (int i = 0; i < len; ++i) window[i] = 0.5 - 0.5 * std::cos(2.0 * kPi * i / len);
  const int bins = len / 2 + 1;
  std::vector<double> power(static_cast<std::size_t>(bins), 0.0);
  std::vector<std::complex<double>> seg(static_cast<std::size_t>(len));
  int64_t count = 0;
  for (int64_t start = 0; start + len <= n; start += step, ++count) {
    double mean = 0.0;
    for (int i = 0; i < len; ++i) mean += x[start + i];
    mean /= len;
    for (int i = 0; i < len; ++i) seg[i] = (x[start + i] - mean) * window[i];
    fft(seg, false);
    for (int k = 0; k < bins; ++k) power[k] += std::norm(seg[k]);
  }
  for (double& p : power) p /= static_cast<double>(std::max<int64_t>(count, 1));
  *binHz = fs / len;
  return power;
}

double fitSlope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  if (x.size() < 2) return 0.0;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

double correlation(const double* a, const double* b, int64_t n) {
  if (n < 2) return 0.0;
  double ma = 0.0, mb = 0.0;
  for (int64_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double da = a[i] - ma, db = b[i] - mb;
    sab += da * db, saa += da * da, sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

double kurtosis(const float* x, int64_t n) {
  if (n < 2) return 0.0;
  double mean = 0.0;
  for (int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double m2 = 0.0, m4 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d2 = (x[i] - mean) * (x[i] - mean);
    m2 += d2, m4 += d2 * d2;
  }
  m2 /= static_cast<double>(n);
  m4 /= static_cast<double>(n);
  return m2 > 0 ? m4 / (m2 * m2) : 0.0;
}

std::vector<bool> iteratedZOutliers(const std::vector<double>& scores, double threshold,
                                    std::vector<double>* z) {
  const std::size_t n = scores.size();
  std::vector<bool> bad(n, false);
  z->assign(n, 0.0);
  for (int round = 0; round < 2; ++round) {
    double mean = 0.0, count = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      if (!bad[i]) mean += scores[i], count += 1.0;
    if (count < 2) break;
    mean /= count;
    double var = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      if (!bad[i]) var += (scores[i] - mean) * (scores[i] - mean);
    const double sd = std::sqrt(var / count);  // scipy.stats.zscore: ddof 0
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (bad[i]) continue;
      (*z)[i] = sd > 0 ? std::fabs(scores[i] - mean) / sd : 0.0;
      if ((*z)[i] > threshold) bad[i] = any = true;
    }
    if (!any) break;
  }
  return bad;
}

double emThreshold(const std::vector<double>& values) {
  const std::size_t n = values.size();
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / std::max<double>(n, 1);
  double var = 0.0;
  for (double v : values) var += (v - mean) * (v - mean);
  const double sd = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
  const double fallback = mean + 2.0 * sd;
  if (n < 4 || sd <= 0) return fallback;
  // Start from the split at the midpoint of the range, as EM_ADJUST does.
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double mid = 0.5 * (*lo + *hi);
  double m[2] = {0, 0}, v[2] = {0, 0}, w[2] = {0, 0};
  for (double x : values) {
    const int c = x > mid ? 1 : 0;
    m[c] += x, w[c] += 1;
  }
  if (w[0] == 0 || w[1] == 0) return fallback;
  for (int c = 0; c < 2; ++c) m[c] /= w[c];
  for (double x : values) {
    const int c = x > mid ? 1 : 0;
    v[c] += (x - m[c]) * (x - m[c]);
  }
  // Class variances stay above 1 % of the feature's variance: a single outlying component (one
  // blink component among 30) would otherwise collapse its class to a spike and put the crossing
  // right against it.
  const double floorVar = 0.01 * sd * sd;
  for (int c = 0; c < 2; ++c) v[c] = std::max(v[c] / w[c], floorVar), w[c] /= n;
  auto density = [&](int c, double x) {
    return w[c] / std::sqrt(2 * kPi * v[c]) * std::exp(-(x - m[c]) * (x - m[c]) / (2 * v[c]));
  };
  for (int iter = 0; iter < 200; ++iter) {
    double sw[2] = {0, 0}, sx[2] = {0, 0}, sxx[2] = {0, 0};
    for (double x : values) {
      const double p0 = density(0, x), p1 = density(1, x);
      const double total = p0 + p1;
      if (total <= 0) continue;
      const double r[2] = {p0 / total, p1 / total};
      for (int c = 0; c < 2; ++c) sw[c] += r[c], sx[c] += r[c] * x, sxx[c] += r[c] * x * x;
    }
    if (sw[0] < 1e-9 || sw[1] < 1e-9) return fallback;
    double change = 0.0;
    for (int c = 0; c < 2; ++c) {
      const double nm = sx[c] / sw[c];
      change += std::fabs(nm - m[c]);
      m[c] = nm;
      v[c] = std::max(sxx[c] / sw[c] - nm * nm, floorVar);
      w[c] = sw[c] / n;
    }
    if (change < 1e-12 * sd) break;
  }
  if (m[0] > m[1]) std::swap(m[0], m[1]), std::swap(v[0], v[1]), std::swap(w[0], w[1]);
  // The crossing of the weighted densities between the means (Bayes' rule for two classes).
  double a = m[0], b = m[1];
  for (int iter = 0; iter < 100; ++iter) {
    const double c = 0.5 * (a + b);
    (density(0, c) > density(1, c) ? a : b) = c;
  }
  return 0.5 * (a + b);
}

double kuiperStatistic(std::vector<double> phases) {
  std::sort(phases.begin(), phases.end());
  const double n = static_cast<double>(phases.size());
  double d1 = -1e300, d2 = -1e300;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    d1 = std::max(d1, (static_cast<double>(i) + 1.0) / n - phases[i]);
    d2 = std::max(d2, phases[i] - static_cast<double>(i) / n);
  }
  return d1 + d2;
}

double kuiperProbability(double statistic, int samples) {
  const double en = std::sqrt(static_cast<double>(samples));
  const double lambda = (en + 0.155 + 0.24 / en) * statistic;
  if (lambda < 0.4) return 0.0;
  const double l2 = lambda * lambda;
  // -logsumexp(a_j, b=b_j) over j = 1..100: a_j = -2 j^2 l2, b_j = 2 (4 j^2 l2 - 1).
  double amax = -1e300;
  for (int j = 1; j <= 100; ++j) amax = std::max(amax, -2.0 * j * j * l2);
  double sum = 0.0;
  for (int j = 1; j <= 100; ++j) {
    const double jj = static_cast<double>(j) * j;
    sum += 2.0 * (4.0 * jj * l2 - 1.0) * std::exp(-2.0 * jj * l2 - amax);
  }
  const double pk = -(amax + std::log(sum)) / (2.0 * samples);
  return std::min(pk, 1.0);
}

double ctpsAutomaticThreshold(double sampleRate) {
  const double c = std::sqrt(sampleRate) + 0.155 + 0.24 / std::sqrt(sampleRate);
  double best = 0.01, bestDiff = 1e300;
  for (int i = 1; i < 100; ++i) {
    const double v = i / 100.0;
    const double pk = 2.0 * (4.0 * (v * c) * (v * c) - 1.0) * std::exp(-2.0 * (v * c) * (v * c));
    const double diff = std::fabs(pk - 1e-20);
    if (diff < bestDiff) bestDiff = diff, best = v;
  }
  return best;
}

double logistic(double value, double threshold, double spread) {
  if (!(spread > 0)) return value > threshold ? 1.0 : 0.0;
  return 1.0 / (1.0 + std::exp(-(value - threshold) / spread));
}

}  // namespace modescope::ica_flags
