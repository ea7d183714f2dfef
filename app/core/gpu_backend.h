// The app's bridge to the CUDA backend: the only place outside cuda/ that knows whether this
// build has one. Everything else asks for a backend through selectBackend(choice, gpuFactory()).
#pragma once

#include "engine/compute/backend.h"

namespace modescope {

// The CUDA factory when built with CUDA, else nullptr (selectBackend then says why).
GpuBackendFactory gpuFactory();
// Convenience: selectBackend(choice, gpuFactory(), note, cpuThreads).
std::unique_ptr<ComputeBackend> chooseBackend(BackendChoice choice, std::string* note = nullptr,
                                              int cpuThreads = 0);

}  // namespace modescope
