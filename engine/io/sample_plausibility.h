// A plausibility check of the samples of a recording, run when a file opens, so that a damaged
// file is reported instead of drawn as if it were data.
//
// Why: a file whose data section is shifted by a byte (a truncated copy repaired by hand, a
// writer that lost a byte) still has a valid header, and every reader takes it; from the first
// shifted record on, each 16-bit sample is made of the low byte of one value and the high byte of
// the next, i.e. noise spanning the whole digital range. The same test catches an amplifier
// pinned at its limit and a record whose scale jumps by orders of magnitude.
//
// What is checked, per physiological channel (EEG, EOG, ECG, EMG; trigger and other channels
// keep their own conventions) and per data record:
// - pinned: at least half of the record's samples sit within half a quantisation step of the
//   physical minimum or maximum (a saturated amplifier, a disconnected electrode);
// - beyond range: more than 1 % of the samples lie outside [physical min, physical max] by more
//   than 1 % of that range (digital values outside the declared digital range);
// - noise across the range: the standard deviation of sample-to-sample differences exceeds 10 %
//   of the physical range (real EEG moves a few uV per sample within a range of thousands; white
//   noise over the whole range has about 41 %);
// - jump: that standard deviation exceeds kJumpFactor times the channel's median over the (up
//   to 10) preceding records that passed every test.
// A record is damaged when at least half of the checked channels fail; the file "looks damaged
// from record N" when N is the first damaged record and most checked records after it are
// damaged too (damage that persists, as a shift does). Channels that fail in most records on
// their own (pinned, beyond range, noise) are named separately.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct PlausibilityOptions {
  // Length of one data record in seconds (EDF/BDF: the header's record duration); <= 0 means
  // one second.
  double recordSeconds = 0.0;
  // At most this many samples are read; longer files are checked on evenly spaced records (the
  // first damaged record is then known to within the spacing, and the message says "about").
  int64_t sampleBudget = int64_t{16} << 20;
};

// Thresholds (see the header comment).
constexpr double kPinnedFraction = 0.5;
constexpr double kBeyondRangeFraction = 0.01;
constexpr double kRoughnessOfRange = 0.10;
constexpr double kJumpFactor = 20.0;
constexpr int kJumpBaselineRecords = 10;

struct PlausibilityReport {
  int recordsChecked = 0;
  int recordStride = 1;     // 1: every record was checked
  int channelsChecked = 0;  // physiological channels with a usable physical range
  // 0-based index of the first record from which the data look damaged; -1 when they do not.
  int64_t damagedFromRecord = -1;
  double damagedFromSeconds = 0.0;
  int damagedRecords = 0;  // among the checked ones
  // What most failing channels of the damaged records show ("noise across the whole physical
  // range", "pinned at the digital limit", ...).
  std::string damageReason;
  // Channels failing in most checked records while the file as a whole is not damaged, each
  // with why ("pinned at the digital limit", ...).
  std::vector<std::string> implausibleChannels;

  bool clean() const { return damagedFromRecord < 0 && implausibleChannels.empty(); }
};

// Reads (at most options.sampleBudget) samples of `rec` and judges them. Throws what the
// recording's SignalSource throws on an I/O error.
PlausibilityReport checkSamplePlausibility(const Recording& rec,
                                           const PlausibilityOptions& options = {});

// Adds the report's findings to `diagnostics` as warnings (code "data.damaged" with "the data of
// this file look damaged from record N", "data.implausibleChannels"); nothing when clean.
void addPlausibilityDiagnostics(const PlausibilityReport& report, Diagnostics& diagnostics);

}  // namespace modescope
