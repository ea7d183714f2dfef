#include "widgets/page_cache.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace modescope::browser {

// Processed samples of the displayed channels at one sample rate over [first, end).
struct PageCache::Window {
  int64_t first = 0, end = 0;
  std::map<std::size_t, std::vector<float>> rows;  // recording channel -> samples
};

double microvoltsPerUnit(const std::string& unit) {
  const std::string u = trim(unit);
  if (u == "uV" || u == "µV" || u == "\xB5V" || equalsIgnoreCase(u, "microvolt")) return 1.0;
  if (u == "mV") return 1e3;
  if (u == "V") return 1e6;
  if (u == "nV") return 1e-3;
  return 1.0;
}

PageCache::PageCache(std::shared_ptr<ComputeBackend> backend) : backend_(std::move(backend)) {}
PageCache::~PageCache() = default;

ComputeBackend& PageCache::backend() {
  if (!backend_) backend_ = makeCpuBackend();
  return *backend_;
}

void PageCache::setRecording(std::shared_ptr<const Recording> recording) {
  recording_ = std::move(recording);
  firCache_.clear();
  problems_.clear();
  invalidate();
}

void PageCache::invalidate() {
  page_.reset();
  windows_.clear();
}

std::vector<std::string> PageCache::takeProblems() {
  std::vector<std::string> out;
  out.swap(problems_);
  return out;
}

std::string PageCache::setMontage(const ReferenceSpec& montage) {
  invalidate();
  montage_ = ReferenceSpec{};
  if (montage.kind == ReferenceKind::AsRecorded || !recording_) {
    montage_ = montage;
    return {};
  }
  // Validate against the whole recording once: planReference names what is missing.
  std::vector<std::size_t> all(recording_->channelCount());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  try {
    (void)planReference(*recording_, all, montage);
  } catch (const Error& e) {
    return e.what();
  }
  montage_ = montage;
  return {};
}

std::string PageCache::setFilter(const std::optional<FilterSpec>& filter) {
  invalidate();
  firCache_.clear();
  filter_ = filter;
  if (!filter_ || !recording_) return {};
  std::set<double> rates;
  for (const auto& c : recording_->channels) {
    if (c.sampleRate > 0) rates.insert(c.sampleRate);
  }
  std::string problem;
  for (double r : rates) {
    firFor(r);
    if (!firCache_[r] && problem.empty()) {
      problem = "The display filter cannot be used at " + formatNumber(r) +
                " Hz; those channels are shown unfiltered";
    }
  }
  problems_.clear();  // reported through the return value instead
  return problem;
}

const FirKernel* PageCache::firFor(double rate) {
  if (!filter_) return nullptr;
  auto it = firCache_.find(rate);
  if (it == firCache_.end()) {
    std::optional<FirKernel> k;
    try {
      k = designFir(*filter_, rate);
    } catch (const Error& e) {
      problems_.push_back(e.what());
    }
    it = firCache_.emplace(rate, std::move(k)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::vector<std::size_t> PageCache::referenceCandidates(double rate) const {
  std::vector<std::size_t> out;
  const Recording& rec = *recording_;
  auto addNamed = [&](const std::string& name) {
    const int i = rec.findChannel(name);
    if (i >= 0 && rec.channels[static_cast<std::size_t>(i)].sampleRate == rate) {
      out.push_back(static_cast<std::size_t>(i));
    }
  };
  switch (montage_.kind) {
    case ReferenceKind::AsRecorded:
      break;
    case ReferenceKind::Average:
      for (std::size_t i = 0; i < rec.channelCount(); ++i) {
        if (rec.channels[i].type == ChannelType::EEG && rec.channels[i].sampleRate == rate) {
          out.push_back(i);
        }
      }
      break;
    case ReferenceKind::LinkedMastoids:
      for (const char* n : {"M1", "M2", "A1", "A2", "TP9", "TP10"}) addNamed(n);
      break;
    case ReferenceKind::Channel:
      addNamed(montage_.channel);
      break;
  }
  return out;
}

namespace {

// Reads, re-references and filters `channels` (all at `rate`) over samples [lo, hi); returns one
// row per channel. The block is padded by `pad` samples of real signal on each side where the
// recording has them, so the filtered [lo, hi) equals a whole-record filter there.
struct ProcessArgs {
  const Recording* rec;
  double rate;
  const std::vector<std::size_t>* channels;
  const std::vector<std::size_t>* candidates;
  const ReferenceSpec* montage;
  const FirKernel* fir;
  ComputeBackend* backend;
  int64_t* samplesRead;
  std::vector<std::string>* problems;
};

void addProblem(std::vector<std::string>& problems, const std::string& p) {
  if (std::find(problems.begin(), problems.end(), p) == problems.end()) problems.push_back(p);
}

std::vector<std::vector<float>> processRange(const ProcessArgs& a, int64_t lo, int64_t hi) {
  const Recording& rec = *a.rec;
  std::vector<std::size_t> block = *a.channels;
  for (std::size_t c : *a.candidates) {
    if (std::find(block.begin(), block.end(), c) == block.end()) block.push_back(c);
  }
  int64_t limit = 0;
  for (std::size_t c : block) limit = std::max(limit, rec.channels[c].sampleCount);
  const int64_t pad = a.fir ? static_cast<int64_t>(a.fir->taps.size() / 2) : 0;
  const int64_t rlo = std::max<int64_t>(0, lo - pad);
  const int64_t rhi = std::min<int64_t>(limit, hi + pad);

  SignalBlock b;
  b.channels = block;
  b.sampleRate = a.rate;
  b.firstSample = rlo;
  b.samples = std::max<int64_t>(0, rhi - rlo);
  b.data.assign(block.size() * static_cast<std::size_t>(b.samples), 0.0f);
  for (std::size_t i = 0; i < block.size(); ++i) {
    const int64_t n = std::min(rhi, rec.channels[block[i]].sampleCount) - rlo;
    if (n > 0) {
      rec.source->read(block[i], rlo, n, b.channel(i));
      *a.samplesRead += n;
    }
  }

  if (b.samples > 0 && a.montage->kind != ReferenceKind::AsRecorded) {
    try {
      JobContext ctx;
      const ReferencePlan plan = planReference(rec, block, *a.montage);
      a.backend->applyReference(b, plan, ctx);
    } catch (const Error& e) {
      addProblem(*a.problems, std::string("Montage not applied at ") + formatNumber(a.rate) +
                                  " Hz: " + e.what());
    }
  }
  if (b.samples > 0 && a.fir) {
    JobContext ctx;
    a.backend->applyFir(b, *a.fir, ctx);
  }

  std::vector<std::vector<float>> out(a.channels->size());
  const int64_t n = std::max<int64_t>(0, hi - lo);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].assign(static_cast<std::size_t>(n), 0.0f);
    const int64_t avail = std::min<int64_t>(hi, rhi) - lo;
    if (avail > 0) {
      const float* src = b.channel(i) + (lo - rlo);
      std::copy(src, src + avail, out[i].begin());
    }
  }
  return out;
}

}  // namespace

const DecimatedPage& PageCache::page(const PageRequest& request) {
  if (page_ && page_->request == request) return *page_;
  DecimatedPage result;
  result.request = request;
  result.traces.resize(request.channels.size());
  result.serial = ++serial_;
  if (!recording_ || request.columns <= 0 || !(request.length > 0)) {
    page_ = std::move(result);
    return *page_;
  }
  const Recording& rec = *recording_;

  // Group the requested channels by sample rate: each group is one block for the backend.
  std::map<double, std::vector<std::size_t>> groups;
  for (int c : request.channels) {
    if (c < 0 || static_cast<std::size_t>(c) >= rec.channelCount()) continue;
    const auto idx = static_cast<std::size_t>(c);
    if (!(rec.channels[idx].sampleRate > 0)) continue;
    auto& g = groups[rec.channels[idx].sampleRate];
    if (std::find(g.begin(), g.end(), idx) == g.end()) g.push_back(idx);
  }
  // Windows of rates no longer shown are dropped so memory follows the view.
  for (auto it = windows_.begin(); it != windows_.end();) {
    it = groups.count(it->first) ? std::next(it) : windows_.erase(it);
  }

  // One reducer per requested channel; all channels of a rate need the same sample range.
  std::map<std::size_t, ColumnReducer> reducers;
  struct Range {
    int64_t first, end;
  };
  std::map<double, Range> ranges;
  int64_t total = 0;
  for (const auto& [rate, channels] : groups) {
    int64_t limit = 0;
    for (std::size_t c : channels) limit = std::max(limit, rec.channels[c].sampleCount);
    const auto grid =
        std::make_shared<const ColumnGrid>(rate, request.start, request.length, request.columns);
    for (std::size_t c : channels) reducers.emplace(c, ColumnReducer(grid));
    const Range r{std::clamp<int64_t>(grid->firstNeeded, 0, limit),
                  std::clamp<int64_t>(grid->endNeeded, 0, limit)};
    ranges[rate] = r;
    total += static_cast<int64_t>(channels.size()) * std::max<int64_t>(0, r.end - r.first);
  }
  const bool streaming = total > kWindowBudgetSamples;
  if (streaming) windows_.clear();

  for (auto& [rate, channels] : groups) {
    const auto [s0, s1] = ranges[rate];
    const std::vector<std::size_t> candidates = referenceCandidates(rate);
    ProcessArgs args{&rec, rate, &channels, &candidates, &montage_, firFor(rate), &backend(),
                     &samplesRead_, &problems_};
    auto feed = [&](std::size_t c, const std::vector<float>& row, int64_t first) {
      const int64_t n = std::min(first + static_cast<int64_t>(row.size()),
                                 rec.channels[c].sampleCount) - first;
      if (n > 0) reducers.at(c).add(row.data(), first, n);
    };

    if (streaming) {
      // Chunks of about 4 Mi samples over the group: memory stays small however long the page.
      const int64_t chunk = std::max<int64_t>(static_cast<int64_t>(rate),
                                              (int64_t{4} << 20) / static_cast<int64_t>(channels.size()));
      for (int64_t a = s0; a < s1; a += chunk) {
        const int64_t b = std::min(s1, a + chunk);
        const auto rows = processRange(args, a, b);
        for (std::size_t i = 0; i < channels.size(); ++i) feed(channels[i], rows[i], a);
      }
      continue;
    }

    auto& slot = windows_[rate];
    if (!slot) slot = std::make_unique<Window>();
    Window& w = *slot;
    const bool overlaps = !w.rows.empty() && s0 < w.end && s1 > w.first;
    std::vector<std::size_t> kept, fresh;
    for (std::size_t c : channels) (overlaps && w.rows.count(c) ? kept : fresh).push_back(c);

    std::map<std::size_t, std::vector<float>> rows;
    if (!kept.empty()) {
      // Only the samples that scrolled into view are read and processed.
      std::vector<std::vector<float>> left, right;
      args.channels = &kept;
      if (s0 < w.first) left = processRange(args, s0, w.first);
      if (s1 > w.end) right = processRange(args, w.end, s1);
      const int64_t o0 = std::max(s0, w.first), o1 = std::min(s1, w.end);
      for (std::size_t i = 0; i < kept.size(); ++i) {
        const std::vector<float>& old = w.rows[kept[i]];
        std::vector<float> row;
        row.reserve(static_cast<std::size_t>(s1 - s0));
        if (!left.empty()) row.insert(row.end(), left[i].begin(), left[i].end());
        row.insert(row.end(), old.begin() + (o0 - w.first), old.begin() + (o1 - w.first));
        if (!right.empty()) row.insert(row.end(), right[i].begin(), right[i].end());
        rows.emplace(kept[i], std::move(row));
      }
    }
    if (!fresh.empty()) {
      args.channels = &fresh;
      auto out = processRange(args, s0, s1);
      for (std::size_t i = 0; i < fresh.size(); ++i) rows.emplace(fresh[i], std::move(out[i]));
    }
    w.rows = std::move(rows);
    w.first = s0;
    w.end = s1;
    for (const auto& [c, row] : w.rows) feed(c, row, w.first);
  }

  for (std::size_t k = 0; k < request.channels.size(); ++k) {
    const int c = request.channels[k];
    auto it = c >= 0 ? reducers.find(static_cast<std::size_t>(c)) : reducers.end();
    if (it == reducers.end()) continue;
    result.traces[k] =
        it->second.finish(microvoltsPerUnit(rec.channels[static_cast<std::size_t>(c)].unit));
    result.traces[k].channel = c;
  }
  page_ = std::move(result);
  return *page_;
}

}  // namespace modescope::browser
