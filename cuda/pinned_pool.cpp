// The pool of page-locked host memory (pinned_pool.h).
#include "cuda/pinned_pool.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "cuda/cuda_check.cuh"

namespace modescope::cuda {
namespace {

// Blocks are whole pages, so that a block freed by one buffer fits the next of about its size.
constexpr std::size_t kPage = 4096;
// A kept block serves a request of at least half its size (a large block is not tied up by a
// small buffer while the large one is made again).
constexpr std::size_t kLargestWaste = 2;
// What the pool keeps unused at most: more than a run of 64 channels of 358,401 samples holds.
constexpr std::size_t kKeptBytes = std::size_t{512} << 20;

struct Pool {
  std::mutex lock;
  std::multimap<std::size_t, void*> unused;       // by block size
  std::unordered_map<void*, std::size_t> sizeOf;  // every block the pool made, in use or not
  std::size_t unusedBytes = 0;
  bool closed = false;  // the process is ending: released blocks go back to the driver at once
};

// Never destroyed: buffers may be released during static destruction.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

// At the process's end, what the pool keeps goes back to the driver, and so does every block
// released after it: kept, compute-sanitizer's leak check counted them as leaked (28,672 bytes
// in 6 blocks after the AR stream tests, H200). Registered after the first block is made, so it
// runs before the CUDA runtime's own exit handler, registered when the runtime started.
void closeAtExit() {
  {
    const std::lock_guard<std::mutex> hold(pool().lock);
    pool().closed = true;
  }
  releasePinnedPool();
}

}  // namespace

void* allocatePinnedBytes(std::size_t bytes) {
  const std::size_t size = (bytes + kPage - 1) / kPage * kPage;
  Pool& p = pool();
  {
    const std::lock_guard<std::mutex> hold(p.lock);
    const auto it = p.unused.lower_bound(size);
    if (it != p.unused.end() && it->first <= kLargestWaste * size) {
      void* block = it->second;
      p.unusedBytes -= it->first;
      p.unused.erase(it);
      return block;
    }
  }
  void* block = nullptr;
  if (cudaHostAlloc(&block, size, cudaHostAllocPortable) != cudaSuccess) {
    // What the pool keeps may be what the driver lacks: hand it back and try once more.
    (void)cudaGetLastError();
    releasePinnedPool();
    MODESCOPE_CUDA_TRY(cudaHostAlloc(&block, size, cudaHostAllocPortable));
  }
  try {
    const std::lock_guard<std::mutex> hold(p.lock);
    p.sizeOf[block] = size;
  } catch (...) {
    (void)cudaFreeHost(block);
    throw;
  }
  static const bool closesAtExit = std::atexit(closeAtExit) == 0;
  (void)closesAtExit;
  return block;
}

void releasePinnedBytes(void* block) noexcept {
  if (!block) return;
  Pool& p = pool();
  {
    const std::lock_guard<std::mutex> hold(p.lock);
    const auto it = p.sizeOf.find(block);
    if (it != p.sizeOf.end() && !p.closed && p.unusedBytes + it->second <= kKeptBytes) {
      try {
        p.unused.emplace(it->second, block);
        p.unusedBytes += it->second;
        return;
      } catch (...) {  // no room to keep it: handed back below
      }
    }
    if (it != p.sizeOf.end()) p.sizeOf.erase(it);
  }
  (void)cudaFreeHost(block);
}

void releasePinnedPool() noexcept {
  Pool& p = pool();
  const std::lock_guard<std::mutex> hold(p.lock);
  for (const auto& [size, block] : p.unused) {
    p.sizeOf.erase(block);
    (void)cudaFreeHost(block);
  }
  p.unused.clear();
  p.unusedBytes = 0;
}

}  // namespace modescope::cuda
