// MainWindow::setMarks (main_window.h): the one place where the user's marks reach the browsers
// and the recording that methods and exports read.
#include "app/gui/main_window.h"
#include "engine/core/bad_marks.h"
#include "engine/core/corrected_annotations.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

void MainWindow::setMarks(Marks marks) {
  const auto byOnset = [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; };
  std::stable_sort(marks.userAnnotations.begin(), marks.userAnnotations.end(), byOnset);
  if (marks.fileAnnotations)
    std::stable_sort(marks.fileAnnotations->begin(), marks.fileAnnotations->end(), byOnset);
  marks_ = std::move(marks);
  for (Document& d : documents_) {
    if (d.derived || !d.pane) continue;
    d.pane->browser()->setBadChannels(marks_.badChannels);
    d.pane->browser()->setUserAnnotations(marks_.userAnnotations);
    d.pane->browser()->setFileAnnotations(marks_.fileAnnotations);
  }
  if (!documents_.empty() && !documents_.front().derived) {
    Document& primary = documents_.front();
    // A recording opened since the last call (copies made here share its samples' source).
    if (!unmarkedPrimary_ || unmarkedPrimary_->source != primary.recording->source)
      unmarkedPrimary_ = primary.recording;
    // The file's annotations as corrected replace the file's own for every method and export.
    primary.recording =
        withBadMarks(*withFileAnnotations(*unmarkedPrimary_, marks_.fileAnnotations),
                     marks_.badChannels, marks_.userAnnotations);
    if (currentDocument() == &primary) onCurrentTabChanged(tabs_->currentIndex());
  }
  emit marksChanged();
}

}  // namespace modescope
