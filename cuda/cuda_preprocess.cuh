// Preprocessing on the device (internal to cuda/): the body of CudaBackend::applyPipeline, which
// applyReference and applyFir call too. docs/preprocessing.md ("GPU pipeline") explains the design
// and its floor.
//
// The block crosses the host-device link once each way. It is cut into windows of whole rows that
// fit the device (usually one window: the whole block). Per window: chunks of the caller's
// (pageable) memory are copied by several host threads into pinned staging slots and sent to the
// device on the upload stream; the compute stream re-references and filters batches of rows
// (~2^26 samples each) as soon as their rows are on the device (or after the last chunk, when the
// reference signal is computed from the resident window); the download stream brings finished
// rows back through a second set of staging slots, from which the host threads copy them into the
// block. The host copy of one chunk, the DMA of the next and the kernels of a third batch overlap.
// ctx.checkpoint() runs between chunks (a few ms each); on every exit, normal or by exception, the
// three streams are synchronised before any buffer is released.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/device_memory.cuh"
#include "cuda/host_thread_pool.h"
#include "engine/compute/backend.h"

namespace modescope::cuda {

// Rows per compute batch come from this many samples: 2^26 (256 MiB of float32, a few ms of
// kernels on an H100, ~100 ms on a small GPU), or the test override from setCudaTestHooks.
std::int64_t batchSampleBudget();
// Test overrides (setCudaTestHooks); 0 when unset.
std::int64_t chunkSampleLimit();
std::int64_t residentSampleLimit();

// Free device memory minus a reserve for the CUDA context, cuFFT and other processes
// (max(256 MiB, 5 % of the total)).
std::size_t usableDeviceBytes();

// A pinned staging buffer and the event recorded after the last asynchronous copy that used it:
// the host waits for that event before it writes or reads the buffer.
struct StagingSlot {
  PinnedBuffer<float> buffer;
  Event used;
};

// What the backend keeps between calls, created on the backend's device: the three streams, the
// staging slots of each direction (kSlots each, grown on demand, at most 3 x 32 MiB per
// direction) and the host copy threads. Every call leaves the streams idle, so the next one may
// reuse the slots at once. Pinned memory is kept because allocating it costs ~10 ms per 100 MiB.
class PipelineResources {
 public:
  static constexpr int kSlots = 3;  // host copy, DMA, and one spare so neither waits for the other

  Stream compute, upload, download;

  // The slots of one direction, each holding at least `floats` floats. Call between runs only.
  std::vector<StagingSlot>& uploadSlots(std::size_t floats) { return grow(up_, floats); }
  std::vector<StagingSlot>& downloadSlots(std::size_t floats) { return grow(down_, floats); }
  HostThreadPool& pool();

 private:
  static std::vector<StagingSlot>& grow(std::vector<StagingSlot>& slots, std::size_t floats);
  std::vector<StagingSlot> up_, down_;
  std::unique_ptr<HostThreadPool> pool_;
};

// In place on `block`: re-reference with `reference` (when not null and it has targets), then
// each filter in order; equal to the CPU backend's applyReference + applyFir sequence within the
// documented float32 tolerances. Validates everything before any work (InvalidParameterError);
// OutOfDeviceMemoryError when not even one row fits; DeviceError; Cancelled. After an exception the
// block's contents are unspecified (partly processed).
void runPipeline(SignalBlock& block, const ReferencePlan* reference,
                 const std::vector<const FirKernel*>& filters, JobContext& ctx,
                 PipelineResources& resources);

}  // namespace modescope::cuda
