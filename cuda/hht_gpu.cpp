// The Hilbert-Huang transform on the device (cuda_hht.h; engine/hht/hht.h defines the quantities,
// hht_kernels.cuh the kernels).
//
// Channels are cut into batches of whole channels (the spectrum of a channel sums over its IMFs)
// that fit the device and the sample budget; per batch, on one stream: upload the IMF rows,
// batched complex FFT forward, analytic weights, inverse, instantaneous amplitude and frequency,
// per-IMF sums, spectrum columns, marginal, download. Arithmetic is float32 (cuFFT C2C) except the
// sums, histograms and marginal, which accumulate in double.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cuda/cuda_hht.h"
#include "cuda/cuda_preprocess.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/hht_kernels.cuh"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope::cuda {
namespace {

// Per-IMF sum blocks: up to 64 per item, each covering at least 4096 samples.
constexpr std::int64_t kSumSamplesPerBlock = 4096;
constexpr int kMaxSumBlocks = 64;
constexpr std::int64_t kMaxChannelsPerBatch = 65535;  // gridDim.y of the spectrum kernel

struct Batch {
  std::size_t firstChannel = 0, lastChannel = 0;  // [first, last) of the result's channels
  std::int64_t items = 0;
};

// One IMF of the run: where its row comes from and where its results go.
struct ItemRef {
  std::size_t channel = 0;  // index into modes.channels / result.channels
  std::size_t slot = 0;     // index into result.channels[channel].imfs
};

class HhtGpuRun {
 public:
  HhtGpuRun(const EmdResult& modes, JobContext& ctx) : modes_(modes), ctx_(ctx) {}

  HhtResult run(const HhtParams& requested) {
    validateHhtParams(requested, modes_);
    ctx_.checkpoint();
    r_ = prepareHhtResult(modes_, requested);
    n_ = modes_.samples;
    edge_ = hhtEdgeSamples(r_.params.edgeSeconds, modes_.sampleRate);
    bins_ = r_.params.frequencyBins;
    cols_ = r_.params.timeBins;
    if (poisonAllocations()) poisonHostOutputs();

    int device = 0;
    MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
    int optinShared = 0;
    MODESCOPE_CUDA_TRY(
        cudaDeviceGetAttribute(&optinShared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    useScratch_ = spectrumSharedBytes(bins_) > static_cast<std::size_t>(optinShared);

    Stream stream;
    const std::vector<Batch> batches = planBatches(stream);
    if (batches.empty()) {
      ctx_.progress(1.0, "Hilbert-Huang spectrum");
      return std::move(r_);
    }
    std::int64_t maxItems = 0;
    std::size_t maxChannels = 0;
    for (const auto& b : batches) {
      maxItems = std::max(maxItems, b.items);
      maxChannels = std::max(maxChannels, b.lastChannel - b.firstChannel);
    }
    const auto n = static_cast<std::size_t>(n_);
    const auto bins = static_cast<std::size_t>(bins_);
    const auto cols = static_cast<std::size_t>(cols_);
    const auto items = static_cast<std::size_t>(maxItems);
    sumBlocks_ = static_cast<int>(std::clamp<std::int64_t>(
        (n_ - 2 * edge_ + kSumSamplesPerBlock - 1) / kSumSamplesPerBlock, 1, kMaxSumBlocks));

    // Plans per distinct batch size, one shared workspace.
    std::map<std::int64_t, FftPlan> plans;
    std::size_t work = 0;
    for (const auto& b : batches) {
      if (b.items == 0 || plans.count(b.items)) continue;
      FftPlan p(n_, b.items, CUFFT_C2C, stream.get());
      work = std::max(work, p.workSize());
      plans.emplace(b.items, std::move(p));
    }
    DeviceBuffer<char> workspace(work);
    for (auto& [count, plan] : plans) plan.setWorkArea(workspace.get());

    DeviceBuffer<float> x(items * n), amplitude(items * n), frequency(items * n);
    DeviceBuffer<float2> z(items * n);
    DeviceBuffer<float> spectrum(maxChannels * bins * cols);
    DeviceBuffer<double> marginal(maxChannels * bins);
    DeviceBuffer<double> partial(items * static_cast<std::size_t>(sumBlocks_) * 3);
    DeviceBuffer<double> scratch(
        useScratch_ ? std::min<std::size_t>(maxChannels, kMaxChannelsPerBatch) *
                          static_cast<std::size_t>(spectrumScratchColumns(cols_)) * bins
                    : 0);
    DeviceBuffer<int> itemBegin(maxChannels + 1);
    DeviceBuffer<std::int64_t> timeEdges(cols + 1);
    DeviceBuffer<double> columnWeight(cols);
    StreamDrain drain(stream);  // declared after the buffers: runs before they are freed

    std::vector<double> weights(cols);
    for (std::size_t j = 0; j < cols; ++j) {
      const std::int64_t s0 = std::max(r_.timeEdges[j], edge_);
      const std::int64_t s1 = std::min(r_.timeEdges[j + 1], n_ - edge_);
      weights[j] = s1 > s0 ? static_cast<double>(s1 - s0) / modes_.sampleRate : 0.0;
    }
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(timeEdges.get(), r_.timeEdges.data(),
                                       (cols + 1) * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                       stream.get()));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(columnWeight.get(), weights.data(), cols * sizeof(double),
                                       cudaMemcpyHostToDevice, stream.get()));

    HhtDeviceGrid grid;
    grid.bins = bins_;
    grid.logScale = r_.params.logFrequency;
    grid.fMin = r_.params.fMin;
    grid.fMax = r_.params.fMax;
    grid.scale =
        grid.logScale ? bins_ / std::log(grid.fMax / grid.fMin) : bins_ / (grid.fMax - grid.fMin);

    std::int64_t doneItems = 0, totalItems = 0;
    for (const auto& b : batches) totalItems += b.items;
    ctx_.progress(0.0, "Hilbert-Huang spectrum");
    for (const auto& b : batches) {
      const auto chans = static_cast<std::int64_t>(b.lastChannel - b.firstChannel);
      std::vector<ItemRef> refs;
      std::vector<int> begin{0};
      for (std::size_t c = b.firstChannel; c < b.lastChannel; ++c) {
        for (std::size_t s = 0; s < r_.channels[c].imfs.size(); ++s) refs.push_back({c, s});
        begin.push_back(static_cast<int>(refs.size()));
      }
      // Upload the rows (pageable: the source is the caller's memory, which outlives the call).
      for (std::size_t i = 0; i < refs.size(); ++i) {
        const auto& ch = modes_.channels[refs[i].channel];
        const float* row = ch.row(r_.channels[refs[i].channel].imfs[refs[i].slot].row, n_);
        MODESCOPE_CUDA_TRY(cudaMemcpyAsync(x.get() + i * n, row, n * sizeof(float),
                                           cudaMemcpyHostToDevice, stream.get()));
      }
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(itemBegin.get(), begin.data(), begin.size() * sizeof(int),
                                         cudaMemcpyHostToDevice, stream.get()));
      if (b.items > 0) {
        const FftPlan& plan = plans.at(b.items);
        launchRealToComplex(x.get(), b.items * n_, z.get(), stream.get());
        MODESCOPE_CUFFT_TRY(cufftExecC2C(plan.get(), reinterpret_cast<cufftComplex*>(z.get()),
                                         reinterpret_cast<cufftComplex*>(z.get()), CUFFT_FORWARD));
        launchAnalyticWeights(z.get(), b.items, n_, stream.get());
        MODESCOPE_CUFFT_TRY(cufftExecC2C(plan.get(), reinterpret_cast<cufftComplex*>(z.get()),
                                         reinterpret_cast<cufftComplex*>(z.get()), CUFFT_INVERSE));
        launchInstantaneous(z.get(), b.items, n_, modes_.sampleRate, amplitude.get(),
                            frequency.get(), stream.get());
        launchImfSums(x.get(), amplitude.get(), frequency.get(), b.items, n_, edge_,
                      modes_.sampleRate / 2.0, sumBlocks_, partial.get(), stream.get());
      }
      launchSpectrumColumns(amplitude.get(), frequency.get(), itemBegin.get(), chans, n_, edge_,
                            timeEdges.get(), cols_, grid, r_.params.quantity == HhtQuantity::Energy,
                            useScratch_ ? scratch.get() : nullptr, spectrum.get(), stream.get());
      launchMarginal(spectrum.get(), chans, bins_, cols_, columnWeight.get(), marginal.get(),
                     stream.get());
      download(b, refs, amplitude, frequency, spectrum, marginal, partial, stream);
      stream.synchronize();
      finishSums(refs);
      doneItems += b.items;
      ctx_.checkpoint();
      ctx_.progress(totalItems ? static_cast<double>(doneItems) / totalItems : 1.0,
                    "Hilbert-Huang spectrum");
    }
    ctx_.progress(1.0, "Hilbert-Huang spectrum");
    return std::move(r_);
  }

 private:
  // The CPU backend's rule (hilbertHuangCpu): rows ascending, rows a channel lacks skipped.

  // Test hook: every output starts as NaN, so whatever the device does not write shows.
  void poisonHostOutputs() {
    const float fnan = std::numeric_limits<float>::quiet_NaN();
    const double dnan = std::numeric_limits<double>::quiet_NaN();
    for (auto& ch : r_.channels) {
      std::fill(ch.spectrum.begin(), ch.spectrum.end(), fnan);
      std::fill(ch.marginal.begin(), ch.marginal.end(), dnan);
      for (auto& imf : ch.imfs) {
        std::fill(imf.amplitude.begin(), imf.amplitude.end(), fnan);
        std::fill(imf.frequencyHz.begin(), imf.frequencyHz.end(), fnan);
        imf.meanFrequencyHz = dnan;
        imf.energy = dnan;
      }
    }
  }

  // Batches of whole channels: items * n within the sample budget (except a batch of one
  // channel) and within the device memory left, with the cuFFT workspace measured on a plan.
  std::vector<Batch> planBatches(const Stream& stream) {
    const auto n = static_cast<std::size_t>(n_);
    const auto bins = static_cast<std::size_t>(bins_);
    const auto cols = static_cast<std::size_t>(cols_);
    std::size_t workPerItem = 0;
    {
      // The workspace of a batched plan grows about linearly with the batch: measure a small one.
      constexpr long long kProbeBatch = 4;
      FftPlan probe(n_, kProbeBatch, CUFFT_C2C, stream.get());
      workPerItem = (probe.workSize() + kProbeBatch - 1) / kProbeBatch;
    }
    // x, amplitude, frequency (float) and z (float2): 20 bytes per sample, plus the workspace.
    const std::size_t perItem = 20 * n + workPerItem + static_cast<std::size_t>(kMaxSumBlocks) * 24;
    const std::size_t perChannel =
        bins * cols * sizeof(float) + bins * sizeof(double) + sizeof(int) +
        (useScratch_ ? static_cast<std::size_t>(spectrumScratchColumns(cols_)) * bins * 8 : 0);
    const std::size_t fixed = (cols + 1) * 8 + cols * 8 + sizeof(int);
    std::size_t usable = usableDeviceBytes();
    usable = usable > fixed ? usable - fixed : 0;
    const std::int64_t budget = batchSampleBudget();
    const std::int64_t resident = residentSampleLimit();

    std::vector<Batch> batches;
    Batch cur;
    std::size_t curBytes = 0;
    for (std::size_t c = 0; c < r_.channels.size(); ++c) {
      const auto k = static_cast<std::int64_t>(r_.channels[c].imfs.size());
      const std::size_t bytes = static_cast<std::size_t>(k) * perItem + perChannel;
      if (bytes > usable || (resident > 0 && k * n_ > resident)) {
        throw OutOfDeviceMemoryError(
            "Hilbert-Huang transform: channel " + std::to_string(modes_.channels[c].channel) +
            " needs " + formatMebibytes(bytes) + " of GPU memory (" + std::to_string(k) +
            " IMFs x " + std::to_string(n_) + " samples, a " + std::to_string(bins_) + " x " +
            std::to_string(cols_) + " spectrum) but only " + formatMebibytes(usable) +
            " are free. Select a shorter time range, fewer IMFs or a smaller grid, close other "
            "GPU programs, or use --backend cpu");
      }
      const std::size_t chans = cur.lastChannel - cur.firstChannel;
      const bool fits = curBytes + bytes <= usable && (cur.items + k) * n_ <= budget &&
                        (resident <= 0 || (cur.items + k) * n_ <= resident) &&
                        static_cast<std::int64_t>(chans) < kMaxChannelsPerBatch;
      if (chans > 0 && !fits) {
        batches.push_back(cur);
        cur = Batch{c, c, 0};
        curBytes = 0;
      }
      if (cur.lastChannel == cur.firstChannel) cur.firstChannel = cur.lastChannel = c;
      cur.lastChannel = c + 1;
      cur.items += k;
      curBytes += bytes;
    }
    if (cur.lastChannel > cur.firstChannel) batches.push_back(cur);
    return batches;
  }

  void download(const Batch& b, const std::vector<ItemRef>& refs, const DeviceBuffer<float>& a,
                const DeviceBuffer<float>& f, const DeviceBuffer<float>& spectrum,
                const DeviceBuffer<double>& marginal, const DeviceBuffer<double>& partial,
                const Stream& stream) {
    const auto n = static_cast<std::size_t>(n_);
    const std::size_t cells = static_cast<std::size_t>(bins_) * static_cast<std::size_t>(cols_);
    if (r_.params.keepInstantaneous) {
      for (std::size_t i = 0; i < refs.size(); ++i) {
        HhtImf& imf = r_.channels[refs[i].channel].imfs[refs[i].slot];
        MODESCOPE_CUDA_TRY(cudaMemcpyAsync(imf.amplitude.data(), a.get() + i * n, n * sizeof(float),
                                           cudaMemcpyDeviceToHost, stream.get()));
        MODESCOPE_CUDA_TRY(cudaMemcpyAsync(imf.frequencyHz.data(), f.get() + i * n,
                                           n * sizeof(float), cudaMemcpyDeviceToHost,
                                           stream.get()));
      }
    }
    for (std::size_t c = b.firstChannel; c < b.lastChannel; ++c) {
      const std::size_t local = c - b.firstChannel;
      auto& ch = r_.channels[c];
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ch.spectrum.data(), spectrum.get() + local * cells,
                                         cells * sizeof(float), cudaMemcpyDeviceToHost,
                                         stream.get()));
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(
          ch.marginal.data(), marginal.get() + local * static_cast<std::size_t>(bins_),
          static_cast<std::size_t>(bins_) * sizeof(double), cudaMemcpyDeviceToHost, stream.get()));
    }
    hostPartial_.resize(refs.size() * static_cast<std::size_t>(sumBlocks_) * 3);
    if (!refs.empty()) {
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostPartial_.data(), partial.get(),
                                         hostPartial_.size() * sizeof(double),
                                         cudaMemcpyDeviceToHost, stream.get()));
    }
  }

  // Mean frequency and energy from the per-block partial sums, added in block order.
  void finishSums(const std::vector<ItemRef>& refs) {
    for (std::size_t i = 0; i < refs.size(); ++i) {
      double weighted = 0.0, weight = 0.0, xx = 0.0;
      for (int blk = 0; blk < sumBlocks_; ++blk) {
        const double* p =
            hostPartial_.data() + (i * static_cast<std::size_t>(sumBlocks_) + blk) * 3;
        weighted += p[0];
        weight += p[1];
        xx += p[2];
      }
      HhtImf& imf = r_.channels[refs[i].channel].imfs[refs[i].slot];
      imf.meanFrequencyHz = weight > 0.0 ? weighted / weight : 0.0;
      imf.energy = xx / modes_.sampleRate;
    }
  }

  const EmdResult& modes_;
  JobContext& ctx_;
  HhtResult r_;
  std::int64_t n_ = 0, edge_ = 0;
  int bins_ = 0, cols_ = 0, sumBlocks_ = 1;
  bool useScratch_ = false;
  std::vector<double> hostPartial_;
};

}  // namespace

HhtResult hilbertHuangGpu(const EmdResult& modes, const HhtParams& params, JobContext& ctx) {
  HhtGpuRun run(modes, ctx);
  return run.run(params);
}

}  // namespace modescope::cuda
