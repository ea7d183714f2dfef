#include "app/gui/entropy_workflow.h"

#include <QDockWidget>
#include <QTabWidget>

#include "app/gui/entropy_results_pane.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/session_history.h"
#include "app/gui/workflow_host.h"
#include "widgets/browser_pane.h"

namespace modescope {

EntropyWorkflow::EntropyWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  results_ = new ResultDock(host.hostWindow(), tr("Entropy matrices"), QStringLiteral("entropy"));
  // Unlike the AR and ICA results, entropy results stay when another recording opens: the
  // difference view compares recordings (two subjects, two conditions) of one session.
}

QDockWidget* EntropyWorkflow::dock() const { return results_->dock(); }
QTabWidget* EntropyWorkflow::resultTabs() const { return results_->tabs(); }

EntropyResultsPane* EntropyWorkflow::currentResults() const {
  return qobject_cast<EntropyResultsPane*>(results_->tabs()->currentWidget());
}

void EntropyWorkflow::askEntropy() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  // The browser's selected channels when there are several, else the EEG channels.
  EntropyDialog dialog(doc->recording, severalSelectedChannels(host_, workspace_.currentIndex()),
                       host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runEntropy(dialog.request());
}

JobId EntropyWorkflow::runEntropy(const EntropyRequest& request) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const EntropyJobSpec spec = request.spec;
  const QString what = QString::fromStdString(
      describeEntropyJob(spec.params, spec.channels.size(), entropyEpochCount(*rec, spec),
                         spec.params.epochSamples > 0 ? spec.params.epochSamples
                                                      : entropySelectionSamples(*rec, spec)));
  const QString docTitle = doc->title;
  return submitMethodRun<EntropyJobResult>(
      workspace_,
      {tr("Entropy matrices: %1 in %2").arg(what, docTitle), tr("Entropy matrices failed"),
       tr("Could not compute the entropy matrices (%1).").arg(what)},
      request.backend,
      [rec, spec](ComputeBackend& backend, JobContext& ctx) {
        return runEntropyJob(*rec, spec, backend, ctx);
      },
      [this, rec, what, docTitle, request](std::shared_ptr<const EntropyJobResult> result) {
        workspace_.recordStep(historyStep(*rec, request));
        showResults(rec, *result, tr("%1: %2").arg(docTitle, what));
      },
      [this](const QString& message) { emit runFailed(message); });
}

EntropyResultsPane* EntropyWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                                 const EntropyJobResult& job,
                                                 const QString& title) {
  if (!job.run) return nullptr;
  auto* pane = new EntropyResultsPane(std::move(recording), job, title);
  // B of the difference view: every other entropy result open in the dock.
  QTabWidget* tabs = results_->tabs();
  pane->setComparisonSources([tabs] {
    std::vector<EntropyComparison> out;
    for (int i = 0; i < tabs->count(); ++i)
      if (auto* p = qobject_cast<EntropyResultsPane*>(tabs->widget(i)))
        out.emplace_back(p->title(), p->job().run);
    return out;
  });
  results_->addResult(pane, title, title, 0.62);
  emit resultsShown(pane);
  return pane;
}

}  // namespace modescope
