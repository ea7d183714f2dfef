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
// - Each trace becomes min/max per pixel column (or the raw samples when a column holds fewer
//   than two), so drawing costs O(width) per channel whatever the page length.
// - Memory is bounded: a page longer than kWindowBudgetSamples allows is reduced chunk by chunk
//   while it is read, without a window.
// - The decimated page is cached: a repaint with an unchanged view only paints.
//
// No Qt here: plain C++ over the engine types, so it can be tested and benchmarked alone.
// Thread rules: one PageCache is used from one thread (the GUI thread); it calls
// SignalSource::read and the ComputeBackend synchronously.
#pragma once

#include <cstdint>
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
  double start = 0.0;   // s from the recording start
  double length = 10.0; // s, > 0
  int columns = 1000;   // pixel columns the page spans, > 0

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

class PageCache {
 public:
  // `backend` runs the montage and the filter; nullptr means "create the CPU backend on first
  // use" (makeCpuBackend). The browser uses its own backend instance, not the engine thread's.
  explicit PageCache(std::shared_ptr<ComputeBackend> backend = nullptr);
  ~PageCache();

  void setRecording(std::shared_ptr<const Recording> recording);

  // Display montage. Returns "" when it fits the recording, else the reason (the montage is then
  // not applied: "as recorded"). Checked against all channels, so a missing mastoid is reported
  // here and not at every page.
  std::string setMontage(const ReferenceSpec& montage);
  // Display filter (nullopt: none). Designed once per sample rate (cached). Returns "" or the
  // reason it cannot be used at some rate (e.g. an edge above Nyquist); channels at that rate are
  // then shown unfiltered.
  std::string setFilter(const std::optional<FilterSpec>& filter);

  // The decimated page; computed on a miss, else the cached one. Throws what SignalSource::read
  // throws (InvalidInputError on an I/O error).
  const DecimatedPage& page(const PageRequest& request);

  // Problems met while computing pages (a montage row at another rate, a read error), newest
  // last; the browser turns them into displayProblem. Cleared by takeProblems().
  std::vector<std::string> takeProblems();

  // Drops the decimated page and the sample windows (e.g. after a settings change).
  void invalidate();

  // How many samples were read from the source since construction (benchmark and tests: proves
  // that a quarter-page scroll reads a quarter page).
  int64_t samplesRead() const { return samplesRead_; }

 private:
  struct Window;

  ComputeBackend& backend();
  std::vector<std::size_t> referenceCandidates(double rate) const;
  const FirKernel* firFor(double rate);

  std::shared_ptr<ComputeBackend> backend_;
  std::shared_ptr<const Recording> recording_;
  ReferenceSpec montage_;
  std::optional<FilterSpec> filter_;
  std::map<double, std::optional<FirKernel>> firCache_;  // nullopt: design failed at that rate
  std::map<double, std::unique_ptr<Window>> windows_;    // per sample rate
  std::optional<DecimatedPage> page_;
  std::vector<std::string> problems_;
  int64_t samplesRead_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace modescope::browser
