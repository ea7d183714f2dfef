#include "engine/tf/tf_tiles.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/tf/tf_cpu.h"
#include "engine/tf/tf_plan.h"

namespace modescope {

TfResult computeTfTilesCpu(const SignalBlock& block, const TfParams& params, TfTileValues values,
                           const TfTileSink& sink, int threads, JobContext& ctx) {
  // The whole grid first (every check, the rows resolved) without the in-memory bound: the
  // image is not held. One channel's image is then within params.maxBytes below.
  const TfPlan plan = planTfStreamed(block, params);
  TfResult result = makeTfResult(plan, block, false);
  const std::size_t channels = plan.channels;
  std::vector<float> magnitude;
  for (std::size_t c = 0; c < channels; ++c) {
    TfParams one = params;
    one.rows = {plan.params.rows[c]};
    JobContext sub = ctx.sub(static_cast<double>(c) / static_cast<double>(channels),
                             static_cast<double>(c + 1) / static_cast<double>(channels));
    const TfResult image = computeTfCpu(block, one, threads, sub);
    const int K = image.bins;
    for (int64_t t0 = 0; t0 < image.columns; t0 += kTfCpuTileColumns) {
      ctx.checkpoint();
      TfTile tile;
      tile.channel = c;
      tile.firstColumn = t0;
      tile.columns = std::min(kTfCpuTileColumns, image.columns - t0);
      tile.bins = K;
      const std::complex<float>* from = image.column(0, t0);
      const std::size_t count = static_cast<std::size_t>(tile.columns) * K;
      if (values == TfTileValues::Complex) {
        tile.values = from;
      } else {
        magnitude.resize(count);
        // sqrt(re^2 + im^2) in float, as the device's tfMagnitudeKernel (cuda/tf_kernels.cu).
        for (std::size_t i = 0; i < count; ++i) {
          const float re = from[i].real(), im = from[i].imag();
          magnitude[i] = std::sqrt(re * re + im * im);
        }
        tile.magnitude = magnitude.data();
      }
      sink(tile);
    }
  }
  return result;
}

}  // namespace modescope
