// Events from trigger/status channels (BioSemi "Status", "Trigger", Neuromag-style "STI 014").
//
// BioSemi BDF: the Status channel's 24-bit word carries the trigger code in its low 16 bits and
// system state (CMS in range, battery, speed mode) in bits 16-23 (biosemi.com, "trigger
// signals"). ModeScope reports an event at every sample where (code & 0xFFFF) changes to a
// non-zero value, including sample 0 when the first code is non-zero, as text "trigger <code>"
// with duration 0. This equals mne.find_events(raw, consecutive=True, shortest_event=1,
// mask=0xFFFF, mask_type='and', initial_event=True). The channel itself is kept.
//
// Codes: BDF uses the digital (raw) value, as BioSemi defines the bits on the raw word; EDF uses
// the physical value rounded to an integer (as MNE does for EDF stim channels).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// "Status", "Trigger", "STI 014", "STI014", "STI 1" (case-insensitive, trimmed).
bool isTriggerChannelLabel(const std::string& label);

// Reads trigger codes of samples [first, first + count) into out.
using TriggerCodeReader = std::function<void(int64_t first, int64_t count, int64_t* out)>;

struct TriggerEvent {
  int64_t sample = 0;
  int64_t code = 0;  // already masked with 0xFFFF
};

// At most kMaxTriggerEvents are returned (a noisy channel would otherwise flood the annotation
// list); `truncated` tells when more were present.
constexpr std::size_t kMaxTriggerEvents = 100'000;
std::vector<TriggerEvent> decodeTriggerEvents(int64_t sampleCount, const TriggerCodeReader& read,
                                              bool* truncated = nullptr);

// For every channel that is a trigger channel (type STIM or isTriggerChannelLabel), sets its type
// to STIM, appends "trigger <code>" annotations (with " (<label>)" when there are several
// trigger channels), re-sorts the annotations by onset and adds a diagnostic when events were
// capped. `readerFor(channel)` supplies the codes of that channel.
void addTriggerAnnotations(Recording& rec,
                           const std::function<TriggerCodeReader(std::size_t channel)>& readerFor);

// Code reader for a channel read through rec.source as float physical values: BDF reconstructs
// the digital value from the channel's scaling (exact for the identity scaling BioSemi writes),
// EDF rounds the physical value.
TriggerCodeReader physicalTriggerReader(const Recording& rec, std::size_t channel, bool isBdf);

}  // namespace modescope
