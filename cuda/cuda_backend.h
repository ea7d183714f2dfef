// The CUDA compute backend. This header is CUDA-free: the app and tests include it without nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/compute/backend.h"

namespace modescope {

// The CUDA backend on device 0, or nullptr with `reason` filled ("no CUDA device", "driver too
// old", ...). Never throws for an absent device.
std::unique_ptr<ComputeBackend> makeCudaBackend(std::string& reason);

// Number of usable CUDA devices (0 when the driver or device is missing).
int cudaDeviceCount();

// ---- Hooks for tests and benchmarks (tests/gpu, tests/bench) --------------------------------

// Free and total memory of the current device in bytes (cudaMemGetInfo). Throws DeviceError.
struct CudaMemoryInfo {
  std::size_t freeBytes = 0;
  std::size_t totalBytes = 0;
};
CudaMemoryInfo cudaMemoryInfo();

// Process-wide test switches. poisonAllocations: every new device buffer is filled with NaN
// (0xFF bytes), so an element a kernel forgets to write shows up in the output. maxBatchSamples
// (> 0): caps the samples per batch (default about 64 M) to drive the multi-batch paths with small
// inputs. Set them while no CUDA work runs.
struct CudaTestHooks {
  bool poisonAllocations = false;
  std::int64_t maxBatchSamples = 0;
};
void setCudaTestHooks(const CudaTestHooks& hooks);

}  // namespace modescope
