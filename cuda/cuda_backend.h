// The CUDA compute backend. This header is CUDA-free: the app and tests include it without nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"

namespace modescope {

// The CUDA backend on device 0, or nullptr with `reason` filled ("no CUDA device", "driver too
// old", ...). Never throws for an absent device.
std::unique_ptr<ComputeBackend> makeCudaBackend(std::string& reason);

// Number of usable CUDA devices (0 when the driver or device is missing).
int cudaDeviceCount();

// Streaming multiprocessors of the current device (for sizing launches and batches). Throws
// DeviceError.
int cudaMultiprocessorCount();

// Free and total memory of the current device in bytes (cudaMemGetInfo; free includes what the
// backend's memory pool keeps for the next run, pooled: cuda/device_pool.h). What every planner
// asks. Throws DeviceError.
struct CudaMemoryInfo {
  std::size_t freeBytes = 0;
  std::size_t totalBytes = 0;
  std::size_t pooledBytes = 0;
};
CudaMemoryInfo cudaMemoryInfo();

// Hands back to the driver the device memory and the page-locked host memory kept for the next
// run (cuda/device_pool.h, cuda/pinned_pool.h); for a process that stays open between runs, when
// none is queued. Never throws; a no-op before the first allocation (it creates no CUDA context).
void releaseCudaPooledMemory();

// ---- Hooks for tests and benchmarks (tests/gpu, tests/bench) --------------------------------

// Process-wide test switches. poisonAllocations: every new device buffer, and the pinned staging
// buffers at the start of every call, are filled with NaN (0xFF bytes), so an element a kernel or
// a copy forgets to write shows up in the output. maxBatchSamples (> 0): caps the samples per
// compute batch (default 2^26) to drive the multi-batch paths with small inputs.
// maxChunkSamples (> 0): caps the samples per staged host-device copy (default 1/16 of the
// resident rows, 1 M to 8 M samples) to drive the multi-chunk paths. maxResidentSamples (> 0):
// caps the samples resident on the device at once, as if device memory were that small, to drive
// the windowed path (several windows of rows, reference signal computed on the host). Set them
// while no CUDA work runs.
struct CudaTestHooks {
  bool poisonAllocations = false;
  std::int64_t maxBatchSamples = 0;
  std::int64_t maxChunkSamples = 0;
  std::int64_t maxResidentSamples = 0;
  // Rows of W per CTA of the Infomax WMMA cluster kernel (0 = the planner's choice); non-zero
  // also forces that kernel where the register-resident or the tensor-core cluster kernel would
  // run, so it stays tested for TF32 and 3xTF32 too (FP32 always runs on it).
  int icaSlabRows = 0;
  // Runs the register-resident mma.sync Infomax kernel where the warpgroup (wgmma) kernel would
  // run (plain TF32 on compute capability 9.0), so both stay tested and comparable.
  bool icaNoWarpgroupKernel = false;
  // Columns of W per CTA of the tensor-core Infomax cluster kernel (16 or 32; 0 = the planner's
  // choice: 16 up to 128 components), so both shapes stay tested and comparable; non-zero also
  // runs that kernel where the two-warpgroup kernel would (plain TF32, 65-128 components).
  int icaClusterColumns = 0;
  // MEMD: at most this many directions per chunk (0 = the plan's), to drive the streamed path
  // with small inputs; and the usable device bytes the plan assumes (0 = 85 % of free memory), to
  // drive the "does not fit" path.
  int memdMaxChunk = 0;
  std::int64_t memdBudgetBytes = 0;
};
void setCudaTestHooks(const CudaTestHooks& hooks);

// The shape the tensor-core Infomax cluster kernel takes on the current device for `components`
// (65-256) and blocks of `blockSize` samples: columns of W per CTA (16 up to 128 components, 32
// above) and CTAs; {0, 0} where that kernel does not run. Honours the icaClusterColumns hook.
// Throws DeviceError.
struct IcaClusterShape {
  int columns = 0;
  int ctas = 0;
};
IcaClusterShape icaClusterShape(int components, int blockSize, IcaGpuMath math);

// The Infomax pass kernel the CUDA backend runs on the current device for `components` and
// blocks of `blockSize` samples, in words ("two-warpgroup (wgmma) kernel, one CTA",
// "tensor-core cluster of 8 CTAs x 32 columns of W", ...); empty where none takes the problem.
// Honours the test hooks. Throws DeviceError.
std::string icaGpuKernel(int components, int blockSize, IcaGpuMath math);

// The double z-scores the CUDA backend's entropy matrices count on (E x C x N, EntropyPlan's
// layout), computed on the device: they must equal planEntropy(block, params).zscored bit for
// bit (tests/gpu/entropy_parity_test.cpp). Throws what planEntropy throws, DeviceError.
std::vector<double> cudaEntropyZScores(const SignalBlock& block, const EntropyParams& params);

// The Infomax whitening on the device (cuda/ica_whitening_gpu.h), for its parity with the CPU
// twins icaChannelMoments and icaSpheredData (engine/ica/infomax.h): the channel means (C) and
// covariance (C x C, column-major, 1/(n - 1)) of `block`; and sphere * (x - mean) for `sphere`
// r x C column-major, as n x r floats, sample-major, TF32-rounded when `tf32` (as the plain TF32
// kernels read them). Throws DeviceError, OutOfDeviceMemoryError.
void cudaIcaMoments(const SignalBlock& block, std::vector<double>& mean,
                    std::vector<double>& covariance);
std::vector<float> cudaIcaSphered(const SignalBlock& block, const std::vector<double>& mean,
                                  const std::vector<double>& sphere, int components, bool tf32);

// ---- Link measurement for the benchmark's floor (tests/bench/preprocess_bench) ----------------

// Bandwidths in GB/s (1e9 bytes per second), medians of 5 repetitions over `bytes` bytes.
struct CudaLinkMeasurement {
  double pinnedUploadGBs = 0.0;    // cudaMemcpyAsync host -> device from page-locked memory
  double pinnedDownloadGBs = 0.0;  // device -> page-locked host memory
  double duplexGBs = 0.0;          // both directions at once on two streams, bytes of both / s
  double pageableUploadGBs = 0.0;  // from ordinary (pageable) memory
  double pageableDownloadGBs = 0.0;
  double stagingCopyGBs = 0.0;   // host memcpy pageable -> pinned with the backend's threads
  int stagingThreads = 0;        // the backend's host copy threads (caller included)
  double hostRegisterGBs = 0.0;  // cudaHostRegister + cudaHostUnregister of pageable memory
};
// Allocates 2 x `bytes` on the device and in pinned host memory and `bytes` of pageable memory;
// runs on the current device. Throws DeviceError or OutOfDeviceMemoryError.
CudaLinkMeasurement measureCudaLink(std::size_t bytes);

// Device memory bandwidth in GB/s: a device-to-device copy of `bytes` (counted as 2 x bytes
// moved, read + write), median of 5 after a warm-up. The floor of memory-bound kernels
// (tests/bench/emd_bench). Throws DeviceError or OutOfDeviceMemoryError.
double measureDeviceBandwidth(std::size_t bytes);

}  // namespace modescope
