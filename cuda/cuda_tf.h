// CUDA time-frequency transforms (engine/tf/tf_cpu.h gives the procedure; the host's planTf checks
// the input and builds the windows, the device frames, transforms and squeezes). Host-only header.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_result.h"
#include "engine/tf/tf_tiles.h"

namespace modescope::cuda {

class HostThreadPool;

// What a backend keeps between transforms on its device: the stream, the cuFFT plan of the last
// grid (planning a batch of 10^5 transforms costs tens of milliseconds, more than the transform),
// the device buffers and two pinned staging buffers, so a view that recomputes the page on
// screen as the user scrolls pays for none of them again. Buffers grow on demand; after a call
// whose buffers exceed kTfKeptDeviceBytes they are freed, so a large one-off transform does not
// hold device memory that other methods need. Not thread-safe: one job at a time (as the
// backend).
class TfWorkspace;
struct TfWorkspaceDeleter {
  void operator()(TfWorkspace* w) const noexcept;
};
using TfWorkspacePtr = std::unique_ptr<TfWorkspace, TfWorkspaceDeleter>;
// Creates the workspace on the current device.
TfWorkspacePtr makeTfWorkspace();

inline constexpr std::size_t kTfKeptDeviceBytes = std::size_t{1} << 30;

// Steps 1-3 of tf_cpu.h in float on the current device: the modified STFTs of tiles of
// (channel, column) frames by one batched cuFFT R2C, then one block per frame evaluates the
// operators (engine/tf/tf_operators.h) and relocates without global atomics (cuda/tf_kernels.cuh).
// Each tile's rows come down through a pinned buffer while the next tile is computed, and are
// copied into the result by `pool`. Throws what computeTfCpu throws, plus OutOfDeviceMemoryError
// when not even one frame's J spectra fit, and DeviceError.
TfResult timeFrequencyGpu(const SignalBlock& block, const TfParams& params, JobContext& ctx,
                          TfWorkspace& workspace, HostThreadPool& pool);

// The same transform handed to `sink` tile by tile (engine/tf/tf_tiles.h), never holding the
// image: magnitudes are taken on the device (half the bytes to move); each chunk comes down
// through a pinned buffer and goes to the sink while the device computes the next one. Throws as
// timeFrequencyGpu, and what the sink throws.
TfResult timeFrequencyGpuTiles(const SignalBlock& block, const TfParams& params,
                               TfTileValues values, const TfTileSink& sink, JobContext& ctx,
                               TfWorkspace& workspace);

// The same transform with the image left in device memory: for drawing it through CUDA-OpenGL
// interop, and for measuring the transform without the copy to host memory. `result` receives
// everything but `values` (left empty); the returned pointer holds channels x columns x bins
// complex values in the result's layout and stays valid until the workspace's next call or its
// destruction. Throws as timeFrequencyGpu, and OutOfDeviceMemoryError when the image and one
// tile do not fit together.
const std::complex<float>* timeFrequencyGpuOnDevice(const SignalBlock& block,
                                                    const TfParams& params, JobContext& ctx,
                                                    TfWorkspace& workspace, TfResult& result);

// Copies `values` complex values of a device image (timeFrequencyGpuOnDevice) to `host`.
// Throws DeviceError.
void copyTfImageToHost(const std::complex<float>* image, std::size_t values,
                       std::complex<float>* host);

}  // namespace modescope::cuda
