// The host copy threads of the CUDA pipeline (cuda/host_thread_pool.h). Host-only: these run
// wherever the CUDA backend is built, with or without a device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#ifdef MODESCOPE_HAVE_CUDA
#include "cuda/host_thread_pool.h"

namespace modescope::cuda {
namespace {

TEST(HostThreadPool, RunsEveryPartExactlyOnceAcrossManyCalls) {
  HostThreadPool pool(4);
  EXPECT_EQ(pool.threads(), 4);
  // Many short jobs back to back: a worker that wakes late for one job must not run parts of the
  // next one with the old function, nor miss parts.
  for (int call = 0; call < 2000; ++call) {
    const int parts = 1 + call % 9;
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(parts));
    pool.run(parts, [&](int p) { hits[static_cast<std::size_t>(p)].fetch_add(1); });
    for (int p = 0; p < parts; ++p) ASSERT_EQ(hits[static_cast<std::size_t>(p)].load(), 1);
  }
}

TEST(HostThreadPool, RethrowsTheFirstErrorAfterEveryPartStopped) {
  HostThreadPool pool(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(16,
                        [&](int p) {
                          ran.fetch_add(1);
                          if (p == 5) throw std::runtime_error("part 5");
                        }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  // The pool is usable afterwards.
  std::atomic<int> after{0};
  pool.run(8, [&](int) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 8);
}

TEST(HostThreadPool, CopyEqualsMemcpyForOddSizesAndAlignments) {
  // Sizes below and above the streaming threshold and the 1 MiB piece size, at offsets that put
  // source and destination on every alignment the streaming path's head and tail must handle.
  std::mt19937 rng(std::random_device{}());
  const std::size_t sizes[] = {0, 1, 15, 4097, (64u << 10) + 3, (1u << 20) + 17, (5u << 20) + 4093};
  for (int threads : {1, 3, 8}) {
    HostThreadPool pool(threads);
    for (std::size_t n : sizes) {
      for (std::size_t srcOff : {0u, 1u, 4u, 13u}) {
        for (std::size_t dstOff : {0u, 3u, 8u}) {
          std::vector<unsigned char> src(n + srcOff), dst(n + dstOff + 64, 0xAB);
          for (auto& b : src) b = static_cast<unsigned char>(rng());
          pool.copy(dst.data() + dstOff, src.data() + srcOff, n);
          ASSERT_EQ(std::memcmp(dst.data() + dstOff, src.data() + srcOff, n), 0)
              << n << " bytes, offsets " << srcOff << "/" << dstOff << ", " << threads
              << " threads";
          for (std::size_t i = 0; i < dstOff; ++i) ASSERT_EQ(dst[i], 0xAB) << "wrote before";
          for (std::size_t i = n + dstOff; i < dst.size(); ++i)
            ASSERT_EQ(dst[i], 0xAB) << "wrote after";
        }
      }
    }
  }
}

TEST(HostThreadPool, DefaultThreadsIsBetweenOneAndEight) {
  const int t = HostThreadPool::defaultThreads();
  EXPECT_GE(t, 1);
  EXPECT_LE(t, 8);
}

}  // namespace
}  // namespace modescope::cuda
#else
TEST(HostThreadPool, SkippedWithoutCuda) {
  GTEST_SKIP() << "host thread pool test skipped: this build has no CUDA backend";
}
#endif
