// Help > User guide: the pages of docs/ (Markdown, compiled into the program as Qt resources
// under qrc:/guide, images included) shown in a QTextBrowser, which renders Markdown itself
// (Qt 6.4 QTextDocument::MarkdownResource), so the guide inside the program is the one in the
// repository and cannot drift from it. Links between pages work; F1 in a dialog opens the page
// and section of that dialog (helpTopicFor); Help > Keyboard shortcuts shows the list the menus
// and the browser really have (shortcutTable in browser_actions.h).
//
// One window, reused and raised (not modal, so it can stay open beside the work).
#pragma once

#include <QDialog>
#include <QList>
#include <QString>
#include <map>

#include "app/gui/browser_actions.h"

class QTextBrowser;

namespace modescope {

struct HelpTopic {
  QString page;     // file name under docs/, e.g. "ica.md"
  QString heading;  // a heading's text on that page ("" = the top)
};

// The page and section of each dialog class with no "helpTopic" property of its own, by class
// name ("modescope::EpochDialog" -> epochs.md, "In the window").
const std::map<QString, HelpTopic>& dialogHelpTopics();

// The topic of a dialog: its "helpTopic" property ("page.md" or "page.md#Heading") when set,
// else the page of its class (PreprocessDialog -> preprocessing.md, ...), else the guide's index.
HelpTopic helpTopicFor(const QWidget* dialog);

class HelpBrowser : public QDialog {
  Q_OBJECT

 public:
  // The one help window (made on first use, parented to `parent`'s window), showing `page`
  // scrolled to `heading`. Returns it.
  static HelpBrowser* showPage(QWidget* parent, const QString& page, const QString& heading = {});
  static HelpBrowser* showShortcuts(QWidget* parent, const QList<ShortcutEntry>& shortcuts);
  // Makes F1 in any dialog of the application open that dialog's topic.
  static void installDialogF1();
  static HelpBrowser* instance();  // nullptr before the first show

  QTextBrowser* view() const { return view_; }
  // The heading the view was scrolled to ("" for the top).
  QString currentHeading() const { return heading_; }
  // The HTML table of shortcuts (Help > Keyboard shortcuts).
  static QString shortcutsHtml(const QList<ShortcutEntry>& shortcuts);

 private:
  explicit HelpBrowser(QWidget* parent);
  void open(const QString& page, const QString& heading);
  bool scrollToHeading(const QString& heading);

  QTextBrowser* view_ = nullptr;
  QString heading_;
};

}  // namespace modescope
