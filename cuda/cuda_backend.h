// The CUDA compute backend. This header is CUDA-free: the app and tests include it without nvcc.
#pragma once

#include <memory>
#include <string>

#include "engine/compute/backend.h"

namespace modescope {

// The CUDA backend on device 0, or nullptr with `reason` filled ("no CUDA device", "driver too
// old", ...). Never throws for an absent device.
std::unique_ptr<ComputeBackend> makeCudaBackend(std::string& reason);

// Number of usable CUDA devices (0 when the driver or device is missing).
int cudaDeviceCount();

}  // namespace modescope
