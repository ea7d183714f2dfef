// The signal browser's data path: reads the visible page of the visible channels, applies the
// display montage and filter, and reduces every trace to at most two points per pixel column.
//
// Why it is fast enough for 256 channels x 1 h at 1 kHz (docs/browser.md has the numbers):
// - Only the page is read (plus the filter's half-length on each side), never the whole file.
// - Processed samples are kept per sample-rate group in a window that covers the current page.
//   A scroll that overlaps the previous page reads, re-references and filters only the samples
//   that came into view; the overlap is copied. This is exact, not an approximation: the FIR is
//   applied to each new piece padded by its half-length of real neighbouring samples, so interior
//   samples equal those of a whole-record filter (at the record's ends the backend's reflection
//   applies either way).
// - Read-ahead: when less than a page beyond the current one is ready, a background task
//   reads and processes the next page (forward, the reading direction), so forward scrolling
//   finds its samples ready and only reduces and paints. Same code, same padding: results are
//   identical.
// - Each trace becomes min/max per pixel column (or the raw samples when a column holds fewer
//   than two), so drawing costs O(width) per channel whatever the page length.
// - Memory is bounded: a page longer than kWindowBudgetSamples allows is reduced chunk by chunk
//   while it is read, without a window.
// - The decimated page is cached: a repaint with an unchanged view only paints.
//
// No Qt here: plain C++ over the engine types, so it can be tested and benchmarked alone.
// Thread rules: a PageCache is used from one thread (the GUI thread). Its read-ahead task runs on
// a std::async thread with its own CPU backend and calls SignalSource::read concurrently with
// nothing but itself (sources must be thread-safe, recording.h); the cache waits for it before
// its settings change and in its destructor.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/recording.h"
#include "engine/dsp/preprocess.h"
#include "widgets/column_reducer.h"

namespace modescope::browser {

// What to show: channels (recording indices, top to bottom), a time range and a pixel width.
struct PageRequest {
  std::vector<int> channels;
  double start = 0.0;    // s from the recording start
  double length = 10.0;  // s, > 0
  int columns = 1000;    // pixel columns the page spans, > 0

  bool operator==(const PageRequest&) const = default;
};

struct DecimatedPage {
  PageRequest request;
  std::vector<DecimatedTrace> traces;  // one per requested channel, same order
  uint64_t serial = 0;  // changes whenever the page is recomputed (keys the renderer's cache)
};

// Factor from a channel's physical dimension to microvolts ("uV", "µV" -> 1, "mV" -> 1000,
// "V" -> 1e6, "nV" -> 1e-3); 1 for anything else (the value is drawn as it is).
double microvoltsPerUnit(const std::string& unit);

// Pages whose samples (visible channels x page samples) exceed this are reduced while they are
// read, in chunks, and no window is kept (scrolling them re-reads the page): 32 Mi samples
// (128 MiB of float) bound the memory whatever the page length.
constexpr int64_t kWindowBudgetSamples = int64_t{32} << 20;

// Read-ahead, in pages beyond the current one: a task starts when less than kReadAheadMin is
// ready and fills up to kReadAheadMax (a page per task: the filter's padding is paid per task).
constexpr double kReadAheadMin = 1.0;
constexpr double kReadAheadMax = 2.0;

class PageCache {
 public:
  // `backend` runs the montage and the filter; nullptr means "create the CPU backend on first
  // use" (makeCpuBackend). The browser uses its own backend instance, not the engine thread's.
  explicit PageCache(std::shared_ptr<ComputeBackend> backend = nullptr);
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  void setRecording(std::shared_ptr<const Recording> recording);

  // Display montage. Returns "" when it fits the recording, else the reason (the montage is then
  // not applied: "as recorded"). Checked against all channels, so a missing mastoid is reported
  // here and not at every page.
  std::string setMontage(const ReferenceSpec& montage);
  // Display filter (nullopt: none). Designed once per sample rate (cached). Returns "" or the
  // reason it cannot be used at some rate (e.g. an edge above Nyquist); channels at that rate are
  // then shown unfiltered.
  std::string setFilter(const std::optional<FilterSpec>& filter) {
    return setFilters(filter ? std::vector<FilterSpec>{*filter} : std::vector<FilterSpec>{});
  }
  // A chain (high-pass + low-pass + notch, ...) applied as one kernel (fir_chain.h); empty: none.
  std::string setFilters(const std::vector<FilterSpec>& chain);

  // Read-ahead on (default) or off.
  void setReadAhead(bool enabled);
  // Blocks until the read-ahead task (if any) has finished (tests and the benchmark).
  void waitForReadAhead();

  // The decimated page; computed on a miss, else the cached one. Throws what SignalSource::read
  // throws (InvalidInputError on an I/O error).
  const DecimatedPage& page(const PageRequest& request);

  // The page computed last (nullptr before the first): what is on screen, for read-outs.
  const DecimatedPage* lastPage() const { return page_ ? &*page_ : nullptr; }

  // Problems met while computing pages (a montage row at another rate, a read error), newest
  // last; the browser turns them into displayProblem. Cleared by takeProblems().
  std::vector<std::string> takeProblems();

  // Drops the decimated page, the sample windows and any read-ahead (after a settings change).
  void invalidate();

  // Samples read from the source by page() itself, and by the read-ahead task (benchmark and
  // tests: prove that a quarter-page scroll reads a quarter page, or nothing when read ahead).
  int64_t samplesRead() const { return samplesRead_; }
  int64_t samplesReadAhead() const { return samplesReadAhead_; }

 private:
  struct Window;
  // What the read-ahead task hands back: one row per channel of its Pending.
  struct Extension {
    bool ok = false;
    std::vector<std::vector<float>> rows;
    int64_t samplesRead = 0;
    std::vector<std::string> problems;
  };
  // A read-ahead task: rows for `channels` over samples [first, end), when `result` is ready.
  struct Pending {
    std::vector<std::size_t> channels;
    int64_t first = 0, end = 0;
    std::future<Extension> result;
  };

  ComputeBackend& backend();
  std::vector<std::size_t> referenceCandidates(double rate) const;
  std::shared_ptr<const FirKernel> firFor(double rate);
  void takeReadAhead(double rate, Window& w, int64_t s0, int64_t s1);
  void startReadAhead(double rate, const Window& w, int64_t end);
  void dropReadAhead();

  std::shared_ptr<ComputeBackend> backend_;
  std::shared_ptr<const Recording> recording_;
  ReferenceSpec montage_;
  std::vector<FilterSpec> filters_;  // the display filter chain, empty for none
  std::map<double, std::shared_ptr<const FirKernel>> firCache_;  // null: design failed there
  std::map<double, std::unique_ptr<Window>> windows_;            // per sample rate
  std::optional<DecimatedPage> page_;
  std::vector<std::string> problems_;
  bool readAhead_ = true;
  std::map<double, Pending> pending_;  // read-ahead per sample rate
  std::vector<Pending> stale_;         // no longer wanted, left to finish on their own
  int64_t samplesRead_ = 0;
  int64_t samplesReadAhead_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace modescope::browser
