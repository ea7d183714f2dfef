// CUDA spatial filters and Burg AR spectra (engine/spatial/spatial_filter.h and
// engine/ar/ar_spectrum.h give the contracts and the procedure the GPU follows step by step).
// Host-only header: callable from .cpp files compiled without nvcc.
#pragma once

#include <memory>

#include "engine/ar/ar_result.h"
#include "engine/ar/ar_stream.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/spatial/spatial_filter.h"

namespace modescope::cuda {

// applySpatialFilter on the current device: one cuBLAS SGEMM (FP32 accumulation). Same errors.
SignalBlock spatialFilterGpu(const SpatialFilter& filter, const SignalBlock& block,
                             JobContext& ctx);

// computeArSpectraCpu's procedure on the current device in float, batched over channels x
// windows; `filter` (may be null) is applied on the device first, so the block crosses the
// host-device link once each way. Same errors, plus OutOfDeviceMemoryError when one channel's
// windows do not fit.
ArSpectrumResult arSpectraGpu(const SpatialFilter* filter, const SignalBlock& block,
                              const BurgArParams& params, JobContext& ctx);

// engine/ar/ar_stream.h's stream on the current device: the filter matrix, a ring of the last N
// filtered samples per output and the outputs stay on the device between pushes. Throws what
// validateArStreamConfig throws, OutOfDeviceMemoryError when the ring does not fit.
std::unique_ptr<ArStream> openArStreamGpu(const ArStreamConfig& config);

}  // namespace modescope::cuda
