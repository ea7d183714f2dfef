// The entropy-matrix workflow in the main window (issue 6, item 3 and the GUI side of item 4's
// progress), built like the AR and ICA ones (app/gui/ar_workflow.h):
//
//  - "Analysis > Entropy matrices (Cross-ApEn / SampEn)..." opens the EntropyDialog for the
//    current tab's recording and submits a background job (the engine's progress and cancel in
//    the job list) that runs runEntropyJob (app/core/entropy_job.h) on the chosen backend (the
//    dialog's, or the Compute menu's);
//  - the result opens as a tab of the "Entropy matrices" dock (EntropyResultsPane); every pane
//    offers the session's other results as B of its difference view;
//  - a failed run shows the engine's message in an error box and emits runFailed.
//
// Thread rules: GUI thread. MainWindow owns it; it sees the Workspace and the WorkflowHost.
#pragma once

#include <QObject>
#include <memory>

#include "app/core/entropy_job.h"
#include "app/gui/entropy_dialog.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class EntropyResultsPane;
class WorkflowHost;
class Workspace;
class ResultDock;

class EntropyWorkflow : public QObject {
  Q_OBJECT

 public:
  EntropyWorkflow(Workspace& workspace, WorkflowHost& host);  // creates the (hidden) dock

  QDockWidget* dock() const;
  QTabWidget* resultTabs() const;
  EntropyResultsPane* currentResults() const;

  // The dialog for the current tab's recording, then runEntropy() when accepted.
  void askEntropy();
  // Submits the job on the current tab's recording; 0 when nothing is open.
  JobId runEntropy(const EntropyRequest& request);
  // Shows a result computed on `recording` (what the job does on success).
  EntropyResultsPane* showResults(std::shared_ptr<const Recording> recording,
                                  const EntropyJobResult& job, const QString& title);

 signals:
  void resultsShown(EntropyResultsPane* pane);
  void runFailed(const QString& message);

 private:
  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;
};

}  // namespace modescope
