// PipelinePlayer (app/gui/pipeline_player.h) without a MainWindow: a Workspace, a minimal
// WorkflowHost whose filter step makes a derived document (a plain copy of the channels asked
// for, so that the test sees which document each step ran on) and a real EmdWorkflow. A filter
// step then an EMD step run in order, the EMD on the document the filter step made current; a
// step naming a channel the recording lacks stops the pipeline with the step's label.
#include "app/gui/pipeline_player.h"

#include <QMainWindow>
#include <QSignalSpy>
#include <QTest>

#include "app/core/pipeline.h"
#include "app/core/recording_selection.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/job_results.h"
#include "app/gui/preprocess_dialog.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/json_value.h"

using namespace modescope;

namespace {

// C3, C4 and Cz at 100 Hz, 10 s: a 7 Hz tone plus a slow 0.5 Hz wave.
std::shared_ptr<const Recording> threeChannels() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/three.edf";
  std::vector<std::vector<float>> data;
  for (const char* name : {"C3", "C4", "Cz"}) {
    ChannelInfo info;
    info.label = info.name = name;
    info.type = ChannelType::EEG;
    info.sampleRate = 100.0;
    info.sampleCount = 1000;
    info.unit = "uV";
    rec->channels.push_back(info);
    std::vector<float> x(1000);
    for (std::size_t n = 0; n < x.size(); ++n) {
      const double t = static_cast<double>(n) / 100.0;
      x[n] = static_cast<float>(10.0 * std::sin(2 * M_PI * 7 * t) +
                                20.0 * std::sin(2 * M_PI * 0.5 * t + data.size()));
    }
    data.push_back(std::move(x));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

// The host a workflow sees: a window for its dock, no browser panes, a status line, and a filter
// step that opens the asked channels as a derived document and makes it current (as the window
// shows a new tab).
class MinimalHost : public WorkflowHost {
 public:
  explicit MinimalHost(Workspace& workspace) : workspace_(workspace) {}
  QMainWindow* hostWindow() override { return &window_; }
  BrowserPane* paneAt(int) const override { return nullptr; }
  void showStatus(const QString& message, int) override { status = message; }
  JobId runPreprocess(const PreprocessRequest& request) override {
    const Document* doc = workspace_.currentDocument();
    if (!doc) return 0;
    filterRequests.push_back(request);
    const std::shared_ptr<const Recording> rec = doc->recording;
    return workspace_.submitTyped<DerivedRecording>(
        QStringLiteral("copy"),
        [rec, request](JobContext&) {
          DerivedRecording d;
          d.recording =
              selectRecording(rec, request.channels, request.startSeconds, request.durationSeconds);
          return d;
        },
        QStringLiteral("Copy failed"), QString(),
        [this](JobId id, std::shared_ptr<const DerivedRecording> result) {
          Document d;
          d.recording = result->recording;
          d.title = QStringLiteral("copy");
          d.derived = true;
          const int index = workspace_.addDerivedDocument(
              d, id, JobRecord{"copy", "succeeded", {}, {}, result->recording},
              QStringLiteral("copy"));
          workspace_.setCurrentIndex(index);
        });
  }

  QString status;
  std::vector<PreprocessRequest> filterRequests;

 private:
  Workspace& workspace_;
  QMainWindow window_;
};

// The engine, a workspace with threeChannels() open as its current document, and the host.
struct PlayerSession {
  PlayerSession() {
    Document opened;
    opened.recording = threeChannels();
    opened.title = QStringLiteral("three.edf");
    // Current as the window's tab of it would be.
    workspace.setCurrentIndex(workspace.openPrimary(opened, QStringLiteral("/data/three.edf")));
  }
  EngineBridge engine{BackendChoice::Cpu};
  Workspace workspace{&engine, nullptr};
  MinimalHost host{workspace};
};

Pipeline pipelineOf(const std::string& steps) {
  const std::string text = R"({"modescope_pipeline": 1, "steps": [)" + steps + "]}";
  return readPipeline(parseJson(text, "test.json"), "test.json");
}

}  // namespace

class PipelinePlayerTest : public QObject {
  Q_OBJECT

 private slots:
  void playsStepsInOrderOnTheDocumentEachStepMade() {
    PlayerSession session;
    Workspace& ws = session.workspace;
    MinimalHost& host = session.host;
    EmdWorkflow emd(ws, host);

    const Pipeline pipeline =
        pipelineOf(R"({"step": "filter", "filters": ["highpass:1"], "channels": ["C4", "Cz"]},)"
                   R"({"step": "emd", "preset": "emd-rilling", "channels": ["Cz"], "duration": 4,)"
                   R"( "hht": false})");
    PipelineWorkflows workflows;
    workflows.emd = &emd;
    auto* player = new PipelinePlayer(ws, host, workflows, pipeline, QStringLiteral("test.json"));
    QSignalSpy started(player, &PipelinePlayer::stepStarted);
    QSignalSpy finished(player, &PipelinePlayer::finished);
    QSignalSpy failed(player, &PipelinePlayer::failed);
    QSignalSpy shown(&emd, &EmdWorkflow::resultsShown);
    player->start();
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(started.count(), 2);
    QCOMPARE(started.at(1).at(0).toInt(), 1);

    // The filter step went to the host with the step's channels.
    QCOMPARE(host.filterRequests.size(), std::size_t{1});
    QCOMPARE(host.filterRequests[0].channels, (std::vector<std::size_t>{1, 2}));
    QCOMPARE(ws.documentCount(), 2);
    // The EMD ran on the derived document (whose Cz is its channel 1), 4 s of it.
    QCOMPARE(shown.count(), 1);
    auto* pane = shown.at(0).at(0).value<EmdResultsPane*>();
    QVERIFY(pane);
    QVERIFY(pane->recording() == ws.documents()[1].recording);
    QCOMPARE(ws.history().steps.size(), std::size_t{1});  // the EMD (the host records no filter)
    const auto* step = std::get_if<PipelineEmdStep>(&ws.history().steps[0]);
    QVERIFY(step);
    QCOMPARE(step->selection.channelsText(), std::string("Cz"));
  }

  void aStepTheRecordingCannotTakeStopsThePipeline() {
    PlayerSession session;
    Workspace& ws = session.workspace;
    MinimalHost& host = session.host;
    EmdWorkflow emd(ws, host);

    const Pipeline pipeline =
        pipelineOf(R"({"step": "emd", "channels": ["Nope"], "hht": false},)"
                   R"({"step": "filter", "filters": ["highpass:1"], "channels": ["C3"]})");
    PipelineWorkflows workflows;
    workflows.emd = &emd;
    auto* player = new PipelinePlayer(ws, host, workflows, pipeline, QStringLiteral("bad.json"));
    QSignalSpy failed(player, &PipelinePlayer::failed);
    QSignalSpy finished(player, &PipelinePlayer::finished);
    player->start();
    QCOMPARE(failed.count(), 1);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("'bad.json' stopped at")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Nope")), qPrintable(message));
    QCOMPARE(finished.count(), 0);
    QVERIFY(host.filterRequests.empty());  // nothing after the failed step ran
    QCOMPARE(ws.documentCount(), 1);
  }

  void aStepWithoutItsWorkflowIsNotStarted() {
    PlayerSession session;
    Workspace& ws = session.workspace;
    MinimalHost& host = session.host;
    auto* player = new PipelinePlayer(ws, host, PipelineWorkflows{},
                                      pipelineOf(R"({"step": "emd", "channels": ["C3"]})"),
                                      QStringLiteral("p.json"));
    QSignalSpy failed(player, &PipelinePlayer::failed);
    player->start();
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("could not be started")),
             qPrintable(failed.at(0).at(0).toString()));
  }
};

QTEST_MAIN(PipelinePlayerTest)
#include "pipeline_player_test.moc"
