#include "app/gui/ar_workflow.h"

#include <QDockWidget>
#include <QTabWidget>

#include "app/core/gpu_backend.h"
#include "app/gui/ar_results_pane.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/error_presenter.h"
#include "app/gui/main_window.h"
#include "app/gui/result_dock.h"
#include "engine/core/error.h"
#include "widgets/browser_pane.h"

namespace modescope {

ArWorkflow::ArWorkflow(MainWindow* window) : QObject(window), window_(window) {
  results_ = new ResultDock(window, tr("Event-related spectra"), QStringLiteral("ar"));
  // Results belong to the recording they were computed from.
  connect(window, &MainWindow::recordingOpened, this, &ArWorkflow::closeAll);
}

QDockWidget* ArWorkflow::dock() const { return results_->dock(); }
QTabWidget* ArWorkflow::resultTabs() const { return results_->tabs(); }

ArResultsPane* ArWorkflow::currentResults() const {
  return qobject_cast<ArResultsPane*>(results_->tabs()->currentWidget());
}

void ArWorkflow::closeAll() { results_->closeAll(); }

void ArWorkflow::askAr() {
  const Document* doc = window_->currentDocument();
  if (!doc) return;
  // The browser's selected channels when there are several, else the EEG channels (the
  // checklist's default): a one-channel selection is rarely what an r^2 map is for.
  std::vector<int> selected = doc->pane ? doc->pane->selectedChannels() : std::vector<int>{};
  if (selected.size() < 2) selected.clear();
  ArDialog dialog(doc->recording, selected, window_);
  if (dialog.exec() == QDialog::Accepted) runAr(dialog.request());
}

JobId ArWorkflow::runAr(const ArRequest& request) {
  const Document* doc = window_->currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const ArJobSpec spec = request.spec;
  const std::optional<BackendChoice> own = request.backend;
  const QString what = QString::fromStdString(describeArJob(spec));
  const QString title = tr("Event-related spectra: %1").arg(what);
  EngineBridge* engine = window_->engine();
  return engine->submit(
      tr("%1 in %2").arg(title, doc->title),
      [rec, spec, own, engine](JobContext& ctx) -> ArJobResult {
        return runArJob(*rec, spec, *engine->backendFor(own), ctx);
      },
      [this, rec, spec, what](const JobOutcome& out) {
        if (out.state == JobState::Succeeded) {
          showResults(rec, *out.result.get<ArJobResult>(), spec, what);
        } else if (out.state == JobState::Failed) {
          const QString message = QString::fromStdString(out.message);
          showError(window_, tr("Event-related spectra failed"),
                    tr("Could not compute the event-related spectra (%1).").arg(what), message);
          emit runFailed(message);
        }
      });
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
