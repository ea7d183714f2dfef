#include "app/gui/emd_workflow.h"

#include <QDockWidget>
#include <QFile>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "app/core/imf_reconstruction.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/imf_cleaning_job.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/session_history.h"
#include "app/gui/workflow_host.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

EmdWorkflow::EmdWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  results_ =
      new ResultDock(host.hostWindow(), tr("Decomposition"), QStringLiteral("decomposition"));
  dock_ = results_->dock();
  tabs_ = results_->tabs();
  // Results belong to the recording they were computed from: a new recording or session starts
  // with an empty dock (a derived tab keeps its own data).
  connect(&workspace, &Workspace::recordingOpened, results_, &ResultDock::closeAll);
  connect(&workspace, &Workspace::sessionLoaded, results_, &ResultDock::closeAll);
}

EmdResultsPane* EmdWorkflow::currentResults() const {
  return qobject_cast<EmdResultsPane*>(tabs_->currentWidget());
}

void EmdWorkflow::askDecompose() {
  const Document* doc = workspace_.currentDocument();
  BrowserPane* pane = host_.paneAt(workspace_.currentIndex());
  if (!doc || !pane) return;
  const SignalBrowser* browser = pane->browser();
  // The page on screen is the natural first range: EMD of a whole recording is rarely wanted.
  DecomposeDialog dialog(doc->recording, pane->selectedChannels(), browser->pageStart(),
                         browser->pageLength(), emdPresets(), &validateEmdParams,
                         host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runDecompose(dialog.request());
}

JobId EmdWorkflow::runDecompose(const DecomposeRequest& request) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const EmdJobSpec spec = toJobSpec(request, documentInputFile(*doc));
  const QString what = QString::fromStdString(describeDecomposition(*rec, request));
  QPointer<BrowserPane> pane = host_.paneAt(workspace_.currentIndex());
  return submitMethodRun<EmdJobResult>(
      workspace_,
      {tr("%1 in %2").arg(what, doc->title), tr("Decomposition failed"),
       tr("Could not compute the %1.").arg(what)},
      request.backend,
      [rec, spec](ComputeBackend& backend, JobContext& ctx) {
        return runEmdJob(*rec, spec, backend, ctx);
      },
      [this, rec, what, pane, request](std::shared_ptr<const EmdJobResult> result) {
        workspace_.recordStep(historyStep(*rec, request));
        showResults(rec, *result, what, pane);
      });
}

EmdResultsPane* EmdWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                         const EmdJobResult& outcome, const QString& title,
                                         BrowserPane* source) {
  if (!recording || !outcome.modes) return nullptr;
  auto* pane = new EmdResultsPane(std::move(recording), outcome.modes, outcome.hht, title);
  connect(pane, &EmdResultsPane::applyRequested, this, [this, pane] { applyCleaned(pane); });
  linkToBrowser(pane, source);
  // Results need room: half the window's height to start with.
  results_->addResult(pane, title, QString::fromStdString(outcome.modes->provenance.selection),
                      0.5);
  emit resultsShown(pane);
  return pane;
}

void EmdWorkflow::linkToBrowser(EmdResultsPane* pane, BrowserPane* source) {
  if (!source) return;
  SignalBrowser* browser = source->browser();
  followBrowserPage(browser, pane,
                    [pane](double start, double seconds) { pane->setTimeWindow(start, seconds); });
  connect(pane, &EmdResultsPane::timeWindowChanged, browser,
          [browser](double start, double seconds) { showBrowserPage(browser, start, seconds); });
}

JobId EmdWorkflow::applyCleaned(EmdResultsPane* pane) {
  if (!pane) return 0;
  return submitImfCleaning(workspace_, host_, pane->recording(), pane->result(),
                           pane->droppedRows(), pane->title(), QStringLiteral("EMD"),
                           [this](int index) { emit cleanedRecordingOpened(index); });
}

}  // namespace modescope
