// MainWindow::showMarks (main_window.h): the workspace's marks (Workspace::setMarks, which also
// puts them into the recording that methods and exports read) reach the opened recording's
// browsers.
#include "app/gui/main_window.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

void MainWindow::showMarks() {
  const Marks& marks = workspace_->marks();
  for (int i = 0; i < workspace_->documentCount(); ++i) {
    BrowserPane* pane = paneAt(i);
    if (workspace_->document(i)->derived || !pane) continue;
    pane->browser()->setBadChannels(marks.badChannels);
    pane->browser()->setUserAnnotations(marks.userAnnotations);
    pane->browser()->setFileAnnotations(marks.fileAnnotations);
  }
  const Document* primary = workspace_->document(0);
  // The first tab's recording now carries the marks: its panels show that one.
  if (primary && !primary->derived && tabs_->currentIndex() == 0) onCurrentTabChanged(0);
  emit marksChanged();
}

}  // namespace modescope
