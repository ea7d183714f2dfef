#include "app/gui/memd_workflow.h"

#include <QDockWidget>
#include <QFile>
#include <QPointer>
#include <QTabWidget>

#include "app/gui/emd_results_pane.h"
#include "app/gui/imf_cleaning_job.h"
#include "app/gui/memd_dialog.h"
#include "app/gui/memd_results_pane.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/session_history.h"
#include "app/gui/workflow_host.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

MemdViewResult runMemdView(const Recording& rec, const MemdRequest& request,
                           const std::string& inputFile, ComputeBackend& backend, JobContext& ctx) {
  MemdViewResult out;
  JobContext memdCtx = ctx.sub(0.0, 0.9);
  out.job = runMemdJob(rec, toJobSpec(request, inputFile), backend, memdCtx);
  auto modes = std::make_shared<EmdResult>(memdModesAsEmd(*out.job.modes));
  ctx.checkpoint();
  ctx.progress(0.9, "Hilbert spectra");
  const HhtParams hht = memdViewHhtParams();
  validateHhtParams(hht, *modes);
  JobContext hhtCtx = ctx.sub(0.9, 1.0);
  out.hht = std::make_shared<HhtResult>(backend.hilbertHuang(*modes, hht, hhtCtx));
  out.modes = std::move(modes);
  return out;
}

MemdWorkflow::MemdWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  results_ = new ResultDock(host.hostWindow(), tr("Multivariate EMD"), QStringLiteral("memd"));
  dock_ = results_->dock();
  tabs_ = results_->tabs();
  // Results belong to the recording they came from (as the Decomposition dock).
  connect(&workspace, &Workspace::recordingOpened, results_, &ResultDock::closeAll);
  connect(&workspace, &Workspace::sessionLoaded, results_, &ResultDock::closeAll);
}

MemdResultsPane* MemdWorkflow::currentResults() const {
  return qobject_cast<MemdResultsPane*>(tabs_->currentWidget());
}

void MemdWorkflow::askMemd() {
  const Document* doc = workspace_.currentDocument();
  BrowserPane* pane = host_.paneAt(workspace_.currentIndex());
  if (!doc || !pane) return;
  const SignalBrowser* browser = pane->browser();
  // The GPU plan is shown when the window computes on CUDA (its device's memory).
  std::size_t deviceBytes = 0;
  if (const auto backend = workspace_.engine()->backend();
      backend && backend->info().kind == BackendKind::Cuda)
    deviceBytes = backend->info().memoryBytes;
  // The page on screen is the natural first range (as for EMD).
  MemdDialog dialog(doc->recording, pane->selectedChannels(), browser->pageStart(),
                    browser->pageLength(), deviceBytes, host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runMemd(dialog.request());
}

JobId MemdWorkflow::runMemd(const MemdRequest& request) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const std::string inputFile = documentInputFile(*doc);
  const QString what = QString::fromStdString(describeMemd(*rec, request));
  QPointer<BrowserPane> browserPane = host_.paneAt(workspace_.currentIndex());
  return submitMethodRun<MemdViewResult>(
      workspace_,
      {tr("%1 in %2").arg(what, doc->title), tr("MEMD failed"),
       tr("Could not compute the %1.").arg(what)},
      request.backend,
      [rec, request, inputFile](ComputeBackend& backend, JobContext& ctx) {
        return runMemdView(*rec, request, inputFile, backend, ctx);
      },
      [this, rec, what, request, browserPane](std::shared_ptr<const MemdViewResult> result) {
        workspace_.recordStep(historyStep(*rec, request));
        showResults(rec, *result, what, browserPane);
      });
}

MemdResultsPane* MemdWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                           const MemdViewResult& outcome, const QString& title,
                                           BrowserPane* source) {
  if (!recording || !outcome.modes || !outcome.job.modes) return nullptr;
  auto* pane = new MemdResultsPane(std::move(recording), outcome.job.modes, outcome.modes,
                                   outcome.hht, title);
  connect(pane, &MemdResultsPane::applyRequested, this, [this, pane] { applyCleaned(pane); });
  if (source) {
    // The per-channel views follow and drive the browser's page, as the EMD pane's do.
    EmdResultsPane* channels = pane->channelsPane();
    SignalBrowser* browser = source->browser();
    followBrowserPage(browser, channels, [channels](double start, double seconds) {
      channels->setTimeWindow(start, seconds);
    });
    connect(channels, &EmdResultsPane::timeWindowChanged, browser,
            [browser](double start, double seconds) { showBrowserPage(browser, start, seconds); });
    // The IMF-across-channels browser follows the page too (while the time link is on).
    followBrowserPage(browser, pane, [pane](double start, double seconds) {
      if (pane->channelsPane()->timeLinked())
        showBrowserPage(pane->modeBrowser()->browser(), start, seconds);
    });
  }
  results_->addResult(pane, title, QString::fromStdString(outcome.modes->provenance.selection),
                      0.5);
  emit resultsShown(pane);
  return pane;
}

JobId MemdWorkflow::applyCleaned(MemdResultsPane* pane) {
  if (!pane) return 0;
  return submitImfCleaning(workspace_, host_, pane->recording(), pane->modes(), pane->droppedRows(),
                           pane->title(), QStringLiteral("MEMD"),
                           [this](int index) { emit cleanedRecordingOpened(index); });
}

}  // namespace modescope
