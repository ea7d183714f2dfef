#include "app/gui/ica_workflow.h"

#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QPointer>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <functional>

#include "app/core/ica_cleaning.h"
#include "app/core/ica_flags_job.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/file_filters.h"
#include "app/gui/ica_dialog.h"
#include "app/gui/ica_results_pane.h"
#include "app/gui/job_results.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/session_history.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/error.h"
#include "widgets/browser_pane.h"
#include "widgets/scalp_3d_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

std::string nativePath(const QString& path) { return QFile::encodeName(path).toStdString(); }

QString hdf5Filter() { return QObject::tr("ICA result (*.h5 *.hdf5)"); }

}  // namespace

IcaWorkflow::IcaWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  undo_ = workspace.undoStack();  // the workspace's one stack (Edit > Undo)
  results_ = new ResultDock(host.hostWindow(), tr("Independent components"), QStringLiteral("ica"));
  // Mark steps of a closed browser cannot be undone any more.
  connect(results_, &ResultDock::tabClosed, undo_, &QUndoStack::clear);
  // Decompositions belong to the recording they were computed from.
  connect(&workspace, &Workspace::recordingOpened, this, &IcaWorkflow::closeAll);
}

QDockWidget* IcaWorkflow::dock() const { return results_->dock(); }
QTabWidget* IcaWorkflow::resultTabs() const { return results_->tabs(); }

void IcaWorkflow::closeAll() {
  results_->closeAll();
  undo_->clear();
}

IcaResultsPane* IcaWorkflow::currentResults() const {
  return qobject_cast<IcaResultsPane*>(results_->tabs()->currentWidget());
}

void IcaWorkflow::askIca() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  const std::vector<int> selected = defaultIcaChannels(
      *doc->recording, doc->derived ? std::vector<std::string>{} : workspace_.marks().badChannels);
  // The whole recording by default: ICA wants many samples (20-30 x components^2).
  IcaDialog dialog(doc->recording, selected, 0.0, -1.0, workspace_.engine()->backendChoice(),
                   host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runIca(dialog.request());
}

JobId IcaWorkflow::runIca(const IcaRequest& request) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const QString source = doc->title;
  const std::string inputFile = documentInputFile(*doc);
  const QString what = QString::fromStdString(describeIca(*rec, request));
  const IcaJobSpec spec = toJobSpec(request, inputFile, workspace_.engine()->backendChoice());
  const IcaFlagParams flagParams = request.flags ? request.flags->params : IcaFlagParams{};
  QPointer<BrowserPane> pane = host_.paneAt(workspace_.currentIndex());
  // The dialog's own backend (with the spec's CPU thread count) or the Compute menu's, by the one
  // rule; the components are summarised in the same job.
  return submitMethodRun<IcaJobOutcome>(
      workspace_,
      {tr("%1 in %2").arg(what, source), tr("ICA failed"),
       tr("Could not compute the %1.").arg(what)},
      MethodBackend(request.backend, spec.threads),
      [rec, spec, flagParams](ComputeBackend& backend, const std::string& note,
                              JobContext& ctx) -> IcaJobOutcome {
        IcaJobOutcome out;
        JobContext icaCtx = ctx.sub(0.0, 0.95);
        IcaJobResult job = runIcaJob(*rec, spec, backend, icaCtx);
        JobContext summaryCtx = ctx.sub(0.95, 1.0);
        out.summary = summariseIcaComponents(*rec, *job.file, summaryCtx, flagParams);
        out.file = std::move(job.file);
        out.backendNote = note;
        return out;
      },
      [this, rec, what, pane, request](std::shared_ptr<const IcaJobOutcome> result) {
        if (!result->backendNote.empty())
          host_.showStatus(QString::fromStdString(result->backendNote), 10000);
        const PipelineIcaStep step = historyStep(*rec, request);
        const std::size_t index = workspace_.recordStep(step);
        IcaResultsPane* shown = showResults(rec, *result, what, pane);
        if (!shown) return;
        if (request.flags) {
          // A replayed step: its thresholds labelled the components; mark what it rejected.
          shown->setFlagRecord(request.flags);
          if (!request.flags->reject.empty())
            shown->markFlagged(request.flags->reject, request.flags->minConfidence);
        }
        // The thresholds and rejections chosen later in the browser belong to this step.
        connect(shown, &IcaResultsPane::flagRecordChanged, this, [this, shown, index, step] {
          PipelineIcaStep changed = step;
          changed.flags = shown->flagRecord();
          workspace_.replaceRecordedStep(index, changed);
        });
      });
}

IcaResultsPane* IcaWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                         const IcaJobOutcome& outcome, const QString& title,
                                         BrowserPane* source, const QString& icaPath) {
  if (!recording || !outcome.file) return nullptr;
  auto* pane =
      new IcaResultsPane(std::move(recording), outcome.file, outcome.summary, title, undo_);
  pane->setIcaPath(icaPath);
#if MODESCOPE_HAVE_VTK
  auto* head = new Scalp3dView;
  pane->setThreeDView(head,
                      [head](const std::vector<ChannelInfo>& ch, const std::vector<double>& x,
                             const QString& t, const QString& u) { head->setMap(ch, x, t, u); });
#else
  pane->threeDButton()->setToolTip(scalp3dUnavailableMessage());
#endif
  connect(pane, &IcaResultsPane::applyRequested, this, [this, pane] { applyCleaned(pane); });
  connect(pane, &IcaResultsPane::flagsRequested, this,
          [this, pane](const IcaFlagParams& params) { runFlags(pane, params); });
  connect(pane, &IcaResultsPane::saveRequested, this, [this, pane] {
    results_->tabs()->setCurrentWidget(pane);
    chooseAndSaveIcaFile();
  });
  if (source) {
    // The activations and the browser of the decomposed recording show the same page.
    SignalBrowser* browser = source->browser();
    followBrowserPage(browser, pane, [pane](double start, double seconds) {
      pane->setTimeWindow(start, seconds);
    });
    connect(pane, &IcaResultsPane::timeWindowChanged, browser,
            [browser](double start, double seconds) { showBrowserPage(browser, start, seconds); });
    pane->setTimeWindow(browser->pageStart(), browser->pageLength());
  }
  // The component browser needs room: most of the window's height to start with.
  results_->addResult(pane, title, QString::fromStdString(outcome.file->provenance.selection), 0.6);
  emit resultsShown(pane);
  return pane;
}

JobId IcaWorkflow::applyCleaned(IcaResultsPane* pane) {
  if (!pane) return 0;
  const std::shared_ptr<const Recording> rec = pane->recording();
  const std::shared_ptr<const IcaFile> file = pane->file();
  const std::vector<int> rejected = pane->markedComponents();
  const QString source = pane->title();
  const std::string icaPath =
      pane->icaPath().isEmpty() ? "(decomposition in the session)" : nativePath(pane->icaPath());
  return workspace_.submitTyped<DerivedRecording>(
      tr("Clean by ICA component rejection (%1)").arg(source),
      [rec, file, rejected, icaPath](JobContext& ctx) -> DerivedRecording {
        ctx.progress(0.0, "back-projecting");
        DerivedRecording derived;
        derived.recording = icaCleanedRecording(rec, *file, rejected, icaPath);
        derived.provenance = icaCleaningProvenance(*file, rejected, icaPath);
        return derived;
      },
      tr("Cleaning failed"), tr("Could not make the cleaned recording."),
      [this, source, rejected](JobId id, std::shared_ptr<const DerivedRecording> result) {
        const auto& derived = *result;
        const QString title = tr("%1 (ICA-cleaned)").arg(source);
        Document doc;
        doc.recording = derived.recording;
        doc.title = title;
        doc.derived = true;
        doc.origin = tr("Cleaned by ICA component rejection from %1; removed %2")
                         .arg(source, QString::fromStdString(describeRejected(rejected)));
        doc.provenance = derived.provenance;
        const JobRecord record{title.toStdString(),
                               jobStateName(JobState::Succeeded),
                               {},
                               derived.provenance,
                               derived.recording};
        workspace_.addDerivedDocument(
            std::move(doc), id, record,
            tr("apply ICA cleaning (%1)").arg(QString::fromStdString(describeRejected(rejected))));
        host_.showStatus(
            tr("Cleaned recording opened; Edit > Undo removes it, File > Export recording writes "
               "it"),
            8000);
        emit cleanedRecordingOpened(workspace_.currentIndex());
      });
}

JobId IcaWorkflow::runFlags(IcaResultsPane* pane, const IcaFlagParams& params) {
  if (!pane) return 0;
  const std::shared_ptr<const Recording> rec = pane->recording();
  const std::shared_ptr<const IcaFile> file = pane->file();
  QPointer<IcaResultsPane> guard(pane);
  return workspace_.submitTyped<IcaFlags>(
      tr("Automatic flags (%1)").arg(pane->title()),
      [rec, file, params](JobContext& ctx) -> IcaFlags {
        return flagIcaFile(*rec, *file, params, ctx);
      },
      tr("Flagging failed"), tr("Could not label the components with these thresholds."),
      [guard](JobId, std::shared_ptr<const IcaFlags> flags) {
        if (guard) guard->setFlags(*flags);
      });
}

JobId IcaWorkflow::saveIcaFile(IcaResultsPane* pane, const QString& path) {
  if (!pane) return 0;
  const std::shared_ptr<const IcaFile> file = pane->file();
  const std::string target = nativePath(path);
  QPointer<IcaResultsPane> guard(pane);
  return workspace_.submitTyped<std::string>(
      tr("Save ICA %1").arg(QFileInfo(path).fileName()),
      [file, target](JobContext& ctx) -> std::string {
        writeIcaFile(target, *file, ctx);
        return target;
      },
      tr("Saving the ICA result failed"), tr("Could not write %1.").arg(path),
      [this, guard, path](JobId, std::shared_ptr<const std::string>) {
        if (guard) guard->setIcaPath(path);
        host_.showStatus(tr("ICA result written to %1").arg(path), 5000);
        emit icaFileSaved(path);
      });
}

JobId IcaWorkflow::openIcaFile(const QString& path) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  // A decomposition belongs to the recording it was computed on: the first tab (or the current
  // one when that is what it was computed on; summariseIcaComponents checks either way).
  const std::shared_ptr<const Recording> rec = doc->recording;
  const std::string file = nativePath(path);
  QPointer<BrowserPane> pane = host_.paneAt(workspace_.currentIndex());
  return workspace_.submitTyped<IcaJobOutcome>(
      tr("Open ICA %1").arg(QFileInfo(path).fileName()),
      [rec, file](JobContext& ctx) -> IcaJobOutcome {
        ctx.progress(0.0, "reading");
        auto f = std::make_shared<IcaFile>(readIcaFile(file));
        IcaJobOutcome out;
        out.summary = summariseIcaComponents(*rec, *f, ctx);
        out.file = std::move(f);
        return out;
      },
      tr("Opening the ICA result failed"),
      tr("Could not use %1 with the current recording.").arg(path),
      [this, rec, path, pane](JobId, std::shared_ptr<const IcaJobOutcome> result) {
        showResults(rec, *result, tr("ICA from %1").arg(QFileInfo(path).fileName()), pane, path);
      });
}

void IcaWorkflow::chooseAndSaveIcaFile() {
  IcaResultsPane* pane = currentResults();
  if (!pane) return;
  QString path = QFileDialog::getSaveFileName(host_.hostWindow(), tr("Save ICA result"),
                                              pane->icaPath(), hdf5Filter());
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".h5");
  saveIcaFile(pane, path);
}

void IcaWorkflow::chooseAndOpenIcaFile() {
  const QString path = QFileDialog::getOpenFileName(host_.hostWindow(), tr("Open ICA result"),
                                                    QString(), hdf5Filter());
  if (!path.isEmpty()) openIcaFile(path);
}

std::vector<IcaSessionEntry> IcaWorkflow::sessionEntries() const {
  std::vector<IcaSessionEntry> out;
  for (int i = 0; i < results_->tabs()->count(); ++i) {
    const auto* pane = qobject_cast<const IcaResultsPane*>(results_->tabs()->widget(i));
    if (!pane) continue;
    out.push_back({pane->title().toStdString(), pane->file(), pane->markedComponents(),
                   nativePath(pane->icaPath())});
  }
  return out;
}

void IcaWorkflow::restoreSession(const std::vector<IcaSessionEntry>& entries) {
  closeAll();
  if (workspace_.documents().empty()) return;
  for (const IcaSessionEntry& e : entries) {
    if (!e.file) continue;
    // The tab the decomposition was computed on: the job records its file path, or its title for
    // a derived tab (a filtered copy restored from the same session); else the first tab.
    int source = 0;
    for (int i = 0; i < workspace_.documentCount(); ++i) {
      if (documentInputFile(*workspace_.document(i)) == e.file->inputFile) source = i;
    }
    submitSummary(workspace_.document(source)->recording, host_.paneAt(source), e.file,
                  QString::fromStdString(e.title), QFile::decodeName(e.icaPath.c_str()),
                  e.rejected);
  }
}

JobId IcaWorkflow::submitSummary(std::shared_ptr<const Recording> recording, BrowserPane* source,
                                 std::shared_ptr<const IcaFile> file, const QString& title,
                                 const QString& icaPath, std::vector<int> marks) {
  QPointer<BrowserPane> pane = source;
  return workspace_.submitTyped<IcaJobOutcome>(
      tr("Restore %1").arg(title),
      [recording, file](JobContext& ctx) -> IcaJobOutcome {
        IcaJobOutcome out;
        out.summary = summariseIcaComponents(*recording, *file, ctx);
        out.file = file;
        return out;
      },
      tr("Restoring the decomposition failed"), tr("Could not show %1.").arg(title),
      [this, recording, title, icaPath, marks, pane](JobId,
                                                     std::shared_ptr<const IcaJobOutcome> result) {
        IcaResultsPane* shown = showResults(recording, *result, title, pane, icaPath);
        if (shown) shown->setMarkedComponents(marks);
      });
}

}  // namespace modescope
