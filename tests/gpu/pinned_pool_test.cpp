// The pool of page-locked host memory (cuda/pinned_pool.h) that PinnedBuffer takes from: a
// released block serves the next request of about its size but not a much smaller one, and
// releaseCudaPooledMemory hands the kept blocks back. (Every GPU parity test copies through these
// blocks.) Skips loudly without a device or a CUDA build.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tests/gpu/gpu_test_support.h"
#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/cuda_backend.h"
#include "cuda/pinned_pool.h"
#endif

namespace modescope {
namespace {

TEST(GpuPinnedPool, KeepsReleasedBlocksForRequestsOfAboutTheirSize) {
  std::string reason;
  if (!gpu_test::gpuBackend(reason)) GTEST_SKIP() << "GPU test skipped: " << reason;
#ifdef MODESCOPE_HAVE_CUDA
  releaseCudaPooledMemory();
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  void* block = cuda::allocatePinnedBytes(kMiB);
  std::memset(block, 0x5a, kMiB);  // all of it is there to write
  cuda::releasePinnedBytes(block);
  // A much smaller request gets a block of its own; the kept one waits for its size.
  void* small = cuda::allocatePinnedBytes(1000);
  EXPECT_NE(small, block);
  void* again = cuda::allocatePinnedBytes(kMiB - 100);
  EXPECT_EQ(again, block);
  void* other = cuda::allocatePinnedBytes(kMiB);  // the kept one is in use: a new one
  EXPECT_NE(other, block);
  for (void* p : {small, again, other}) cuda::releasePinnedBytes(p);
  // Handed back, the blocks are gone from the pool; new requests still get memory.
  releaseCudaPooledMemory();
  void* fresh = cuda::allocatePinnedBytes(kMiB);
  ASSERT_NE(fresh, nullptr);
  std::memset(fresh, 0, kMiB);
  cuda::releasePinnedBytes(fresh);
  cuda::releasePinnedBytes(nullptr);  // nothing
  releaseCudaPooledMemory();
#endif
}

}  // namespace
}  // namespace modescope
