#include "cuda/ica_whitening_gpu.h"

#include <algorithm>
#include <string>

#include "cuda/cuda_backend.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope::cuda {
namespace {

// Samples per centred chunk: 256 channels x 65,536 samples is 128 MiB of doubles, enough for
// cuBLAS to run at full rate and small beside the resident data.
constexpr std::int64_t kChunkSamples = std::int64_t{1} << 16;

}  // namespace

DeviceIcaBlock::DeviceIcaBlock(const SignalBlock& block)
    : channels_(static_cast<int>(block.channels.size())),
      samples_(block.samples),
      chunk_(std::min(kChunkSamples, std::max<std::int64_t>(block.samples, 1))),
      blas_(stream_.get()) {
  const auto c = static_cast<std::size_t>(channels_);
  const auto n = static_cast<std::size_t>(samples_);
  const auto chunk = static_cast<std::size_t>(chunk_);
  // The product buffer holds a covariance or a chunk of sphered rows (at most 256 + padding
  // components, which never exceed the channels rounded up to 64).
  const std::size_t rowsBound = (c + 63) / 64 * 64;
  const std::size_t productCount = std::max(c * c, rowsBound * chunk);
  const std::size_t bytes = c * n * sizeof(float) + (c * chunk + c + productCount) * sizeof(double);
  const std::size_t freeBytes = cudaMemoryInfo().freeBytes;
  if (bytes > freeBytes)
    throw OutOfDeviceMemoryError(
        "ICA on the GPU whitens the block on the device: " + std::to_string(channels_) +
        " channels x " + std::to_string(samples_) + " samples need " + formatMebibytes(bytes) +
        "; " + formatMebibytes(freeBytes) +
        " of GPU memory is free. Use a shorter time range, fewer channels, or the CPU backend");
  raw_ = DeviceBuffer<float>(c * n);
  centred_ = DeviceBuffer<double>(c * chunk);
  mean_ = DeviceBuffer<double>(c);
  product_ = DeviceBuffer<double>(productCount);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(raw_.get(), block.data.data(), c * n * sizeof(float),
                                     cudaMemcpyHostToDevice, stream_.get()));
}

void DeviceIcaBlock::moments(std::vector<double>& mean, std::vector<double>& covariance) {
  const auto c = static_cast<std::size_t>(channels_);
  launchChannelMeans(raw_.get(), channels_, samples_, mean_.get(), stream_.get());
  for (std::int64_t t0 = 0; t0 < samples_; t0 += chunk_) {
    const std::int64_t len = std::min(chunk_, samples_ - t0);
    launchCentreChunk(raw_.get(), channels_, samples_, t0, len, mean_.get(), centred_.get(),
                      stream_.get());
    blas_.gramLowerDouble(centred_.get(), len, channels_, len, product_.get(), t0 > 0);
  }
  mean.resize(c);
  covariance.resize(c * c);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(mean.data(), mean_.get(), c * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(covariance.data(), product_.get(), c * c * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_.get()));
  stream_.synchronize();
  // DSYRK wrote the lower triangle: mirror it, then scale as the CPU does (sum / (n - 1)).
  const double scale = 1.0 / static_cast<double>(samples_ - 1);
  for (std::size_t j = 0; j < c; ++j)
    for (std::size_t i = j; i < c; ++i) {
      const double v = covariance[j * c + i] * scale;
      covariance[j * c + i] = v;
      covariance[i * c + j] = v;
    }
}

void DeviceIcaBlock::sphere(const double* mean, const double* sphere, const SpheredRows& rows,
                            float* out) {
  const auto c = static_cast<std::size_t>(channels_);
  const auto r = static_cast<std::size_t>(rows.components);
  if (rows.components < 1 || rows.components > rows.row)
    throw DeviceError("sphered rows of " + std::to_string(rows.row) + " floats cannot hold " +
                      std::to_string(rows.components) + " components");
  const std::size_t productCount =
      static_cast<std::size_t>(rows.row) * static_cast<std::size_t>(chunk_);
  if (productCount > product_.size()) product_ = DeviceBuffer<double>(productCount);
  DeviceBuffer<double> sphereOnDevice(r * c);
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(mean_.get(), mean, c * sizeof(double), cudaMemcpyHostToDevice,
                                     stream_.get()));
  MODESCOPE_CUDA_TRY(cudaMemcpyAsync(sphereOnDevice.get(), sphere, r * c * sizeof(double),
                                     cudaMemcpyHostToDevice, stream_.get()));
  for (std::int64_t t0 = 0; t0 < samples_; t0 += chunk_) {
    const std::int64_t len = std::min(chunk_, samples_ - t0);
    launchCentreChunk(raw_.get(), channels_, samples_, t0, len, mean_.get(), centred_.get(),
                      stream_.get());
    blas_.multiplyByTransposeDouble(sphereOnDevice.get(), rows.components, channels_,
                                    centred_.get(), len, len, product_.get(), rows.row);
    launchPackSphered(product_.get(), len, rows, out + t0 * rows.row, stream_.get());
  }
  stream_.synchronize();
}

}  // namespace modescope::cuda

namespace modescope {

void cudaIcaMoments(const SignalBlock& block, std::vector<double>& mean,
                    std::vector<double>& covariance) {
  cuda::DeviceIcaBlock raw(block);
  raw.moments(mean, covariance);
}

std::vector<float> cudaIcaSphered(const SignalBlock& block, const std::vector<double>& mean,
                                  const std::vector<double>& sphere, int components, bool tf32) {
  cuda::DeviceIcaBlock raw(block);
  cuda::SpheredRows rows;
  rows.components = components;
  rows.row = components;
  rows.tf32 = tf32;
  const std::size_t count =
      static_cast<std::size_t>(block.samples) * static_cast<std::size_t>(components);
  cuda::DeviceBuffer<float> out(count);
  raw.sphere(mean.data(), sphere.data(), rows, out.get());
  std::vector<float> host(count);
  MODESCOPE_CUDA_TRY(
      cudaMemcpy(host.data(), out.get(), count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace modescope
