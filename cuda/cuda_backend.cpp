// The CUDA backend: device choice, info, and the entry points of cuda_backend.h.
#include "cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/preprocess_kernels.cuh"
#include "engine/core/error.h"

namespace modescope {
namespace {

std::atomic<bool> gPoisonAllocations{false};
std::atomic<std::int64_t> gMaxBatchSamples{0};

// See cuda_preprocess.cuh: 2^26 samples is 256 MiB of float32 each way.
constexpr std::int64_t kDefaultBatchSamples = std::int64_t{1} << 26;

class CudaBackend final : public ComputeBackend {
 public:
  CudaBackend(int device, const cudaDeviceProp& props)
      : device_(device), name_(props.name), memory_(props.totalGlobalMem) {}

  BackendInfo info() const override {
    BackendInfo i;
    i.kind = BackendKind::Cuda;
    i.deviceName = name_;
    i.memoryBytes = memory_;
    i.threads = 1;
    return i;
  }

  void applyReference(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx) override {
    // The engine thread that calls may differ from the one that created the backend.
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    cuda::referenceOnDevice(block, plan, ctx, stream_.get());
  }

  void applyFir(SignalBlock& block, const FirKernel& fir, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    cuda::filterOnDevice(block, fir, ctx, stream_.get());
  }

 private:
  int device_;
  std::string name_;
  std::size_t memory_;
  cuda::Stream stream_;  // created on the current device, which the factory set
};

}  // namespace

namespace cuda {

bool poisonAllocations() { return gPoisonAllocations.load(); }

std::int64_t batchSampleBudget() {
  const std::int64_t o = gMaxBatchSamples.load();
  return o > 0 ? o : kDefaultBatchSamples;
}

std::size_t usableDeviceBytes() {
  std::size_t freeBytes = 0, totalBytes = 0;
  MODESCOPE_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
  const std::size_t reserve = std::max<std::size_t>(std::size_t{256} << 20, totalBytes / 20);
  return freeBytes > reserve ? freeBytes - reserve : 0;
}

}  // namespace cuda

std::unique_ptr<ComputeBackend> makeCudaBackend(std::string& reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    reason = std::string(cudaGetErrorString(e)) + " (cudaGetDeviceCount: " + cudaGetErrorName(e) + ")";
    return nullptr;
  }
  if (count == 0) {
    reason = "no CUDA device found";
    return nullptr;
  }
  try {
    const int device = 0;
    MODESCOPE_CUDA_TRY(cudaSetDevice(device));
    cudaDeviceProp props{};
    MODESCOPE_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    const cudaError_t probe = cuda::probeKernelImage();
    if (probe != cudaSuccess) {
      (void)cudaGetLastError();
      reason = std::string(props.name) + " (compute capability " + std::to_string(props.major) +
               "." + std::to_string(props.minor) + ") cannot run this build's GPU code: " +
               cudaGetErrorString(probe) + ". Rebuild with CMAKE_CUDA_ARCHITECTURES=" +
               std::to_string(props.major) + std::to_string(props.minor);
      return nullptr;
    }
    return std::make_unique<CudaBackend>(device, props);
  } catch (const std::exception& ex) {
    reason = ex.what();
    return nullptr;
  }
}

int cudaDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

CudaMemoryInfo cudaMemoryInfo() {
  CudaMemoryInfo m;
  MODESCOPE_CUDA_TRY(cudaMemGetInfo(&m.freeBytes, &m.totalBytes));
  return m;
}

void setCudaTestHooks(const CudaTestHooks& hooks) {
  gPoisonAllocations = hooks.poisonAllocations;
  gMaxBatchSamples = hooks.maxBatchSamples;
}

}  // namespace modescope
