#include "app/gui/pipeline_player.h"

#include <QTimer>

#include "app/core/channel_selection.h"
#include "app/gui/bad_marks_workflow.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/epoch_workflow.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/memd_workflow.h"
#include "app/gui/montage_workflow.h"
#include "app/gui/session_history.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"

namespace modescope {

PipelinePlayer::PipelinePlayer(Workspace& workspace, WorkflowHost& host,
                               PipelineWorkflows workflows, Pipeline pipeline, QString name)
    : QObject(host.hostWindow()),
      workspace_(workspace),
      host_(host),
      workflows_(workflows),
      pipeline_(std::move(pipeline)),
      name_(std::move(name)) {
  connect(workspace.engine(), &EngineBridge::jobFinished, this, &PipelinePlayer::onJobFinished);
}

void PipelinePlayer::start() { runStep(); }

void PipelinePlayer::runStep() {
  if (next_ >= pipeline_.steps.size()) {
    emit finished();
    deleteLater();
    return;
  }
  const Document* doc = workspace_.currentDocument();
  if (!doc) return stop(tr("no recording is open"));
  const PipelineStep& step = pipeline_.steps[next_];
  const QString label = QString::fromStdString(stepLabel(next_, step));
  emit stepStarted(static_cast<int>(next_), label);
  try {
    const Recording& rec = *doc->recording;
    if (const auto* f = std::get_if<PipelineFilterStep>(&step)) {
      running_ = host_.runPreprocess(preprocessRequest(rec, *f));
    } else if (const auto* e = std::get_if<PipelineEmdStep>(&step)) {
      if (workflows_.emd) running_ = workflows_.emd->runDecompose(decomposeRequest(rec, *e));
    } else if (const auto* i = std::get_if<PipelineIcaStep>(&step)) {
      if (workflows_.ica) running_ = workflows_.ica->runIca(icaRequest(rec, *i));
    } else if (const auto* x = std::get_if<PipelineEntropyStep>(&step)) {
      if (workflows_.entropy) running_ = workflows_.entropy->runEntropy(entropyRequest(rec, *x));
    } else if (const auto* b = std::get_if<PipelineInterpolateStep>(&step)) {
      const auto& sel = b->selection;
      if (workflows_.badMarks)
        running_ = workflows_.badMarks->interpolate(
            sel.channels ? parseChannelSelection(rec, sel.channelsText()) : badChannelIndices(rec),
            b->params);
    } else if (const auto* p = std::get_if<PipelineEpochStep>(&step)) {
      EpochJobSpec spec;
      spec.epochs.channels = p->selection.channels
                                 ? parseChannelSelection(rec, p->selection.channelsText())
                                 : defaultMethodChannels(rec);
      spec.epochs.eventTypes = p->events;
      spec.epochs.params = p->params;
      spec.differences = p->differences;
      spec.keepEpochs = p->epochs;
      if (workflows_.epochs) running_ = workflows_.epochs->runEpochs(spec);
    } else if (const auto* g = std::get_if<PipelineMontageStep>(&step)) {
      if (workflows_.montage) running_ = workflows_.montage->applyStep(*g);
    } else if (std::holds_alternative<PipelineTfStep>(step)) {
      // The window's time-frequency view is computed for the page on screen; the step's file
      // (whole selection, ridges, reconstruction) is the command line's.
      return stop(tr("%1: time-frequency files are written by modescope-cli run; in the window "
                     "the time-frequency view follows the browser")
                      .arg(label));
    } else if (const auto* m = std::get_if<PipelineMemdStep>(&step)) {
      if (workflows_.memd) running_ = workflows_.memd->runMemd(memdRequest(rec, *m));
    }
  } catch (const Error& e) {
    return stop(tr("%1: %2").arg(label, QString::fromUtf8(e.what())));
  }
  if (running_ == 0) stop(tr("%1 could not be started").arg(label));
}

void PipelinePlayer::onJobFinished(JobId id, const JobOutcome& outcome) {
  if (id != running_ || running_ == 0) return;
  running_ = 0;
  const QString label = QString::fromStdString(stepLabel(next_, pipeline_.steps[next_]));
  if (outcome.state != JobState::Succeeded) {
    stop(tr("%1: %2").arg(label, QString::fromStdString(outcome.message)));
    return;
  }
  ++next_;
  // The window handles the outcome (a new tab, a result) in its own slot for this signal; the
  // next step starts after it, on the document it made current.
  QTimer::singleShot(0, this, &PipelinePlayer::runStep);
}

void PipelinePlayer::stop(const QString& message) {
  emit failed(tr("'%1' stopped at %2").arg(name_, message));
  deleteLater();
}

}  // namespace modescope
