#include "app/gui/emd_workflow.h"

#include <QDockWidget>
#include <QFile>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "app/core/gpu_backend.h"
#include "app/core/imf_reconstruction.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/job_results.h"
#include "app/gui/main_window.h"
#include "engine/core/error.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

EmdWorkflow::EmdWorkflow(MainWindow* window) : QObject(window), window_(window) {
  dock_ = new QDockWidget(tr("Decomposition"), window);
  dock_->setObjectName(QStringLiteral("decompositionDock"));
  tabs_ = new QTabWidget(dock_);
  tabs_->setObjectName(QStringLiteral("decompositionTabs"));
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
    QWidget* w = tabs_->widget(index);
    tabs_->removeTab(index);
    delete w;
    if (tabs_->count() == 0) dock_->hide();
  });
  dock_->setWidget(tabs_);
  // Above the job list, which stays a thin strip at the bottom.
  window->addDockWidget(Qt::BottomDockWidgetArea, dock_, Qt::Vertical);
  if (auto* jobs = window->findChild<QDockWidget*>(QStringLiteral("jobDock")))
    window->splitDockWidget(dock_, jobs, Qt::Vertical);
  dock_->hide();
  // Results belong to the recording they were computed from: a new recording or session starts
  // with an empty dock (a derived tab keeps its own data).
  auto closeAll = [this] {
    while (tabs_->count() > 0) {
      QWidget* w = tabs_->widget(0);
      tabs_->removeTab(0);
      delete w;
    }
    dock_->hide();
  };
  connect(window, &MainWindow::recordingOpened, this, closeAll);
  connect(window, &MainWindow::sessionLoaded, this, closeAll);
}

EmdResultsPane* EmdWorkflow::currentResults() const {
  return qobject_cast<EmdResultsPane*>(tabs_->currentWidget());
}

void EmdWorkflow::askDecompose() {
  const Document* doc = window_->currentDocument();
  if (!doc) return;
  const SignalBrowser* browser = doc->pane->browser();
  // The page on screen is the natural first range: EMD of a whole recording is rarely wanted.
  DecomposeDialog dialog(doc->recording, doc->pane->selectedChannels(), browser->pageStart(),
                         browser->pageLength(), emdPresets(), &validateEmdParams, window_);
  if (dialog.exec() == QDialog::Accepted) runDecompose(dialog.request());
}

JobId EmdWorkflow::runDecompose(const DecomposeRequest& request) {
  const Document* doc = window_->currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const QString source = doc->title;
  const std::string inputFile =
      doc->path.isEmpty() ? doc->title.toStdString() : QFile::encodeName(doc->path).toStdString();
  const QString what = QString::fromStdString(describeDecomposition(*rec, request));
  QPointer<BrowserPane> pane = doc->pane;
  EngineBridge* engine = window_->engine();
  return window_->submitReporting(
      tr("%1 in %2").arg(what, source),
      [rec, request, engine, inputFile](JobContext& ctx) -> std::any {
        // As the filter job: a per-job backend is made on the engine thread.
        std::shared_ptr<ComputeBackend> backend =
            request.backend ? std::shared_ptr<ComputeBackend>(chooseBackend(*request.backend))
                            : engine->backend();
        if (!backend) throw DeviceError("no compute backend is available yet; try again");
        return runEmdJob(*rec, toJobSpec(request, inputFile), *backend, ctx);
      },
      tr("Decomposition failed"), tr("Could not compute the %1.").arg(what),
      [this, rec, what, pane](JobId, const JobOutcome& out) {
        showResults(rec, std::any_cast<const EmdJobResult&>(out.result), what, pane);
      });
}

EmdResultsPane* EmdWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                         const EmdJobResult& outcome, const QString& title,
                                         BrowserPane* source) {
  if (!recording || !outcome.modes) return nullptr;
  auto* pane = new EmdResultsPane(std::move(recording), outcome.modes, outcome.hht, title);
  const int index = tabs_->addTab(pane, title);
  tabs_->setTabToolTip(index, QString::fromStdString(outcome.modes->provenance.selection));
  tabs_->setCurrentIndex(index);
  connect(pane, &EmdResultsPane::applyRequested, this, [this, pane] { applyCleaned(pane); });
  linkToBrowser(pane, source);
  if (!dock_->isVisible()) {
    dock_->show();
    // Results need room: half the window's height to start with.
    window_->resizeDocks({dock_}, {window_->height() / 2}, Qt::Vertical);
  }
  dock_->raise();
  emit resultsShown(pane);
  return pane;
}

void EmdWorkflow::linkToBrowser(EmdResultsPane* pane, BrowserPane* source) {
  if (!source) return;
  SignalBrowser* browser = source->browser();
  QPointer<SignalBrowser> guard(browser);
  connect(browser, &SignalBrowser::viewChanged, pane, [pane, guard] {
    if (guard) pane->setTimeWindow(guard->pageStart(), guard->pageLength());
  });
  connect(pane, &EmdResultsPane::timeWindowChanged, browser, [guard](double start, double seconds) {
    if (!guard) return;
    // Length first: setPageStart clamps against the new length.
    guard->setPageLength(std::max(seconds, SignalBrowser::kMinPageLength));
    guard->setPageStart(start);
  });
}

JobId EmdWorkflow::applyCleaned(EmdResultsPane* pane) {
  if (!pane) return 0;
  const std::shared_ptr<const Recording> rec = pane->recording();
  const std::shared_ptr<const EmdResult> result = pane->result();
  const DroppedRows dropped = pane->droppedRows();
  const QString source = pane->title();
  return window_->submitReporting(
      tr("Clean by IMF rejection (%1)").arg(source),
      [rec, result, dropped](JobContext& ctx) -> std::any {
        ctx.progress(0.0, "reconstructing");
        DerivedRecording derived;
        derived.recording = cleanedRecording(rec, *result, dropped);
        derived.provenance = cleaningProvenance(*rec, *result, dropped);
        return derived;
      },
      tr("Cleaning failed"), tr("Could not make the cleaned recording."),
      [this, source](JobId id, const JobOutcome& out) {
        const auto& derived = std::any_cast<const DerivedRecording&>(out.result);
        const QString title = tr("%1 (EMD-cleaned)").arg(source);
        window_->sessionJobs_[id] = JobRecord{title.toStdString(),
                                              jobStateName(JobState::Succeeded),
                                              {},
                                              derived.provenance,
                                              derived.recording};
        Document doc;
        doc.recording = derived.recording;
        doc.title = title;
        doc.derived = true;
        QString dropped;
        for (const auto& [name, value] : derived.provenance.parameters) {
          if (name == "dropped") dropped = QString::fromStdString(value);
        }
        doc.origin = tr("Cleaned by IMF rejection from %1; dropped %2").arg(source, dropped);
        doc.provenance = derived.provenance;
        const int index = window_->addDocument(std::move(doc));
        window_->statusBar()->showMessage(
            tr("Cleaned recording opened; File > Export recording writes it"), 8000);
        emit cleanedRecordingOpened(index);
      });
}

}  // namespace modescope
