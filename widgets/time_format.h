// Time and number formatting shared by the GUI's tables and status bar.
#pragma once

#include <QString>

namespace modescope {

// Seconds from the recording start as "H:MM:SS.mmm" (e.g. 3725.5 -> "1:02:05.500"); negative
// values get a leading '-'. Millisecond resolution is what a page of EEG needs at 1 kHz.
QString formatClock(double seconds);

// A duration for tables: "0.250 s", "12.000 s"; 0 gives "-" (an instant event).
QString formatDurationSeconds(double seconds);

// A sample rate: "160 Hz", "256.5 Hz" (no trailing zeros).
QString formatHz(double hz);

}  // namespace modescope
