// Checks, grid, windows and output size of a time-frequency transform (tf_plan.h).
#include "engine/tf/tf_plan.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/block_rows.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/tf/tf_operators.h"

namespace modescope {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Probabilists' Hermite polynomial He_b(x): D^b exp(-x^2/2) = (-1)^b He_b(x) exp(-x^2/2).
double hermite(int b, double x) {
  double h0 = 1.0, h1 = x;
  if (b == 0) return h0;
  for (int n = 1; n < b; ++n) {
    const double h2 = x * h1 - n * h0;
    h0 = h1;
    h1 = h2;
  }
  return h1;
}

std::vector<std::size_t> resolveRows(const SignalBlock& block, const TfParams& p) {
  return resolveBlockRows(block.channels.size(), p.rows, "select the channels to transform");
}

void binRange(const TfParams& p, double fs, int& lo, int& hi) {
  const double n = p.fftLength;
  lo = static_cast<int>(std::ceil(p.minFrequency * n / fs - 1e-9));
  hi = p.maxFrequency > 0 ? static_cast<int>(std::floor(p.maxFrequency * n / fs + 1e-9))
                          : p.fftLength / 2;
  lo = std::max(lo, 0);
  hi = std::min(hi, p.fftLength / 2);
}

}  // namespace

std::size_t tfOutputBytes(const TfParams& p, double sampleRate, std::size_t channels,
                          int64_t samples) {
  int lo = 0, hi = 0;
  binRange(p, sampleRate, lo, hi);
  const double columns = std::ceil(static_cast<double>(samples) / std::max(p.hop, 1));
  const double bytes = static_cast<double>(channels) * columns * std::max(hi - lo + 1, 0) * 8.0;
  return bytes > 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(bytes);
}

std::vector<double> tfWindows(const TfParams& p, double* windowAtZero) {
  const int L = p.windowLength;
  const int n = tfModelOrder(p.order);
  const int J = tfStftCount(p.order);
  const double sigma = tfSigma(p);
  std::vector<double> w(static_cast<std::size_t>(J) * L);
  for (int i = 0; i < L; ++i) {
    const double k = i - L / 2;
    double h = 0.0;
    switch (p.window) {
      case TfWindow::Gaussian:
        h = std::exp(-k * k / (2 * sigma * sigma)) / (std::sqrt(2 * kPi) * sigma);
        break;
      case TfWindow::Hann:  // periodic, centred: 1 at k = 0
        h = 0.5 + 0.5 * std::cos(2 * kPi * k / L);
        break;
      case TfWindow::Hamming:
        h = 0.54 + 0.46 * std::cos(2 * kPi * k / L);
        break;
    }
    if (k == 0 && windowAtZero) *windowAtZero = h;
    for (int j = 0; j < J; ++j) {
      const int a = n == 0 ? 0 : tf::powerOf(n, j), b = n == 0 ? 0 : tf::derivativeOf(n, j);
      // Analytic derivative of the Gaussian: (-1)^b He_b(k / sigma) / sigma^b h(k).
      double v = h;
      if (b > 0) v *= ((b % 2) ? -1.0 : 1.0) * hermite(b, k / sigma) / std::pow(sigma, b);
      w[static_cast<std::size_t>(j) * L + i] = v * std::pow(k, a);
    }
  }
  return w;
}

TfPlan planTf(const SignalBlock& block, const TfParams& params) {
  const std::size_t maxBytes = params.maxBytes;
  validateTfParams(params);
  TfPlan plan;
  plan.params = params;
  plan.params.rows = resolveRows(block, params);
  plan.channels = plan.params.rows.size();
  const int64_t s = block.samples;
  if (s < 0 || block.data.size() != block.channels.size() * static_cast<std::size_t>(s))
    throw InvalidParameterError(
        "block", std::to_string(block.data.size()) + " values",
        std::to_string(block.channels.size()) + " channels x " + std::to_string(s) + " samples");
  plan.samples = s;
  // Not a rule of the table: a dialog's sigma editor cannot know the window length it meets.
  if (params.window == TfWindow::Gaussian && tfSigma(params) * 6 > params.windowLength + 1e-9)
    throw InvalidParameterError(
        "sigma", formatNumber(params.sigma) + " samples",
        "at most window length / 6 = " + formatNumber(params.windowLength / 6.0) + " samples",
        "a Gaussian cut inside +-3 sigma breaks the squeezing operators: lengthen the window or "
        "lower sigma");
  if (params.windowLength > s)
    throw InvalidParameterError("windowLength", std::to_string(params.windowLength) + " samples",
                                "at most the selection's " + std::to_string(s) + " samples",
                                "shorten the window or select a longer range");
  const double fs = block.sampleRate;
  if (!(fs > 0))
    throw InvalidParameterError("sampleRate", formatNumber(fs) + " Hz", "a positive rate",
                                "the recording has no sampling rate");
  if (params.maxFrequency > fs / 2 * (1 + 1e-12))
    throw InvalidParameterError("maxFrequency", formatNumber(params.maxFrequency) + " Hz",
                                "at most the Nyquist frequency, " + formatNumber(fs / 2) +
                                    " Hz at " + formatNumber(fs) + " Hz",
                                "the sampling rate is too low for this range: it needs at least " +
                                    formatNumber(2 * params.maxFrequency) + " Hz; lower --fmax");
  if (params.minFrequency >= fs / 2)
    throw InvalidParameterError("minFrequency", formatNumber(params.minFrequency) + " Hz",
                                "below the Nyquist frequency, " + formatNumber(fs / 2) + " Hz",
                                "the sampling rate is too low for this range: it needs more than " +
                                    formatNumber(2 * params.minFrequency) + " Hz; lower --fmin");
  binRange(params, fs, plan.firstBin, plan.lastBin);
  plan.bins = plan.lastBin - plan.firstBin + 1;
  if (plan.bins <= 0)
    throw InvalidParameterError(
        "frequency range",
        formatNumber(params.minFrequency) + "-" + formatNumber(params.maxFrequency) + " Hz",
        "at least one bin of " + formatNumber(fs / params.fftLength) + " Hz",
        "widen the range or raise the FFT length");
  plan.columns = (s + params.hop - 1) / params.hop;
  plan.outputBytes = tfOutputBytes(plan.params, fs, plan.channels, s);
  if (plan.outputBytes > maxBytes)
    throw InvalidParameterError(
        "output size", formatByteSize(static_cast<double>(plan.outputBytes)),
        "at most " + formatByteSize(static_cast<double>(maxBytes)) + " (" +
            std::to_string(plan.channels) + " channels x " + std::to_string(plan.columns) +
            " columns x " + std::to_string(plan.bins) + " bins x 8 bytes would not fit)",
        "raise --hop, narrow --fmin/--fmax, lower --fft, or select fewer channels or a shorter "
        "range");
  plan.orderCode = static_cast<int>(params.order);
  plan.stfts = tfStftCount(params.order);
  plan.sigma = params.window == TfWindow::Gaussian ? tfSigma(params) : 0.0;
  plan.windows = tfWindows(params, &plan.windowAtZero);
  double windowSum = 0.0;
  for (int i = 0; i < params.windowLength; ++i) windowSum += plan.windows[i];
  for (std::size_t c = 0; c < plan.channels; ++c) {
    const std::size_t row = plan.params.rows[c];
    const float* x = block.channel(row);
    double ss = 0.0;
    for (int64_t k = 0; k < s; ++k) {
      if (!std::isfinite(x[k]))
        throw InvalidInputError(
            "", "channel #" + std::to_string(block.channels[row] + 1) + " of the recording",
            std::string(std::isnan(x[k]) ? "NaN" : "an infinite value") + " at sample " +
                std::to_string(block.firstSample + k) + " (" +
                formatNumber(static_cast<double>(block.firstSample + k) / fs) + " s)",
            "finite samples", "exclude the channel or choose a range without the gap");
      ss += static_cast<double>(x[k]) * x[k];
    }
    const double rms = std::sqrt(ss / static_cast<double>(s));
    plan.thresholds.push_back(
        params.order == TfOrder::Spectrogram ? 0.0 : params.threshold * rms * std::fabs(windowSum));
  }
  return plan;
}

TfResult makeTfResult(const TfPlan& plan, const SignalBlock& block, bool allocateValues) {
  TfResult r;
  r.params = plan.params;
  r.sampleRate = block.sampleRate;
  r.firstSample = block.firstSample;
  for (std::size_t row : plan.params.rows) r.channels.push_back(block.channels[row]);
  r.samples = plan.samples;
  r.columns = plan.columns;
  r.firstBin = plan.firstBin;
  r.bins = plan.bins;
  r.sigma = plan.sigma;
  r.windowAtZero = plan.windowAtZero;
  if (allocateValues)
    r.values.assign(plan.channels * static_cast<std::size_t>(plan.columns) *
                        static_cast<std::size_t>(plan.bins),
                    std::complex<float>(0.0f, 0.0f));
  r.diagnostics = plan.diagnostics;
  return r;
}

TfPlan planTfStreamed(const SignalBlock& block, const TfParams& params) {
  TfParams streamed = params;
  streamed.maxBytes = SIZE_MAX;
  return planTf(block, streamed);
}

}  // namespace modescope
