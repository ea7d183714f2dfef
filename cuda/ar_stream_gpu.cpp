// The streamed BCI features on the device (engine/ar/ar_stream.h gives the procedure). Everything
// a push needs stays allocated on the device between pushes: the filter matrix, a ring of the
// last N filtered samples per output, the outputs. A push is one upload of the new samples, one
// SGEMM (or two where the ring wraps) writing straight into the ring, the finite check, one
// launch of the Burg kernel over every output's window, and one download: the block crosses the
// host-device link once each way (the seed's "path B").
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
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

class GpuArStream final : public ArStream {
 public:
  explicit GpuArStream(const ArStreamConfig& config)
      : config_(config), stream_(), blas_(stream_.get()) {
    validateArStreamConfig(config_);
    MODESCOPE_CUDA_TRY(cudaGetDevice(&device_));
    int optin = 0;
    MODESCOPE_CUDA_TRY(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    maxShared_ = static_cast<std::size_t>(optin);
    const ArResolvedLengths len = resolveArLengths(config_.params, config_.sampleRate);
    n_ = len.windowSamples;
    if (n_ > INT_MAX)
      throw InvalidParameterError("window", std::to_string(n_) + " samples", "at most 2^31 - 1");
    inputs_ = config_.filter ? config_.filter->inputCount() : config_.channels;
    outputs_ = config_.filter ? config_.filter->outputCount() : config_.channels;
    bins_ = arBinCenters(config_.params);
    const std::vector<double> omegas = arEvaluationAngles(config_.params, config_.sampleRate);
    std::vector<double> c(omegas.size()), s(omegas.size());
    for (std::size_t i = 0; i < omegas.size(); ++i) {
      c[i] = std::cos(omegas[i]);
      s[i] = std::sin(omegas[i]);
    }
    cos_ = DeviceBuffer<double>(c.size());
    sin_ = DeviceBuffer<double>(s.size());
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(cos_.get(), c.data(), c.size() * sizeof(double), cudaMemcpyHostToDevice));
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(sin_.get(), s.data(), s.size() * sizeof(double), cudaMemcpyHostToDevice));
    if (config_.filter) {
      const std::vector<float> w(config_.filter->matrix.begin(), config_.filter->matrix.end());
      matrix_ = DeviceBuffer<float>(w.size());
      MODESCOPE_CUDA_TRY(
          cudaMemcpy(matrix_.get(), w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    ring_ = DeviceBuffer<float>(outputs_ * static_cast<std::size_t>(n_));
    values_ = DeviceBuffer<float>(outputs_ * bins_.size());
    noise_ = DeviceBuffer<float>(outputs_);
    reached_ = DeviceBuffer<int>(outputs_);
    firstBad_ = DeviceBuffer<unsigned long long>(1);
    hostValues_ = PinnedBuffer<float>(outputs_ * bins_.size());
    hostNoise_ = PinnedBuffer<float>(outputs_);
    hostReached_ = PinnedBuffer<int>(outputs_);
    hostBad_ = PinnedBuffer<unsigned long long>(1);
    if (burgNeedsScratch(static_cast<int>(n_), config_.params.order, maxShared_)) {
      scratchSlots_ = static_cast<int>(std::min<std::size_t>(outputs_, 2048));
      scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(scratchSlots_) * 2 * n_);
    }
  }

  ~GpuArStream() override { cudaStreamSynchronize(stream_.get()); }

  std::size_t inputCount() const override { return inputs_; }
  std::size_t outputCount() const override { return outputs_; }
  std::size_t binCount() const override { return bins_.size(); }
  const std::vector<double>& binCenters() const override { return bins_; }

  void reset() override {
    head_ = 0;
    pushed_ = 0;
  }

  ArStreamUpdate push(const float* samples, int64_t count) override {
    if (samples == nullptr || count < 1)
      throw InvalidParameterError("block",
                                  count < 1 ? std::to_string(count) + " samples" : "no samples",
                                  "at least 1 sample per input row");
    MODESCOPE_CUDA_TRY(cudaSetDevice(device_));
    const auto cnt = static_cast<std::size_t>(count);
    ensureInputCapacity(cnt);
    std::memcpy(hostIn_.get(), samples, inputs_ * cnt * sizeof(float));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(in_.get(), hostIn_.get(), inputs_ * cnt * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_.get()));
    *hostBad_.get() = ULLONG_MAX;
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(firstBad_.get(), hostBad_.get(), sizeof(unsigned long long),
                                       cudaMemcpyHostToDevice, stream_.get()));
    launchFindNonFinite(in_.get(), static_cast<int>(inputs_), count, count, firstBad_.get(),
                        stream_.get());

    // Only the last N samples can reach the window: filter those into the ring at head_.
    const int64_t keep = std::min<int64_t>(count, n_);
    const int64_t skip = count - keep;
    const int64_t first = std::min<int64_t>(keep, n_ - head_);  // up to the ring's end
    writeRing(skip, head_, first, count);
    if (keep > first) writeRing(skip + first, 0, keep - first, count);
    head_ = (head_ + keep) % n_;
    pushed_ += count;

    ArStreamUpdate u;
    u.pushedSamples = pushed_;
    const bool ready = pushed_ >= n_;
    if (ready) {
      BurgBatch b;
      b.data = ring_.get();
      b.rowStride = n_;
      b.ring = n_;
      b.firstStart = head_;  // the ring is full: the oldest sample sits where the next goes
      b.step = 0;
      b.rows = static_cast<int>(outputs_);
      b.windows = 1;
      b.n = static_cast<int>(n_);
      b.order = config_.params.order;
      b.detrend = static_cast<int>(config_.params.detrend);
      b.output = static_cast<int>(config_.params.output);
      b.cosOmega = cos_.get();
      b.sinOmega = sin_.get();
      b.bins = static_cast<int>(bins_.size());
      b.evals = config_.params.evaluationsPerBin;
      b.scale = 2.0 / config_.sampleRate;
      b.values = values_.get();
      b.noise = noise_.get();
      b.orderReached = reached_.get();
      b.scratch = scratch_.get();
      b.scratchSlots = scratchSlots_;
      launchBurgWindows(b, maxShared_, stream_.get());
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostValues_.get(), values_.get(),
                                         outputs_ * bins_.size() * sizeof(float),
                                         cudaMemcpyDeviceToHost, stream_.get()));
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostNoise_.get(), noise_.get(), outputs_ * sizeof(float),
                                         cudaMemcpyDeviceToHost, stream_.get()));
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostReached_.get(), reached_.get(), outputs_ * sizeof(int),
                                         cudaMemcpyDeviceToHost, stream_.get()));
    }
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostBad_.get(), firstBad_.get(), sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    const unsigned long long bad = *hostBad_.get();
    if (bad != ULLONG_MAX) {
      const std::size_t row = static_cast<std::size_t>(bad / cnt),
                        sample = static_cast<std::size_t>(bad % cnt);
      const float v = samples[row * cnt + sample];
      const int64_t streamSample = pushed_ - count + static_cast<int64_t>(sample);
      reset();  // the contract: the next push starts a fresh window
      // The CPU stream's words (engine/ar/ar_stream_cpu.cpp), so both backends say the same.
      throw InvalidInputError(
          "AR stream input row " + std::to_string(row) + inputName(row),
          "sample " + std::to_string(sample) + " of the pushed block (sample " +
              std::to_string(streamSample) + " since the stream started)",
          std::isnan(v) ? "NaN" : "an infinite value", "finite samples",
          "exclude the channel or skip the bad stretch; the stream was reset and refills its "
          "window from the next block");
    }
    if (!ready) return u;
    u.ready = true;
    u.values.assign(hostValues_.get(), hostValues_.get() + outputs_ * bins_.size());
    u.noiseVariance.assign(hostNoise_.get(), hostNoise_.get() + outputs_);
    for (std::size_t o = 0; o < outputs_; ++o) {
      const int got = hostReached_.get()[o];
      if (got < 0)
        ++u.flatOutputs;
      else if (got < config_.params.order)
        ++u.reducedOrderOutputs;
    }
    return u;
  }

 private:
  std::string inputName(std::size_t row) const {
    if (config_.filter && row < config_.filter->inputNames.size() &&
        !config_.filter->inputNames[row].empty())
      return " (" + config_.filter->inputNames[row] + ")";
    return "";
  }

  void ensureInputCapacity(std::size_t count) {
    if (count <= capacity_) return;
    stream_.synchronize();
    in_ = DeviceBuffer<float>(inputs_ * count);
    hostIn_ = PinnedBuffer<float>(inputs_ * count);
    capacity_ = count;
  }

  // Columns [column, column + width) of the pushed block (row stride `stride`) through the
  // filter into ring columns [at, at + width).
  void writeRing(int64_t column, int64_t at, int64_t width, int64_t stride) {
    if (width <= 0) return;
    if (config_.filter) {
      blas_.filterRows(matrix_.get(), static_cast<int>(outputs_), static_cast<int>(inputs_),
                       in_.get() + column, stride, ring_.get() + at, n_, width);
    } else {
      MODESCOPE_CUDA_TRY(cudaMemcpy2DAsync(ring_.get() + at, n_ * sizeof(float), in_.get() + column,
                                           stride * sizeof(float), width * sizeof(float), outputs_,
                                           cudaMemcpyDeviceToDevice, stream_.get()));
    }
  }

  ArStreamConfig config_;
  Stream stream_;
  BlasHandle blas_;
  int device_ = 0;
  std::size_t maxShared_ = 0;
  int64_t n_ = 0;
  std::size_t inputs_ = 0, outputs_ = 0;
  std::vector<double> bins_;
  DeviceBuffer<double> cos_, sin_;
  DeviceBuffer<float> matrix_, ring_, values_, noise_, in_, scratch_;
  DeviceBuffer<int> reached_;
  DeviceBuffer<unsigned long long> firstBad_;
  PinnedBuffer<float> hostValues_, hostNoise_, hostIn_;
  PinnedBuffer<int> hostReached_;
  PinnedBuffer<unsigned long long> hostBad_;
  std::size_t capacity_ = 0;
  int scratchSlots_ = 0;
  int64_t head_ = 0;
  int64_t pushed_ = 0;
};

}  // namespace

std::unique_ptr<ArStream> openArStreamGpu(const ArStreamConfig& config) {
  return std::make_unique<GpuArStream>(config);
}

}  // namespace modescope::cuda
