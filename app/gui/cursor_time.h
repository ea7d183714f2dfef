// The recording time under the mouse in a SignalBrowser, for the status bar.
#pragma once

#include <QPoint>
#include <optional>

namespace modescope {

class SignalBrowser;

// Seconds from the recording start at widget position `pos`, or nullopt outside the traces.
std::optional<double> cursorTimeAt(const SignalBrowser& browser, const QPoint& pos);

}  // namespace modescope
