// Page-locked host memory for PinnedBuffer (device_memory.cuh), kept for the next allocation
// instead of handed back to the driver (internal to cuda/). cudaHostAlloc and cudaFreeHost pin and
// unpin the pages every time: the ~10 buffers of a one-channel ICEEMDAN run (statuses, sift
// counts, the IMF rows coming down) took about 1.3 ms of its 85 ms to make and 0.8 ms to free,
// with the device idle (host timestamps, H200, docs/emd.md), paid again by every run. The memory is
// portable (pinned for every device's context), so a buffer kept from a run on one device serves
// a run on another. releaseCudaPooledMemory (cuda_backend.h) hands back what is kept.
#pragma once

#include <cstddef>

namespace modescope::cuda {

// At least `bytes` (> 0) of page-locked host memory. Throws DeviceError where the driver refuses.
void* allocatePinnedBytes(std::size_t bytes);
// Back to the pool (or to the driver, beyond what the pool keeps). p: from allocatePinnedBytes
// (null: nothing). No copy may still use it. Never throws: it runs in destructors.
void releasePinnedBytes(void* p) noexcept;
// Hands back to the driver every unused block the pool keeps.
void releasePinnedPool() noexcept;

}  // namespace modescope::cuda
