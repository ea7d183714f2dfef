#include "app/gui/tf_workflow.h"

#include <QAction>
#include <QMenu>
#include <QPointer>
#include <QStatusBar>
#include <QTabWidget>

#include "app/core/gpu_backend.h"
#include "app/core/imf_recording.h"
#include "app/gui/cuda_spectrum_pixel_writer.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/ica_results_pane.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/job_results.h"
#include "app/gui/pane_figures.h"
#include "app/gui/result_dock.h"
#include "app/gui/tf_view.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/error.h"
#include "widgets/browser_pane.h"
#include "widgets/imf_stack_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

constexpr double kViewLowestHz = 1.0;
constexpr double kViewHighestHz = 45.0;

// The view's own backend of the window's choice; the CPU when a forced CUDA is missing (the
// view still works, and says on what it computes).
std::shared_ptr<ComputeBackend> viewBackend(BackendChoice choice) {
  try {
    return chooseBackend(choice);
  } catch (const Error&) {
    return makeCpuBackend(0);
  }
}

}  // namespace

TfWorkflow::TfWorkflow(Workspace& workspace, WorkflowHost& host, IcaWorkflow* ica, EmdWorkflow* emd)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  views_ = new ResultDock(host.hostWindow(), tr("Time-frequency"), QStringLiteral("tf"));
  connect(&workspace, &Workspace::recordingOpened, views_, &ResultDock::closeAll);
  // The component browser's activations: a context menu entry for the current component.
  connect(ica, &IcaWorkflow::resultsShown, this, [this](IcaResultsPane* pane) {
    SignalBrowser* browser = pane->activationBrowser();
    auto* action = new QAction(tr("Time-frequency of this component"), browser);
    action->setObjectName(QStringLiteral("icaTimeFrequency"));
    connect(action, &QAction::triggered, this, [this, pane] { openForComponent(pane); });
    browser->addAction(action);
    browser->setContextMenuPolicy(Qt::ActionsContextMenu);
  });
  // The IMF stack of an EMD result: a context menu on each row.
  connect(emd, &EmdWorkflow::resultsShown, this, [this](EmdResultsPane* pane) {
    ImfStackView* stack = pane->imfStack();
    QPointer<SignalBrowser> follow(
        browserAt(host_, workspace_.currentIndex()));  // the pane's source
    stack->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(stack, &QWidget::customContextMenuRequested, this,
            [this, pane, stack, follow](const QPoint& pos) {
              const int row = stack->rowAt(pos);
              if (row < 0 || !follow) return;
              QMenu menu;
              QAction* open = menu.addAction(tr("Time-frequency of %1").arg(stack->rowLabel(row)));
              if (menu.exec(stack->mapToGlobal(pos)) == open) openForImf(pane, row, follow);
            });
  });
  connect(workspace.engine(), &EngineBridge::backendChanged, this, [this] {
    for (TfView* v : views_->tabs()->findChildren<TfView*>())
      v->setBackend(viewBackend(workspace_.engine()->backendChoice()));
  });
}

QDockWidget* TfWorkflow::dock() const { return views_->dock(); }
QTabWidget* TfWorkflow::viewTabs() const { return views_->tabs(); }

TfView* TfWorkflow::openForCurrentChannel() {
  const Document* doc = workspace_.currentDocument();
  SignalBrowser* browser = browserAt(host_, workspace_.currentIndex());
  if (!doc || !browser || !doc->recording || doc->recording->channelCount() == 0) {
    host_.showStatus(tr("Open a recording first"), 5000);
    return nullptr;
  }
  const std::vector<int> selected = browser->selectedChannels();
  const int channel = selected.empty() ? browser->firstVisibleChannel() : selected.front();
  return openFor(doc->recording, static_cast<std::size_t>(std::max(0, channel)), doc->title,
                 browser);
}

TfView* TfWorkflow::openForComponent(IcaResultsPane* pane) {
  if (!pane || !pane->activationBrowser()) return nullptr;
  SignalBrowser* browser = pane->activationBrowser();
  return openFor(browser->recording(), static_cast<std::size_t>(pane->currentComponent()),
                 pane->title(), browser);
}

TfView* TfWorkflow::openForImf(EmdResultsPane* pane, int row, SignalBrowser* browser) {
  if (!pane || !pane->result() || !pane->recording() || row < 0) return nullptr;
  const auto channel = static_cast<std::size_t>(std::max(0, pane->currentChannel()));
  std::shared_ptr<const Recording> imfs;
  try {
    imfs = imfRecording(*pane->recording(), pane->result(), channel);
  } catch (const Error& e) {
    host_.showStatus(QString::fromUtf8(e.what()), 8000);
    return nullptr;
  }
  return openFor(std::move(imfs), static_cast<std::size_t>(row), pane->title(), browser);
}

TfView* TfWorkflow::openFor(std::shared_ptr<const Recording> recording, std::size_t channel,
                            const QString& sourceTitle, SignalBrowser* browser) {
  if (!recording || !browser || channel >= recording->channelCount()) return nullptr;
  const ChannelInfo& ch = recording->channels[channel];
  const QString name = QString::fromStdString(ch.name.empty() ? ch.label : ch.name);
  auto* view = new TfView(viewBackend(workspace_.engine()->backendChoice()));
  view->setPixelWriterFactory([] { return std::make_unique<CudaSpectrumPixelWriter>(); });
  // The EEG band the eye reads (the declarations' defaults are 0 Hz to Nyquist, which spends
  // most of the image above 45 Hz and puts the strongest ridge on the drift near 0 Hz).
  TfParams params;
  params.minFrequency = kViewLowestHz;
  if (ch.sampleRate / 2 > kViewHighestHz) params.maxFrequency = kViewHighestHz;
  view->setParams(params);
  view->setSource(std::move(recording), channel, name);
  view->setPage(browser->pageStart(), browser->pageLength());
  followBrowserPage(browser, view,
                    [view](double start, double seconds) { view->setPage(start, seconds); });
  connect(view, &TfView::exportRequested, view, [view] {
    chooseAndExportFigure(
        view, tr("time-frequency figure"),
        [view](const QString& path, QString* error) { return view->exportFigure(path, error); });
  });
  connect(view, &TfView::reconstructRequested, this,
          [this, view](const TfModesRequest& request) { reconstruct(view, request); });
  views_->addResult(view, tr("TF: %1 (%2)").arg(name, sourceTitle),
                    tr("Spectrogram and synchrosqueezing of %1 in %2, following its browser")
                        .arg(name, sourceTitle),
                    0.5);
  emit viewOpened(view);
  return view;
}

JobId TfWorkflow::reconstruct(TfView* view, const TfModesRequest& request) {
  if (!view || !view->recording()) return 0;
  const std::shared_ptr<const Recording> rec = view->recording();
  EngineBridge* engine = workspace_.engine();
  const QString source = view->title();
  return workspace_.submitTyped<DerivedRecording>(
      tr("Reconstruct ridges (%1)").arg(source),
      [rec, request, engine](JobContext& ctx) -> DerivedRecording {
        const TfModesRecording modes =
            tfModesRecording(*rec, request, *engine->backendFor(std::nullopt), ctx);
        return DerivedRecording{modes.recording, modes.provenance};
      },
      tr("Reconstruction failed"), tr("Could not reconstruct the ridges."),
      [this, source, request](JobId id, std::shared_ptr<const DerivedRecording> result) {
        const QString title = tr("%1 ridge modes %2-%3 s")
                                  .arg(source)
                                  .arg(request.startSeconds, 0, 'f', 1)
                                  .arg(request.startSeconds + request.seconds, 0, 'f', 1);
        const JobRecord record{title.toStdString(),
                               jobStateName(JobState::Succeeded),
                               {},
                               result->provenance,
                               result->recording};
        Document doc;
        doc.recording = result->recording;
        doc.title = title;
        doc.derived = true;
        doc.origin = tr("%1 ridge modes of %2 (synchrosqueezing order %3), %4-%5 s")
                         .arg(request.readout.ridges)
                         .arg(source)
                         .arg(QString::fromLatin1(tfOrderName(request.params.order)))
                         .arg(request.startSeconds, 0, 'f', 2)
                         .arg(request.startSeconds + request.seconds, 0, 'f', 2);
        doc.provenance = result->provenance;
        const int index = workspace_.addDerivedDocument(std::move(doc), id, record,
                                                        tr("reconstruct ridges of %1").arg(source));
        host_.showStatus(
            tr("Ridge modes opened; Edit > Undo removes them, File > Export recording writes "
               "them"),
            8000);
        emit modesOpened(index);
      });
}

}  // namespace modescope
