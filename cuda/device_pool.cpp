// DeviceBuffer's memory from each device's default stream-ordered pool (device_pool.h).
#include "cuda/device_pool.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.cuh"
#include "cuda/pinned_pool.h"

namespace modescope::cuda {
namespace {

std::mutex poolLock;
std::vector<bool> configured;  // by device: its pool keeps what is freed (guarded by poolLock)

// The current device's default pool, set on first use to keep what is freed (its release
// threshold is 0 by default: everything goes back to the driver at the next synchronisation).
cudaMemPool_t currentPool() {
  int device = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  MODESCOPE_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  const std::lock_guard<std::mutex> hold(poolLock);
  if (configured.size() <= static_cast<std::size_t>(device)) configured.resize(device + 1, false);
  if (!configured[device]) {
    std::uint64_t keepAll = std::numeric_limits<std::uint64_t>::max();
    MODESCOPE_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
    configured[device] = true;
  }
  return pool;
}

std::size_t heldUnused(cudaMemPool_t pool) {
  std::uint64_t reserved = 0, used = 0;
  MODESCOPE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  MODESCOPE_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return reserved > used ? static_cast<std::size_t>(reserved - used) : 0;
}

// Allocated and freed on the legacy default stream and waited for there: the buffers are used on
// the backends' non-blocking streams, which that wait does not order with, so they must be ready
// (or released) before anyone else sees them.
cudaError_t allocateOnce(void** p, std::size_t bytes, cudaMemPool_t pool) {
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes, pool, nullptr);
  if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
  return e;
}

}  // namespace

void* allocateDeviceBytes(std::size_t bytes) {
  cudaMemPool_t pool = currentPool();
  void* p = nullptr;
  cudaError_t e = allocateOnce(&p, bytes, pool);
  if (e == cudaErrorMemoryAllocation) {
    // What the pool holds may be in pieces too small for this; hand it all back and retry.
    (void)cudaGetLastError();
    MODESCOPE_CUDA_TRY(cudaDeviceSynchronize());
    MODESCOPE_CUDA_TRY(cudaMemPoolTrimTo(pool, 0));
    e = allocateOnce(&p, bytes, pool);
  }
  if (e != cudaSuccess && p) {
    (void)cudaFreeAsync(p, nullptr);
    p = nullptr;
  }
  MODESCOPE_CUDA_TRY(e);
  return p;
}

void releaseDeviceBytes(void* p) noexcept {
  if (!p) return;
  // cudaFree waited for all the device's work; the stream-ordered free does not, and a kernel
  // still reading this memory on another stream must not see it handed to the next allocation.
  (void)cudaDeviceSynchronize();
  (void)cudaFreeAsync(p, nullptr);
  (void)cudaStreamSynchronize(nullptr);  // so the pool counts it as unused at once
}

}  // namespace modescope::cuda

namespace modescope {

// Free = what the driver reports free plus what the pool holds unused (allocations take it first).
CudaMemoryInfo cudaMemoryInfo() {
  CudaMemoryInfo m;
  MODESCOPE_CUDA_TRY(cudaMemGetInfo(&m.freeBytes, &m.totalBytes));
  m.pooledBytes = cuda::heldUnused(cuda::currentPool());
  m.freeBytes += m.pooledBytes;
  return m;
}

// On every device this process allocated from (the pools it configured).
void releaseCudaPooledMemory() {
  const std::lock_guard<std::mutex> hold(cuda::poolLock);
  for (std::size_t device = 0; device < cuda::configured.size(); ++device) {
    cudaMemPool_t pool = nullptr;
    if (cuda::configured[device] &&
        cudaDeviceGetDefaultMemPool(&pool, static_cast<int>(device)) == cudaSuccess)
      (void)cudaMemPoolTrimTo(pool, 0);
  }
  cuda::releasePinnedPool();
  (void)cudaGetLastError();
}

}  // namespace modescope
