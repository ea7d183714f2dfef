#include "app/gui/epoch_workflow.h"

#include <QDockWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <algorithm>

#include "app/core/channel_selection.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/epoch_dialog.h"
#include "app/gui/epoch_results_pane.h"
#include "app/gui/error_presenter.h"
#include "app/gui/method_run.h"
#include "app/gui/result_dock.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/error.h"
#include "engine/epochs/epoch_spectra.h"
#include "widgets/browser_pane.h"
#include "widgets/curve_plot.h"
#include "widgets/signal_browser.h"

namespace modescope {

EpochWorkflow::EpochWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  results_ = new ResultDock(host.hostWindow(), tr("Epochs and averages"), QStringLiteral("epochs"));
  connect(&workspace, &Workspace::recordingOpened, results_, &ResultDock::closeAll);
}

QDockWidget* EpochWorkflow::dock() const { return results_->dock(); }
QTabWidget* EpochWorkflow::resultTabs() const { return results_->tabs(); }

void EpochWorkflow::askEpochs() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  EpochDialog dialog(doc->recording,
                     doc->derived ? std::vector<Annotation>{} : workspace_.marks().userAnnotations,
                     severalSelectedChannels(host_, workspace_.currentIndex()), host_.hostWindow());
  if (dialog.exec() == QDialog::Accepted) runEpochs(dialog.spec());
}

JobId EpochWorkflow::runEpochs(const EpochJobSpec& spec) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  // The user's annotations are events too (on the recording's own tab).
  std::shared_ptr<const Recording> rec = doc->recording;
  if (!doc->derived && !workspace_.marks().userAnnotations.empty()) {
    auto withMarks = std::make_shared<Recording>(*rec);
    // The file's own annotations: the recording also carries the user's bad segments.
    withMarks->annotations = workspace_.fileAnnotations(*doc);
    withMarks->annotations.insert(withMarks->annotations.end(),
                                  workspace_.marks().userAnnotations.begin(),
                                  workspace_.marks().userAnnotations.end());
    std::stable_sort(withMarks->annotations.begin(), withMarks->annotations.end(),
                     [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
    rec = std::move(withMarks);
  }
  QString types;
  for (const std::string& t : spec.epochs.eventTypes)
    types += (types.isEmpty() ? "" : ", ") + QString::fromStdString(t);
  const QString title = tr("Epochs: %1").arg(types);
  // The Compute menu's backend: the epoch dialog has no backend field.
  return submitMethodRun<EpochJobResult>(
      workspace_,
      {tr("%1 in %2").arg(title, doc->title), tr("Epochs failed"),
       tr("Could not epoch around %1.").arg(types)},
      std::nullopt,
      [rec, spec](ComputeBackend& backend, JobContext& ctx) {
        return runEpochJob(*rec, spec, backend, ctx);
      },
      [this, rec, title](std::shared_ptr<const EpochJobResult> result) {
        showResults(rec, *result, title);
      });
}

EpochResultsPane* EpochWorkflow::showResults(std::shared_ptr<const Recording> recording,
                                             const EpochJobResult& result, const QString& title) {
  if (!recording || !result.file) return nullptr;
  auto* pane = new EpochResultsPane(std::move(recording), result);
  results_->addResult(pane, title, title, 0.6);
  emit resultsShown(pane);
  return pane;
}

CurvePlot* EpochWorkflow::showPageSpectrum(bool selectedOnly) {
  const Document* doc = workspace_.currentDocument();
  SignalBrowser* browser = browserAt(host_, workspace_.currentIndex());
  if (!doc || !browser) return nullptr;
  const Recording& rec = *doc->recording;
  std::vector<int> chosen = selectedChannels(host_, workspace_.currentIndex());
  std::vector<std::size_t> channels;
  if (selectedOnly) {
    for (int c : chosen) channels.push_back(static_cast<std::size_t>(c));
  } else {
    channels = defaultMethodChannels(rec);
  }
  // One rate: the first channel's.
  if (!channels.empty()) {
    const double rate = rec.channels[channels.front()].sampleRate;
    std::erase_if(channels, [&](std::size_t c) { return rec.channels[c].sampleRate != rate; });
  }
  const QString what = selectedOnly ? tr("selected channels") : tr("page");
  try {
    if (channels.empty())
      throw InvalidParameterError("channels", "none", "at least one channel",
                                  "select channels by their labels first");
    const SignalBlock block =
        extractBlock(rec, channels, browser->pageStart(), browser->pageLength());
    const ChannelSpectra s = blockSpectra(rec, block, SpectrumParams{});
    std::vector<double> hz;
    for (std::size_t k = 0; k < s.bins(); ++k) hz.push_back(s.frequency(k));
    std::vector<PlotCurve> curves;
    for (std::size_t c = 0; c < s.power.size(); ++c) {
      PlotCurve p;
      p.colour = QColor::fromHsvF(static_cast<float>(c) / static_cast<float>(s.power.size()), 0.55f,
                                  0.75f, 0.7f);
      p.width = 0.8;
      p.x = hz;
      p.y = s.power[c];
      if (s.power.size() <= 8) p.name = QString::fromStdString(s.channels[c]);
      curves.push_back(std::move(p));
    }
    PlotCurve mean;
    mean.name = tr("mean over %1 channels").arg(s.power.size());
    mean.colour = Qt::black;
    mean.width = 2.2;
    mean.x = hz;
    mean.y = s.meanPower;
    curves.push_back(std::move(mean));
    auto* plot = new CurvePlot;
    plot->setObjectName(QStringLiteral("pageSpectrum"));
    plot->setLogY(true);
    plot->setCurves(std::move(curves));
    const QString unit = QString::fromStdString(rec.channels[channels.front()].unit);
    plot->setLabels(tr("Welch power spectrum, %1 s from %2 s (%3 segments of %4 samples)")
                        .arg(browser->pageLength(), 0, 'g', 4)
                        .arg(browser->pageStart(), 0, 'f', 1)
                        .arg(s.segmentsPerSeries)
                        .arg(s.segmentLength),
                    tr("Frequency (Hz)"), tr("%1^2/Hz").arg(unit.isEmpty() ? "a.u." : unit));
    results_->addResult(plot, tr("Spectrum (%1)").arg(what),
                        tr("Power spectrum of the %1 at %2 s").arg(what).arg(browser->pageStart()),
                        0.45);
    return plot;
  } catch (const Error& e) {
    showError(host_.hostWindow(), tr("Spectrum failed"),
              tr("Could not compute the spectrum of the %1.").arg(what),
              QString::fromStdString(e.what()));
    return nullptr;
  }
}

}  // namespace modescope
