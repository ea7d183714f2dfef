// The EMD-family procedures of engine/emd/emd.h on the device (internal to cuda/): one call
// decomposes a batch of channels with all their ensemble members resident, using BatchSifter for
// every "extract IMF" and small element-wise kernels for noise, realizations and ensemble means.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"

namespace modescope::cuda {

// Device bytes one channel of this decomposition needs (sifter, noise modes, work rows), for
// planning batches before any allocation.
std::size_t emdBytesPerChannel(const EmdParams& p, std::int64_t samples);

// Device bytes per channel that noiseInStages adds (the sifter's room for the noise members beside
// a stage's); 0 where a run cannot take it (all but ICEEMDAN with the same stop rule for the
// signal and the noise).
std::size_t emdNoiseInStagesBytesPerChannel(const EmdParams& p, std::int64_t samples);

// Rows [firstRow, firstRow + channels) of `block`, appended to `out` in order. Diagnostics go to
// `diagnostics`. Runs on `stream` in precision R. noiseInStages (ICEEMDAN with the same stop rule
// for the signal and the noise, else ignored): each stage sifts its members and the noise's next
// mode in one batch, instead of computing every noise mode first (the same bits;
// emdNoiseInStagesBytesPerChannel more memory).
template <class R>
void decomposeChannelBatch(const SignalBlock& block, std::size_t firstRow, int channels,
                           const EmdParams& p, bool noiseInStages,
                           std::vector<EmdChannelModes>& out, Diagnostics& diagnostics,
                           cudaStream_t stream, const JobContext& ctx);

// The noise modes a run keeps at most (imfLimit; 0 for EMD and EEMD), for the planner.
int emdNoiseModeEstimate(const EmdParams& p, std::int64_t samples);

}  // namespace modescope::cuda
