// The EMD-family workflow in the main window: "Analysis > Decompose (EMD family)..." opens the
// DecomposeDialog for the current recording and submits a background job (progress bar and
// cancel in the job list) that runs the decomposition job of app/core/emd_job.h; its result
// opens as a tab of the "Decomposition" dock (EmdResultsPane), whose time axis is linked to the
// signal browser of the decomposed recording. "Apply as cleaned recording" runs a job that
// builds the cleaned recording (app/core/imf_reconstruction.h) and opens it as a derived tab,
// which the File menu's export actions write like any other recording.
//
// Thread rules: GUI thread. MainWindow owns it; it sees the Workspace and the WorkflowHost.
#pragma once

#include <QObject>
#include <QPointer>
#include <memory>

#include "app/gui/decompose_dialog.h"
#include "app/gui/emd_job.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class BrowserPane;
class EmdResultsPane;
class WorkflowHost;
class Workspace;
class ResultDock;

class EmdWorkflow : public QObject {
  Q_OBJECT

 public:
  // Creates the (hidden) result dock in the host's window.
  EmdWorkflow(Workspace& workspace, WorkflowHost& host);

  QDockWidget* dock() const { return dock_; }
  QTabWidget* resultTabs() const { return tabs_; }
  EmdResultsPane* currentResults() const;

  // The dialog for the current tab's recording, then runDecompose() when accepted.
  void askDecompose();
  // Submits the job on the current tab's recording; 0 when nothing is open.
  JobId runDecompose(const DecomposeRequest& request);
  // Shows a result (what the job does on success; tests call it with made-up results).
  // `source` is the browser pane of the decomposed recording (time link), may be null.
  EmdResultsPane* showResults(std::shared_ptr<const Recording> recording,
                              const EmdJobResult& outcome, const QString& title,
                              BrowserPane* source);
  // Submits the job that makes `pane`'s cleaned recording and opens it as a derived tab.
  JobId applyCleaned(EmdResultsPane* pane);

 signals:
  void resultsShown(EmdResultsPane* pane);
  void cleanedRecordingOpened(int tabIndex);

 private:
  void linkToBrowser(EmdResultsPane* pane, BrowserPane* source);

  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;  // app/gui/result_dock.h: the dock and its tabs
  QDockWidget* dock_ = nullptr;
  QTabWidget* tabs_ = nullptr;
};

}  // namespace modescope
