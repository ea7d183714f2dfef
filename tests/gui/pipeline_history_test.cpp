// A GUI session repeats on the next recording: the filter, the decomposition, the entropy
// matrices and a derivation montage applied as a new recording (Process > Apply montage) run in
// the window are recorded with their full parameters and seed, File > Export
// pipeline writes them, `modescope-cli run` replays the file headless with bit-identical modes on
// the CPU backend, and File > Apply pipeline replays it in the window with the same modes again.
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <cstring>

#include "app/core/pipeline.h"
#include "app/gui/emd_job.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/entropy_results_pane.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/main_window.h"
#include "app/gui/montage_workflow.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/hdf5_emd.h"
#include "engine/io/hdf5_entropy.h"
#include "engine/io/recording_io.h"
#include "session_replay_support.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

using namespace modescope;

namespace {

SynthParams recordingParams() {
  SynthParams p;
  p.channels = 8;
  p.sampleRate = 256.0;
  p.duration = 12.0;
  p.seed = 5;
  return p;
}

// `modescope-cli run PIPELINE --input INPUT -o OUT`; "" when it succeeded, else its output.
QString runHeadless(const QString& pipeline, const QString& input, const QString& out) {
  QProcess run;
  run.setProcessChannelMode(QProcess::MergedChannels);
  run.start(QStringLiteral(MODESCOPE_CLI),
            {QStringLiteral("run"), pipeline, QStringLiteral("--input"), input,
             QStringLiteral("-o"), out, QStringLiteral("--quiet")});
  if (!run.waitForFinished(120000)) return QStringLiteral("modescope-cli run did not finish");
  return run.exitCode() == 0 ? QString() : QString::fromUtf8(run.readAll());
}

// The window at the size the screenshots use, shown; false when it never became visible.
bool showAtWorkingSize(MainWindow& w) {
  w.resize(1400, 900);
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

// Every sample of every channel, bit for bit.
bool sameSamples(const Recording& a, const Recording& b) {
  if (a.channelCount() != b.channelCount()) return false;
  for (std::size_t c = 0; c < a.channelCount(); ++c) {
    if (a.channels[c].label != b.channels[c].label) return false;
    if (a.readChannel(c, 0, a.channels[c].sampleCount) !=
        b.readChannel(c, 0, b.channels[c].sampleCount))
      return false;
  }
  return true;
}

bool sameModes(const EmdResult& a, const EmdResult& b) {
  if (a.channels.size() != b.channels.size() || a.samples != b.samples) return false;
  for (std::size_t c = 0; c < a.channels.size(); ++c) {
    if (a.channels[c].rows != b.channels[c].rows) return false;
    if (a.channels[c].data != b.channels[c].data) return false;  // bit for bit
  }
  return true;
}

}  // namespace

class PipelineHistoryTest : public QObject {
  Q_OBJECT

 private slots:
  void guiSessionExportsAPipelineTheCliAndTheGuiRepeat() {
    if (std::string(MODESCOPE_CLI).empty()) QSKIP("MODESCOPE_CLI is not set by the build");
    QTemporaryDir dir;
    MainWindow w;
    const QString opened = gui_test::showWithSynthetic(w, recordingParams());
    QVERIFY2(opened.isEmpty(), qPrintable(opened));

    // Filter, then ICEEMDAN of two channels of the filtered recording.
    QSignalSpy added(&w, &MainWindow::documentAdded);
    PreprocessRequest filter;
    filter.spec.filters = {parseFilterSpec("bandpass:1-40")};
    for (std::size_t c = 0; c < 8; ++c) filter.channels.push_back(c);
    filter.backend = BackendChoice::Cpu;
    QVERIFY(w.runPreprocess(filter) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(added.count() == 1, 60000);
    QCOMPARE(w.tabs()->currentIndex(), 1);

    QSignalSpy shown(w.emdWorkflow(), &EmdWorkflow::resultsShown);
    DecomposeRequest emd;
    emd.params = emdPreset("iceemdan-colominas");
    emd.params.ensembleSize = 8;
    emd.params.seed = 9;
    emd.params.stop.kind = StopRuleKind::FixedSifts;
    emd.params.noiseStop.kind = StopRuleKind::FixedSifts;
    emd.channels = {1, 4};
    emd.startSeconds = 2.0;
    emd.durationSeconds = 4.0;
    emd.backend = BackendChoice::Cpu;
    emd.presetName = "";
    QVERIFY(w.emdWorkflow()->runDecompose(emd) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);
    const std::shared_ptr<const EmdResult> inGui = w.emdWorkflow()->currentResults()->result();

    // The history holds both steps with every parameter; the exported file reads back equal.
    QCOMPARE(w.history().steps.size(), std::size_t{2});
    const QString pipelinePath = dir.filePath(QStringLiteral("session.json"));
    QString error;
    QVERIFY2(w.exportPipeline(pipelinePath, &error), qPrintable(error));
    const Pipeline read = readPipelineFile(pipelinePath.toStdString());
    QVERIFY(read.steps == w.history().steps);  // the file adds a description
    const auto* step = std::get_if<PipelineEmdStep>(&read.steps[1]);
    QVERIFY(step && step->params.seed == 9 && step->params.ensembleSize == 8);
    const Recording& filtered = *w.currentDocument()->recording;
    QVERIFY(step->selection.channels ==
            (std::vector<std::string>{filtered.channels[1].name, filtered.channels[4].name}));

    // The same recording as a file, and the pipeline replayed headless.
    const QString input = dir.filePath(QStringLiteral("same.h5"));
    const QString wrote = gui_test::writeSyntheticWithCli(input, recordingParams());
    QVERIFY2(wrote.isEmpty(), qPrintable(wrote));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString ran = gui_test::runPipelineWithCli(pipelinePath, input, out);
    QVERIFY2(ran.isEmpty(), qPrintable(ran));
    const EmdFile headless = readEmdFile((out + QStringLiteral("/02-emd.h5")).toStdString());
    QVERIFY2(sameModes(*inGui, headless.modes), "the CLI's modes differ from the GUI's");

    // Applied in the window to the original recording: the same filter tab, the same modes.
    w.tabs()->setCurrentIndex(0);
    QSignalSpy applied(&w, &MainWindow::pipelineApplied);
    QSignalSpy failed(&w, &MainWindow::pipelineFailed);
    QVERIFY2(w.applyPipeline(pipelinePath, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() + failed.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(1).toString()));
    QCOMPARE(shown.count(), 2);
    QVERIFY(sameModes(*inGui, *w.emdWorkflow()->currentResults()->result()));

    // A damaged pipeline is refused with the file, step and field, and nothing runs.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"modescope_pipeline": 1, "steps": [{"step": "emd", "params": {"seed": -3}}]})");
    f.close();
    QVERIFY(!w.applyPipeline(bad, &error));
    QVERIFY2(error.contains(QLatin1String("step 1 (emd)")) && error.contains(QLatin1String("seed")),
             qPrintable(error));
    w.setDiscardQuestion([](const QString&, const QStringList&) { return true; });
  }

  void entropyMatricesAreRecordedAndReplayedBitForBit() {
    if (std::string(MODESCOPE_CLI).empty()) QSKIP("MODESCOPE_CLI is not set by the build");
    QTemporaryDir dir;
    MainWindow w;
    const QString opened = gui_test::showWithSynthetic(w, recordingParams());
    QVERIFY2(opened.isEmpty(), qPrintable(opened));

    QSignalSpy shown(w.entropyWorkflow(), &EntropyWorkflow::resultsShown);
    EntropyRequest request;
    request.spec.channels = {0, 2, 5};
    request.spec.params.measure = EntropyMeasure::SampleEntropy;
    request.spec.params.m = 2;
    request.spec.params.epochSamples = 512;
    request.spec.startSeconds = 1.0;
    request.spec.durationSeconds = 8.0;
    request.backend = BackendChoice::Cpu;
    QVERIFY(w.entropyWorkflow()->runEntropy(request) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    const std::vector<double> inGui =
        w.entropyWorkflow()->currentResults()->job().run->result.average;

    QCOMPARE(w.history().steps.size(), std::size_t{1});
    const auto* step = std::get_if<PipelineEntropyStep>(&w.history().steps[0]);
    QVERIFY(step && step->params.m == 2 && step->params.epochSamples == 512);
    const QString pipelinePath = dir.filePath(QStringLiteral("entropy.json"));
    QString error;
    QVERIFY2(w.exportPipeline(pipelinePath, &error), qPrintable(error));

    const QString input = dir.filePath(QStringLiteral("same.h5"));
    const QString wrote = gui_test::writeSyntheticWithCli(input, recordingParams());
    QVERIFY2(wrote.isEmpty(), qPrintable(wrote));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString ran = gui_test::runPipelineWithCli(pipelinePath, input, out);
    QVERIFY2(ran.isEmpty(), qPrintable(ran));
    const EntropyFile headless =
        readEntropyFile((out + QStringLiteral("/01-xapen.h5")).toStdString());
    QCOMPARE(headless.recordings.size(), std::size_t{1});
    const std::vector<double>& cli = headless.recordings[0].result.average;
    QCOMPARE(cli.size(), std::size_t{9});
    QVERIFY2(std::memcmp(cli.data(), inGui.data(), cli.size() * sizeof(double)) == 0,
             "the CLI's matrix differs from the GUI's");

    // Applied in the window: a second result with the same matrix.
    QSignalSpy applied(&w, &MainWindow::pipelineApplied);
    QVERIFY2(w.applyPipeline(pipelinePath, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() == 1, 60000);
    QCOMPARE(shown.count(), 2);
    const std::vector<double> again =
        w.entropyWorkflow()->currentResults()->job().run->result.average;
    QVERIFY(std::memcmp(again.data(), inGui.data(), inGui.size() * sizeof(double)) == 0);
    w.setDiscardQuestion([](const QString&, const QStringList&) { return true; });
  }

  void montageAppliedIsRecordedAndReplayedBitForBit() {
    if (std::string(MODESCOPE_CLI).empty()) QSKIP("MODESCOPE_CLI is not set by the build");
    MainWindow w;
    QVERIFY(showAtWorkingSize(w));
    QTemporaryDir dir;
    const QString input = QStringLiteral(MODESCOPE_TEST_DATA "/physionet_S001R03_64ch.h5");
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    w.openFile(input);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    // Found from the Process menu.
    QAction* action = w.findChild<QAction*>(QStringLiteral("method_montage"));
    QVERIFY(action);
    QCOMPARE(action->text(), QStringLiteral("Apply &montage as new recording..."));

    // The tab shows the Laplacian; applying it makes a new tab with the same sums.
    auto* flow = w.findChild<MontageWorkflow*>();
    QVERIFY(flow);
    const auto base = w.currentDocument()->recording;
    const DerivationMontage lap = laplacianDerivations(*base);
    w.currentPane()->setDerivations(std::make_shared<const DerivationMontage>(lap));
    const auto shown = w.currentPane()->browser()->recording();
    QSignalSpy applied(flow, &MontageWorkflow::applied);
    const int tabsBefore = w.tabs()->count();
    action->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() == 1, 60000);
    QCOMPARE(w.tabs()->count(), tabsBefore + 1);
    const auto derived = w.currentDocument()->recording;
    QVERIFY(w.currentDocument()->derived);
    QCOMPARE(derived->channelCount(), lap.rows.size());
    QVERIFY(shown && sameSamples(*derived, *shown));  // what the browser drew
    QCOMPARE(w.currentDocument()->provenance.method, std::string("montage"));
    QVERIFY(!w.currentDocument()->provenance.parameters.empty());
    QCOMPARE(w.currentDocument()->provenance.parameters.front().second, lap.name);
    w.grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/montage_applied.png"));

    // Recorded as the built-in, by name.
    QCOMPARE(w.history().steps.size(), std::size_t{1});
    const auto* step = std::get_if<PipelineMontageStep>(&w.history().steps[0]);
    QVERIFY(step);
    QCOMPARE(step->builtin, std::string("laplacian"));
    // Exported and replayed headless: the same samples.
    const QString pipelinePath = dir.filePath(QStringLiteral("montage.json"));
    QString error;
    QVERIFY2(w.exportPipeline(pipelinePath, &error), qPrintable(error));
    const QString out = dir.filePath(QStringLiteral("out"));
    const QString failure = runHeadless(pipelinePath, input, out);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY(sameSamples(*openRecording((out + QStringLiteral("/01-montage.h5")).toStdString()),
                        *derived));
    // An editor's montage is recorded by its derivations.
    DerivationMontage own;
    own.name = "Two pairs";
    own.rows = {{"C3-C4", {{"C3", 1.0}, {"C4", -1.0}}}, {"Fz-Pz", {{"Fz", 0.5}, {"Pz", -0.5}}}};
    w.tabs()->setCurrentIndex(0);
    QVERIFY(flow->apply(own, "") != 0);
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() == 2, 60000);
    QCOMPARE(w.currentDocument()->recording->channelCount(), std::size_t{2});
    QCOMPARE(w.history().steps.size(), std::size_t{2});
    const auto* ownStep = std::get_if<PipelineMontageStep>(&w.history().steps[1]);
    QVERIFY(ownStep && ownStep->builtin.empty() && ownStep->montage == own);

    // Undo closes the last tab; redo opens it again.
    w.undoStack()->undo();
    QCOMPARE(w.tabs()->count(), tabsBefore + 1);
    w.undoStack()->redo();
    QCOMPARE(w.tabs()->count(), tabsBefore + 2);

    // The window's replay of the first step on the original tab: the Laplacian again.
    w.tabs()->setCurrentIndex(0);
    Pipeline first;
    first.steps.push_back(w.history().steps[0]);
    const QString firstPath = dir.filePath(QStringLiteral("first.json"));
    {
      QFile f(firstPath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(writePipelineJson(first)));
    }
    QSignalSpy replayed(&w, &MainWindow::pipelineApplied);
    QVERIFY2(w.applyPipeline(firstPath, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(replayed.count() == 1, 60000);
    QVERIFY(sameSamples(*w.currentDocument()->recording, *derived));
    w.setDiscardQuestion([](const QString&, const QStringList&) { return true; });
  }
};

QTEST_MAIN(PipelineHistoryTest)
#include "pipeline_history_test.moc"
