// The window's actions on the current signal browser that are not a method: go to time, fit all
// channels on one page, time zoom, the ruler and the cursor read-out; and the context menus of
// the traces and the channel labels. One object per main window; attach() equips each browser
// (a measuring overlay, the context menus).
//
// Each action has a keyboard shortcut; shortcutTable() lists them with the browser's own keys
// (arrows, Page Up/Down, +/-, ...) for Help > Keyboard shortcuts and docs/browser.md.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>

class QAction;
class QMenu;
class QWidget;

namespace modescope {

class SignalBrowser;
class TraceMeasureOverlay;

// "123.5", "2:05", "1:02:05.250" (h:mm:ss), optionally with a trailing "s": seconds from the
// recording start; nullopt for anything else.
std::optional<double> parseTimeText(const QString& text);

struct ShortcutEntry {
  QString keys;  // as shown ("Ctrl+G", "Page Down")
  QString what;
};
// Keys the signal browser handles itself (SignalBrowser::keyPressEvent and the mouse).
QList<ShortcutEntry> browserKeyShortcuts();
// Every menu action with a shortcut under `menus` ("Menu > Action"), then browserKeyShortcuts().
QList<ShortcutEntry> shortcutTable(const QList<QMenu*>& menus);

class BrowserActions : public QObject {
  Q_OBJECT

 public:
  // `current` returns the browser the actions act on (nullptr: none open).
  BrowserActions(QWidget* window, std::function<SignalBrowser*()> current);

  // Adds the measuring overlay and the context menus to `browser`.
  void attach(SignalBrowser* browser);
  static TraceMeasureOverlay* overlayOf(const SignalBrowser* browser);

  QList<QAction*> actions() const;
  QAction* goToTimeAction() const { return goToTime_; }
  QAction* fitAllChannelsAction() const { return fitAll_; }
  QAction* moreChannelsAction() const { return moreChannels_; }
  QAction* fewerChannelsAction() const { return fewerChannels_; }
  QAction* rulerAction() const { return ruler_; }
  QAction* readoutAction() const { return readout_; }
  QAction* filterChainAction() const { return filterChain_; }

  // Shows every channel of the recording on one page (first channel at the top).
  static void fitAllChannels(SignalBrowser* browser);
  // The dialog: asks for a time and centres the page there. `ask` replaces the input dialog in
  // tests (returns the text typed, nullopt for Cancel).
  void goToTime();
  void setTimeQuestion(std::function<std::optional<QString>(const QString& current)> ask) {
    ask_ = std::move(ask);
  }

  // The context menus, built for a position of `browser` (nullptr when there is nothing there):
  // on a label, the channel's menu; on the traces, the time's. The caller owns the menu.
  QMenu* contextMenuFor(SignalBrowser* browser, QPointF pos);

 signals:
  // Emitted with a label's menu before it shows, so other parts (bad channels) add their items.
  void labelMenuAboutToShow(QMenu* menu, SignalBrowser* browser, int row);
  // The same for the traces' menu, with the time under the mouse.
  void traceMenuAboutToShow(QMenu* menu, SignalBrowser* browser, double seconds);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* window_ = nullptr;
  std::function<SignalBrowser*()> current_;
  std::function<std::optional<QString>(const QString&)> ask_;
  QAction* goToTime_ = nullptr;
  QAction* fitAll_ = nullptr;
  QAction* zoomIn_ = nullptr;
  QAction* zoomOut_ = nullptr;
  QAction* moreChannels_ = nullptr;
  QAction* fewerChannels_ = nullptr;
  QAction* ruler_ = nullptr;
  QAction* readout_ = nullptr;
  QAction* filterChain_ = nullptr;
};

}  // namespace modescope
