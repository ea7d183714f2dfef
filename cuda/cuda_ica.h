// CUDA extended Infomax (engine/ica/infomax.h gives the procedure; the GPU provides its passes).
// Host-only header: callable from .cpp files compiled without nvcc.
#pragma once

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/ica/ica_result.h"

namespace modescope::cuda {

// On the current device, with the passes of cuda/infomax_kernels.cuh in params.gpuMath and the
// whitening's data passes of cuda/ica_whitening_gpu.h (`threads` goes to the shared driver; the
// device does the work that would use it). Throws what runInfomaxCpu throws, plus
// InvalidParameterError for more than 256 components (the cluster limit: use a PCA rank or the
// CPU), DeviceError for a device below compute capability 9.0, OutOfDeviceMemoryError when the
// block or the sphered data do not fit (with the size needed and what is free).
IcaResult runInfomaxGpu(const SignalBlock& block, const IcaParams& params, int threads,
                        JobContext& ctx);

}  // namespace modescope::cuda
