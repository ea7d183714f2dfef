#include "engine/dsp/fir_chain.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace modescope {

FirKernel designFirChain(const std::vector<FilterSpec>& chain, double sampleRate) {
  if (chain.empty()) {
    throw InvalidParameterError("display filter chain", "no filter", "at least one filter",
                                "Choose \"none\" instead of an empty chain");
  }
  FirKernel out = designFir(chain.front(), sampleRate);
  std::string description = describe(chain.front());
  for (std::size_t i = 1; i < chain.size(); ++i) {
    const FirKernel next = designFir(chain[i], sampleRate);
    std::vector<double> taps(out.taps.size() + next.taps.size() - 1, 0.0);
    for (std::size_t a = 0; a < out.taps.size(); ++a) {
      for (std::size_t b = 0; b < next.taps.size(); ++b) taps[a + b] += out.taps[a] * next.taps[b];
    }
    out.taps = std::move(taps);
    description += " + " + describe(chain[i]);
  }
  out.description = description + ", " + std::to_string(out.taps.size()) + " taps, Hamming";
  return out;
}

std::vector<double> firGainDb(const FirKernel& kernel, const std::vector<double>& frequencies) {
  std::vector<double> out;
  out.reserve(frequencies.size());
  const std::size_t n = kernel.taps.size();
  if (n == 0 || kernel.sampleRate <= 0) return std::vector<double>(frequencies.size(), -200.0);
  const std::size_t c = n / 2;
  for (double f : frequencies) {
    const double w = 2.0 * std::numbers::pi * f / kernel.sampleRate;
    double a = kernel.taps[c];
    for (std::size_t k = 1; k <= c; ++k) a += 2.0 * kernel.taps[c + k] * std::cos(w * k);
    out.push_back(std::max(-200.0, 20.0 * std::log10(std::max(std::abs(a), 1e-10))));
  }
  return out;
}

}  // namespace modescope
