// Spatial filters and Burg AR spectra of whole blocks on the device (cuda_ar.h). The checks,
// the result frame, the evaluation angles and the diagnostics are the CPU's own host code
// (engine/ar/ar_spectrum.h, engine/spatial/spatial_filter.h); the device does the arithmetic.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/ar_kernels.cuh"
#include "cuda/blas_handle.h"
#include "cuda/cuda_ar.h"
#include "cuda/device_memory.cuh"
#include "engine/ar/ar_spectrum.h"
#include "engine/core/error.h"

namespace modescope::cuda {
namespace {

// Rows per launch of the AR kernel: about this many windows, so progress and cancel come every
// few milliseconds on a long recording without starving the GPU of warps.
constexpr std::int64_t kWindowsPerLaunch = 1 << 16;
// Scratch warps when a window is too long for shared memory (2 N floats each).
constexpr int kScratchSlots = 2048;

std::size_t optinSharedBytes() {
  int device = 0, bytes = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(bytes);
}

// The filter's input rows of the block, column order, row-major (C_in x samples) on the host.
std::vector<float> gatherInputs(const SignalBlock& block, const std::vector<std::size_t>& rows) {
  const auto s = static_cast<std::size_t>(block.samples);
  std::vector<float> in(rows.size() * s);
  for (std::size_t c = 0; c < rows.size(); ++c)
    std::copy_n(block.channel(rows[c]), s, in.data() + c * s);
  return in;
}

// The block's rows (through the filter when given) on the device: rows x samples, row-major.
DeviceBuffer<float> uploadFiltered(const SpatialFilter* filter, const SignalBlock& block,
                                   const Stream& stream, std::size_t& rows) {
  const auto s = static_cast<std::size_t>(block.samples);
  if (filter == nullptr) {
    rows = block.channels.size();
    DeviceBuffer<float> d(rows * s);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(d.get(), block.data.data(), rows * s * sizeof(float),
                                       cudaMemcpyHostToDevice, stream.get()));
    return d;
  }
  const std::vector<float> in = gatherInputs(block, spatialFilterInputRows(*filter, block));
  rows = filter->outputCount();
  DeviceBuffer<float> dIn(in.size()), dB(filter->matrix.size()), dOut(rows * s);
  const std::vector<float> weights(filter->matrix.begin(), filter->matrix.end());
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dIn.get(), in.data(), in.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dB.get(), weights.data(), weights.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream.get()));
  BlasHandle blas(stream.get());
  blas.filterRows(dB.get(), static_cast<int>(rows), static_cast<int>(filter->inputCount()),
                  dIn.get(), block.samples, dOut.get(), block.samples, block.samples);
  // dIn and dB are freed at return: cudaFree waits for the GEMM that reads them.
  return dOut;
}

}  // namespace

SignalBlock spatialFilterGpu(const SpatialFilter& filter, const SignalBlock& block,
                             JobContext& ctx) {
  spatialFilterInputRows(filter, block);  // the CPU's checks and messages, before any work
  ctx.checkpoint();
  SignalBlock out = spatialFilterOutputFrame(filter, block);
  Stream stream;
  std::size_t rows = 0;
  const DeviceBuffer<float> d = uploadFiltered(&filter, block, stream, rows);
  out.data.resize(rows * static_cast<std::size_t>(block.samples));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(out.data.data(), d.get(), out.data.size() * sizeof(float),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  ctx.progress(1.0, "spatial filter");
  return out;
}

ArSpectrumResult arSpectraGpu(const SpatialFilter* filter, const SignalBlock& block,
                              const BurgArParams& params, JobContext& ctx) {
  // Host checks first (the CPU's code and messages): the filter and the raw samples, then the
  // shape of what the AR stage sees. Finite inputs through finite weights stay finite.
  if (filter != nullptr) spatialFilterInputRows(*filter, block);
  checkArBlock(block);
  SignalBlock filteredShape;  // the filter's outputs: same samples, rows 0..C_out-1, no data
  if (filter != nullptr) filteredShape = spatialFilterOutputFrame(*filter, block);
  const SignalBlock& shape = filter ? filteredShape : block;
  ArSpectrumResult r = arResultFrame(shape, params);
  ctx.checkpoint();

  const std::vector<double> omegas = arEvaluationAngles(params, block.sampleRate);
  std::vector<double> cosW(omegas.size()), sinW(omegas.size());
  for (std::size_t i = 0; i < omegas.size(); ++i) {
    cosW[i] = std::cos(omegas[i]);
    sinW[i] = std::sin(omegas[i]);
  }
  const std::size_t windows = r.windowCount();
  const std::size_t perWindow = r.valuesPerWindow();

  Stream stream;
  std::size_t rows = 0;
  const DeviceBuffer<float> data = uploadFiltered(filter, block, stream, rows);
  const std::size_t items = rows * windows;
  DeviceBuffer<double> dCos(cosW.size()), dSin(sinW.size());
  DeviceBuffer<float> dValues(items * perWindow), dNoise(items);
  DeviceBuffer<int> dReached(items);
  const std::size_t shared = optinSharedBytes();
  const bool scratchNeeded =
      burgNeedsScratch(static_cast<int>(r.windowSamples), params.order, shared);
  DeviceBuffer<float> scratch(scratchNeeded ? std::size_t{kScratchSlots} * 2 * r.windowSamples : 0);
  StreamDrain drain(stream);
  if (!cosW.empty()) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dCos.get(), cosW.data(), cosW.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream.get()));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dSin.get(), sinW.data(), sinW.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream.get()));
  }

  BurgBatch b;
  b.rowStride = block.samples;
  b.firstStart = 0;
  b.step = r.stepSamples;
  b.windows = static_cast<int>(windows);
  b.n = static_cast<int>(r.windowSamples);
  b.order = params.order;
  b.detrend = static_cast<int>(params.detrend);
  b.output = static_cast<int>(params.output);
  b.cosOmega = dCos.get();
  b.sinOmega = dSin.get();
  b.bins = static_cast<int>(r.binCenters.size());
  b.evals = params.evaluationsPerBin;
  b.scale = 2.0 / block.sampleRate;
  b.scratch = scratch.get();
  b.scratchSlots = scratchNeeded ? kScratchSlots : 0;
  const std::size_t rowsPerLaunch =
      std::max<std::size_t>(1, static_cast<std::size_t>(kWindowsPerLaunch) / windows);
  for (std::size_t row0 = 0; row0 < rows; row0 += rowsPerLaunch) {
    const std::size_t count = std::min(rowsPerLaunch, rows - row0);
    b.data = data.get() + row0 * static_cast<std::size_t>(block.samples);
    b.rows = static_cast<int>(count);
    b.values = dValues.get() + row0 * windows * perWindow;
    b.noise = dNoise.get() + row0 * windows;
    b.orderReached = dReached.get() + row0 * windows;
    launchBurgWindows(b, shared, stream.get());
    stream.synchronize();
    ctx.progress(
        static_cast<double>(row0 + count) / rows,
        "AR spectra: " + std::to_string(row0 + count) + "/" + std::to_string(rows) + " channels");
    ctx.checkpoint();
  }

  std::vector<int> reached(items);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(r.values.data(), dValues.get(),
                                     r.values.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                     stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(r.noiseVariance.data(), dNoise.get(), items * sizeof(float),
                                     cudaMemcpyDeviceToHost, stream.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(reached.data(), dReached.get(), items * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();

  std::vector<ArChannelCounts> counts(rows);
  for (std::size_t c = 0; c < rows; ++c) {
    ArChannelCounts& cc = counts[c];
    cc.minOrder = params.order;
    for (std::size_t w = 0; w < windows; ++w) {
      const int got = reached[c * windows + w];
      if (got < 0) {
        ++cc.flat;
      } else if (got < params.order) {
        ++cc.reduced;
        cc.minOrder = std::min(cc.minOrder, got);
      }
    }
  }
  addArDiagnostics(r, shape, counts);
  ctx.progress(1.0, "AR spectra done");
  return r;
}

}  // namespace modescope::cuda
