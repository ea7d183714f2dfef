#include "app/gui/bad_marks_workflow.h"

#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "app/core/bad_channel_job.h"
#include "app/core/channel_selection.h"
#include "app/core/interpolation_job.h"
#include "app/core/pipeline.h"
#include "app/gui/bad_channel_suggestions_dialog.h"
#include "app/gui/bad_marking_input.h"
#include "app/gui/derived_tab.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/interpolation_dialog.h"
#include "app/gui/job_results.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/bad_marks.h"
#include "engine/core/text.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

std::string fileName(const QString& path) { return QFile::encodeName(path).toStdString(); }

bool sameAnnotation(const Annotation& a, const Annotation& b) {
  return a.onset == b.onset && a.duration == b.duration && a.text == b.text;
}

std::vector<Annotation> userBadSegments(const Marks& m) { return badSegments(m.userAnnotations); }

QString segmentText(const Annotation& a) {
  return QStringLiteral("%1 - %2 s (%3 s)  %4")
      .arg(a.onset, 0, 'f', 2)
      .arg(a.onset + a.duration, 0, 'f', 2)
      .arg(a.duration, 0, 'f', 2)
      .arg(QString::fromStdString(sanitizeUtf8(a.text)));
}

// One undoable change of the bad channels and the bad segments among the user annotations; the
// other user annotations are left as they are at the time of undo or redo.
class BadMarksCommand : public QUndoCommand {
 public:
  BadMarksCommand(Workspace& workspace, const QString& text, std::vector<std::string> channels,
                  std::vector<Annotation> segments)
      : QUndoCommand(text),
        workspace_(workspace),
        oldChannels_(workspace.marks().badChannels),
        newChannels_(std::move(channels)),
        oldSegments_(userBadSegments(workspace.marks())),
        newSegments_(std::move(segments)) {}
  void redo() override { apply(newChannels_, newSegments_); }
  void undo() override { apply(oldChannels_, oldSegments_); }

 private:
  void apply(const std::vector<std::string>& channels, const std::vector<Annotation>& segments) {
    Marks m = workspace_.marks();
    m.badChannels = channels;
    std::erase_if(m.userAnnotations, [](const Annotation& a) { return isBadSegment(a); });
    m.userAnnotations.insert(m.userAnnotations.end(), segments.begin(), segments.end());
    workspace_.setMarks(std::move(m));
  }
  Workspace& workspace_;
  std::vector<std::string> oldChannels_, newChannels_;
  std::vector<Annotation> oldSegments_, newSegments_;
};

}  // namespace

BadMarksWorkflow::BadMarksWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  auto* panel = new QWidget;
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* hint =
      new QLabel(tr("Shift+click a channel label to mark it bad; Shift+drag over the "
                    "traces to mark a bad segment. Methods leave bad channels out and "
                    "say in their provenance how they treated bad segments."));
  hint->setWordWrap(true);
  layout->addWidget(hint);
  layout->addWidget(new QLabel(tr("Bad channels")));
  channels_ = new QListWidget;
  channels_->setObjectName(QStringLiteral("badChannelList"));
  channels_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  layout->addWidget(channels_, 1);
  layout->addWidget(new QLabel(tr("Bad segments")));
  segments_ = new QListWidget;
  segments_->setObjectName(QStringLiteral("badSegmentList"));
  segments_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  layout->addWidget(segments_, 1);
  auto* buttons = new QHBoxLayout;
  auto* remove = new QPushButton(tr("Remove"));
  remove->setObjectName(QStringLiteral("removeBadMarks"));
  auto* suggestButton = new QPushButton(tr("Suggest..."));
  suggestButton->setObjectName(QStringLiteral("suggestBadChannels"));
  suggestButton->setToolTip(
      tr("Measure every channel (flat, noisy, poorly correlated) and "
         "show the suggestions with their thresholds"));
  interpolateButton_ = new QPushButton(tr("Interpolate"));
  interpolateButton_->setObjectName(QStringLiteral("interpolateBadChannels"));
  interpolateButton_->setToolTip(
      tr("Spherical-spline interpolation of the bad channels into a new tab"));
  buttons->addWidget(remove);
  buttons->addWidget(suggestButton);
  buttons->addWidget(interpolateButton_);
  layout->addLayout(buttons);
  connect(remove, &QPushButton::clicked, this, &BadMarksWorkflow::removeSelected);
  connect(suggestButton, &QPushButton::clicked, this, [this] { suggest(); });
  connect(interpolateButton_, &QPushButton::clicked, this, [this] { askInterpolate(); });

  dock_ = new QDockWidget(tr("Bad channels"), host.hostWindow());
  dock_->setObjectName(QStringLiteral("badMarksDock"));
  dock_->setWidget(panel);
  host.hostWindow()->addDockWidget(Qt::RightDockWidgetArea, dock_);

  connect(&workspace, &Workspace::documentAdded, this, &BadMarksWorkflow::attach);
  connect(&workspace, &Workspace::recordingOpened, this, &BadMarksWorkflow::onRecordingOpened);
  // A session's marks: give the opened recording its flags and segments.
  connect(&workspace, &Workspace::sessionLoaded, this,
          [this] { workspace_.setMarks(workspace_.marks()); });
  connect(&workspace, &Workspace::marksChanged, this, &BadMarksWorkflow::refresh);
  refresh();
}

void BadMarksWorkflow::attach(int documentIndex) {
  const auto& docs = workspace_.documents();
  if (documentIndex < 0 || documentIndex >= static_cast<int>(docs.size())) return;
  const Document& doc = docs[static_cast<std::size_t>(documentIndex)];
  SignalBrowser* browser = browserAt(host_, documentIndex);
  if (doc.derived || !browser) return;  // marks belong to the opened recording
  auto* input = new BadMarkingInput(browser);
  connect(input, &BadMarkingInput::channelToggled, this, &BadMarksWorkflow::toggleBadChannel);
  connect(input, &BadMarkingInput::segmentMarked, this, &BadMarksWorkflow::markBadSegment);
  refresh();
}

void BadMarksWorkflow::onRecordingOpened() {
  const auto& docs = workspace_.documents();
  if (docs.empty() || !docs.front().recording) return;
  Marks m = workspace_.marks();
  for (std::size_t i : badChannelIndices(*docs.front().recording)) {
    const ChannelInfo& c = docs.front().recording->channels[i];
    const std::string name = c.name.empty() ? c.label : c.name;
    if (std::find(m.badChannels.begin(), m.badChannels.end(), name) == m.badChannels.end())
      m.badChannels.push_back(name);
  }
  workspace_.setMarks(std::move(m));  // not undoable: it is how the file came
}

void BadMarksWorkflow::change(const QString& text, std::vector<std::string> channels,
                              std::vector<Annotation> segments) {
  if (workspace_.documents().empty()) return;
  workspace_.undoStack()->push(
      new BadMarksCommand(workspace_, text, std::move(channels), std::move(segments)));
}

void BadMarksWorkflow::toggleBadChannel(const QString& name) {
  std::vector<std::string> channels = workspace_.marks().badChannels;
  const std::string n = name.toStdString();
  const auto it = std::find_if(channels.begin(), channels.end(),
                               [&](const std::string& c) { return equalsIgnoreCase(c, n); });
  const bool wasBad = it != channels.end();
  if (wasBad)
    channels.erase(it);
  else
    channels.push_back(n);
  change(wasBad ? tr("mark %1 good").arg(name) : tr("mark %1 bad").arg(name), std::move(channels),
         userBadSegments(workspace_.marks()));
}

void BadMarksWorkflow::setBadChannels(const std::vector<std::string>& names) {
  change(tr("mark %n channel(s) bad", "", static_cast<int>(names.size())), names,
         userBadSegments(workspace_.marks()));
}

void BadMarksWorkflow::markBadSegment(double onset, double duration) {
  if (!(duration > 0.0)) return;
  std::vector<Annotation> segments = userBadSegments(workspace_.marks());
  segments.push_back({onset, duration, kBadSegmentText});
  change(tr("mark %1-%2 s bad").arg(onset, 0, 'f', 2).arg(onset + duration, 0, 'f', 2),
         workspace_.marks().badChannels, std::move(segments));
}

void BadMarksWorkflow::removeSelected() {
  std::vector<std::string> channels = workspace_.marks().badChannels;
  for (QListWidgetItem* item : channels_->selectedItems()) {
    const std::string n = item->text().toStdString();
    std::erase_if(channels, [&](const std::string& c) { return c == n; });
  }
  std::vector<Annotation> segments = userBadSegments(workspace_.marks());
  std::vector<Annotation> keep;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    QListWidgetItem* item = segments_->item(static_cast<int>(i));  // user segments come first
    if (!item || !item->isSelected()) keep.push_back(segments[i]);
  }
  if (channels == workspace_.marks().badChannels && keep.size() == segments.size()) return;
  change(tr("remove bad marks"), std::move(channels), std::move(keep));
}

void BadMarksWorkflow::refresh() {
  const Marks& m = workspace_.marks();
  channels_->clear();
  for (const std::string& c : m.badChannels) channels_->addItem(QString::fromStdString(c));
  segments_->clear();
  const std::vector<Annotation> user = userBadSegments(m);
  for (const Annotation& a : user) segments_->addItem(segmentText(a));
  // The file's own bad segments: listed, drawn, honoured, but not removable here.
  std::vector<Annotation> all = user;
  const auto& docs = workspace_.documents();
  if (!docs.empty() && !docs.front().derived && docs.front().recording) {
    for (const Annotation& a : badSegments(docs.front().recording->annotations)) {
      if (std::any_of(user.begin(), user.end(),
                      [&](const Annotation& u) { return sameAnnotation(u, a); }))
        continue;
      auto* item = new QListWidgetItem(segmentText(a) + tr("  (in the file)"));
      item->setFlags(Qt::ItemIsEnabled);
      segments_->addItem(item);
      all.push_back(a);
    }
  }
  for (int i = 0; i < workspace_.documentCount(); ++i) {
    SignalBrowser* browser = browserAt(host_, i);
    if (workspace_.document(i)->derived || !browser) continue;
    if (auto* input = browser->findChild<BadMarkingInput*>()) input->overlay()->setSegments(all);
  }
}

JobId BadMarksWorkflow::suggest(const BadChannelCriteria& criteria) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  EngineBridge* engine = workspace_.engine();
  return workspace_.submitTyped<BadChannelReport>(
      tr("Suggest bad channels in %1").arg(doc->title),
      [rec, criteria, engine](JobContext& ctx) {
        return suggestBadChannelsOf(*rec, criteria, *engine->backendFor(std::nullopt), ctx);
      },
      tr("Bad-channel suggestions failed"), tr("Could not measure the channels."),
      [this, rec](JobId, std::shared_ptr<const BadChannelReport> report) {
        auto* dialog = new BadChannelSuggestionsDialog(
            *rec, *report, workspace_.marks().badChannels, host_.hostWindow());
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        std::vector<std::string> measured;
        for (const ChannelQuality& q : report->channels) {
          const ChannelInfo& c = rec->channels[q.channel];
          measured.push_back(c.name.empty() ? c.label : c.name);
        }
        connect(dialog, &QDialog::accepted, this, [this, dialog, measured] {
          // Channels marked bad but not measured (left out as bad) stay bad.
          std::vector<std::string> names = dialog->checkedNames();
          for (const std::string& b : workspace_.marks().badChannels)
            if (std::find(measured.begin(), measured.end(), b) == measured.end())
              names.push_back(b);
          setBadChannels(names);
        });
        dialog->open();
        emit suggestionsShown(dialog);
      });
}

void BadMarksWorkflow::askInterpolate() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  const std::vector<std::size_t> bad = badChannelIndices(*doc->recording);
  if (bad.empty()) {
    interpolate(bad, SplineInterpolationParams{});  // says why
    return;
  }
  auto* dialog = new InterpolationDialog(doc->recording, bad, host_.hostWindow());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this,
          [this, dialog, bad] { interpolate(bad, dialog->params()); });
  dialog->open();
  emit interpolationAsked(dialog);
}

JobId BadMarksWorkflow::interpolate() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  return interpolate(badChannelIndices(*doc->recording), SplineInterpolationParams{});
}

JobId BadMarksWorkflow::interpolate(const std::vector<std::size_t>& bad,
                                    const SplineInterpolationParams& params) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  if (bad.empty()) {
    const QString message =
        tr("No channel of %1 is marked bad: Shift+click a channel label, or use Process > "
           "Suggest bad channels.")
            .arg(doc->title);
    host_.showStatus(message, 8000);
    emit interpolationRefused(message);
    return 0;
  }
  InterpolationJobSpec spec;
  spec.bad = bad;
  spec.params = params;
  spec.inputFile = doc->path.isEmpty() ? doc->title.toStdString() : fileName(doc->path);
  const QString names = QString::fromStdString(describeChannels(*rec, bad));
  const QString source = doc->title;
  EngineBridge* engine = workspace_.engine();
  return workspace_.submitTyped<DerivedRecording>(
      tr("Interpolate %1 in %2").arg(names, source),
      [rec, spec, engine](JobContext& ctx) {
        InterpolationJobResult r =
            runInterpolationJob(rec, spec, *engine->backendFor(std::nullopt), ctx);
        return DerivedRecording{r.recording, r.provenance};
      },
      tr("Interpolation failed"), tr("Could not interpolate %1.").arg(names),
      [this, names, source, rec, bad, params](JobId id,
                                              std::shared_ptr<const DerivedRecording> result) {
        // The history names the channels, so that a replay interpolates the same ones.
        PipelineInterpolateStep step;
        std::vector<std::string> items;
        for (std::size_t i : bad) items.push_back(rec->channels[i].name);
        step.selection.channels = items;
        step.params = params;
        workspace_.recordStep(step);
        const int tab =
            openDerivedTab(workspace_, host_, id, *result,
                           {tr("%1 (interpolated)").arg(source),
                            tr("%1 of %2 interpolated by spherical splines").arg(names, source),
                            tr("interpolate %1").arg(names), tr("Interpolated recording opened")});
        emit interpolated(tab);
      });
}

}  // namespace modescope
