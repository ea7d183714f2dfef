#include "app/core/gpu_backend.h"

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

}  // namespace modescope
