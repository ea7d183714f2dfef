// Preprocessing on the device (internal to cuda/): the bodies of CudaBackend::applyFir and
// ::applyReference. Both move the block to the device in batches that fit the free memory and
// take about 100 ms each (batchSampleBudget()), keep each batch on the device from upload to
// download, and call ctx.checkpoint() between batches.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "engine/compute/backend.h"

namespace modescope::cuda {

// Samples one batch may hold: 2^26 (256 MiB of float32 each way, ~10-50 ms over PCIe 4/5 and a
// few ms on the device), or the test override from setCudaTestHooks.
std::int64_t batchSampleBudget();

// Free device memory minus a reserve for the CUDA context, cuFFT and other processes
// (max(256 MiB, 5 % of the total)).
std::size_t usableDeviceBytes();

void filterOnDevice(SignalBlock& block, const FirKernel& fir, JobContext& ctx,
                    cudaStream_t stream);
void referenceOnDevice(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx,
                       cudaStream_t stream);

}  // namespace modescope::cuda
