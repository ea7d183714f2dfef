#include "app/gui/cursor_time.h"

#include <QFontMetricsF>

#include "widgets/signal_browser.h"
#include "widgets/trace_renderer.h"

namespace modescope {

std::optional<double> cursorTimeAt(const SignalBrowser& browser, const QPoint& pos) {
  if (!browser.recording()) return std::nullopt;
  // The browser's own layout, so the status bar and the drawn time axis agree.
  const auto layout = browser::BrowserLayout::compute(
      QRectF(browser.rect()), browser.visibleChannelCount(), QFontMetricsF(browser.font()));
  const QRectF& t = layout.traces;
  if (t.width() <= 0 || pos.x() < t.left() || pos.x() > t.right() || pos.y() < t.top() ||
      pos.y() > t.bottom()) {
    return std::nullopt;
  }
  return browser.pageStart() + (pos.x() - t.left()) / t.width() * browser.pageLength();
}

}  // namespace modescope
