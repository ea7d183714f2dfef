// The event-related AR spectra workflow in the main window (issue 5, items 3 and 5), built like
// the ICA one (app/gui/ica_workflow.h):
//
//  - "Analysis > Event-related spectra (AR)..." opens the ArDialog for the current tab's
//    recording and submits a background job (progress "event features: trial t/T" and cancel in
//    the job list) that runs runArJob (app/core/ar_job.h) on the chosen backend (the dialog's, or
//    the Compute menu's);
//  - the result opens as a tab of the "Event-related spectra" dock (ArResultsPane): the r^2 map,
//    the scalp map at the chosen bin and the two classes' spectra at the chosen channel;
//  - a failed run (bad parameters, a Laplacian over channels without positions, too few trials)
//    shows the engine's message in an error box and emits runFailed; nothing else changes.
//
// Thread rules: GUI thread. MainWindow owns it; it sees the Workspace and the WorkflowHost.
#pragma once

#include <QObject>
#include <memory>

#include "app/core/ar_job.h"
#include "app/gui/ar_dialog.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class ArResultsPane;
class WorkflowHost;
class Workspace;
class ResultDock;

class ArWorkflow : public QObject {
  Q_OBJECT

 public:
  ArWorkflow(Workspace& workspace, WorkflowHost& host);  // creates the (hidden) dock

  QDockWidget* dock() const;
  QTabWidget* resultTabs() const;
  ArResultsPane* currentResults() const;

  // The dialog for the current tab's recording, then runAr() when accepted.
  void askAr();
  // Submits the job on the current tab's recording; 0 when nothing is open.
  JobId runAr(const ArRequest& request);
  // Shows a result computed on `recording` (what the job does on success).
  ArResultsPane* showResults(std::shared_ptr<const Recording> recording, const ArJobResult& job,
                             const ArJobSpec& spec, const QString& title);

 signals:
  void resultsShown(ArResultsPane* pane);
  void runFailed(const QString& message);

 private:
  void closeAll();

  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;
};

}  // namespace modescope
