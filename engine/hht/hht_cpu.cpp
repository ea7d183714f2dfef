// The CPU Hilbert-Huang transform (hht.h defines every quantity; this is the reference).
//
// Work is cut into groups of channels so memory stays bounded whatever the recording: per group,
// phase 1 runs the analytic signal of every (channel, IMF) pair on the worker threads and leaves,
// per included sample, its frequency bin and value (a or a^2) in a staging array; phase 2 bins
// them into the spectrum, split into fixed column chunks so that every cell is summed in the same
// order (IMF rows ascending, samples ascending) whatever the thread count: results do not depend
// on `threads`.
#include "engine/hht/hht_cpu.h"

#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <numbers>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/parallel/fftw_owners.h"
#include "engine/parallel/parallel_for.h"

namespace modescope {
namespace {

// Column chunks per channel in phase 2; fixed so the marginal's partial sums (one per chunk) are
// added in the same grouping whatever the thread count.
constexpr int64_t kColumnChunks = 16;

// The forward real transform (out of place, N reals -> the first N/2+1 of N complex values) and
// the inverse complex transform (in place over N complex values) of one length. FFTW_ESTIMATE
// plans do not touch the arrays and are deterministic; workers run them on their own fftw_malloc
// arrays (same alignment) through the new-array interface, which is thread-safe.
struct AnalyticPlans {
  explicit AnalyticPlans(int64_t n)
      : real(fftwAlloc<double>(static_cast<std::size_t>(n))),
        spec(fftwAlloc<fftw_complex>(static_cast<std::size_t>(n))),
        forward(make(n, true), "the Hilbert transform"),
        inverse(make(n, false), "the Hilbert transform") {}
  FftwBuffer<double> real;
  FftwBuffer<fftw_complex> spec;
  FftwPlan forward, inverse;

 private:
  fftw_plan make(int64_t n, bool fwd) {
    std::lock_guard lock(fftwPlannerMutex());
    const int len = static_cast<int>(n);
    return fwd ? fftw_plan_dft_r2c_1d(len, real.get(), spec.get(), FFTW_ESTIMATE)
               : fftw_plan_dft_1d(len, spec.get(), spec.get(), FFTW_BACKWARD, FFTW_ESTIMATE);
  }
};

// ---- the frequency grid -------------------------------------------------------------------------

// Bin of f by hht.h's formula; -1 outside [fMin, fMax] (NaN included).
struct FrequencyGrid {
  explicit FrequencyGrid(const HhtParams& r)
      : bins(r.frequencyBins),
        fMin(r.fMin),
        fMax(r.fMax),
        logScale(r.logFrequency),
        scale(r.logFrequency ? r.frequencyBins / std::log(r.fMax / r.fMin)
                             : r.frequencyBins / (r.fMax - r.fMin)) {}
  int binOf(double f) const {
    if (!(f >= fMin && f <= fMax)) return -1;
    const double u = logScale ? std::log(f / fMin) * scale : (f - fMin) * scale;
    // Round-off can put f = fMax (or just below) at u = bins: the last bin holds fMax.
    return std::clamp(static_cast<int>(std::floor(u)), 0, bins - 1);
  }
  int bins;
  double fMin, fMax;
  bool logScale;
  double scale;
};

// ---- one call -----------------------------------------------------------------------------------

// One (channel, IMF) pair of a group.
struct Item {
  std::size_t channel = 0;  // index into modes.channels / result.channels
  std::size_t slot = 0;     // index into result.channels[channel].imfs
};

// Per included sample of an item: its frequency bin (-1: none) and value (a or a^2).
struct Staging {
  std::vector<int> bin;
  std::vector<double> value;
};

class HhtCpuRun {
 public:
  // `resolved`: resolveHhtParams() of what run() receives (the grid needs fMax resolved).
  HhtCpuRun(const EmdResult& modes, const HhtParams& resolved, int threads, JobContext& ctx)
      : modes_(modes), ctx_(ctx), threads_(threads), grid_(resolved) {}

  // `requested` has passed validateHhtParams().
  HhtResult run(const HhtParams& requested) {
    r_ = prepareHhtResult(modes_, requested);
    n_ = modes_.samples;
    edge_ = hhtEdgeSamples(r_.params.edgeSeconds, modes_.sampleRate);
    included_ = n_ - 2 * edge_;

    const AnalyticPlans plans(n_);
    plans_ = &plans;

    // Groups of whole channels with about 2 x threads items: enough to keep every thread busy in
    // phase 1, few enough that staging (12 bytes per sample and item) stays small.
    std::size_t totalItems = 0;
    for (const auto& ch : r_.channels) totalItems += ch.imfs.size();
    const std::size_t target = 2 * static_cast<std::size_t>(threads_);
    std::size_t doneItems = 0;
    for (std::size_t first = 0; first < r_.channels.size();) {
      std::vector<Item> items;
      std::size_t last = first;
      while (last < r_.channels.size() && (items.size() < target || last == first)) {
        for (std::size_t s = 0; s < r_.channels[last].imfs.size(); ++s) items.push_back({last, s});
        ++last;
      }
      const double begin = totalItems ? static_cast<double>(doneItems) / totalItems : 0.0;
      doneItems += items.size();
      const double end = totalItems ? static_cast<double>(doneItems) / totalItems : 1.0;
      runGroup(first, last, items, ctx_.sub(begin, begin + 0.8 * (end - begin)),
               ctx_.sub(begin + 0.8 * (end - begin), end));
      first = last;
    }
    ctx_.progress(1.0, "Hilbert-Huang spectrum");
    return std::move(r_);
  }

 private:
  void runGroup(std::size_t first, std::size_t last, const std::vector<Item>& items,
                const JobContext& analyticCtx, const JobContext& binCtx) {
    std::vector<Staging> staging(items.size());
    const auto n = static_cast<std::size_t>(n_);
    parallelFor(items.size(), threads_, analyticCtx, "Hilbert transform of the IMFs", [&] {
      auto real = std::make_shared<FftwBuffer<double>>(fftwAlloc<double>(n));
      auto z = std::make_shared<FftwBuffer<fftw_complex>>(fftwAlloc<fftw_complex>(n));
      auto a = std::make_shared<std::vector<double>>(n);
      auto f = std::make_shared<std::vector<double>>(n);
      return std::function<void(std::size_t)>([&, real, z, a, f](std::size_t i) {
        analyse(items[i], real->get(), z->get(), *a, *f, staging[i]);
      });
    });

    // Phase 2: (channel of the group, column chunk) items.
    const int64_t cols = r_.params.timeBins;
    const int64_t chunks = std::min<int64_t>(cols, kColumnChunks);
    const std::size_t channels = last - first;
    // Item ranges of each channel of the group within `items` (channel-major by construction).
    std::vector<std::size_t> itemBegin(channels + 1, items.size());
    for (std::size_t i = items.size(); i-- > 0;) itemBegin[items[i].channel - first] = i;
    for (std::size_t c = channels; c-- > 0;)
      itemBegin[c] = std::min(itemBegin[c], itemBegin[c + 1]);
    const auto bins = static_cast<std::size_t>(grid_.bins);
    std::vector<double> partial(channels * static_cast<std::size_t>(chunks) * bins, 0.0);
    parallelFor(channels * static_cast<std::size_t>(chunks), threads_, binCtx, "Hilbert spectrum",
                [&] {
                  auto hist = std::make_shared<std::vector<double>>(bins);
                  return std::function<void(std::size_t)>([&, hist](std::size_t w) {
                    const std::size_t c = w / static_cast<std::size_t>(chunks);
                    const auto chunk = static_cast<int64_t>(w % static_cast<std::size_t>(chunks));
                    binColumns(first + c, chunk, chunks, itemBegin[c], itemBegin[c + 1], staging,
                               *hist, partial.data() + w * bins);
                  });
                });
    // The marginal: partial sums of the chunks in chunk order, then / fs.
    for (std::size_t c = 0; c < channels; ++c) {
      auto& marginal = r_.channels[first + c].marginal;
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        const double* p =
            partial.data() +
            (c * static_cast<std::size_t>(chunks) + static_cast<std::size_t>(chunk)) * bins;
        for (std::size_t k = 0; k < bins; ++k) marginal[k] += p[k];
      }
      for (auto& v : marginal) v /= modes_.sampleRate;
    }
  }

  // Analytic signal, instantaneous amplitude and frequency, the IMF summaries, and the staging of
  // one (channel, IMF) pair.
  void analyse(const Item& item, double* real, fftw_complex* z, std::vector<double>& a,
               std::vector<double>& f, Staging& stage) const {
    const int64_t n = n_;
    const auto& in = modes_.channels[item.channel];
    HhtImf& imf = r_.channels[item.channel].imfs[item.slot];
    const float* x = in.row(imf.row, n);
    for (int64_t t = 0; t < n; ++t) real[t] = x[t];
    fftw_execute_dft_r2c(plans_->forward.get(), real, z);
    // Z[k] = X[k] h[k] / n: h = 1 at DC and at Nyquist (even n), 2 on bins 1 .. ceil(n/2) - 1,
    // 0 on the negative frequencies; 1/n because FFTW's inverse is unnormalised.
    const double inv = 1.0 / static_cast<double>(n);
    const int64_t positiveEnd = (n + 1) / 2;  // bins 1 .. positiveEnd - 1 are doubled
    z[0][0] *= inv;
    z[0][1] *= inv;
    for (int64_t k = 1; k < positiveEnd; ++k) {
      z[k][0] *= 2.0 * inv;
      z[k][1] *= 2.0 * inv;
    }
    int64_t zeroFrom = positiveEnd;
    if (n % 2 == 0) {
      z[n / 2][0] *= inv;
      z[n / 2][1] *= inv;
      zeroFrom = n / 2 + 1;
    }
    for (int64_t k = zeroFrom; k < n; ++k) z[k][0] = z[k][1] = 0.0;
    fftw_execute_dft(plans_->inverse.get(), z, z);

    auto zc = [z](int64_t t) { return std::complex<double>(z[t][0], z[t][1]); };
    const double fs = modes_.sampleRate;
    for (int64_t t = 0; t < n; ++t) a[t] = std::abs(zc(t));
    // step(t) = arg(z[t+1] conj z[t]) in (-pi, pi]; f = mean of the steps either side.
    double previous = std::arg(zc(1) * std::conj(zc(0)));
    f[0] = fs / (2.0 * std::numbers::pi) * previous;
    for (int64_t t = 1; t + 1 < n; ++t) {
      const double next = std::arg(zc(t + 1) * std::conj(zc(t)));
      f[t] = fs / (4.0 * std::numbers::pi) * (previous + next);
      previous = next;
    }
    f[n - 1] = fs / (2.0 * std::numbers::pi) * previous;

    if (r_.params.keepInstantaneous) {
      for (int64_t t = 0; t < n; ++t) {
        imf.amplitude[t] = static_cast<float>(a[t]);
        imf.frequencyHz[t] = static_cast<float>(f[t]);
      }
    }

    const bool energy = r_.params.quantity == HhtQuantity::Energy;
    const double nyquist = fs / 2.0;
    stage.bin.resize(static_cast<std::size_t>(included_));
    stage.value.resize(static_cast<std::size_t>(included_));
    double weighted = 0.0, weight = 0.0, xx = 0.0;
    for (int64_t t = edge_; t < n - edge_; ++t) {
      const double w = a[t] * a[t];
      if (f[t] > 0.0 && f[t] <= nyquist) {
        weighted += w * f[t];
        weight += w;
      }
      const double xv = x[t];
      xx += xv * xv;
      const auto s = static_cast<std::size_t>(t - edge_);
      stage.bin[s] = grid_.binOf(f[t]);
      stage.value[s] = energy ? w : a[t];
    }
    imf.meanFrequencyHz = weight > 0.0 ? weighted / weight : 0.0;
    imf.energy = xx / fs;
  }

  // Columns of chunk `chunk` of one channel: each cell sums its samples over the channel's IMFs
  // (rows ascending) and samples (ascending); mean per included sample into the spectrum, the
  // sums into this chunk's marginal partial.
  void binColumns(std::size_t channel, int64_t chunk, int64_t chunks, std::size_t itemBegin,
                  std::size_t itemEnd, const std::vector<Staging>& staging,
                  std::vector<double>& hist, double* partial) const {
    const int64_t cols = r_.params.timeBins;
    const int64_t colBegin = chunk * cols / chunks, colEnd = (chunk + 1) * cols / chunks;
    auto& spectrum = r_.channels[channel].spectrum;
    for (int64_t j = colBegin; j < colEnd; ++j) {
      const int64_t s0 = std::max(r_.timeEdges[static_cast<std::size_t>(j)], edge_);
      const int64_t s1 = std::min(r_.timeEdges[static_cast<std::size_t>(j) + 1], n_ - edge_);
      if (s1 <= s0) continue;  // a column inside the edges stays 0
      std::fill(hist.begin(), hist.end(), 0.0);
      for (std::size_t i = itemBegin; i < itemEnd; ++i) {
        const Staging& st = staging[i];
        for (int64_t t = s0; t < s1; ++t) {
          const auto s = static_cast<std::size_t>(t - edge_);
          const int k = st.bin[s];
          if (k >= 0) hist[static_cast<std::size_t>(k)] += st.value[s];
        }
      }
      const double count = static_cast<double>(s1 - s0);
      for (std::size_t k = 0; k < hist.size(); ++k) {
        spectrum[k * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)] =
            static_cast<float>(hist[k] / count);
        partial[k] += hist[k];
      }
    }
  }

  const EmdResult& modes_;
  JobContext& ctx_;
  int threads_;
  FrequencyGrid grid_;
  // Filled by run(); workers write disjoint parts of r_ (their IMF, their columns).
  mutable HhtResult r_;
  int64_t n_ = 0, edge_ = 0, included_ = 0;
  const AnalyticPlans* plans_ = nullptr;
};

}  // namespace

HhtResult hilbertHuangCpu(const EmdResult& modes, const HhtParams& params, int threads,
                          JobContext& ctx) {
  validateHhtParams(params, modes);
  threads = threadsOrAll(threads);
  HhtCpuRun run(modes, resolveHhtParams(params, modes), threads, ctx);
  return run.run(params);
}

}  // namespace modescope
