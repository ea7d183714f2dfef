// Device memory for DeviceBuffer (device_memory.cuh), from the current device's stream-ordered
// pool, which keeps what is freed for the next allocation instead of handing it back to the
// driver (internal to cuda/). cudaMalloc and cudaFree map and unmap the pages every time: about
// 10 ms of a 0.16 s ICEEMDAN run on one channel and 85 ms on 64 channels (the ~50 buffers of each
// run; CUPTI timelines on an H200, docs/emd.md), paid again by every run, channel batch and study
// recording. What the pool holds unused still counts as free for the planners (cudaMemoryInfo,
// cuda_backend.h, defined in device_pool.cpp), and an allocation that does not fit hands it back to
// the driver and tries once more. A process that stays open between runs hands it back when idle
// (releaseCudaPooledMemory, also defined there).
#pragma once

#include <cstddef>

namespace modescope::cuda {

// `bytes` (> 0) on the current device, usable by every stream once this returns. Throws
// OutOfDeviceMemoryError when they do not fit even after the pool has handed back what it held.
void* allocateDeviceBytes(std::size_t bytes);
// Back to the pool once all work on the device has finished (as cudaFree, which waits for it).
// Errors are ignored: it runs in destructors, also while another error unwinds.
void releaseDeviceBytes(void* p) noexcept;

}  // namespace modescope::cuda
