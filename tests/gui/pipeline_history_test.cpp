// A GUI session repeats on the next recording: the filter, the decomposition and the entropy
// matrices run in the window are recorded with their full parameters and seed, File > Export
// pipeline writes them, `modescope-cli run` replays the file headless with bit-identical modes on
// the CPU backend, and File > Apply pipeline replays it in the window with the same modes again.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>

#include "app/core/pipeline.h"
#include "app/gui/emd_job.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/entropy_results_pane.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/main_window.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/hdf5_emd.h"
#include "engine/io/hdf5_entropy.h"
#include "session_replay_support.h"

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
};

QTEST_MAIN(PipelineHistoryTest)
#include "pipeline_history_test.moc"
