#include "engine/dsp/welch.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "engine/core/error.h"
#include "engine/parallel/fftw_owners.h"

namespace modescope {

int welchSegmentLength(int64_t samples, double sampleRate) {
  const double wanted = std::max(8.0, 2.0 * sampleRate);
  const int p = static_cast<int>(std::lround(std::log2(wanted)));
  const int64_t n = int64_t{1} << std::clamp(p, 3, 24);
  return static_cast<int>(std::max<int64_t>(std::min<int64_t>(n, samples), 1));
}

std::vector<WelchSpectrum> welchSpectra(const float* data, int rows, int64_t samples,
                                        double sampleRate, int segmentLength) {
  if (rows < 0) throw InvalidParameterError("rows", std::to_string(rows), ">= 0");
  if (samples < 8) {
    throw InvalidParameterError("samples", std::to_string(samples),
                                "at least 8 samples for a spectrum", "select a longer range");
  }
  if (!(sampleRate > 0)) {
    throw InvalidParameterError("sample rate", std::to_string(sampleRate), "> 0 Hz");
  }
  const int len = segmentLength > 0 ? static_cast<int>(std::min<int64_t>(segmentLength, samples))
                                    : welchSegmentLength(samples, sampleRate);
  const int step = std::max(1, len / 2);
  const int bins = len / 2 + 1;
  // Periodic Hann window (scipy's get_window('hann') for spectral analysis).
  std::vector<double> window(static_cast<std::size_t>(len));
  double windowPower = 0.0;
  for (int i = 0; i < len; ++i) {
    window[i] = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * i / len);
    windowPower += window[i] * window[i];
  }
  auto in = fftwAlloc<double>(static_cast<std::size_t>(len));
  auto out = fftwAlloc<fftw_complex>(static_cast<std::size_t>(bins));
  std::unique_ptr<FftwPlan> plan;
  {
    std::lock_guard lock(fftwPlannerMutex());
    plan = std::make_unique<FftwPlan>(fftw_plan_dft_r2c_1d(len, in.get(), out.get(), FFTW_ESTIMATE),
                                      "the Welch spectrum");
  }
  const int64_t segments = 1 + (samples - len) / step;
  // Density scaling: |X|^2 / (fs sum w^2), doubled except at 0 and Nyquist (one-sided).
  const double scale = 1.0 / (sampleRate * windowPower * static_cast<double>(segments));
  std::vector<WelchSpectrum> spectra(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    const float* x = data + static_cast<std::size_t>(r) * static_cast<std::size_t>(samples);
    WelchSpectrum& s = spectra[static_cast<std::size_t>(r)];
    s.binHz = sampleRate / len;
    s.segmentLength = len;
    s.segments = static_cast<int>(segments);
    s.power.assign(static_cast<std::size_t>(bins), 0.0);
    for (int64_t g = 0; g < segments; ++g) {
      const float* seg = x + g * step;
      double mean = 0.0;
      for (int i = 0; i < len; ++i) mean += seg[i];
      mean /= len;
      for (int i = 0; i < len; ++i) in[i] = (seg[i] - mean) * window[i];
      fftw_execute(plan->get());
      for (int k = 0; k < bins; ++k) {
        const double p = out[k][0] * out[k][0] + out[k][1] * out[k][1];
        const bool edge = k == 0 || (len % 2 == 0 && k == bins - 1);
        s.power[k] += (edge ? 1.0 : 2.0) * p * scale;
      }
    }
  }
  return spectra;
}

}  // namespace modescope
