#include "widgets/page_cache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dsp/fir_chain.h"

namespace modescope::browser {

// Processed samples of the displayed channels at one sample rate over [first, end); all rows
// have the same length. It covers the current page and possibly read-ahead beyond it.
struct PageCache::Window {
  int64_t first = 0, end = 0;
  std::map<std::size_t, std::vector<float>> rows;  // recording channel -> samples
};

namespace {

// Everything processRange needs, by value, so the read-ahead thread shares nothing mutable.
struct ProcessSpec {
  std::shared_ptr<const Recording> recording;
  double rate = 0.0;
  std::vector<std::size_t> channels;    // rows to return
  std::vector<std::size_t> candidates;  // reference sources to read as well
  ReferenceSpec montage;
  std::shared_ptr<const FirKernel> fir;
};

void addProblem(std::vector<std::string>& problems, const std::string& p) {
  if (std::find(problems.begin(), problems.end(), p) == problems.end()) problems.push_back(p);
}

// Reads, re-references and filters spec.channels over samples [lo, hi); returns one row per
// channel (zeros past a channel's end). The block is padded by the filter's half-length of real
// signal on each side where the recording has it, so the filtered [lo, hi) equals a
// whole-record filter there.
std::vector<std::vector<float>> processRange(const ProcessSpec& spec, int64_t lo, int64_t hi,
                                             ComputeBackend& backend, int64_t& samplesRead,
                                             std::vector<std::string>& problems) {
  const Recording& rec = *spec.recording;
  std::vector<std::size_t> block = spec.channels;
  for (std::size_t c : spec.candidates) {
    if (std::find(block.begin(), block.end(), c) == block.end()) block.push_back(c);
  }
  int64_t limit = 0;
  for (std::size_t c : block) limit = std::max(limit, rec.channels[c].sampleCount);
  const int64_t pad = spec.fir ? static_cast<int64_t>(spec.fir->taps.size() / 2) : 0;
  const int64_t rlo = std::max<int64_t>(0, lo - pad);
  const int64_t rhi = std::min<int64_t>(limit, hi + pad);

  SignalBlock b;
  b.channels = block;
  b.sampleRate = spec.rate;
  b.firstSample = rlo;
  b.samples = std::max<int64_t>(0, rhi - rlo);
  b.data.assign(block.size() * static_cast<std::size_t>(b.samples), 0.0f);
  for (std::size_t i = 0; i < block.size(); ++i) {
    const int64_t n = std::min(rhi, rec.channels[block[i]].sampleCount) - rlo;
    if (n > 0) {
      rec.source->read(block[i], rlo, n, b.channel(i));
      samplesRead += n;
    }
  }

  if (b.samples > 0 && spec.montage.kind != ReferenceKind::AsRecorded) {
    try {
      JobContext ctx;
      backend.applyReference(b, planReference(rec, block, spec.montage), ctx);
    } catch (const Error& e) {
      addProblem(problems,
                 "Montage not applied at " + formatNumber(spec.rate) + " Hz: " + e.what());
    }
  }
  if (b.samples > 0 && spec.fir) {
    // Only the rows that are shown need filtering; reference sources were needed only above.
    if (block.size() > spec.channels.size()) {
      b.channels.resize(spec.channels.size());
      b.data.resize(spec.channels.size() * static_cast<std::size_t>(b.samples));
    }
    JobContext ctx;
    backend.applyFir(b, *spec.fir, ctx);
  }

  std::vector<std::vector<float>> out(spec.channels.size());
  const int64_t n = std::max<int64_t>(0, hi - lo);
  const int64_t avail = std::min<int64_t>(hi, rhi) - lo;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].assign(static_cast<std::size_t>(n), 0.0f);
    if (avail > 0) {
      const float* src = b.channel(i) + (lo - rlo);
      std::copy(src, src + avail, out[i].begin());
    }
  }
  return out;
}

template <class T>
bool isReady(const std::future<T>& f) {
  return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

double microvoltsPerUnit(const std::string& unit) {
  const std::string u = trim(unit);
  if (u == "uV" || u == "µV" || u == "\xB5V" || equalsIgnoreCase(u, "microvolt")) return 1.0;
  if (u == "mV") return 1e3;
  if (u == "V") return 1e6;
  if (u == "nV") return 1e-3;
  return 1.0;
}

PageCache::PageCache(std::shared_ptr<ComputeBackend> backend) : backend_(std::move(backend)) {}

PageCache::~PageCache() { dropReadAhead(); }

ComputeBackend& PageCache::backend() {
  if (!backend_) backend_ = makeCpuBackend();
  return *backend_;
}

void PageCache::setRecording(std::shared_ptr<const Recording> recording) {
  invalidate();
  recording_ = std::move(recording);
  firCache_.clear();
  problems_.clear();
}

void PageCache::dropReadAhead() {
  for (auto& [rate, p] : pending_) {
    if (p.result.valid()) p.result.wait();
  }
  pending_.clear();
  for (auto& p : stale_) {
    if (p.result.valid()) p.result.wait();
  }
  stale_.clear();
}

void PageCache::invalidate() {
  dropReadAhead();
  page_.reset();
  windows_.clear();
}

void PageCache::setReadAhead(bool enabled) {
  readAhead_ = enabled;
  if (!enabled) dropReadAhead();
}

void PageCache::waitForReadAhead() {
  for (auto& [rate, p] : pending_) {
    if (p.result.valid()) p.result.wait();
  }
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

std::string PageCache::setFilters(const std::vector<FilterSpec>& chain) {
  invalidate();
  firCache_.clear();
  filters_ = chain;
  if (filters_.empty() || !recording_) return {};
  std::set<double> rates;
  for (const auto& c : recording_->channels) {
    if (c.sampleRate > 0) rates.insert(c.sampleRate);
  }
  std::string problem;
  for (double r : rates) {
    if (!firFor(r) && problem.empty()) {
      problem = "The display filter cannot be used at " + formatNumber(r) +
                " Hz; those channels are shown unfiltered";
    }
  }
  problems_.clear();  // reported through the return value instead
  return problem;
}

std::shared_ptr<const FirKernel> PageCache::firFor(double rate) {
  if (filters_.empty()) return nullptr;
  auto it = firCache_.find(rate);
  if (it == firCache_.end()) {
    std::shared_ptr<const FirKernel> k;
    try {
      k = std::make_shared<const FirKernel>(designFirChain(filters_, rate));
    } catch (const Error& e) {
      problems_.push_back(e.what());
    }
    it = firCache_.emplace(rate, std::move(k)).first;
  }
  return it->second;
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

void PageCache::takeReadAhead(double rate, Window& w, int64_t s0, int64_t s1) {
  // Finished stale tasks are released here, without waiting for running ones.
  std::erase_if(stale_, [](const Pending& p) { return !p.result.valid() || isReady(p.result); });
  auto it = pending_.find(rate);
  if (it == pending_.end()) return;
  Pending p = std::move(it->second);
  pending_.erase(it);
  std::vector<std::size_t> current;
  for (const auto& [c, row] : w.rows) current.push_back(c);
  // A task that does not continue this window (a jump, other channels) is left to finish on its
  // own. One that does is taken when it is done, waited for when the new page reaches into it
  // (cheaper than redoing its work), and otherwise left running.
  if (p.first != w.end || p.channels != current || s0 >= p.end) {
    stale_.push_back(std::move(p));
    return;
  }
  if (!isReady(p.result) && s1 <= p.first) {
    pending_[rate] = std::move(p);
    return;
  }
  Extension e = p.result.get();
  samplesReadAhead_ += e.samplesRead;
  for (auto& problem : e.problems) addProblem(problems_, problem);
  if (!e.ok) return;
  for (std::size_t i = 0; i < e.rows.size(); ++i) {
    auto& row = w.rows[p.channels[i]];
    row.insert(row.end(), e.rows[i].begin(), e.rows[i].end());
  }
  w.end = p.end;
}

void PageCache::startReadAhead(double rate, const Window& w, int64_t end) {
  if (!readAhead_ || end <= w.end || w.rows.empty() || pending_.count(rate)) return;
  ProcessSpec spec;
  spec.recording = recording_;
  spec.rate = rate;
  for (const auto& [c, row] : w.rows) spec.channels.push_back(c);
  spec.candidates = referenceCandidates(rate);
  spec.montage = montage_;
  spec.fir = firFor(rate);
  Pending p;
  p.first = w.end;
  p.end = end;
  p.channels = spec.channels;
  p.result = std::async(std::launch::async, [spec = std::move(spec), first = p.first, end] {
    Extension e;
    // Its own backend: a backend serves one caller at a time (backend.h).
    const auto backend = makeCpuBackend();
    try {
      e.rows = processRange(spec, first, end, *backend, e.samplesRead, e.problems);
      e.ok = true;
    } catch (const std::exception&) {
      // A failed read-ahead is dropped; page() meets the same error and reports it.
      e.rows.clear();
    }
    return e;
  });
  pending_[rate] = std::move(p);
}

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
  // Windows and read-ahead of rates no longer shown are dropped so memory follows the view.
  for (auto it = windows_.begin(); it != windows_.end();) {
    it = groups.count(it->first) ? std::next(it) : windows_.erase(it);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (groups.count(it->first)) {
      ++it;
    } else {
      stale_.push_back(std::move(it->second));
      it = pending_.erase(it);
    }
  }

  // One reducer per requested channel, on one column grid per rate.
  std::map<std::size_t, ColumnReducer> reducers;
  struct Range {
    int64_t first, end, limit;
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
                  std::clamp<int64_t>(grid->endNeeded, 0, limit), limit};
    ranges[rate] = r;
    total += static_cast<int64_t>(channels.size()) * std::max<int64_t>(0, r.end - r.first);
  }
  const bool streaming = total > kWindowBudgetSamples;
  if (streaming) {
    for (auto& [rate, p] : pending_) stale_.push_back(std::move(p));
    pending_.clear();
    windows_.clear();
  }

  for (auto& [rate, channels] : groups) {
    const auto [s0, s1, limit] = ranges[rate];
    ProcessSpec spec{recording_, rate, {}, referenceCandidates(rate), montage_, firFor(rate)};
    auto feed = [&](std::size_t c, const std::vector<float>& row, int64_t first) {
      const int64_t n =
          std::min(first + static_cast<int64_t>(row.size()), rec.channels[c].sampleCount) - first;
      if (n > 0) reducers.at(c).add(row.data(), first, n);
    };

    if (streaming) {
      // Chunks of about 4 Mi samples over the group: memory stays small however long the page.
      spec.channels = channels;
      const int64_t chunk = std::max<int64_t>(
          static_cast<int64_t>(rate), (int64_t{4} << 20) / static_cast<int64_t>(channels.size()));
      for (int64_t a = s0; a < s1; a += chunk) {
        const int64_t b = std::min(s1, a + chunk);
        const auto rows = processRange(spec, a, b, backend(), samplesRead_, problems_);
        for (std::size_t i = 0; i < channels.size(); ++i) feed(channels[i], rows[i], a);
      }
      continue;
    }

    auto& slot = windows_[rate];
    if (!slot) slot = std::make_unique<Window>();
    Window& w = *slot;
    takeReadAhead(rate, w, s0, s1);
    const auto pageSamples = static_cast<double>(s1 - s0);
    const int64_t aheadMin =
        std::min(limit, s1 + static_cast<int64_t>(kReadAheadMin * pageSamples));
    const int64_t aheadMax =
        std::min(limit, s1 + static_cast<int64_t>(kReadAheadMax * pageSamples));

    const bool overlaps = !w.rows.empty() && s0 < w.end && s1 > w.first;
    std::vector<std::size_t> kept, fresh;
    for (std::size_t c : channels) (overlaps && w.rows.count(c) ? kept : fresh).push_back(c);
    // The new window keeps read-ahead already there (up to aheadMax) unless new channels join,
    // which are computed over the page only: all rows must span the same range.
    const int64_t newEnd = fresh.empty() && overlaps ? std::max(s1, std::min(w.end, aheadMax)) : s1;

    std::map<std::size_t, std::vector<float>> rows;
    if (!kept.empty()) {
      // Only the samples that scrolled into view are read and processed.
      std::vector<std::vector<float>> left, right;
      spec.channels = kept;
      if (s0 < w.first) left = processRange(spec, s0, w.first, backend(), samplesRead_, problems_);
      if (newEnd > w.end)
        right = processRange(spec, w.end, newEnd, backend(), samplesRead_, problems_);
      const int64_t o0 = std::max(s0, w.first), o1 = std::min(newEnd, w.end);
      for (std::size_t i = 0; i < kept.size(); ++i) {
        const std::vector<float>& old = w.rows[kept[i]];
        std::vector<float> row;
        row.reserve(static_cast<std::size_t>(newEnd - s0));
        if (!left.empty()) row.insert(row.end(), left[i].begin(), left[i].end());
        row.insert(row.end(), old.begin() + (o0 - w.first), old.begin() + (o1 - w.first));
        if (!right.empty()) row.insert(row.end(), right[i].begin(), right[i].end());
        rows.emplace(kept[i], std::move(row));
      }
    }
    if (!fresh.empty()) {
      spec.channels = fresh;
      auto out = processRange(spec, s0, newEnd, backend(), samplesRead_, problems_);
      for (std::size_t i = 0; i < fresh.size(); ++i) rows.emplace(fresh[i], std::move(out[i]));
    }
    w.rows = std::move(rows);
    w.first = s0;
    w.end = newEnd;
    for (const auto& [c, row] : w.rows) feed(c, row, w.first);
    // Read ahead in large pieces (the filter pads every piece by its length on both sides), and
    // only when less than aheadMin is left.
    if (w.end < aheadMin) startReadAhead(rate, w, aheadMax);
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
