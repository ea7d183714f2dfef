// The spelling of the montage and the display filter in ViewState (saved in sessions):
//   montage: "as recorded", "average", "linked mastoids", "ref:Cz"
//   filter:  "none", "bandpass 1-40 Hz", "highpass 0.5 Hz", "lowpass 40 Hz", "notch 50 Hz",
//            optionally followed by ", transition 2 Hz" and, for notch, ", no harmonics".
// The parsers also accept the command line's spelling ("bandpass:1-40", "mastoids",
// "channel:Cz", "none") so a session written by hand works too.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/dsp/preprocess.h"

namespace modescope::browser {

std::string montageText(const ReferenceSpec& spec);
// nullopt when the text is none of the forms above.
std::optional<ReferenceSpec> parseMontageText(const std::string& text);

std::string filterText(const std::optional<FilterSpec>& spec);
// Outer nullopt: not understood; inner nullopt: "none".
std::optional<std::optional<FilterSpec>> parseFilterText(const std::string& text);

// A display filter chain: the filters' texts joined by " + " ("highpass 0.5 Hz + lowpass 40 Hz
// + notch 50 Hz"); "none" for an empty chain. The parser takes one filter as a chain of one.
std::string filterChainText(const std::vector<FilterSpec>& chain);
std::optional<std::vector<FilterSpec>> parseFilterChainText(const std::string& text);

}  // namespace modescope::browser
