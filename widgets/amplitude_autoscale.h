// The amplitude scale a recording opens with: a fixed 50 uV/division suits scalp EEG but makes
// ECG, test signals or MEG-scale data unreadable. Like clinical viewers' "auto scale", the first
// seconds of the displayable channels pick a scale from the 1-2-5 sequence.
#pragma once

#include "engine/core/recording.h"

namespace modescope {

// A robust typical peak-to-peak (5th to 95th percentile) of the first `seconds` of up to
// `maxChannels` non-STIM channels, rounded up to 1, 2 or 5 x 10^k uV per division. Returns
// `fallback` when nothing can be measured (no channels, flat data).
double suggestMicrovoltsPerDivision(const Recording& rec, double seconds = 10.0,
                                    int maxChannels = 64, double fallback = 50.0);

}  // namespace modescope
