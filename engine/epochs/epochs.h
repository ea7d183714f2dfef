// Epochs cut around events (docs/epochs.md): the procedure mne.Epochs follows with preload, so
// the same file, events and parameters give the same epochs.
//
// 1. Events: every annotation whose text is one of the chosen event types, at sample
//    round(onset fs) (mne.events_from_annotations). Each type is a condition.
// 2. The window [event + round(tmin fs), event + round(tmax fs)]; an epoch that does not lie
//    inside the recording is dropped ("outside the data", MNE's NO_DATA / TOO_SHORT).
// 3. An epoch whose time span [first, last + 1) / fs overlaps a bad segment is dropped when
//    rejectBadSegments is on (MNE's reject_by_annotation, "BAD_" annotations).
// 4. The baseline mean of each channel is subtracted (mne.baseline.rescale, mode "mean").
// 5. An epoch with a channel whose peak-to-peak amplitude exceeds rejectPeakToPeak is dropped
//    (mne.Epochs reject=, which is also unaffected by the baseline).
//
// Thread rules: plain values and re-entrant functions; extractEpochs reads `rec` through its
// thread-safe source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/epochs/epoch_params.h"

namespace modescope {

// A span of time to leave out, seconds from the recording start.
struct TimeSpan {
  double onset = 0.0;
  double duration = 0.0;
};

enum class EpochFate { Kept, OutsideData, BadSegment, PeakToPeak };
const char* epochFateName(EpochFate f);  // "kept", "outside the data", "bad segment", ...

// One event considered, kept or not, with why.
struct EpochLogEntry {
  double onset = 0.0;  // s, the event's annotation onset
  int64_t sample = 0;  // round(onset fs)
  int condition = 0;   // index into EpochSet::conditions
  EpochFate fate = EpochFate::Kept;
  std::string channel;      // PeakToPeak: the first channel over the threshold
  double peakToPeak = 0.0;  // PeakToPeak: its amplitude
};

struct EpochSpec {
  std::vector<std::size_t> channels;    // recording indices, one sample rate
  std::vector<std::string> eventTypes;  // annotation texts, exact match; each is a condition
  EpochParams params;
  std::vector<TimeSpan> badSegments;  // honoured when params.rejectBadSegments
};

struct EpochSet {
  std::vector<std::string> conditions;  // the event types, in the order asked for
  std::vector<std::size_t> channels;    // recording indices
  std::vector<std::string> channelNames, units;
  double sampleRate = 0.0;
  EpochParams params;
  EpochWindow window;
  int64_t samples = 0;  // per epoch and channel
  // Kept epochs in event order: epochs x channels x samples, baseline-corrected.
  std::vector<float> data;
  std::vector<int> condition;      // per kept epoch
  std::vector<double> onset;       // per kept epoch, s
  std::vector<EpochLogEntry> log;  // every event of the chosen types

  std::size_t epochCount() const { return condition.size(); }
  std::size_t channelCount() const { return channels.size(); }
  // Seconds of sample i relative to the event.
  double time(int64_t i) const { return static_cast<double>(window.first + i) / sampleRate; }
  const float* epoch(std::size_t e) const { return data.data() + e * channelCount() * samples; }
  const float* row(std::size_t e, std::size_t c) const { return epoch(e) + c * samples; }
  std::size_t keptCount(int conditionIndex) const;
  std::size_t droppedCount(EpochFate fate) const;
};

// The bad segments a recording carries: annotations whose text begins with "bad"
// (case-insensitive; MNE's convention, "BAD_blink", "bad segment").
std::vector<TimeSpan> badSegmentsFromAnnotations(const Recording& rec);

// The event types a recording's annotations hold, with their counts, in first-onset order.
std::vector<std::pair<std::string, std::size_t>> eventTypeCounts(const Recording& rec);

// The checks of extractEpochs that need no samples (channels, event types, window at the rate),
// for planning a pipeline before anything runs. Throws what extractEpochs throws for them.
void checkEpochSpec(const Recording& rec, const EpochSpec& spec);

// What steps 1-3 decide without reading a sample, for a dialog to tell before running: the
// events of the chosen types, and how many of their epochs fall outside the data or overlap a bad
// segment (spec.badSegments; the peak-to-peak rule needs the samples). All zero when the spec
// does not pass checkEpochSpec.
struct EpochPreview {
  std::size_t events = 0, outsideData = 0, badSegment = 0;
};
EpochPreview previewEpochs(const Recording& rec, const EpochSpec& spec);

// Steps 1-5 above. Throws InvalidParameterError: no channels, mixed rates, an unknown channel, no
// event types, an event type no annotation has (naming the types the recording has), a window
// that does not fit the rate, and no epoch left when every event was dropped (saying why they
// were). Progress over events; Cancelled between them.
EpochSet extractEpochs(const Recording& rec, const EpochSpec& spec, JobContext& ctx);

}  // namespace modescope
