// The preprocessing pipeline on the device (cuda_preprocess.cuh): memory plan, staged transfers
// on their own streams, batched re-referencing and overlap-save FIR filtering.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_preprocess.cuh"
#include "cuda/preprocess_kernels.cuh"
#include "engine/compute/cpu_backend.h"
#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope::cuda {
namespace {

// Staging chunk: 1/16 of a window, between 4 and 32 MiB. Large enough that the per-chunk costs
// (waking the copy threads, a copy call, an event) stay near 5 % of the copy itself; small enough
// that the first chunk's copy, which nothing overlaps, is short and checkpoints come every few ms.
constexpr std::size_t kMinChunkFloats = std::size_t{1} << 20;
constexpr std::size_t kMaxChunkFloats = std::size_t{8} << 20;
// Batches enqueued ahead of the download once the whole window is resident (the reference
// case): enough to keep the compute stream busy, few enough that a cancel waits for little.
constexpr std::int64_t kLookahead = 2;
// Columns per host work item when the reference signal is computed on the host.
constexpr std::int64_t kHostReferenceColumns = 32768;

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

// ---- validation (the CPU backend's rules and messages) ----------------------------------------

void checkBlock(const SignalBlock& block) {
  const std::size_t expected =
      block.channels.size() * static_cast<std::size_t>(std::max<int64_t>(block.samples, 0));
  if (block.samples < 0 || block.data.size() != expected) {
    throw InvalidParameterError("signal block", std::to_string(block.data.size()) + " samples",
                                std::to_string(expected) + " (channels x samples)",
                                "Build blocks with extractBlock()");
  }
}

void checkFir(const FirKernel& fir) {
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
}

void checkPlan(const SignalBlock& block, const ReferencePlan& plan) {
  const std::size_t rows = block.channels.size();
  if (plan.sources.size() != plan.weights.size()) {
    throw InvalidParameterError("reference plan",
                                std::to_string(plan.sources.size()) + " sources and " +
                                    std::to_string(plan.weights.size()) + " weights",
                                "one weight per source", "Build plans with planReference()");
  }
  if (plan.sources.size() > static_cast<std::size_t>(INT_MAX)) {
    throw InvalidParameterError("reference plan", std::to_string(plan.sources.size()) + " sources",
                                "at most " + std::to_string(INT_MAX) + " sources");
  }
  for (const auto* list : {&plan.sources, &plan.targets}) {
    for (std::size_t r : *list) {
      if (r >= rows) {
        throw InvalidParameterError(
            "reference plan", "row " + std::to_string(r),
            "a row below " + std::to_string(rows) + " (the block's channel count)",
            "Build plans with planReference() for this block");
      }
    }
  }
}

// ---- one filter's overlap-save layout and kernel spectrum --------------------------------------

struct FilterStage {
  SegmentLayout layout;
  int bins = 0;
  std::vector<float2> spectrum;  // scaled by 1/fftSize for cuFFT's unnormalised inverse

  std::size_t segFloatsPerRow() const {
    return static_cast<std::size_t>(layout.segments) * static_cast<std::size_t>(layout.fftSize);
  }
  std::size_t specPerRow() const {
    return static_cast<std::size_t>(layout.segments) * static_cast<std::size_t>(bins);
  }
};

FilterStage makeStage(const FirKernel& fir, std::int64_t n) {
  FilterStage s;
  SegmentLayout& l = s.layout;
  l.samples = n;
  l.taps = static_cast<int>(fir.taps.size());
  l.half = (l.taps - 1) / 2;
  l.pad = std::min<std::int64_t>(l.half, n - 1);
  l.fftSize = deviceFftSize(l.taps, n);
  l.valid = l.fftSize - l.taps + 1;
  l.segments = (n + l.valid - 1) / l.valid;
  s.bins = l.fftSize / 2 + 1;
  // The kernel's spectrum in double on the host (the CPU backend's), rounded once to float.
  const auto spectrum = firSpectrum(fir.taps, static_cast<std::size_t>(l.fftSize));
  const double scale = 1.0 / l.fftSize;
  s.spectrum.resize(static_cast<std::size_t>(s.bins));
  for (int f = 0; f < s.bins; ++f) {
    s.spectrum[f] = make_float2(static_cast<float>(spectrum[f].real() * scale),
                                static_cast<float>(spectrum[f].imag() * scale));
  }
  return s;
}

// ---- device state of one call ------------------------------------------------------------------

struct FilterPlans {
  FftPlan forward, inverse;          // `batch` rows
  FftPlan forwardLast, inverseLast;  // the last, shorter batch (rows % batch), if any
};

struct DeviceState {
  std::vector<FilterPlans> plans;             // per filter
  DeviceBuffer<float> data;                   // window x samples, the resident rows
  DeviceBuffer<float> seg;                    // batch x (segments x fftSize) of the largest filter
  DeviceBuffer<float2> spec;                  // batch x (segments x bins) of the largest filter
  DeviceBuffer<unsigned char> work;           // cuFFT workspace shared by every plan (one stream)
  std::vector<DeviceBuffer<float2>> kernels;  // per filter, bins
  DeviceBuffer<int> sources, counts;          // reference: source rows; times each row is a target
  DeviceBuffer<double> weights, reference;    // reference: weights; r(t) for every sample
  std::vector<Event> batchDone;               // per batch of a window, on the compute stream
};

// Synchronises the three streams when the call ends, normal or by exception, before DeviceState
// and the caller's objects go away and before the next call reuses the staging slots. Errors are
// ignored: the error being unwound is the one to report.
class StreamsIdle {
 public:
  explicit StreamsIdle(PipelineResources& r) : r_(r) {}
  ~StreamsIdle() {
    (void)cudaStreamSynchronize(r_.upload.get());
    (void)cudaStreamSynchronize(r_.compute.get());
    (void)cudaStreamSynchronize(r_.download.get());
  }
  StreamsIdle(const StreamsIdle&) = delete;
  StreamsIdle& operator=(const StreamsIdle&) = delete;

 private:
  PipelineResources& r_;
};

class Pipeline {
 public:
  Pipeline(SignalBlock& block, const ReferencePlan* reference,
           const std::vector<const FirKernel*>& filters, JobContext& ctx, PipelineResources& res)
      : block_(block), plan_(reference), firs_(filters), ctx_(ctx), res_(res) {}

  void run() {
    rows_ = static_cast<std::int64_t>(block_.channels.size());
    n_ = block_.samples;
    referenced_ = plan_ != nullptr && !plan_->targets.empty();
    if (rows_ == 0 || n_ == 0 || (!referenced_ && firs_.empty())) return;
    ctx_.checkpoint();
    for (const FirKernel* f : firs_) stages_.push_back(makeStage(*f, n_));

    // A local: it synchronises the streams on the way out, before the members (device buffers,
    // plans, pageable sources of pending copies) are destroyed with this object.
    StreamsIdle idle(res_);
    planAndAllocate();
    upload();
    for (std::int64_t w0 = 0; w0 < rows_; w0 += window_) {
      const std::int64_t wr = std::min(window_, rows_ - w0);
      uploadWindow(w0, wr);
      downloadWindow(w0, wr);
    }
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(res_.compute.get()));
    ctx_.checkpoint();
    ctx_.progress(1.0, "preprocessed on the GPU");
  }

 private:
  // ---- memory plan ------------------------------------------------------------------------------

  std::size_t rowBytes() const { return static_cast<std::size_t>(n_) * sizeof(float); }

  // Plans for `batch` rows and for the last, shorter batch; returns the workspace they need.
  std::size_t makePlans(std::int64_t batch) {
    state_.plans.clear();
    std::size_t work = 0;
    const std::int64_t last = rows_ % batch;
    for (const auto& s : stages_) {
      FilterPlans p;
      const long long size = s.layout.fftSize;
      p.forward = FftPlan(size, batch * s.layout.segments, CUFFT_R2C, res_.compute.get());
      p.inverse = FftPlan(size, batch * s.layout.segments, CUFFT_C2R, res_.compute.get());
      work = std::max({work, p.forward.workSize(), p.inverse.workSize()});
      if (last > 0) {
        p.forwardLast = FftPlan(size, last * s.layout.segments, CUFFT_R2C, res_.compute.get());
        p.inverseLast = FftPlan(size, last * s.layout.segments, CUFFT_C2R, res_.compute.get());
        work = std::max({work, p.forwardLast.workSize(), p.inverseLast.workSize()});
      }
      state_.plans.push_back(std::move(p));
    }
    return work;
  }

  void planAndAllocate() {
    std::size_t fftRowBytes = 0, kernelBytes = 0;
    for (const auto& s : stages_) {
      maxSegFloats_ = std::max(maxSegFloats_, s.segFloatsPerRow());
      maxSpec_ = std::max(maxSpec_, s.specPerRow());
      kernelBytes += static_cast<std::size_t>(s.bins) * sizeof(float2);
    }
    fftRowBytes = maxSegFloats_ * sizeof(float) + maxSpec_ * sizeof(float2);
    const std::size_t referenceBytes =
        referenced_ ? static_cast<std::size_t>(n_) * sizeof(double) +
                          static_cast<std::size_t>(rows_) * sizeof(int) +
                          plan_->sources.size() * (sizeof(int) + sizeof(double))
                    : 0;

    std::int64_t windowCap = rows_;
    if (residentSampleLimit() > 0) {
      windowCap = std::clamp<std::int64_t>(residentSampleLimit() / n_, 1, rows_);
    }
    // At most batchSampleBudget() samples per batch; and at least 4 batches over the block where
    // that leaves 2^22 samples or more per batch (still enough to fill the GPU), so that the
    // download of the first rows overlaps the filtering of the later ones.
    const std::int64_t quarter = std::max((rows_ + 3) / 4, ((std::int64_t{1} << 22) + n_ - 1) / n_);
    batch_ =
        std::min({rows_, windowCap, std::max<std::int64_t>(1, batchSampleBudget() / n_), quarter});
    std::size_t budget = usableDeviceBytes();
    const std::size_t usable = budget;
    for (;;) {
      const std::size_t work = makePlans(batch_);
      const std::size_t fixed =
          static_cast<std::size_t>(batch_) * fftRowBytes + work + referenceBytes + kernelBytes;
      if (fixed + static_cast<std::size_t>(batch_) * rowBytes() > budget) {
        if (batch_ == 1) throwOneRowDoesNotFit(fixed + rowBytes(), usable);
        batch_ = (batch_ + 1) / 2;
        continue;
      }
      window_ = std::min<std::int64_t>(windowCap,
                                       static_cast<std::int64_t>((budget - fixed) / rowBytes()));
      if (window_ < rows_) window_ = window_ / batch_ * batch_;  // windows of whole batches
      try {
        allocate(work);
        return;
      } catch (const OutOfDeviceMemoryError&) {
        // Another process took memory since cudaMemGetInfo, or it is fragmented: ask for less.
        // (The kernel spectra may still be on their way to buffers about to be freed.)
        (void)cudaStreamSynchronize(res_.compute.get());
        state_ = DeviceState{};
        budget /= 2;
      }
    }
  }

  [[noreturn]] void throwOneRowDoesNotFit(std::size_t need, std::size_t usable) const {
    std::string what = "Preprocessing one channel of " + std::to_string(n_) + " samples";
    if (!stages_.empty()) {
      const auto longest = std::max_element(
          stages_.begin(), stages_.end(),
          [](const FilterStage& a, const FilterStage& b) { return a.layout.taps < b.layout.taps; });
      what += " (longest filter " + std::to_string(longest->layout.taps) + " taps, FFT length " +
              std::to_string(longest->layout.fftSize) + ")";
    }
    throw OutOfDeviceMemoryError(what + " needs " + formatMebibytes(need) +
                                 " of GPU memory with cuFFT's "
                                 "workspace, but only " +
                                 formatMebibytes(usable) +
                                 " are free. Select a shorter time range, close other GPU "
                                 "programs, or use --backend cpu");
  }

  void allocate(std::size_t work) {
    cudaStream_t s = res_.compute.get();
    state_.data =
        DeviceBuffer<float>(static_cast<std::size_t>(window_) * static_cast<std::size_t>(n_));
    state_.seg = DeviceBuffer<float>(static_cast<std::size_t>(batch_) * maxSegFloats_);
    state_.spec = DeviceBuffer<float2>(static_cast<std::size_t>(batch_) * maxSpec_);
    // Never empty, so every plan gets a valid pointer even when it needs no workspace.
    state_.work = DeviceBuffer<unsigned char>(std::max<std::size_t>(work, 256));
    for (std::size_t f = 0; f < stages_.size(); ++f) {
      const auto& st = stages_[f];
      state_.kernels.emplace_back(st.spectrum.size());
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.kernels.back().get(), st.spectrum.data(),
                                         st.spectrum.size() * sizeof(float2),
                                         cudaMemcpyHostToDevice, s));
      const FilterPlans& p = state_.plans[f];
      for (const FftPlan* plan : {&p.forward, &p.inverse, &p.forwardLast, &p.inverseLast}) {
        if (plan->valid()) plan->setWorkArea(state_.work.get());
      }
    }
    if (referenced_) {
      hostSources_.clear();
      for (std::size_t r : plan_->sources) hostSources_.push_back(static_cast<int>(r));
      hostCounts_.assign(static_cast<std::size_t>(rows_), 0);
      for (std::size_t r : plan_->targets) ++hostCounts_[r];
      state_.sources = DeviceBuffer<int>(hostSources_.size());
      state_.weights = DeviceBuffer<double>(plan_->weights.size());
      state_.counts = DeviceBuffer<int>(hostCounts_.size());
      state_.reference = DeviceBuffer<double>(static_cast<std::size_t>(n_));
      if (!hostSources_.empty()) {
        MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.sources.get(), hostSources_.data(),
                                           state_.sources.bytes(), cudaMemcpyHostToDevice, s));
        MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.weights.get(), plan_->weights.data(),
                                           state_.weights.bytes(), cudaMemcpyHostToDevice, s));
      }
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.counts.get(), hostCounts_.data(),
                                         state_.counts.bytes(), cudaMemcpyHostToDevice, s));
    }
    const std::int64_t batches = (window_ + batch_ - 1) / batch_;
    state_.batchDone.resize(static_cast<std::size_t>(batches));
    // The pageable source vectors above must stay put until their copies have been staged; they
    // are members, alive until the call returns.
  }

  // ---- host-side preparation ------------------------------------------------------------------

  // The reference signal: on the device from the resident rows when the block is one window,
  // else here on the host (every window needs all of r), in the CPU backend's exact arithmetic,
  // then uploaded once. Also sizes the staging slots.
  void upload() {
    deviceReference_ = referenced_ && window_ >= rows_;
    const std::size_t windowFloats =
        static_cast<std::size_t>(window_) * static_cast<std::size_t>(n_);
    chunk_ = std::clamp(windowFloats / 16, kMinChunkFloats, kMaxChunkFloats);
    if (chunkSampleLimit() > 0)
      chunk_ = std::min(chunk_, static_cast<std::size_t>(chunkSampleLimit()));
    chunk_ = std::max<std::size_t>(chunk_, 1);
    up_ = &res_.uploadSlots(chunk_);
    down_ = &res_.downloadSlots(chunk_);
    if (poisonAllocations()) {
      // Test hook: a staging element read before it is written shows up as NaN (streams are idle).
      for (auto* slots : {up_, down_}) {
        for (auto& slot : *slots)
          std::memset(slot.buffer.get(), 0xFF, slot.buffer.size() * sizeof(float));
      }
    }
    if (referenced_ && !deviceReference_) {
      ctx_.progress(0.0, "computing the reference signal");
      hostReference_.assign(static_cast<std::size_t>(n_), 0.0);
      const std::int64_t cols = std::max<std::int64_t>(kHostReferenceColumns, n_ / INT_MAX + 1);
      const int parts = static_cast<int>((n_ + cols - 1) / cols);
      res_.pool().run(parts, [&](int p) {
        const std::size_t t0 = static_cast<std::size_t>(p) * static_cast<std::size_t>(cols);
        const std::size_t len =
            std::min(static_cast<std::size_t>(cols), static_cast<std::size_t>(n_) - t0);
        double* r = hostReference_.data() + t0;
        for (std::size_t k = 0; k < plan_->sources.size(); ++k) {
          const float* x = block_.channel(plan_->sources[k]) + t0;
          const double w = plan_->weights[k];
          for (std::size_t t = 0; t < len; ++t) r[t] += w * static_cast<double>(x[t]);
        }
      });
      ctx_.checkpoint();
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.reference.get(), hostReference_.data(),
                                         state_.reference.bytes(), cudaMemcpyHostToDevice,
                                         res_.compute.get()));
    }
  }

  // ---- compute ---------------------------------------------------------------------------------

  // Batch b of the window starting at block row w0 (wr rows): reference, then every filter, on
  // the compute stream; batchDone[b] marks its end.
  void enqueueBatch(std::int64_t w0, std::int64_t wr, std::int64_t b) {
    cudaStream_t s = res_.compute.get();
    const std::int64_t c0 = b * batch_;
    const std::int64_t c = std::min(batch_, wr - c0);
    const bool full = c == batch_;
    if (!full && c != rows_ % batch_) {
      throw std::logic_error("cuda pipeline: a batch of " + std::to_string(c) +
                             " rows has no cuFFT plan");
    }
    float* rows = state_.data.get() + c0 * n_;
    if (referenced_) {
      launchSubtractReference(rows, n_, c, state_.counts.get() + (w0 + c0), state_.reference.get(),
                              s);
    }
    for (std::size_t f = 0; f < stages_.size(); ++f) {
      const SegmentLayout& l = stages_[f].layout;
      const FilterPlans& p = state_.plans[f];
      const FftPlan& forward = full ? p.forward : p.forwardLast;
      const FftPlan& inverse = full ? p.inverse : p.inverseLast;
      launchGatherSegments(rows, c, l, state_.seg.get(), s);
      MODESCOPE_CUFFT_TRY(cufftExecR2C(forward.get(), state_.seg.get(), state_.spec.get()));
      MODESCOPE_CUDA_CHECK_LAUNCH("cufftExecR2C", s);
      launchMultiplySpectrum(state_.spec.get(), state_.kernels[f].get(), c * l.segments,
                             stages_[f].bins, s);
      MODESCOPE_CUFFT_TRY(cufftExecC2R(inverse.get(), state_.spec.get(), state_.seg.get()));
      MODESCOPE_CUDA_CHECK_LAUNCH("cufftExecC2R", s);
      launchScatterSegments(state_.seg.get(), c, l, rows, s);
    }
    state_.batchDone[static_cast<std::size_t>(b)].record(s);
  }

  void enqueueBatchesBelow(std::int64_t w0, std::int64_t wr, std::int64_t end) {
    while (enqueued_ < end) enqueueBatch(w0, wr, enqueued_++);
  }

  // ---- transfers -------------------------------------------------------------------------------

  // After every chunk (a few ms; progress sinks throttle their own display).
  void report(const char* stage) {
    const double total = 2.0 * static_cast<double>(rows_) * static_cast<double>(n_);
    ctx_.progress(static_cast<double>(moved_) / total, stage);
  }

  void uploadWindow(std::int64_t w0, std::int64_t wr) {
    const float* host = block_.channel(static_cast<std::size_t>(w0));
    const std::size_t total = static_cast<std::size_t>(wr) * static_cast<std::size_t>(n_);
    const std::size_t chunks = (total + chunk_ - 1) / chunk_;
    const std::int64_t batches = (wr + batch_ - 1) / batch_;
    enqueued_ = 0;
    cudaEvent_t last = nullptr;
    for (std::size_t k = 0; k < chunks; ++k) {
      ctx_.checkpoint();
      const std::size_t off = k * chunk_;
      const std::size_t len = std::min(chunk_, total - off);
      StagingSlot& slot = (*up_)[k % PipelineResources::kSlots];
      slot.used.synchronize();  // the DMA that last read this slot is over
      res_.pool().copy(slot.buffer.get(), host + off, len * sizeof(float));
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(state_.data.get() + off, slot.buffer.get(),
                                         len * sizeof(float), cudaMemcpyHostToDevice,
                                         res_.upload.get()));
      slot.used.record(res_.upload.get());
      last = slot.used.get();
      if (!deviceReference_) {
        // Batches whose rows are all on the device can start (the upload stream is in order, so
        // this event covers every earlier chunk too).
        const std::int64_t rowsHere =
            static_cast<std::int64_t>((off + len) / static_cast<std::size_t>(n_));
        const std::int64_t ready = rowsHere >= wr ? batches : rowsHere / batch_;
        if (ready > enqueued_) {
          MODESCOPE_CUDA_TRY(cudaStreamWaitEvent(res_.compute.get(), last, 0));
          enqueueBatchesBelow(w0, wr, ready);
        }
      }
      moved_ += len;
      report("copying to the GPU");
    }
    if (deviceReference_) {
      // Every source row is resident once the last chunk is.
      MODESCOPE_CUDA_TRY(cudaStreamWaitEvent(res_.compute.get(), last, 0));
      launchComputeReference(state_.data.get(), n_, n_, state_.sources.get(), state_.weights.get(),
                             static_cast<int>(hostSources_.size()), state_.reference.get(),
                             res_.compute.get());
    }
  }

  void downloadWindow(std::int64_t w0, std::int64_t wr) {
    float* host = block_.channel(static_cast<std::size_t>(w0));
    const std::size_t total = static_cast<std::size_t>(wr) * static_cast<std::size_t>(n_);
    const std::size_t chunks = (total + chunk_ - 1) / chunk_;
    const std::int64_t batches = (wr + batch_ - 1) / batch_;
    auto enqueueDownload = [&](std::size_t k) {
      const std::size_t off = k * chunk_;
      const std::size_t len = std::min(chunk_, total - off);
      // The batch holding the chunk's last row; earlier batches finished before it (one stream).
      const std::int64_t b =
          static_cast<std::int64_t>((off + len - 1) / static_cast<std::size_t>(n_)) / batch_;
      enqueueBatchesBelow(w0, wr, std::min(batches, b + 1 + kLookahead));
      MODESCOPE_CUDA_TRY(cudaStreamWaitEvent(
          res_.download.get(), state_.batchDone[static_cast<std::size_t>(b)].get(), 0));
      StagingSlot& slot = (*down_)[k % PipelineResources::kSlots];
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(slot.buffer.get(), state_.data.get() + off,
                                         len * sizeof(float), cudaMemcpyDeviceToHost,
                                         res_.download.get()));
      slot.used.record(res_.download.get());
    };
    const std::size_t ahead = std::min<std::size_t>(PipelineResources::kSlots, chunks);
    for (std::size_t k = 0; k < ahead; ++k) enqueueDownload(k);
    for (std::size_t k = 0; k < chunks; ++k) {
      ctx_.checkpoint();
      const std::size_t off = k * chunk_;
      const std::size_t len = std::min(chunk_, total - off);
      StagingSlot& slot = (*down_)[k % PipelineResources::kSlots];
      slot.used.synchronize();  // this chunk's DMA has landed
      res_.pool().copy(host + off, slot.buffer.get(), len * sizeof(float));
      // The slot is free again: reuse it for the chunk kSlots ahead.
      if (k + PipelineResources::kSlots < chunks) enqueueDownload(k + PipelineResources::kSlots);
      moved_ += len;
      report("filtering on the GPU and copying back");
    }
  }

  SignalBlock& block_;
  const ReferencePlan* plan_;
  const std::vector<const FirKernel*>& firs_;
  JobContext& ctx_;
  PipelineResources& res_;

  std::int64_t rows_ = 0, n_ = 0;
  bool referenced_ = false, deviceReference_ = false;
  std::vector<FilterStage> stages_;
  std::size_t maxSegFloats_ = 0, maxSpec_ = 0;
  std::int64_t batch_ = 1, window_ = 1;
  std::size_t chunk_ = 1;
  std::vector<StagingSlot>* up_ = nullptr;
  std::vector<StagingSlot>* down_ = nullptr;
  std::vector<int> hostSources_, hostCounts_;
  std::vector<double> hostReference_;
  DeviceState state_;
  std::int64_t enqueued_ = 0;  // batches of the current window on the compute stream
  std::size_t moved_ = 0;      // floats copied so far, both directions
};

}  // namespace

HostThreadPool& PipelineResources::pool() {
  if (!pool_) pool_ = std::make_unique<HostThreadPool>(HostThreadPool::defaultThreads());
  return *pool_;
}

std::vector<StagingSlot>& PipelineResources::grow(std::vector<StagingSlot>& slots,
                                                  std::size_t floats) {
  const bool big = std::all_of(slots.begin(), slots.end(),
                               [&](const StagingSlot& s) { return s.buffer.size() >= floats; });
  if (slots.size() == static_cast<std::size_t>(kSlots) && big) return slots;
  slots.clear();  // frees the old buffers first: pinned memory is scarce
  // Built aside and swapped in whole, so a failed allocation leaves no short or empty slot.
  std::vector<StagingSlot> fresh(static_cast<std::size_t>(kSlots));
  for (auto& s : fresh) s.buffer = PinnedBuffer<float>(floats);
  slots.swap(fresh);
  return slots;
}

void runPipeline(SignalBlock& block, const ReferencePlan* reference,
                 const std::vector<const FirKernel*>& filters, JobContext& ctx,
                 PipelineResources& resources) {
  checkBlock(block);
  if (reference) checkPlan(block, *reference);
  for (const FirKernel* f : filters) checkFir(*f);
  Pipeline(block, reference, filters, ctx, resources).run();
}

}  // namespace modescope::cuda
