#include "widgets/amplitude_autoscale.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace modescope {
namespace {

double roundUpTo125(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (v <= m * decade * (1 + 1e-9)) return m * decade;
  }
  return 10.0 * decade;
}

}  // namespace

double suggestMicrovoltsPerDivision(const Recording& rec, double seconds, int maxChannels,
                                    double fallback) {
  if (!rec.source) return fallback;
  std::vector<double> spreads;
  for (std::size_t c = 0; c < rec.channels.size() && static_cast<int>(spreads.size()) < maxChannels;
       ++c) {
    const ChannelInfo& ch = rec.channels[c];
    if (ch.type == ChannelType::STIM || ch.sampleRate <= 0) continue;
    std::vector<float> x =
        rec.readChannel(c, 0, static_cast<int64_t>(std::ceil(seconds * ch.sampleRate)));
    if (x.size() < 8) continue;
    const auto lo = x.begin() + static_cast<std::ptrdiff_t>(x.size() / 20);
    const auto hi = x.begin() + static_cast<std::ptrdiff_t>(x.size() * 19 / 20);
    std::nth_element(x.begin(), lo, x.end());
    const double p5 = *lo;
    std::nth_element(x.begin(), hi, x.end());
    const double p95 = *hi;
    if (std::isfinite(p95 - p5) && p95 > p5) spreads.push_back(p95 - p5);
  }
  if (spreads.empty()) return fallback;
  auto mid = spreads.begin() + static_cast<std::ptrdiff_t>(spreads.size() / 2);
  std::nth_element(spreads.begin(), mid, spreads.end());
  return roundUpTo125(*mid);
}

}  // namespace modescope
