// What every GPU parity test needs: the CUDA backend or the reason there is none (the tests then
// GTEST_SKIP with it), the test hooks, and the free device memory for leak checks. Compiles
// without CUDA (the functions then report that the build has no CUDA backend).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/compute/backend.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace modescope::gpu_test {

inline std::unique_ptr<ComputeBackend> gpuBackend(std::string& reason) {
#ifdef MODESCOPE_HAVE_CUDA
  return makeCudaBackend(reason);
#else
  reason =
      "this build has no CUDA backend (MODESCOPE_HAVE_CUDA is undefined; configure with "
      "-DMODESCOPE_CUDA=ON where nvcc exists)";
  return nullptr;
#endif
}

// poison: new device buffers start as NaN; the others as in setCudaTestHooks (0 = unset).
inline void setHooks(bool poison, std::int64_t maxBatchSamples = 0,
                     std::int64_t maxChunkSamples = 0, std::int64_t maxResidentSamples = 0) {
#ifdef MODESCOPE_HAVE_CUDA
  setCudaTestHooks({.poisonAllocations = poison,
                    .maxBatchSamples = maxBatchSamples,
                    .maxChunkSamples = maxChunkSamples,
                    .maxResidentSamples = maxResidentSamples});
#else
  (void)poison;
  (void)maxBatchSamples;
  (void)maxChunkSamples;
  (void)maxResidentSamples;
#endif
}

inline std::size_t freeDeviceBytes() {
#ifdef MODESCOPE_HAVE_CUDA
  return cudaMemoryInfo().freeBytes;
#else
  return 0;
#endif
}

}  // namespace modescope::gpu_test
