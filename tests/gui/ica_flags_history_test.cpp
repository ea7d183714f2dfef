// The automatic ICA flags in the session history: the component browser's "Thresholds..." dialog
// (generated from icaFlagParamTable()) labels the components again at the chosen thresholds,
// "Mark flagged" rejects the flagged components, and both are recorded in the ica step's "flags"
// field; Edit > Undo takes the rejection back out of the record. The exported pipeline replays
// the same rejected components in the window (File > Apply pipeline) and headless
// (`modescope-cli run`, whose run.json lists them). A screenshot of the dialog goes to the build
// folder (ica_flag_thresholds.png).
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "app/core/pipeline.h"
#include "app/gui/ica_component_model.h"
#include "app/gui/ica_flag_thresholds_dialog.h"
#include "app/gui/ica_flags_bar.h"
#include "app/gui/ica_results_pane.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/main_window.h"
#include "engine/core/json_value.h"
#include "session_replay_support.h"

using namespace modescope;

namespace {

SynthParams recordingParams() {
  SynthParams p;
  p.channels = 19;
  p.sampleRate = 128.0;
  p.duration = 40.0;
  p.heartRatePerMinute = 72.0;  // --heart-rate 72; the rest as `modescope-cli synth` makes it
  p.exgChannels = true;
  p.seed = 5;
  return p;
}

const PipelineIcaStep* icaStep(const MainWindow& w) {
  return w.history().steps.empty() ? nullptr
                                   : std::get_if<PipelineIcaStep>(&w.history().steps.front());
}

}  // namespace

class IcaFlagsHistoryTest : public QObject {
  Q_OBJECT

 private slots:
  void thresholdsDialogRefusesWhatTheTableRefuses() {
    IcaFlagThresholdsDialog dialog(IcaFlagParams{});
    auto* z = qobject_cast<QDoubleSpinBox*>(dialog.editor("eogZThreshold"));
    QVERIFY(z);
    QCOMPARE(z->objectName(), QStringLiteral("icaFlagEogZThreshold"));
    QCOMPARE(z->value(), 3.0);
    QVERIFY(dialog.runButton()->isEnabled());
    // Every declared field has its editor, labelled and ranged by the declaration.
    for (const auto& f : icaFlagParamTable().fields()) QVERIFY(dialog.editor(f.decl.key));
    z->setValue(2.5);
    QCOMPARE(dialog.params().eogZThreshold, 2.5);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.height() <= 1000);  // the screen of the GUI tests: the rows scroll
    dialog.grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/ica_flag_thresholds.png"));
    dialog.setParams(IcaFlagParams{});
    QCOMPARE(dialog.params().eogZThreshold, 3.0);
  }

  void flagsAreRecordedAndReplayedWithTheSameRejections() {
    if (std::string(MODESCOPE_CLI).empty()) QSKIP("MODESCOPE_CLI is not set by the build");
    QTemporaryDir dir;
    MainWindow w;
    const QString opened = gui_test::showWithSynthetic(w, recordingParams());
    QVERIFY2(opened.isEmpty(), qPrintable(opened));

    // ICA of the 19 EEG channels: few steps (the flags need a decomposition, not a converged
    // one), the CPU, a fixed seed: the same decomposition every time.
    QSignalSpy shown(w.icaWorkflow(), &IcaWorkflow::resultsShown);
    IcaRequest request;
    request.params = icaPreset("eeglab-runica");
    request.params.maxSteps = 60;
    request.params.seed = 3;
    for (std::size_t c = 0; c < 19; ++c) request.channels.push_back(c);
    request.backend = BackendChoice::Cpu;
    request.presetName = "";
    QVERIFY(w.icaWorkflow()->runIca(request) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);
    IcaResultsPane* pane = w.icaWorkflow()->currentResults();
    QVERIFY(pane);
    QVERIFY(icaStep(w) && !icaStep(w)->flags);  // nothing chosen yet

    // Thresholds...: a lower EOG z-score; Run labels the components again.
    QSignalSpy relabelled(pane, &IcaResultsPane::flagsChanged);
    IcaFlagThresholdsDialog* dialog = pane->flagsBar()->showThresholds();
    QVERIFY(dialog);
    qobject_cast<QDoubleSpinBox*>(dialog->editor("eogZThreshold"))->setValue(2.5);
    qobject_cast<QDoubleSpinBox*>(dialog->editor("muscleThreshold"))->setValue(0.6);
    dialog->accept();
    QTRY_VERIFY_WITH_TIMEOUT(relabelled.count() == 1, 60000);
    QCOMPARE(pane->componentModel()->summary().flags.params.eogZThreshold, 2.5);
    QVERIFY(icaStep(w)->flags);
    QCOMPARE(icaStep(w)->flags->params.eogZThreshold, 2.5);
    QVERIFY(icaStep(w)->flags->reject.empty());

    // Mark flagged (eye only): the rejection joins the record; Undo takes both back.
    pane->flagsBar()->setFilteredLabel(QStringLiteral("eye"));
    QVERIFY(pane->flagsBar()->markFlagged() > 0);
    const std::vector<int> rejected = pane->markedComponents();
    QVERIFY(!rejected.empty());
    QCOMPARE(icaStep(w)->flags->reject, std::vector<IcaFlagLabel>{IcaFlagLabel::Eye});
    w.undoStack()->undo();
    QVERIFY(pane->markedComponents().empty());
    QVERIFY(icaStep(w)->flags && icaStep(w)->flags->reject.empty());
    w.undoStack()->redo();
    QCOMPARE(pane->markedComponents(), rejected);
    QCOMPARE(icaStep(w)->flags->reject, std::vector<IcaFlagLabel>{IcaFlagLabel::Eye});

    // The exported pipeline carries them and reads back equal.
    const QString pipelinePath = dir.filePath(QStringLiteral("session.json"));
    QString error;
    QVERIFY2(w.exportPipeline(pipelinePath, &error), qPrintable(error));
    const Pipeline read = readPipelineFile(pipelinePath.toStdString());
    QVERIFY(read.steps == w.history().steps);
    QFile file(pipelinePath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\"eogZThreshold\": 2.5") && text.contains("\"reject\""),
             text.constData());

    // Applied in the window: the same decomposition, labelled at the same thresholds, with the
    // same components marked.
    QSignalSpy applied(&w, &MainWindow::pipelineApplied);
    QSignalSpy failed(&w, &MainWindow::pipelineFailed);
    QVERIFY2(w.applyPipeline(pipelinePath, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() + failed.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(1).toString()));
    QCOMPARE(shown.count(), 2);
    IcaResultsPane* replayed = w.icaWorkflow()->currentResults();
    QVERIFY(replayed && replayed != pane);
    QCOMPARE(replayed->componentModel()->summary().flags.params.eogZThreshold, 2.5);
    QCOMPARE(replayed->markedComponents(), rejected);

    // Headless on the same recording written to a file: run.json lists the same components.
    const QString input = dir.filePath(QStringLiteral("same.h5"));
    const QString wrote = gui_test::writeSyntheticWithCli(
        input, recordingParams(),
        {QStringLiteral("--heart-rate"), QStringLiteral("72"), QStringLiteral("--exg")});
    QVERIFY2(wrote.isEmpty(), qPrintable(wrote));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString ran = gui_test::runPipelineWithCli(pipelinePath, input, out);
    QVERIFY2(ran.isEmpty(), qPrintable(ran));
    QFile runJson(out + QStringLiteral("/run.json"));
    QVERIFY(runJson.open(QIODevice::ReadOnly));
    const JsonValue summary = parseJson(runJson.readAll().toStdString(), "run.json");
    const JsonValue* steps = summary.find("steps");
    QVERIFY(steps && steps->asArray().size() == 1);
    const JsonValue* headless = steps->asArray()[0].find("rejected_components");
    QVERIFY2(headless, "run.json lists no rejected components");
    std::vector<int> cli;
    for (const JsonValue& k : headless->asArray()) cli.push_back(static_cast<int>(k.asInt64()));
    QCOMPARE(cli, rejected);
    QVERIFY(QFile::exists(out + QStringLiteral("/01-ica_components.tsv")));
    w.setDiscardQuestion([](const QString&, const QStringList&) { return true; });
  }
};

QTEST_MAIN(IcaFlagsHistoryTest)
#include "ica_flags_history_test.moc"
