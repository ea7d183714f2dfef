// The MEMD workflow in the main window (issue 17, item 4): "Analysis > Multivariate EMD (MEMD,
// NA-MEMD)..." opens the MemdDialog for the current recording (with the memory plan of the
// window's backend) and submits a background job (progress and cancel in the job list) that runs
// the one MEMD job (app/core/memd_job.h, as `modescope-cli memd`) and then the Hilbert-Huang
// transform of its modes; the result opens as a tab of the "Multivariate EMD" dock
// (MemdResultsPane) and the run is recorded in the session history as a "memd" pipeline step
// (File > Export pipeline; File > Apply pipeline and `modescope-cli run` replay it).
// "Apply as cleaned recording" opens the kept IMFs' sum as a derived tab (imf_cleaning_job.h).
//
// Thread rules: GUI thread. MainWindow owns it; it sees the Workspace and the WorkflowHost.
#pragma once

#include <QObject>
#include <memory>

#include "app/gui/memd_request.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class BrowserPane;
class WorkflowHost;
class Workspace;
class MemdResultsPane;
class ResultDock;

// What the window's MEMD job returns: the job's result, its modes as the EMD family's value type
// (for the cleaning and the per-channel views) and their Hilbert-Huang transform.
struct MemdViewResult {
  MemdJobResult job;
  std::shared_ptr<const EmdResult> modes;
  std::shared_ptr<const HhtResult> hht;
};

// runMemdJob, then the HHT of its modes (memdViewHhtParams()) on the same backend. Progress:
// decomposition 0-90 %, transform 90-100 %.
MemdViewResult runMemdView(const Recording& rec, const MemdRequest& request,
                           const std::string& inputFile, ComputeBackend& backend, JobContext& ctx);

class MemdWorkflow : public QObject {
  Q_OBJECT

 public:
  // Creates the (hidden) result dock in the host's window.
  MemdWorkflow(Workspace& workspace, WorkflowHost& host);

  QDockWidget* dock() const { return dock_; }
  QTabWidget* resultTabs() const { return tabs_; }
  MemdResultsPane* currentResults() const;

  // The dialog for the current tab's recording, then runMemd() when accepted.
  void askMemd();
  // Submits the job on the current tab's recording; 0 when nothing is open.
  JobId runMemd(const MemdRequest& request);
  // `source`: the browser pane of the decomposed recording (time link of the per-channel
  // views); may be null.
  MemdResultsPane* showResults(std::shared_ptr<const Recording> recording,
                               const MemdViewResult& outcome, const QString& title,
                               BrowserPane* source);
  // Submits the job that makes `pane`'s cleaned recording and opens it as a derived tab.
  JobId applyCleaned(MemdResultsPane* pane);

 signals:
  void resultsShown(MemdResultsPane* pane);
  void cleanedRecordingOpened(int tabIndex);

 private:
  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QTabWidget* tabs_ = nullptr;
};

}  // namespace modescope
