#include "engine/ica/ica_component_properties.h"

#include <algorithm>
#include <cmath>

#include "engine/dsp/welch.h"

namespace modescope {
namespace {

constexpr double kLowHz = 1.0, kHighHz = 80.0;  // pop_prop's and plot_properties' usual range

}  // namespace

IcaComponentProperties icaComponentProperties(const float* activation, int64_t n, double sampleRate,
                                              const std::vector<double>& map, const float* channels,
                                              const std::vector<double>& means,
                                              double segmentSeconds,
                                              const std::vector<double>& eventSeconds,
                                              double before, double after) {
  IcaComponentProperties p;
  if (n >= 8 && sampleRate > 0) {
    const WelchSpectrum w = welchSpectra(activation, 1, n, sampleRate).front();
    for (std::size_t k = 0; k < w.power.size(); ++k) {
      const double f = static_cast<double>(k) * w.binHz;
      if (f < kLowHz || f > kHighHz || w.power[k] <= 0) continue;
      p.frequencies.push_back(f);
      p.powerDb.push_back(10.0 * std::log10(w.power[k]));
    }
  }
  // Rows: [first, first + length) samples each.
  std::vector<int64_t> firsts;
  int64_t length = 0;
  if (eventSeconds.empty()) {
    length = std::max<int64_t>(1, std::llround(segmentSeconds * sampleRate));
    for (int64_t s = 0; s + length <= n; s += length) firsts.push_back(s);
    p.rowStartSeconds = 0.0;
  } else {
    const int64_t pre = std::llround(before * sampleRate);
    length = std::max<int64_t>(1, pre + std::llround(after * sampleRate));
    for (double t : eventSeconds) {
      const int64_t first = std::llround(t * sampleRate) - pre;
      if (first >= 0 && first + length <= n) firsts.push_back(first);
    }
    p.rowStartSeconds = -static_cast<double>(pre) / sampleRate;
  }
  p.rowSamples = static_cast<int>(length);
  p.rowSeconds = static_cast<double>(length) / sampleRate;
  p.average.assign(static_cast<std::size_t>(length), 0.0);
  const std::size_t c = map.size();
  for (int64_t first : firsts) {
    p.rows.emplace_back(activation + first, activation + first + length);
    p.rowStarts.push_back(static_cast<double>(first) / sampleRate);
    for (int64_t i = 0; i < length; ++i)
      p.average[static_cast<std::size_t>(i)] += activation[first + i] / double(firsts.size());
    if (!channels || means.size() != c) continue;
    double component = 0.0, total = 0.0, mapEnergy = 0.0;
    for (double a : map) mapEnergy += a * a;
    for (int64_t i = first; i < first + length; ++i) {
      component += mapEnergy * activation[i] * activation[i];
      for (std::size_t ch = 0; ch < c; ++ch) {
        const double d = channels[ch * static_cast<std::size_t>(n) + i] - means[ch];
        total += d * d;
      }
    }
    p.variancePercent.push_back(total > 0 ? 100.0 * component / total : 0.0);
  }
  return p;
}

}  // namespace modescope
