// Epochs, averages and channel spectra in the main window (issue 19, item 5), built like the AR
// workflow (app/gui/ar_workflow.h):
//
//  - Analysis > Epochs and averages... opens the EpochDialog for the recording (with the user's
//    annotations as events and their "bad" ones as bad segments) and submits runEpochJob on the
//    Compute menu's backend (progress and cancel in the job list); the result opens as a tab of
//    the "Epochs and averages" dock (EpochResultsPane);
//  - Analysis > Power spectrum of the page / of the selected channels: Welch spectra
//    (engine/epochs/epoch_spectra.h) of what the browser shows, per channel and averaged, on a
//    log scale, as a tab of the same dock;
//  - a failed run shows the engine's message and emits runFailed.
//
// Thread rules: GUI thread. MainWindow owns it.
#pragma once

#include <QObject>
#include <memory>

#include "app/core/epoch_job.h"
#include "engine/core/job_queue.h"

class QDockWidget;
class QTabWidget;

namespace modescope {

class CurvePlot;
class EpochResultsPane;
class WorkflowHost;
class Workspace;
class ResultDock;

class EpochWorkflow : public QObject {
  Q_OBJECT

 public:
  EpochWorkflow(Workspace& workspace, WorkflowHost& host);

  QDockWidget* dock() const;
  QTabWidget* resultTabs() const;

  void askEpochs();
  JobId runEpochs(const EpochJobSpec& spec);
  EpochResultsPane* showResults(std::shared_ptr<const Recording> recording,
                                const EpochJobResult& result, const QString& title);
  // The spectrum of the current page: the browser's selected channels (selectedOnly) or every
  // channel at the first selected (or first) channel's rate. nullptr (and a message) when nothing
  // can be computed.
  CurvePlot* showPageSpectrum(bool selectedOnly);

 signals:
  void resultsShown(EpochResultsPane* pane);
  void runFailed(const QString& message);

 private:
  Workspace& workspace_;
  WorkflowHost& host_;
  ResultDock* results_ = nullptr;
};

}  // namespace modescope
