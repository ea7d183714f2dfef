#include "app/gui/ar_workflow.h"

#include <QDockWidget>
#include <QTabWidget>

#include "app/gui/ar_results_pane.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/workflow_host.h"
#include "widgets/browser_pane.h"

namespace modescope {

ArWorkflow::ArWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  results_ = new ResultDock(host.hostWindow(), tr("Event-related spectra"), QStringLiteral("ar"));
  // Results belong to the recording they were computed from.
  connect(&workspace, &Workspace::recordingOpened, this, &ArWorkflow::closeAll);
}

QDockWidget* ArWorkflow::dock() const { return results_->dock(); }
QTabWidget* ArWorkflow::resultTabs() const { return results_->tabs(); }

ArResultsPane* ArWorkflow::currentResults() const {
  return qobject_cast<ArResultsPane*>(results_->tabs()->currentWidget());
}

void ArWorkflow::closeAll() { results_->closeAll(); }

void ArWorkflow::askAr() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  // The browser's selected channels when there are several, else the EEG channels (the
  // checklist's default): a one-channel selection is rarely what an r^2 map is for.
  ArDialog dialog(doc->recording, severalSelectedChannels(host_, workspace_.currentIndex()),
                  host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runAr(dialog.request());
}

JobId ArWorkflow::runAr(const ArRequest& request) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const ArJobSpec spec = request.spec;
  const QString what = QString::fromStdString(describeArJob(spec));
  return submitMethodRun<ArJobResult>(
      workspace_,
      {tr("Event-related spectra: %1 in %2").arg(what, doc->title),
       tr("Event-related spectra failed"),
       tr("Could not compute the event-related spectra (%1).").arg(what)},
      request.backend,
      [rec, spec](ComputeBackend& backend, JobContext& ctx) {
        return runArJob(*rec, spec, backend, ctx);
      },
      [this, rec, spec, what](std::shared_ptr<const ArJobResult> result) {
        showResults(rec, *result, spec, what);
      },
      [this](const QString& message) { emit runFailed(message); });
}

ArResultsPane* ArWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                       const ArJobResult& job, const ArJobSpec& spec,
                                       const QString& title) {
  if (!recording || !job.result) return nullptr;
  auto* pane = new ArResultsPane(std::move(recording), job, spec, title);
  results_->addResult(pane, title, title, 0.62);
  emit resultsShown(pane);
  return pane;
}

}  // namespace modescope
