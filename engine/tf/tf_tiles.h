// A time-frequency image handed over tile by tile as it is computed (ComputeBackend::
// timeFrequencyTiles), so that the whole image is never held: 64 channels x 10 minutes at 512 Hz,
// FFT 512, hop 1 is 20 GB of float32 magnitudes (40 GB complex), more than a workstation's memory.
// A consumer keeps what it needs of each tile (writes it to a file, sums a spectrum, draws it).
//
// Order: tiles arrive channel by channel (the result's image order), columns increasing; every
// (channel, column) exactly once, with all K bins of a column together.
//
// Thread rules: the sink is called on the calling thread of timeFrequencyTiles; the tile's
// pointers are valid only during the call.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_result.h"

namespace modescope {

enum class TfTileValues {
  Magnitude,  // |T| as float32 (the default file content: half the bytes)
  Complex,    // the complex values
};

struct TfTile {
  std::size_t channel = 0;  // index into TfResult::channels (image order)
  int64_t firstColumn = 0;
  int64_t columns = 0;
  int bins = 0;  // K
  // columns x K, [t * K + k]: exactly one of the two is set (the requested TfTileValues).
  const float* magnitude = nullptr;
  const std::complex<float>* values = nullptr;
};

using TfTileSink = std::function<void(const TfTile&)>;

// The CPU twin of the streamed transform (the CPU backend's timeFrequencyTiles): one channel at a
// time by computeTfCpu (so at most one channel's image is held), handed over in tiles of up to
// kTfCpuTileColumns columns. `params.maxBytes` bounds one channel's image here, not the whole.
// Returns the result's grid and metadata (values empty). Throws what computeTfCpu throws and
// whatever the sink throws (Cancelled included).
inline constexpr int64_t kTfCpuTileColumns = 4096;
TfResult computeTfTilesCpu(const SignalBlock& block, const TfParams& params, TfTileValues values,
                           const TfTileSink& sink, int threads, JobContext& ctx);

}  // namespace modescope
