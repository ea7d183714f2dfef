#include "app/gui/derived_tab.h"

#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"

namespace modescope {

int openDerivedTab(Workspace& workspace, WorkflowHost& host, JobId id,
                   const DerivedRecording& result, const DerivedTabText& text) {
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
  const int tab = workspace.addDerivedDocument(std::move(d), id, record, text.undoText);
  host.showStatus(
      QObject::tr("%1; Edit > Undo removes it, File > Export recording writes it").arg(text.opened),
      8000);
  return tab;
}

}  // namespace modescope
