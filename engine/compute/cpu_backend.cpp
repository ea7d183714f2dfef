#include "engine/compute/cpu_backend.h"

#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <functional>
#include <string>
#include <utility>

#include "engine/ar/ar_spectrum.h"
#include "engine/ar/ar_stream_cpu.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/emd/emd.h"
#include "engine/entropy/entropy_cpu.h"
#include "engine/epochs/epoch_average.h"
#include "engine/hht/hht_cpu.h"
#include "engine/ica/infomax.h"
#include "engine/parallel/fftw_owners.h"
#include "engine/parallel/parallel_for.h"
#include "engine/tf/tf_cpu.h"

namespace modescope {

namespace {

// The forward and inverse real transforms of one size. Plans are made with FFTW_ESTIMATE (fast,
// deterministic, does not touch the arrays) on arrays from fftw_malloc; workers execute them on
// their own fftw_malloc arrays through the new-array interface, which needs the same alignment.
struct RealFftPair {
  explicit RealFftPair(std::size_t m)
      : real(fftwAlloc<double>(m)),
        spec(fftwAlloc<fftw_complex>(m / 2 + 1)),
        forward(make(m, true), "a filter"),
        inverse(make(m, false), "a filter") {}
  FftwBuffer<double> real;
  FftwBuffer<fftw_complex> spec;
  FftwPlan forward, inverse;

 private:
  fftw_plan make(std::size_t m, bool fwd) {
    std::lock_guard lock(fftwPlannerMutex());
    const int n = static_cast<int>(m);
    return fwd ? fftw_plan_dft_r2c_1d(n, real.get(), spec.get(), FFTW_ESTIMATE)
               : fftw_plan_dft_c2r_1d(n, spec.get(), real.get(), FFTW_ESTIMATE);
  }
};

// ---- validation ---------------------------------------------------------------------------------

void checkBlock(const SignalBlock& block) {
  const std::size_t expected =
      block.channels.size() * static_cast<std::size_t>(std::max<int64_t>(block.samples, 0));
  if (block.samples < 0 || block.data.size() != expected) {
    throw InvalidParameterError("signal block", std::to_string(block.data.size()) + " samples",
                                std::to_string(expected) + " (channels x samples)",
                                "Build blocks with extractBlock()");
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

void checkFir(const FirKernel& fir) {
  if (fir.taps.empty() || fir.taps.size() % 2 == 0) {
    throw InvalidParameterError("FIR kernel", std::to_string(fir.taps.size()) + " taps",
                                "an odd, non-zero number of taps (linear phase, zero delay)",
                                "Design filters with designFir()");
  }
  for (double t : fir.taps) {
    if (!std::isfinite(t)) {
      throw InvalidParameterError("FIR kernel", "a non-finite tap", "finite taps",
                                  "Design filters with designFir()");
    }
  }
}

// ---- the backend --------------------------------------------------------------------------------

// Samples per reference work item: 256 KiB of doubles per worker, long enough to amortise the
// per-item overhead and short enough that cancel and progress stay responsive.
constexpr std::size_t kReferenceChunk = 32768;

class CpuBackend final : public ComputeBackend {
 public:
  CpuBackend(int threads, std::string fallback)
      : threads_(threads), fallback_(std::move(fallback)) {}

  BackendInfo info() const override {
    BackendInfo i;
    i.kind = BackendKind::Cpu;
    i.deviceName = cpuModelName();
    i.threads = threads_;
    i.fallback = fallback_;
    return i;
  }

  void applyReference(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx) override {
    checkBlock(block);
    checkPlan(block, plan);
    if (plan.targets.empty() || block.samples == 0) return;
    const std::size_t n = static_cast<std::size_t>(block.samples);
    const std::size_t chunks = (n + kReferenceChunk - 1) / kReferenceChunk;
    parallelFor(chunks, threads_, ctx, "re-referencing", ProgressLabel::StageWithCount,
                [&]() -> std::function<void(std::size_t)> {
                  auto r = std::make_shared<std::vector<double>>(kReferenceChunk);
                  return [&block, &plan, r, n](std::size_t c) {
                    const std::size_t t0 = c * kReferenceChunk;
                    const std::size_t len = std::min(kReferenceChunk, n - t0);
                    double* ref = r->data();
                    std::fill(ref, ref + len, 0.0);
                    // The whole reference of the chunk first: sources may be targets too.
                    for (std::size_t k = 0; k < plan.sources.size(); ++k) {
                      const float* x = block.channel(plan.sources[k]) + t0;
                      const double w = plan.weights[k];
                      for (std::size_t t = 0; t < len; ++t) ref[t] += w * static_cast<double>(x[t]);
                    }
                    for (std::size_t row : plan.targets) {
                      float* x = block.channel(row) + t0;
                      for (std::size_t t = 0; t < len; ++t) {
                        x[t] = static_cast<float>(static_cast<double>(x[t]) - ref[t]);
                      }
                    }
                  };
                });
  }

  void applyFir(SignalBlock& block, const FirKernel& fir, JobContext& ctx) override {
    checkFir(fir);
    checkBlock(block);
    const std::size_t rows = block.channels.size();
    if (rows == 0 || block.samples == 0) return;
    const std::size_t taps = fir.taps.size();
    const std::size_t half = (taps - 1) / 2;
    const std::size_t n = static_cast<std::size_t>(block.samples);
    const std::size_t pad = std::min(half, n - 1);
    const std::size_t m = overlapSaveFftSize(taps, block.samples);
    const std::size_t valid = m - taps + 1;
    const std::size_t segments = (n + valid - 1) / valid;
    const std::size_t extLength = segments * valid + taps - 1;

    auto spectrum = firSpectrum(fir.taps, m);
    const double scale = 1.0 / static_cast<double>(m);  // FFTW's inverse is unnormalised
    for (auto& v : spectrum) v *= scale;
    const RealFftPair plans(m);

    parallelFor(rows, threads_, ctx, "filtering channels", ProgressLabel::StageWithCount,
                [&]() -> std::function<void(std::size_t)> {
                  struct Buffers {
                    Buffers(std::size_t ext, std::size_t m)
                        : ext(ext),
                          real(fftwAlloc<double>(m)),
                          spec(fftwAlloc<fftw_complex>(m / 2 + 1)) {}
                    std::vector<double> ext;
                    FftwBuffer<double> real;
                    FftwBuffer<fftw_complex> spec;
                  };
                  auto b = std::make_shared<Buffers>(extLength, m);
                  return [&, b](std::size_t row) {
                    float* x = block.channel(row);
                    // ext[j] holds the extended signal at index j - half.
                    double* e = b->ext.data();
                    const double first = x[0], last = x[n - 1];
                    for (std::size_t j = 0; j < extLength; ++j) {
                      const int64_t i = static_cast<int64_t>(j) - static_cast<int64_t>(half);
                      double v = 0.0;
                      if (i < 0) {
                        const std::size_t k = static_cast<std::size_t>(-i);
                        if (k <= pad) v = 2.0 * first - x[k];
                      } else if (static_cast<std::size_t>(i) < n) {
                        v = x[i];
                      } else {
                        const std::size_t k = static_cast<std::size_t>(i) - (n - 1);
                        if (k <= pad) v = 2.0 * last - x[n - 1 - k];
                      }
                      e[j] = v;
                    }
                    double* r = b->real.get();
                    fftw_complex* s = b->spec.get();
                    for (std::size_t seg = 0; seg < segments; ++seg) {
                      std::copy(e + seg * valid, e + seg * valid + m, r);
                      fftw_execute_dft_r2c(plans.forward.get(), r, s);
                      for (std::size_t f = 0; f <= m / 2; ++f) {
                        const std::complex<double> v(s[f][0], s[f][1]);
                        const auto p = v * spectrum[f];
                        s[f][0] = p.real();
                        s[f][1] = p.imag();
                      }
                      fftw_execute_dft_c2r(plans.inverse.get(), s, r);
                      // Circular wrap-around spoils the first taps - 1 outputs of each segment; the
                      // rest are the linear convolution, already aligned for zero phase by the
                      // half-length offset.
                      const std::size_t begin = seg * valid;
                      const std::size_t count = std::min(valid, n - begin);
                      for (std::size_t u = 0; u < count; ++u)
                        x[begin + u] = static_cast<float>(r[u + taps - 1]);
                    }
                  };
                });
  }

  EmdResult decompose(const SignalBlock& block, const EmdParams& params, JobContext& ctx) override {
    return decomposeCpu(block, params, threads_, ctx);
  }

  MemdResult memd(const SignalBlock& block, const MemdParams& params, JobContext& ctx) override {
    return memdCpu(block, params, threads_, ctx);
  }

  HhtResult hilbertHuang(const EmdResult& modes, const HhtParams& params,
                         JobContext& ctx) override {
    return hilbertHuangCpu(modes, params, threads_, ctx);
  }

  IcaResult infomax(const SignalBlock& block, const IcaParams& params, JobContext& ctx) override {
    return runInfomaxCpu(block, params, threads_, ctx);
  }

  SignalBlock spatialFilter(const SpatialFilter& filter, const SignalBlock& block,
                            JobContext& ctx) override {
    ctx.checkpoint();
    return applySpatialFilter(filter, block);
  }

  ArSpectrumResult arSpectra(const SignalBlock& block, const BurgArParams& params,
                             JobContext& ctx) override {
    return computeArSpectraCpu(block, params, threads_, ctx);
  }

  std::unique_ptr<ArStream> openArStream(const ArStreamConfig& config) override {
    return makeCpuArStream(config, threads_);
  }

  EntropyMatrixResult entropyMatrices(const SignalBlock& block, const EntropyParams& params,
                                      JobContext& ctx) override {
    return computeEntropyCpu(block, params, threads_, ctx);
  }

  TfResult timeFrequency(const SignalBlock& block, const TfParams& params,
                         JobContext& ctx) override {
    return computeTfCpu(block, params, threads_, ctx);
  }
  TfResult timeFrequencyTiles(const SignalBlock& block, const TfParams& params, TfTileValues values,
                              const TfTileSink& sink, JobContext& ctx) override {
    return computeTfTilesCpu(block, params, values, sink, threads_, ctx);
  }

  EpochAverages averageEpochs(const EpochSet& set, JobContext& ctx) override {
    return averageEpochsCpu(set, ctx);
  }

 private:
  int threads_;
  std::string fallback_;  // BackendInfo::fallback
};

}  // namespace

std::vector<std::complex<double>> firSpectrum(const std::vector<double>& taps,
                                              std::size_t fftSize) {
  if (fftSize < taps.size() || fftSize % 2 != 0 || fftSize == 0) {
    throw std::logic_error("firSpectrum: the FFT size must be even and at least the tap count");
  }
  const RealFftPair plan(fftSize);
  std::fill(plan.real.get(), plan.real.get() + fftSize, 0.0);
  std::copy(taps.begin(), taps.end(), plan.real.get());
  fftw_execute(plan.forward.get());
  std::vector<std::complex<double>> out(fftSize / 2 + 1);
  for (std::size_t f = 0; f < out.size(); ++f)
    out[f] = {plan.spec.get()[f][0], plan.spec.get()[f][1]};
  return out;
}

std::size_t overlapSaveFftSize(std::size_t taps, int64_t samples) {
  constexpr std::size_t kMax = std::size_t{1} << 20;
  std::size_t minM = 2;
  while (minM < taps) minM *= 2;
  const std::size_t needed = taps + static_cast<std::size_t>(std::max<int64_t>(samples, 1)) - 1;
  std::size_t best = minM;
  double bestCost = INFINITY;
  for (std::size_t m = minM; m <= std::max(minM, kMax); m *= 2) {
    const std::size_t valid = m - taps + 1;
    const double segments =
        std::ceil(static_cast<double>(std::max<int64_t>(samples, 1)) / static_cast<double>(valid));
    // Two real FFTs (~ m log2 m each) plus the pointwise product and copies (~ m) per segment.
    const double cost =
        segments * static_cast<double>(m) * (std::log2(static_cast<double>(m)) + 2.0);
    if (cost < bestCost) {
      bestCost = cost;
      best = m;
    }
    if (m >= needed) break;  // one segment already covers the signal
  }
  return best;
}

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (startsWithIgnoreCase(line, "model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown CPU";
}

std::unique_ptr<ComputeBackend> makeCpuBackend(int threads, std::string fallback) {
  threads = threadsOrAll(threads);
  return std::make_unique<CpuBackend>(threads, std::move(fallback));
}

}  // namespace modescope
