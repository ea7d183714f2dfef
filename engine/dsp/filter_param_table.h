// The filter and re-reference parameters declared once (engine/method/param_table.h), and the
// `--filter` / `--reference` text syntax made from those declarations: the CLI's options and help,
// pipeline files (a spec string, or an object of the table's keys) and the Process dialog's
// editors all read the same kinds, ranges, defaults and help.
//
// The edges' upper bound is the data's Nyquist frequency, which a declaration cannot know: it is
// checked where the sample rate is known (designFir), as MNE's filter_data checks h_freq.
//
// Thread rules: the tables are built once (function-local statics) and read-only afterwards.
#pragma once

#include <optional>
#include <string>

#include "engine/dsp/preprocess.h"
#include "engine/method/param_table.h"

namespace modescope {

// kind, lowHz, highHz, notchHz, notchHarmonics, transitionHz; cross-field rule: a band-pass's
// low edge below its high edge.
const ParamTable<FilterSpec>& filterParamTable();
// Each FilterKind's name in files and on the command line ("bandpass"), in declaration order.
const ChoiceNames<FilterKind>& filterKindNames();
// kind (none, average, mastoids, channel). The channel's name is not a ranged value: it is
// checked against the recording (planReference).
const ParamTable<ReferenceSpec>& referenceParamTable();

// "bandpass:LOW-HIGH, highpass:LOW, lowpass:HIGH or notch:MAINS (Hz)", from the declarations.
std::string filterSyntaxText();
// The syntax with each kind's help and each value's range and help, for `--filter`'s help.
std::string filterSyntaxHelp();
// "none, average, mastoids or channel:NAME".
std::string referenceSyntaxText();
// Each reference kind with its help, for `--reference`'s help.
std::string referenceSyntaxHelp();

// Whether a and b filter alike: the same kind and the same value in every field that applies
// to it (an edge a kind has no use for is not compared).
bool equivalentFilters(const FilterSpec& a, const FilterSpec& b);

// The text parseFilterSpec reads back to `spec` ("bandpass:1-40", "notch:50"), or nothing when
// the text syntax cannot say it (a transition width other than automatic, a notch without its
// harmonics): pipeline files then write the table's keys as an object.
std::optional<std::string> filterSpecString(const FilterSpec& spec);

}  // namespace modescope
