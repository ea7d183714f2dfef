// Zero-phase FIR filtering on the device: batched overlap-save with cuFFT (cuda_preprocess.cuh).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/preprocess_kernels.cuh"
#include "engine/compute/cpu_backend.h"
#include "engine/core/error.h"

namespace modescope::cuda {
namespace {

std::int64_t nextPow2(std::int64_t v) {
  std::int64_t p = 2;
  while (p < v) p <<= 1;
  return p;
}

// FFT length on the device: about 4x the taps (wrap-around overhead taps/fftSize <= 25 %) and at
// least 4096 so each transform fills the GPU's warps; never longer than one segment covering the
// whole row. Powers of two keep cuFFT on its fastest single-pass kernels for these sizes.
int deviceFftSize(std::int64_t taps, std::int64_t samples) {
  const std::int64_t minimum = nextPow2(taps);
  const std::int64_t target = std::max<std::int64_t>(nextPow2(4 * taps), 4096);
  const std::int64_t whole = nextPow2(samples + taps - 1);
  return static_cast<int>(std::max(minimum, std::min(target, whole)));
}

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

void checkInputs(const SignalBlock& block, const FirKernel& fir) {
  if (fir.taps.empty() || fir.taps.size() % 2 == 0) {
    throw InvalidParameterError("FIR kernel", std::to_string(fir.taps.size()) + " taps",
                                "an odd, non-zero number of taps (linear phase, zero delay)",
                                "Design filters with designFir()");
  }
  if (fir.taps.size() > (std::size_t{1} << 24)) {
    throw InvalidParameterError("FIR kernel", std::to_string(fir.taps.size()) + " taps",
                                "at most 16777216 taps", "Use a wider transition band");
  }
  for (double t : fir.taps) {
    if (!std::isfinite(t)) {
      throw InvalidParameterError("FIR kernel", "a non-finite tap", "finite taps",
                                  "Design filters with designFir()");
    }
  }
  const std::size_t expected =
      block.channels.size() * static_cast<std::size_t>(std::max<int64_t>(block.samples, 0));
  if (block.samples < 0 || block.data.size() != expected) {
    throw InvalidParameterError("signal block", std::to_string(block.data.size()) + " samples",
                                std::to_string(expected) + " (channels x samples)",
                                "Build blocks with extractBlock()");
  }
}

struct BatchBuffers {
  DeviceBuffer<float> rows;   // batch x samples: input, then output
  DeviceBuffer<float> seg;    // batch x segments x fftSize
  DeviceBuffer<float2> spec;  // batch x segments x bins
  FftPlan forward, inverse;
};

}  // namespace

void filterOnDevice(SignalBlock& block, const FirKernel& fir, JobContext& ctx,
                    cudaStream_t stream) {
  checkInputs(block, fir);
  const std::int64_t rows = static_cast<std::int64_t>(block.channels.size());
  const std::int64_t n = block.samples;
  if (rows == 0 || n == 0) return;
  ctx.checkpoint();

  SegmentLayout l;
  l.samples = n;
  l.taps = static_cast<int>(fir.taps.size());
  l.half = (l.taps - 1) / 2;
  l.pad = std::min<std::int64_t>(l.half, n - 1);
  l.fftSize = deviceFftSize(l.taps, n);
  l.valid = l.fftSize - l.taps + 1;
  l.segments = (n + l.valid - 1) / l.valid;
  const int bins = l.fftSize / 2 + 1;

  // The kernel's spectrum in double on the host (the CPU backend's), scaled by 1/fftSize for
  // cuFFT's unnormalised inverse, rounded once to float.
  const auto spectrum = firSpectrum(fir.taps, static_cast<std::size_t>(l.fftSize));
  std::vector<float2> hostKernel(bins);
  const double scale = 1.0 / l.fftSize;
  for (int f = 0; f < bins; ++f) {
    hostKernel[f] = make_float2(static_cast<float>(spectrum[f].real() * scale),
                                static_cast<float>(spectrum[f].imag() * scale));
  }
  DeviceBuffer<float2> kernel(bins);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(kernel.get(), hostKernel.data(), bins * sizeof(float2),
                                     cudaMemcpyHostToDevice, stream));

  const std::size_t perChannel = static_cast<std::size_t>(n) * sizeof(float) +
                                 static_cast<std::size_t>(l.segments) * l.fftSize * sizeof(float) +
                                 static_cast<std::size_t>(l.segments) * bins * sizeof(float2);
  const std::string oneChannel =
      "FIR filtering one channel of " + std::to_string(n) + " samples (" +
      std::to_string(l.taps) + " taps, FFT length " + std::to_string(l.fftSize) + ") needs " +
      mib(perChannel) + " of GPU memory";
  const std::size_t usable = usableDeviceBytes();
  if (perChannel > usable) {
    throw OutOfDeviceMemoryError(oneChannel + ", but only " + mib(usable) +
                                 " are free. Select a shorter time range, close other GPU "
                                 "programs, or use --backend cpu");
  }
  std::int64_t batch = std::min<std::int64_t>(
      {rows, static_cast<std::int64_t>(usable / perChannel),
       std::max<std::int64_t>(1, batchSampleBudget() / n)});

  // cuFFT's workspace is known only once a plan exists: halve the batch until everything fits.
  BatchBuffers b;
  for (;;) {
    try {
      b.rows = DeviceBuffer<float>(static_cast<std::size_t>(batch * n));
      b.seg = DeviceBuffer<float>(static_cast<std::size_t>(batch * l.segments) * l.fftSize);
      b.spec = DeviceBuffer<float2>(static_cast<std::size_t>(batch * l.segments) * bins);
      b.forward = FftPlan(l.fftSize, batch * l.segments, CUFFT_R2C, stream);
      b.inverse = FftPlan(l.fftSize, batch * l.segments, CUFFT_C2R, stream);
      break;
    } catch (const OutOfDeviceMemoryError& e) {
      b = BatchBuffers{};
      if (batch == 1) {
        throw OutOfDeviceMemoryError(oneChannel + " plus cuFFT workspace, which does not fit (" +
                                     e.what() + ")");
      }
      batch = (batch + 1) / 2;
    }
  }

  for (std::int64_t c0 = 0; c0 < rows; c0 += batch) {
    ctx.checkpoint();
    const std::int64_t c = std::min(batch, rows - c0);
    if (c * l.segments != b.forward.batch()) {  // the last, shorter batch
      b.forward.reset();
      b.inverse.reset();
      b.forward = FftPlan(l.fftSize, c * l.segments, CUFFT_R2C, stream);
      b.inverse = FftPlan(l.fftSize, c * l.segments, CUFFT_C2R, stream);
    }
    float* host = block.channel(static_cast<std::size_t>(c0));
    const std::size_t bytes = static_cast<std::size_t>(c * n) * sizeof(float);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(b.rows.get(), host, bytes, cudaMemcpyHostToDevice, stream));
    launchGatherSegments(b.rows.get(), c, l, b.seg.get(), stream);
    MODESCOPE_CUFFT_TRY(cufftExecR2C(b.forward.get(), b.seg.get(), b.spec.get()));
    MODESCOPE_CUDA_CHECK_LAUNCH("cufftExecR2C", stream);
    launchMultiplySpectrum(b.spec.get(), kernel.get(), c * l.segments, bins, stream);
    MODESCOPE_CUFFT_TRY(cufftExecC2R(b.inverse.get(), b.spec.get(), b.seg.get()));
    MODESCOPE_CUDA_CHECK_LAUNCH("cufftExecC2R", stream);
    launchScatterSegments(b.seg.get(), c, l, b.rows.get(), stream);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(host, b.rows.get(), bytes, cudaMemcpyDeviceToHost, stream));
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream));
    ctx.progress(static_cast<double>(c0 + c) / static_cast<double>(rows),
                 "filtering on the GPU " + std::to_string(c0 + c) + "/" + std::to_string(rows));
  }
  ctx.checkpoint();
}

}  // namespace modescope::cuda
