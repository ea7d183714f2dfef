// measureCudaLink (cuda_backend.h): what the host-device link and the host side of staging carry,
// measured the way the pipeline uses them, for the benchmark's floor.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/device_memory.cuh"
#include "cuda/host_thread_pool.h"

namespace modescope {
namespace {

// GB/s of `bytes` moved by `fn`: median of 5 timed runs after one untimed.
double medianRate(double bytes, const std::function<void()>& fn) {
  std::vector<double> seconds;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    if (i > 0) seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return bytes / seconds[seconds.size() / 2] / 1e9;
}

}  // namespace

CudaLinkMeasurement measureCudaLink(std::size_t bytes) {
  using cuda::DeviceBuffer;
  using cuda::PinnedBuffer;
  bytes = std::max<std::size_t>(bytes, 4096);
  CudaLinkMeasurement m;
  cuda::Stream up, down;
  DeviceBuffer<unsigned char> devA(bytes), devB(bytes);
  PinnedBuffer<unsigned char> pinA(bytes), pinB(bytes);
  std::vector<unsigned char> pageable(bytes);
  for (std::size_t i = 0; i < bytes; ++i) pageable[i] = static_cast<unsigned char>(i * 131u);
  std::memcpy(pinA.get(), pageable.data(), bytes);
  std::memcpy(pinB.get(), pageable.data(), bytes);
  const double b = static_cast<double>(bytes);

  m.pinnedUploadGBs = medianRate(b, [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(devA.get(), pinA.get(), bytes, cudaMemcpyHostToDevice, up.get()));
    up.synchronize();
  });
  m.pinnedDownloadGBs = medianRate(b, [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(pinB.get(), devB.get(), bytes, cudaMemcpyDeviceToHost, down.get()));
    down.synchronize();
  });
  m.duplexGBs = medianRate(2 * b, [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(devA.get(), pinA.get(), bytes, cudaMemcpyHostToDevice, up.get()));
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(pinB.get(), devB.get(), bytes, cudaMemcpyDeviceToHost, down.get()));
    up.synchronize();
    down.synchronize();
  });
  m.pageableUploadGBs = medianRate(b, [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(devA.get(), pageable.data(), bytes, cudaMemcpyHostToDevice, up.get()));
    up.synchronize();
  });
  m.pageableDownloadGBs = medianRate(b, [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(pageable.data(), devB.get(), bytes, cudaMemcpyDeviceToHost, down.get()));
    down.synchronize();
  });
  cuda::HostThreadPool pool(cuda::HostThreadPool::defaultThreads());
  m.stagingThreads = pool.threads();
  m.stagingCopyGBs = medianRate(b, [&] { pool.copy(pinA.get(), pageable.data(), bytes); });
  // Registration pins and maps every page: it is paid per call if the pipeline registered the
  // caller's block instead of staging it. Some systems refuse it; 0 then.
  bool registerWorks = true;
  m.hostRegisterGBs = medianRate(b, [&] {
    if (!registerWorks) return;
    if (cudaHostRegister(pageable.data(), bytes, cudaHostRegisterDefault) != cudaSuccess) {
      (void)cudaGetLastError();
      registerWorks = false;
      return;
    }
    MODESCOPE_CUDA_TRY(cudaHostUnregister(pageable.data()));
  });
  if (!registerWorks) m.hostRegisterGBs = 0.0;
  return m;
}

double measureDeviceBandwidth(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 4096);
  cuda::Stream stream;
  cuda::DeviceBuffer<unsigned char> a(bytes), b(bytes);
  MODESCOPE_CUDA_TRY(cudaMemsetAsync(a.get(), 1, bytes, stream.get()));
  return medianRate(2.0 * static_cast<double>(bytes), [&] {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    stream.synchronize();
  });
}

}  // namespace modescope
