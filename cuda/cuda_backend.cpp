// The CUDA backend: device choice, info, and the entry points of cuda_backend.h.
#include "cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "cuda/cuda_ar.h"
#include "cuda/cuda_emd.h"
#include "cuda/cuda_entropy.h"
#include "cuda/cuda_epochs.h"
#include "cuda/cuda_hht.h"
#include "cuda/cuda_ica.h"
#include "cuda/cuda_memd.h"
#include "cuda/cuda_preprocess.cuh"
#include "cuda/cuda_tf.h"
#include "cuda/device_memory.cuh"
#include "cuda/host_thread_pool.h"
#include "cuda/preprocess_kernels.cuh"
#include "engine/core/error.h"

namespace modescope {
namespace {

std::atomic<bool> gPoisonAllocations{false};
std::atomic<std::int64_t> gMaxBatchSamples{0};
std::atomic<std::int64_t> gMaxChunkSamples{0};
std::atomic<std::int64_t> gMaxResidentSamples{0};
std::atomic<int> gIcaSlabRows{0};
std::atomic<bool> gIcaNoWarpgroupKernel{false};
std::atomic<int> gIcaClusterColumns{0};
std::atomic<int> gMemdMaxChunk{0};
std::atomic<std::int64_t> gMemdBudgetBytes{0};

// See cuda_preprocess.cuh: 2^26 samples is 256 MiB of float32.
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

  // Each stage alone is a pipeline of one stage: same code, same single round trip.
  void applyReference(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx) override {
    run(block, &plan, {}, ctx);
  }

  void applyFir(SignalBlock& block, const FirKernel& fir, JobContext& ctx) override {
    run(block, nullptr, {&fir}, ctx);
  }

  void applyPipeline(SignalBlock& block, const ReferencePlan* reference,
                     const std::vector<FirKernel>& filters, JobContext& ctx) override {
    std::vector<const FirKernel*> firs;
    for (const auto& f : filters) firs.push_back(&f);
    run(block, reference, firs, ctx);
  }

  EmdResult decompose(const SignalBlock& block, const EmdParams& params, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::decomposeGpu(block, params, ctx);
  }

  MemdResult memd(const SignalBlock& block, const MemdParams& params, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::memdGpu(block, params, ctx);
  }

  HhtResult hilbertHuang(const EmdResult& modes, const HhtParams& params,
                         JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::hilbertHuangGpu(modes, params, ctx);
  }

  IcaResult infomax(const SignalBlock& block, const IcaParams& params, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::runInfomaxGpu(block, params, 0, ctx);
  }

  SignalBlock spatialFilter(const SpatialFilter& filter, const SignalBlock& block,
                            JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::spatialFilterGpu(filter, block, ctx);
  }

  ArSpectrumResult arSpectra(const SignalBlock& block, const BurgArParams& params,
                             JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::arSpectraGpu(nullptr, block, params, ctx);
  }

  ArSpectrumResult filteredArSpectra(const SpatialFilter* filter, const SignalBlock& block,
                                     const BurgArParams& params, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::arSpectraGpu(filter, block, params, ctx);
  }

  std::unique_ptr<ArStream> openArStream(const ArStreamConfig& config) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::openArStreamGpu(config);
  }

  EntropyMatrixResult entropyMatrices(const SignalBlock& block, const EntropyParams& params,
                                      JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::entropyMatricesGpu(block, params, ctx);
  }

  TfResult timeFrequency(const SignalBlock& block, const TfParams& params,
                         JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    if (!tf_) tf_ = cuda::makeTfWorkspace();
    return cuda::timeFrequencyGpu(block, params, ctx, *tf_, resources_.pool());
  }
  TfResult timeFrequencyTiles(const SignalBlock& block, const TfParams& params, TfTileValues values,
                              const TfTileSink& sink, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    if (!tf_) tf_ = cuda::makeTfWorkspace();
    return cuda::timeFrequencyGpuTiles(block, params, values, sink, ctx, *tf_);
  }

  EpochAverages averageEpochs(const EpochSet& set, JobContext& ctx) override {
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    return cuda::averageEpochsGpu(set, ctx);
  }

 private:
  void run(SignalBlock& block, const ReferencePlan* reference,
           const std::vector<const FirKernel*>& filters, JobContext& ctx) {
    // The engine thread that calls may differ from the one that created the backend.
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    cuda::runPipeline(block, reference, filters, ctx, resources_);
  }

  int device_;
  std::string name_;
  std::size_t memory_;
  cuda::PipelineResources resources_;  // created on the current device, which the factory set
  // Created by the first transform; kept so a view that recomputes as the user scrolls reuses
  // its plan and buffers (cuda_tf.h).
  cuda::TfWorkspacePtr tf_;
};

}  // namespace

namespace cuda {

bool poisonAllocations() { return gPoisonAllocations.load(); }

std::int64_t batchSampleBudget() {
  const std::int64_t o = gMaxBatchSamples.load();
  return o > 0 ? o : kDefaultBatchSamples;
}

std::int64_t chunkSampleLimit() { return std::max<std::int64_t>(0, gMaxChunkSamples.load()); }
std::int64_t residentSampleLimit() { return std::max<std::int64_t>(0, gMaxResidentSamples.load()); }
int icaSlabRows() { return gIcaSlabRows.load(); }
bool icaNoWarpgroupKernel() { return gIcaNoWarpgroupKernel.load(); }
int icaClusterColumns() { return gIcaClusterColumns.load(); }
int memdMaxChunk() { return gMemdMaxChunk.load(); }
std::int64_t memdBudgetBytes() { return gMemdBudgetBytes.load(); }

std::size_t usableDeviceBytes() {
  const CudaMemoryInfo memory = cudaMemoryInfo();
  const std::size_t reserve = std::max<std::size_t>(std::size_t{256} << 20, memory.totalBytes / 20);
  return memory.freeBytes > reserve ? memory.freeBytes - reserve : 0;
}

}  // namespace cuda

std::unique_ptr<ComputeBackend> makeCudaBackend(std::string& reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    reason =
        std::string(cudaGetErrorString(e)) + " (cudaGetDeviceCount: " + cudaGetErrorName(e) + ")";
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
               "." + std::to_string(props.minor) +
               ") cannot run this build's GPU code: " + cudaGetErrorString(probe) +
               ". Rebuild with CMAKE_CUDA_ARCHITECTURES=" + std::to_string(props.major) +
               std::to_string(props.minor);
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

int cudaMultiprocessorCount() {
  int device = 0, sms = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

void setCudaTestHooks(const CudaTestHooks& hooks) {
  gPoisonAllocations = hooks.poisonAllocations;
  gMaxBatchSamples = hooks.maxBatchSamples;
  gMaxChunkSamples = hooks.maxChunkSamples;
  gMaxResidentSamples = hooks.maxResidentSamples;
  gIcaSlabRows = hooks.icaSlabRows;
  gIcaNoWarpgroupKernel = hooks.icaNoWarpgroupKernel;
  gIcaClusterColumns = hooks.icaClusterColumns;
  gMemdMaxChunk = hooks.memdMaxChunk;
  gMemdBudgetBytes = hooks.memdBudgetBytes;
}

}  // namespace modescope
