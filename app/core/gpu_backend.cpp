#include "app/core/gpu_backend.h"

#include "engine/core/error.h"

#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace modescope {

GpuBackendFactory gpuFactory() {
#ifdef MODESCOPE_HAVE_CUDA
  return &makeCudaBackend;
#else
  return nullptr;
#endif
}

std::unique_ptr<ComputeBackend> chooseBackend(BackendChoice choice, std::string* note,
                                              int cpuThreads) {
  return selectBackend(choice, gpuFactory(), note, cpuThreads);
}

std::shared_ptr<ComputeBackend> backendForRun(std::optional<BackendChoice> own,
                                              std::shared_ptr<ComputeBackend> session,
                                              std::string* note, int cpuThreads) {
  if (note) note->clear();
  if (own) return chooseBackend(*own, note, cpuThreads);
  if (!session) throw DeviceError("no compute backend is available yet; try again");
  return session;
}

void releaseIdleGpuMemory() {
#ifdef MODESCOPE_HAVE_CUDA
  releaseCudaPooledMemory();
#endif
}

}  // namespace modescope
