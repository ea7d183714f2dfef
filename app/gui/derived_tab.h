// A derived recording (a job's result that is itself a recording: interpolated, a montage
// applied) opened as a new, undoable tab of the window with its session record, as
// Workspace::addDerivedDocument does for every derived recording, and the status bar saying how
// to undo or export it. One place for what the workflows that make such tabs share.
//
// Thread rules: GUI thread.
#pragma once

#include <QString>

#include "app/gui/job_results.h"
#include "engine/core/job_queue.h"

namespace modescope {

class WorkflowHost;
class Workspace;

struct DerivedTabText {
  QString title;     // the tab: "rec.edf (interpolated)"
  QString origin;    // how it came to be: "C3 of rec.edf interpolated by spherical splines"
  QString undoText;  // the undo step: "interpolate C3"
  QString opened;    // the status bar's first words: "Interpolated recording opened"
};

// Returns the new tab's index.
int openDerivedTab(Workspace& workspace, WorkflowHost& host, JobId id,
                   const DerivedRecording& result, const DerivedTabText& text);

}  // namespace modescope
