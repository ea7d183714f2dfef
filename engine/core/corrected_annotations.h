// The recording's annotations as the user sees them (issue 19, item 1): a clinician corrects a
// technician's events (onset, duration, text) or deletes one without changing the file. The
// corrected list replaces the file's own for the browser, the methods and every export; the
// user's added annotations stay a list of their own (Marks, engine/io/session.h).
//
// Thread rules: pure functions on values; safe from any thread.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

// A copy of `rec` (sharing its samples) whose annotations are `corrected` (sorted by onset), or
// the recording's own when `corrected` is empty.
std::shared_ptr<const Recording> withFileAnnotations(
    const Recording& rec, const std::optional<std::vector<Annotation>>& corrected);

}  // namespace modescope
