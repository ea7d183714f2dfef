// The CPU time-frequency transform (tf_cpu.h).
#include "engine/tf/tf_cpu.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engine/core/error.h"
#include "engine/parallel/fftw_owners.h"
#include "engine/parallel/parallel_for.h"
#include "engine/tf/tf_operators.h"

namespace modescope {
namespace {

constexpr int64_t kColumnsPerItem = 64;
constexpr double kTwoPi = 6.283185307179586476925286766559;

// One worker's FFT arrays: the framed input and the J spectra of one column.
struct ColumnWorkspace {
  ColumnWorkspace(int n, int j)
      : in(fftwAlloc<double>(static_cast<std::size_t>(n))),
        spec(fftwAlloc<fftw_complex>(static_cast<std::size_t>(j) * (n / 2 + 1))),
        values(static_cast<std::size_t>(j)) {}
  FftwBuffer<double> in;
  FftwBuffer<fftw_complex> spec;
  std::vector<tf::Cx<double>> values;  // F_j(m) of one bin
};

}  // namespace

TfResult computeTfCpu(const SignalBlock& block, const TfParams& params, int threads,
                      JobContext& ctx) {
  const TfPlan plan = planTf(block, params);
  TfResult result = makeTfResult(plan, block);
  const int N = plan.params.fftLength, L = plan.params.windowLength, J = plan.stfts;
  const int M = N / 2 + 1;
  const int64_t S = plan.samples, hop = plan.params.hop;
  const int lo = plan.firstBin, hi = plan.lastBin;
  const int code = plan.orderCode;
  threads = threadsOrAll(threads);

  // One plan, executed by every worker on its own fftw_malloc arrays (new-array interface).
  ColumnWorkspace planArrays(N, 1);
  fftw_plan raw;
  {
    std::lock_guard lock(fftwPlannerMutex());
    raw = fftw_plan_dft_r2c_1d(N, planArrays.in.get(), planArrays.spec.get(), FFTW_ESTIMATE);
  }
  const FftwPlan fft(raw, "the STFT");

  const int64_t chunks = (plan.columns + kColumnsPerItem - 1) / kColumnsPerItem;
  const std::size_t items = plan.channels * static_cast<std::size_t>(chunks);
  parallelFor(items, threads, ctx, "time-frequency", [&]() -> std::function<void(std::size_t)> {
    auto ws = std::make_shared<ColumnWorkspace>(N, J);
    return [&, ws](std::size_t item) {
      const std::size_t c = item / static_cast<std::size_t>(chunks);
      const int64_t t0 =
          static_cast<int64_t>(item % static_cast<std::size_t>(chunks)) * kColumnsPerItem;
      const int64_t t1 = std::min(plan.columns, t0 + kColumnsPerItem);
      const float* x = block.channel(plan.params.rows[c]);
      const double gamma = plan.thresholds[c];
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t centre = t * hop;
        for (int j = 0; j < J; ++j) {
          double* in = ws->in.get();
          std::fill(in, in + N, 0.0);
          const double* w = plan.windows.data() + static_cast<std::size_t>(j) * L;
          for (int i = 0; i < L; ++i) {
            const int64_t k = i - L / 2;
            const int64_t s = centre + k;
            if (s < 0 || s >= S) continue;
            in[(k % N + N) % N] = x[s] * w[i];
          }
          fftw_execute_dft_r2c(fft.get(), in, ws->spec.get() + static_cast<std::size_t>(j) * M);
        }
        std::complex<float>* out = result.column(c, t);
        std::vector<std::complex<double>> acc(static_cast<std::size_t>(plan.bins));
        for (int m = 0; m < M; ++m) {
          for (int j = 0; j < J; ++j) {
            const fftw_complex& v = ws->spec[static_cast<std::size_t>(j) * M + m];
            ws->values[j] = {v[0], v[1]};
          }
          const tf::Cx<double> f0 = ws->values[0];
          const double magnitude = std::sqrt(tf::norm2(f0));
          int target = m >= lo && m <= hi ? m : -1;
          bool mirrored = false;
          if (code != tf::kSpectrogram && magnitude > gamma && magnitude > 0) {
            const double w = tf::instantaneousFrequency<double>(
                code, ws->values.data(), kTwoPi * m / N, plan.sigma, kTfDetFloorDouble);
            target = tf::targetBin<double>(w, N, lo, hi, &mirrored);
          }
          // The DC and Nyquist bins count once in the one-sided sum, the others twice (their
          // mirror): halving these two makes the image's column sum 2 x the signal's share.
          const double weight = (m == 0 || m == N / 2) ? 0.5 : 1.0;
          if (target >= 0)
            acc[target - lo] += weight * std::complex<double>(f0.re, mirrored ? -f0.im : f0.im);
        }
        for (int k = 0; k < plan.bins; ++k) out[k] = std::complex<float>(acc[k]);
      }
    };
  });
  return result;
}

TfBinEstimate tfEstimateAt(const SignalBlock& block, const TfParams& params, std::size_t row,
                           int64_t column, int bin) {
  TfParams p = params;
  p.rows = {row};
  p.maxBytes = SIZE_MAX;  // one column is computed, whatever the whole image would take
  if (row >= block.channels.size())
    throw InvalidParameterError("row", std::to_string(row),
                                "a row below " + std::to_string(block.channels.size()));
  const TfPlan plan = planTf(block, p);
  const int N = p.fftLength, L = p.windowLength, J = plan.stfts;
  if (column < 0 || column >= plan.columns)
    throw InvalidParameterError("column", std::to_string(column),
                                "a column below " + std::to_string(plan.columns));
  if (bin < 0 || bin > N / 2)
    throw InvalidParameterError("bin", std::to_string(bin), "0 to " + std::to_string(N / 2));
  const float* x = block.channel(row);
  const int64_t centre = column * p.hop;
  const double w = kTwoPi * bin / N;
  std::vector<tf::Cx<double>> f(static_cast<std::size_t>(J), tf::Cx<double>{0, 0});
  // F_{1,0} for the group delay (T h), summed beside the order's own windows.
  std::complex<double> f10 = 0.0;
  for (int i = 0; i < L; ++i) {
    const int64_t k = i - L / 2, s = centre + k;
    if (s < 0 || s >= plan.samples) continue;
    const std::complex<double> e = std::polar(1.0, -w * static_cast<double>(k)) * double(x[s]);
    for (int j = 0; j < J; ++j) {
      const double v = plan.windows[static_cast<std::size_t>(j) * L + i];
      f[j] = f[j] + tf::Cx<double>{e.real() * v, e.imag() * v};
    }
    f10 += e * (static_cast<double>(k) * plan.windows[i]);
  }
  TfBinEstimate out;
  out.value = {f[0].re, f[0].im};
  const double magnitude = std::abs(out.value);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.frequency = nan;
  if (plan.orderCode != tf::kSpectrogram && magnitude > plan.thresholds[0] && magnitude > 0)
    out.frequency = tf::instantaneousFrequency<double>(plan.orderCode, f.data(), w, plan.sigma,
                                                       kTfDetFloorDouble) /
                    kTwoPi * block.sampleRate;
  out.time = magnitude > 0
                 ? (static_cast<double>(centre) + (f10 / out.value).real()) / block.sampleRate
                 : nan;
  return out;
}

}  // namespace modescope
