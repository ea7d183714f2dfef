#include "app/gui/derived_tab.h"

#include <QStatusBar>

#include "app/gui/main_window.h"

namespace modescope {

int openDerivedTab(MainWindow* window, JobId id, const DerivedRecording& result,
                   const DerivedTabText& text) {
  Document d;
  d.recording = result.recording;
  d.title = text.title;
  d.derived = true;
  d.origin = text.origin;
  d.provenance = result.provenance;
  const JobRecord record{text.title.toStdString(),
                         jobStateName(JobState::Succeeded),
                         {},
                         result.provenance,
                         result.recording};
  const int tab = window->addDerivedDocument(std::move(d), id, record, text.undoText);
  window->statusBar()->showMessage(
      QObject::tr("%1; Edit > Undo removes it, File > Export recording writes it").arg(text.opened),
      8000);
  return tab;
}

}  // namespace modescope
