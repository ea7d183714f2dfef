// What the result workflows (EMD decompositions, ICA component browsers) share in the main
// window: a bottom dock of closable result tabs above the job list, hidden while empty, tabbed
// together with the other methods' result docks and scrolling rather than growing; the
// two-way link between a result view's time axis and a signal browser's page; and the file
// dialog in front of a figure export.
//
// Thread rules: GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QDockWidget;
class QMainWindow;
class QTabWidget;
class QWidget;

namespace modescope {

class SignalBrowser;

// Marks a dock as a result dock (a bool property), so result docks find each other and share
// one tabbed area.
inline constexpr char kResultDockProperty[] = "modescopeResultDock";

class ResultDock : public QObject {
  Q_OBJECT

 public:
  // Creates the (hidden) dock `title` in `window`'s bottom area, split above the job list
  // ("jobDock") when there is one. Object names: `name` + "Dock", `name` + "Tabs".
  ResultDock(QMainWindow* window, const QString& title, const QString& name);

  QDockWidget* dock() const { return dock_; }
  QTabWidget* tabs() const { return tabs_; }

  // Adds `page` as the current tab; the first result shows the dock at `heightFraction` of the
  // window's height.
  void addResult(QWidget* page, const QString& title, const QString& toolTip,
                 double heightFraction);
  // Deletes every tab and hides the dock.
  void closeAll();

 signals:
  void tabClosed();  // the user closed a tab (already deleted)

 private:
  QMainWindow* window_;
  QDockWidget* dock_ = nullptr;
  QTabWidget* tabs_ = nullptr;
};

// Moves `browser` to show [start, start + seconds) (the length first: the start is clamped
// against it).
void showBrowserPage(SignalBrowser* browser, double startSeconds, double seconds);

// `follow(start, seconds)` runs whenever `browser`'s page changes, for as long as `context`
// lives. The other direction (the view moving the browser) is the view's
// signal connected to showBrowserPage.
void followBrowserPage(SignalBrowser* browser, QObject* context,
                       std::function<void(double startSeconds, double seconds)> follow);

// The save dialog of "Export figure" (PNG, SVG, PDF; the suffix follows the filter); "" when
// cancelled.
QString askFigurePath(QWidget* parent, const QString& what);

}  // namespace modescope
