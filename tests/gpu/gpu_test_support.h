// What every GPU parity test needs: the CUDA backend or the reason there is none (the tests then
// GTEST_SKIP with it), the test hooks, and the free device memory for leak checks. Compiles
// without CUDA (the functions then report that the build has no CUDA backend).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
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

// The Infomax kernel choice for a test (CudaTestHooks::icaNoWarpgroupKernel, icaSlabRows,
// icaClusterColumns): `holdBackWarpgroup` runs the mma.sync kernel where the warpgroup kernel
// would run; `slabRows` > 0 forces the WMMA cluster kernel with that many rows of W per CTA;
// `clusterColumns` (16 or 32) gives the tensor-core cluster kernel that many columns of W per CTA.
// Allocations poisoned as in the fixture below.
inline void setIcaKernelHooks(bool holdBackWarpgroup, int slabRows = 0, int clusterColumns = 0) {
#ifdef MODESCOPE_HAVE_CUDA
  setCudaTestHooks({.poisonAllocations = true,
                    .icaSlabRows = slabRows,
                    .icaNoWarpgroupKernel = holdBackWarpgroup,
                    .icaClusterColumns = clusterColumns});
#else
  (void)holdBackWarpgroup;
  (void)slabRows;
  (void)clusterColumns;
#endif
}

inline std::size_t freeDeviceBytes() {
#ifdef MODESCOPE_HAVE_CUDA
  return cudaMemoryInfo().freeBytes;
#else
  return 0;
#endif
}

// The fixture of the parity tests: both backends (skips with the reason when there is no GPU),
// every fresh device buffer poisoned with NaN so an element no kernel writes reaches the
// comparison, and a fresh random seed, printed so a failure can be replayed (set
// MODESCOPE_TEST_SEED to it).
class ParityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    gpu_ = gpuBackend(reason);
    if (!gpu_) GTEST_SKIP() << "GPU test skipped: " << reason;
    cpu_ = makeCpuBackend(0);
    setHooks(true);
    // MODESCOPE_TEST_SEED replays a printed seed.
    const char* replay = std::getenv("MODESCOPE_TEST_SEED");
    seed_ =
        replay ? static_cast<unsigned>(std::strtoul(replay, nullptr, 10)) : std::random_device{}();
    std::cout << "[ seed     ] " << seed_ << "\n";
  }
  void TearDown() override { setHooks(false); }

  std::unique_ptr<ComputeBackend> gpu_, cpu_;
  unsigned seed_ = 0;
};

}  // namespace modescope::gpu_test
