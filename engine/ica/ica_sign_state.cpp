// Extended Infomax's switching state (IcaSignState, infomax_passes.h): runica's rules for the
// signs, the kurtosis momentum and the growing interval between estimates.
#include <algorithm>
#include <cmath>

#include "engine/ica/infomax_passes.h"

namespace modescope {

void IcaSignState::reset(int r, const IcaExtendedParams& e) {
  const auto n = static_cast<std::size_t>(r);
  signs.assign(n, 1.0);
  for (int k = 0; k < std::min(e.subGaussian, r); ++k) signs[static_cast<std::size_t>(k)] = -1.0;
  oldSigns.assign(n, 0.0);
  extBlocks = e.extBlocks;
  // runica keeps old_kk and signcount over a restart; so do we.
  if (oldKurtosis.size() != n) oldKurtosis.assign(n, 0.0);
}

void IcaSignState::apply(const std::vector<double>& kurtosis, const IcaExtendedParams& e) {
  ++estimates;
  bool same = true;
  for (std::size_t k = 0; k < signs.size(); ++k) {
    double kurt = kurtosis[k];
    if (e.kurtosisMomentum != 0.0) {
      kurt = e.kurtosisMomentum * oldKurtosis[k] + (1.0 - e.kurtosisMomentum) * kurt;
      oldKurtosis[k] = kurt;
    }
    const double biased = kurt + e.signsBias;
    signs[k] = biased > 0 ? 1.0 : biased < 0 ? -1.0 : 0.0;
    if (signs[k] != oldSigns[k]) same = false;
    oldSigns[k] = signs[k];
  }
  signCount = same ? signCount + 1 : 0;
  if (signCount >= e.signCountThreshold) {
    extBlocks = std::trunc(extBlocks * e.signCountStep);
    signCount = 0;
  }
}

}  // namespace modescope
