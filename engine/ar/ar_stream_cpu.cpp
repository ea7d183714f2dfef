// The CPU ArStream: procedure in ar_stream.h, per-window arithmetic reused from ar_spectrum.h and
// burg.h so the stream and the offline spectra cannot drift apart.
#include "engine/ar/ar_stream_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ar/ar_spectrum.h"
#include "engine/ar/burg.h"
#include "engine/core/error.h"
#include "engine/core/finite_samples.h"
#include "engine/parallel/worker_team.h"

namespace modescope {
namespace {

// Per-worker scratch, reused across pushes (no allocation in the steady state but arBinValues').
struct Scratch {
  BurgWorkspace burg;
  std::vector<double> accumulate;  // filtered new samples of one output
  std::vector<double> x;           // the window in double
  std::vector<float> window;       // the window as stored (float), for the flat test
};

class CpuArStream final : public ArStream {
 public:
  CpuArStream(const ArStreamConfig& config, int threads)
      : params_(config.params), sampleRate_(config.sampleRate), pool_(threads) {
    window_ = resolveArLengths(params_, sampleRate_).windowSamples;
    if (config.filter) {
      const SpatialFilter& f = *config.filter;
      inputs_ = f.inputCount();
      outputs_ = f.outputCount();
      matrix_ = f.matrix;
      inputNames_ = f.inputNames;
    } else {
      inputs_ = outputs_ = config.channels;
    }
    binCenters_ = arBinCenters(params_);
    rings_.assign(outputs_ * static_cast<std::size_t>(window_), 0.0f);
    scratch_.resize(static_cast<std::size_t>(pool_->size()));
    for (Scratch& s : scratch_) {
      s.x.resize(static_cast<std::size_t>(window_));
      s.window.resize(static_cast<std::size_t>(window_));
    }
  }

  std::size_t inputCount() const override { return inputs_; }
  std::size_t outputCount() const override { return outputs_; }
  std::size_t binCount() const override { return binCenters_.size(); }
  const std::vector<double>& binCenters() const override { return binCenters_; }

  void reset() override {
    pushed_ = 0;
    head_ = 0;
    std::fill(rings_.begin(), rings_.end(), 0.0f);
  }

  ArStreamUpdate push(const float* samples, int64_t count) override {
    if (samples == nullptr)
      throw InvalidParameterError("samples", "a null pointer", "inputs x count samples",
                                  "pass the block's samples");
    if (count < 1)
      throw InvalidParameterError("count", std::to_string(count), "at least 1 sample per push",
                                  "push only non-empty blocks");
    checkFinite(samples, count);

    // Only the last N new samples can reach the window; older ones are counted, not filtered.
    const int64_t kept = std::min(count, window_);
    const int64_t firstKept = count - kept;
    const std::size_t head = head_;
    const std::size_t newHead =
        static_cast<std::size_t>((static_cast<int64_t>(head_) + kept) % window_);
    const bool ready = pushed_ + count >= window_;
    const std::size_t bins = binCenters_.size();

    ArStreamUpdate u;
    u.pushedSamples = pushed_ + count;
    u.ready = ready;
    if (ready) {
      u.values.assign(outputs_ * bins, 0.0f);
      u.noiseVariance.assign(outputs_, 0.0f);
    }
    flat_.assign(outputs_, 0);
    reduced_.assign(outputs_, 0);

    pool_->run(outputs_, [&](int worker, std::size_t o) {
      Scratch& s = scratch_[static_cast<std::size_t>(worker)];
      float* ring = rings_.data() + o * static_cast<std::size_t>(window_);
      filterInto(o, samples, count, firstKept, kept, head, ring, s);
      if (ready) spectrum(o, ring, newHead, u, s);
    });

    head_ = newHead;
    pushed_ += count;
    if (ready)
      for (std::size_t o = 0; o < outputs_; ++o) {
        u.flatOutputs += flat_[o];
        u.reducedOrderOutputs += reduced_[o];
      }
    return u;
  }

 private:
  void checkFinite(const float* samples, int64_t count) {
    for (std::size_t r = 0; r < inputs_; ++r) {
      const float* row = samples + r * static_cast<std::size_t>(count);
      if (const int64_t t = firstNonFinite(row, count); t < count) {
        const std::string name = r < inputNames_.size() && !inputNames_[r].empty()
                                     ? " (" + inputNames_[r] + ")"
                                     : std::string();
        const int64_t streamSample = pushed_ + t;
        reset();  // the contract: the next push starts a fresh window
        throw InvalidInputError(
            "AR stream input row " + std::to_string(r) + name,
            "sample " + std::to_string(t) + " of the pushed block (sample " +
                std::to_string(streamSample) + " since the stream started)",
            std::isnan(row[t]) ? "NaN" : "an infinite value", "finite samples",
            "exclude the channel or skip the bad stretch; the stream was reset and refills its "
            "window from the next block");
      }
    }
  }

  // Step 2 for output o: filtered(o, t) = sum_r B(o, r) x(r, t), summed in double over the
  // inputs, stored as float (the precision the offline path stores a filtered block in).
  void filterInto(std::size_t o, const float* samples, int64_t count, int64_t firstKept,
                  int64_t kept, std::size_t head, float* ring, Scratch& s) const {
    const auto n = static_cast<std::size_t>(window_);
    if (matrix_.empty()) {
      const float* row = samples + o * static_cast<std::size_t>(count);
      for (int64_t k = 0; k < kept; ++k)
        ring[(head + static_cast<std::size_t>(k)) % n] = row[firstKept + k];
      return;
    }
    s.accumulate.assign(static_cast<std::size_t>(kept), 0.0);
    const double* weights = matrix_.data() + o * inputs_;
    for (std::size_t r = 0; r < inputs_; ++r) {
      const double w = weights[r];
      if (w == 0.0) continue;  // Laplacians are sparse: most weights are exactly 0
      const float* row = samples + r * static_cast<std::size_t>(count) + firstKept;
      for (int64_t k = 0; k < kept; ++k) s.accumulate[static_cast<std::size_t>(k)] += w * row[k];
    }
    for (int64_t k = 0; k < kept; ++k)
      ring[(head + static_cast<std::size_t>(k)) % n] =
          static_cast<float>(s.accumulate[static_cast<std::size_t>(k)]);
  }

  // Step 3 for output o: ar_spectrum.h step 3 on the ring read oldest first.
  void spectrum(std::size_t o, const float* ring, std::size_t oldest, ArStreamUpdate& u,
                Scratch& s) {
    const auto n = static_cast<std::size_t>(window_);
    for (std::size_t k = 0; k < n; ++k) s.window[k] = ring[(oldest + k) % n];
    const float first = s.window[0];
    if (std::all_of(s.window.begin(), s.window.end(), [&](float v) { return v == first; })) {
      flat_[o] = 1;
      return;
    }
    for (std::size_t k = 0; k < n; ++k) s.x[k] = s.window[k];
    arDetrend(s.x.data(), window_, params_.detrend);
    const BurgModel model = burg(s.x.data(), window_, params_.order, s.burg);
    if (model.flat) {  // a detrended ramp can become exactly flat
      flat_[o] = 1;
      return;
    }
    if (model.orderReached < params_.order) reduced_[o] = 1;
    u.noiseVariance[o] = static_cast<float>(model.noiseVariance);
    const std::vector<double> v = arBinValues(model, params_, sampleRate_);
    float* out = u.values.data() + o * binCenters_.size();
    for (std::size_t b = 0; b < v.size(); ++b) out[b] = static_cast<float>(v[b]);
  }

  BurgArParams params_;
  double sampleRate_;
  int64_t window_ = 0;
  std::size_t inputs_ = 0, outputs_ = 0;
  std::vector<double> matrix_;  // empty: no filter
  std::vector<std::string> inputNames_;
  std::vector<double> binCenters_;
  std::vector<float> rings_;  // outputs x N; sample k of a ring is at (head - N + k) mod N
  std::size_t head_ = 0;      // where the next sample goes (= the oldest sample once full)
  int64_t pushed_ = 0;
  std::vector<char> flat_, reduced_;
  TeamLease pool_;  // engine/parallel/worker_team.h
  std::vector<Scratch> scratch_;
};

}  // namespace

std::unique_ptr<ArStream> makeCpuArStream(const ArStreamConfig& config, int threads) {
  validateArStreamConfig(config);
  const int workers = threadsOrAll(threads);
  return std::make_unique<CpuArStream>(config, workers);
}

}  // namespace modescope
