// The sliding-window Burg AR driver on the CPU and the AR spectrum evaluation (procedure in
// ar_spectrum.h).
#include "engine/ar/ar_spectrum.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numbers>
#include <string>

#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/core/text.h"
#include "engine/parallel/parallel_for.h"

namespace modescope {
namespace {

std::string channelName(const SignalBlock& block, std::size_t c) {
  return "channel " + std::to_string(block.channels[c]);
}

}  // namespace

void checkArBlock(const SignalBlock& block) {
  if (block.samples < 0 ||
      block.data.size() != block.channels.size() * static_cast<std::size_t>(block.samples))
    throw InvalidParameterError("block", std::to_string(block.data.size()) + " samples in all",
                                std::to_string(block.channels.size()) + " channels x " +
                                    std::to_string(block.samples) + " samples");
  for (std::size_t c = 0; c < block.channels.size(); ++c) {
    const float* x = block.channel(c);
    requireFiniteSamples(channelName(block, c), x, block.samples, block.sampleRate, "block");
  }
}

double arPsdPerSample(const double* a, int order, double noiseVariance, double omega) {
  const std::complex<double> z = std::polar(1.0, -omega);
  std::complex<double> s = 0.0;
  for (int k = order; k >= 1; --k) s = s * z + a[k - 1];
  s *= z;
  const std::complex<double> A = 1.0 - s;
  return noiseVariance / std::norm(A);
}

double arPsd(const BurgModel& model, double frequencyHz, double sampleRate) {
  if (model.flat) return 0.0;
  const double omega = 2.0 * std::numbers::pi * frequencyHz / sampleRate;
  return 2.0 *
         arPsdPerSample(model.a.data(), static_cast<int>(model.a.size()), model.noiseVariance,
                        omega) /
         sampleRate;
}

std::vector<double> arBinValues(const BurgModel& model, const BurgArParams& p, double sampleRate) {
  const std::vector<double> centers = arBinCenters(p);
  std::vector<double> out(centers.size(), 0.0);
  for (std::size_t b = 0; b < centers.size(); ++b) {
    double sum = 0.0;
    for (double f : arEvaluationFrequencies(p, centers[b])) sum += arPsd(model, f, sampleRate);
    const double mean = sum / p.evaluationsPerBin;
    out[b] = p.output == ArOutput::Amplitude ? std::sqrt(mean) : mean;
  }
  return out;
}

void arDetrend(double* x, int64_t n, ArDetrend detrend) {
  if (detrend == ArDetrend::None || n < 1) return;
  double sum = 0.0;
  for (int64_t t = 0; t < n; ++t) sum += x[t];
  const double mean = sum / static_cast<double>(n);
  if (detrend == ArDetrend::Mean) {
    for (int64_t t = 0; t < n; ++t) x[t] -= mean;
    return;
  }
  // Centred time axis: the slope is then independent of the mean and the normal equations are
  // diagonal (no ill-conditioned 2 x 2 solve).
  const double centre = static_cast<double>(n - 1) / 2.0;
  const auto nd = static_cast<double>(n);
  const double suu = nd * (nd * nd - 1.0) / 12.0;
  double sux = 0.0;
  for (int64_t t = 0; t < n; ++t) sux += (static_cast<double>(t) - centre) * x[t];
  const double slope = suu > 0 ? sux / suu : 0.0;
  for (int64_t t = 0; t < n; ++t) x[t] -= mean + slope * (static_cast<double>(t) - centre);
}

ArSpectrumResult arResultFrame(const SignalBlock& block, const BurgArParams& params) {
  validateBurgArParams(params, block.sampleRate);
  const ArResolvedLengths len = resolveArLengths(params, block.sampleRate);
  if (block.channels.empty())
    throw InvalidParameterError("channels", "none", "at least one channel",
                                "select the channels to analyse");
  if (block.samples < len.windowSamples)
    throw InvalidParameterError(
        "window", std::to_string(len.windowSamples) + " samples",
        "at most the selection's " + std::to_string(block.samples) + " samples (" +
            formatNumber(static_cast<double>(block.samples) / block.sampleRate) + " s)",
        "shorten the window or select a longer time range");
  const int64_t n = len.windowSamples;
  const std::size_t channels = block.channels.size();
  const auto windows = static_cast<std::size_t>((block.samples - n) / len.stepSamples + 1);

  ArSpectrumResult r;
  r.params = params;
  r.sampleRate = block.sampleRate;
  r.windowSamples = n;
  r.stepSamples = len.stepSamples;
  r.firstSample = block.firstSample;
  r.channels = block.channels;
  r.windowStarts.resize(windows);
  for (std::size_t w = 0; w < windows; ++w)
    r.windowStarts[w] = static_cast<int64_t>(w) * len.stepSamples;
  if (params.output != ArOutput::Coefficients) r.binCenters = arBinCenters(params);
  r.values.assign(channels * windows * r.valuesPerWindow(), 0.0f);
  r.noiseVariance.assign(channels * windows, 0.0f);
  return r;
}

std::vector<double> arEvaluationAngles(const BurgArParams& params, double sampleRate) {
  std::vector<double> omegas;
  if (params.output == ArOutput::Coefficients) return omegas;
  for (double c : arBinCenters(params))
    for (double f : arEvaluationFrequencies(params, c))
      omegas.push_back(2.0 * std::numbers::pi * f / sampleRate);
  return omegas;
}

ArSpectrumResult computeArSpectraCpu(const SignalBlock& block, const BurgArParams& params,
                                     int threads, JobContext& ctx) {
  ArSpectrumResult r = arResultFrame(block, params);
  checkArBlock(block);
  ctx.checkpoint();

  const int64_t n = r.windowSamples;
  const std::size_t channels = block.channels.size();
  const std::size_t windows = r.windowCount();
  const int order = params.order;
  const bool coefficients = params.output == ArOutput::Coefficients;
  const std::size_t perWindow = r.valuesPerWindow();
  const std::vector<double> omegas = arEvaluationAngles(params, block.sampleRate);
  const auto evals = static_cast<std::size_t>(params.evaluationsPerBin);

  std::vector<ArChannelCounts> counts(channels);
  const int workers = threadsOrAll(threads);
  parallelFor(channels, workers, ctx, "AR spectra: channels", ProgressLabel::StageWithCount, [&] {
    return [&, ws = BurgWorkspace(),
            x = std::vector<double>(static_cast<std::size_t>(n))](std::size_t c) mutable {
      const float* src = block.channel(c);
      ArChannelCounts& cc = counts[c];
      cc.minOrder = order;
      for (std::size_t w = 0; w < windows; ++w) {
        if (ctx.stopRequested()) return;  // parallelFor turns the request into Cancelled
        const float* win = src + r.windowStarts[w];
        const std::size_t row = c * windows + w;
        float* out = r.values.data() + row * perWindow;
        // Flat on the raw float samples: detrending a constant in double need not give exact
        // zeros, and the raw test is one both backends agree on bit for bit.
        if (std::all_of(win, win + n, [&](float v) { return v == win[0]; })) {
          ++cc.flat;  // values and noise variance stay 0
          continue;
        }
        for (int64_t t = 0; t < n; ++t) x[static_cast<std::size_t>(t)] = win[t];
        arDetrend(x.data(), n, params.detrend);
        const BurgModel model = burg(x.data(), n, order, ws);
        if (model.flat) {  // a detrended ramp can become exactly flat
          ++cc.flat;
          continue;
        }
        if (model.orderReached < order) {
          ++cc.reduced;
          cc.minOrder = std::min(cc.minOrder, model.orderReached);
        }
        r.noiseVariance[row] = static_cast<float>(model.noiseVariance);
        if (coefficients) {
          for (int k = 0; k < order; ++k) out[k] = static_cast<float>(model.a[k]);
        } else {
          const double scale = 2.0 / block.sampleRate;
          for (std::size_t b = 0; b < perWindow; ++b) {
            double sum = 0.0;
            for (std::size_t e = 0; e < evals; ++e)
              sum +=
                  arPsdPerSample(model.a.data(), order, model.noiseVariance, omegas[b * evals + e]);
            const double mean = scale * sum / static_cast<double>(evals);
            out[b] =
                static_cast<float>(params.output == ArOutput::Amplitude ? std::sqrt(mean) : mean);
          }
        }
      }
    };
  });

  addArDiagnostics(r, block, counts);
  ctx.progress(1.0, "AR spectra done");
  return r;
}

void addArDiagnostics(ArSpectrumResult& r, const SignalBlock& block,
                      const std::vector<ArChannelCounts>& counts) {
  const std::size_t windows = r.windowCount();
  const int order = r.params.order;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const ArChannelCounts& cc = counts[c];
    if (cc.flat > 0)
      addDiagnostic(r.diagnostics, Severity::Warning, "ar.flatWindows",
                    channelName(block, c) + ": " + std::to_string(cc.flat) + " of " +
                        std::to_string(windows) +
                        " windows are flat (all samples equal); their spectra are 0. A flat or "
                        "disconnected electrode has no spectrum to estimate");
    if (cc.reduced > 0)
      addDiagnostic(r.diagnostics, Severity::Warning, "ar.orderReduced",
                    channelName(block, c) + ": " + std::to_string(cc.reduced) + " of " +
                        std::to_string(windows) +
                        " windows were predictable without error at "
                        "an order below " +
                        std::to_string(order) + " (lowest " + std::to_string(cc.minOrder) +
                        "); their models stop there. The signal is probably synthetic or "
                        "clipped: a lower order or detrending may suit it better");
  }
}

}  // namespace modescope
