// The app's bridge to the CUDA backend: the only place outside cuda/ that knows whether this
// build has one. Everything else asks for a backend through selectBackend(choice, gpuFactory()).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/compute/backend.h"

namespace modescope {

// The CUDA factory when built with CUDA, else nullptr (selectBackend then says why).
GpuBackendFactory gpuFactory();
// Convenience: selectBackend(choice, gpuFactory(), note, cpuThreads).
std::unique_ptr<ComputeBackend> chooseBackend(BackendChoice choice, std::string* note = nullptr,
                                              int cpuThreads = 0);

// The one backend-choice rule of a method run, the window's and the command line's: the run's
// own choice (a dialog's Backend field; the command line's --backend, auto by default) makes a
// backend for that run (chooseBackend: the CPU with `cpuThreads` threads, <= 0 all cores; `note`
// says why auto fell back to the CPU); none means `session`, the backend already started (the
// window's Compute menu: CUDA start-up is slow). Throws DeviceError when there is no own choice
// and no session backend yet, and what chooseBackend throws for a forced CUDA that is missing.
std::shared_ptr<ComputeBackend> backendForRun(std::optional<BackendChoice> own,
                                              std::shared_ptr<ComputeBackend> session,
                                              std::string* note = nullptr, int cpuThreads = 0);

// Hands back the GPU memory the CUDA backend keeps between runs (its memory pool), for a window
// whose job queue has emptied: another program may need it meanwhile. A no-op without CUDA or
// before any GPU run.
void releaseIdleGpuMemory();

}  // namespace modescope
