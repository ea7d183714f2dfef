// The time-frequency readout parameters, declared once (engine/tf/tf_readout_params.h). The ridge
// defaults are those of engine/tf/tf_analysis.h (Carmona, Hwang and Torresani 1997's penalised
// ridge, docs/time-frequency.md).
#include "engine/tf/tf_readout_params.h"

namespace modescope {
namespace {

using Field = ParamField<TfReadoutParams>;

bool extractsRidges(const TfReadoutParams& r) { return r.ridges > 0; }

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<TfReadoutParams>(
      integerParam("ridges", "ridges", "Ridges per channel")
          .atLeast(0)
          .atMost(kTfMaxRidges)
          .because("ridges to extract per channel, strongest first, each with its mode "
                   "reconstructed from the bins around it (0: none)"),
      &TfReadoutParams::ridges));
  f.push_back(bindField<TfReadoutParams>(
      realParam("ridgePenalty", "ridge-penalty", "Ridge jump penalty")
          .in("per bin^2")
          .atLeast(0)
          .atMost(1e6)
          .shown(3, 0.01)
          .because("cost per squared bin of jump between columns: higher follows smoother "
                   "frequency paths")
          .onlyFor("ridge extraction (ridges > 0)"),
      &TfReadoutParams::ridge, &TfRidgeParams::penalty, extractsRidges));
  f.push_back(bindField<TfReadoutParams>(
      integerParam("ridgeWidth", "ridge-width", "Ridge half-width")
          .in("bins")
          .atLeast(0)
          .atMost(kTfMaxRidgeHalfWidth)
          .because("bins either side of a ridge that belong to its mode (and are removed before "
                   "the next ridge is searched)")
          .onlyFor("ridge extraction (ridges > 0)"),
      &TfReadoutParams::ridge, &TfRidgeParams::halfWidth, extractsRidges));
  f.push_back(bindField<TfReadoutParams>(
      flagParam("reconstruct", "reconstruct", "Reconstruct the signal")
          .because("store the signal reconstructed from the whole image, x(t) = 2 / (N h(0)) Re "
                   "sum_k T(t, k); needs one column per sample (hop 1)"),
      &TfReadoutParams::reconstruct));
  f.push_back(bindField<TfReadoutParams>(
      flagParam("complex", "complex", "Complex values")
          .because("store the complex image (float32 pairs, twice the size) instead of the "
                   "magnitudes |T|"),
      &TfReadoutParams::complexValues));
  return f;
}

}  // namespace

const ParamTable<TfReadoutParams>& tfReadoutParamTable() {
  static const ParamTable<TfReadoutParams> table(makeFields());
  return table;
}

TfRidgeParams tfRidgeRequest(const TfReadoutParams& r) {
  TfRidgeParams p = r.ridge;
  p.count = r.ridges;
  return p;
}

}  // namespace modescope
