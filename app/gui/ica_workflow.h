// The ICA workflow in the main window (issue 4, item 4), built like the EMD one
// (app/gui/emd_workflow.h):
//
//  - "Analysis > Independent components (Infomax ICA)..." opens the IcaDialog for the current
//    recording and submits a background job (progress "step k, change x" and cancel in the job
//    list) that runs runIcaJob (app/core/ica_job.h) and summarises the components
//    (app/core/ica_metrics.h); the result opens as a tab of the "Independent components" dock
//    (IcaResultsPane), its time axis linked to the signal browser of the decomposed recording;
//  - "Apply" builds the cleaned recording (app/core/ica_cleaning.h) and opens it as a derived tab
//    with the ICA provenance, which File > Export recording writes (EDF+/BDF+/HDF5, annotations
//    kept). The tab's appearance is an undo step (Edit > Undo closes it; so are mark toggles);
//  - File > Open/Save ICA result read and write the ICA result file (engine/io/hdf5_ica.h);
//  - sessions keep every decomposition with its marks (Session::icaResults).
//
// Thread rules: GUI thread. MainWindow owns it; it sees the Workspace and the WorkflowHost.
#pragma once

#include <QObject>
#include <memory>
#include <string>
#include <vector>

#include "app/core/ica_metrics.h"
#include "app/gui/ica_request.h"
#include "engine/core/job_queue.h"
#include "engine/io/session.h"

class QDockWidget;
class QTabWidget;
class QUndoStack;

namespace modescope {

class BrowserPane;
class IcaResultsPane;
class WorkflowHost;
class Workspace;
class ResultDock;

// What the ICA job returns: the decomposition and the component browser's numbers.
struct IcaJobOutcome {
  std::shared_ptr<const IcaFile> file;
  IcaComponentSummary summary;
  std::string backendNote;  // why the dialog's auto backend fell back to the CPU, or ""
};

class IcaWorkflow : public QObject {
  Q_OBJECT

 public:
  IcaWorkflow(Workspace& workspace, WorkflowHost& host);  // creates the (hidden) dock

  QDockWidget* dock() const;
  QTabWidget* resultTabs() const;
  QUndoStack* undoStack() const { return undo_; }
  IcaResultsPane* currentResults() const;

  // The dialog for the current tab's recording, then runIca() when accepted.
  void askIca();
  // Submits the job on the current tab's recording; 0 when nothing is open.
  JobId runIca(const IcaRequest& request);
  // Shows a decomposition of `recording` (what the jobs do on success).
  IcaResultsPane* showResults(std::shared_ptr<const Recording> recording,
                              const IcaJobOutcome& outcome, const QString& title,
                              BrowserPane* source, const QString& icaPath = {});
  // Submits the job that makes `pane`'s cleaned recording and opens it as a derived tab.
  JobId applyCleaned(IcaResultsPane* pane);
  // Runs the automatic flags of `pane`'s decomposition at `params` (the thresholds dialog's Run)
  // and shows them in its Label column.
  JobId runFlags(IcaResultsPane* pane, const IcaFlagParams& params);
  // Writes `pane`'s decomposition to `path`; reads one for the current recording.
  JobId saveIcaFile(IcaResultsPane* pane, const QString& path);
  JobId openIcaFile(const QString& path);
  void chooseAndSaveIcaFile();
  void chooseAndOpenIcaFile();

  // Sessions: the decompositions and marks of every tab; restoring summarises each again on the
  // engine thread and opens it with its marks, against the tab it was computed on (its file, or
  // the derived tab of that title restored from the session), else the first tab.
  std::vector<IcaSessionEntry> sessionEntries() const;
  void restoreSession(const std::vector<IcaSessionEntry>& entries);

 signals:
  void resultsShown(IcaResultsPane* pane);
  void cleanedRecordingOpened(int tabIndex);
  void icaFileSaved(const QString& path);

 private:
  JobId submitSummary(std::shared_ptr<const Recording> recording, BrowserPane* source,
                      std::shared_ptr<const IcaFile> file, const QString& title,
                      const QString& icaPath, std::vector<int> marks);
  void closeAll();

  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;
  QUndoStack* undo_ = nullptr;
};

}  // namespace modescope
