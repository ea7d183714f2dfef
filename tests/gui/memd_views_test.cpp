// The MEMD views and workflow (issue 17, item 4), end to end on a real CPU run: six EEG
// channels that are each a sum of three tones (40, 10 and 2 Hz, with per-channel amplitudes and
// phases), decomposed through Analysis > Multivariate EMD with memd.m's fix_h rule, 16
// directions and 3 IMFs. What is checked follows from the construction: IMF k carries tone k on
// every channel (MEMD's mode alignment), the grid has channels x (IMFs + residue) cells, the
// cleaned recording equals the sum of the kept rows, and the history replays to the same modes.
// Screenshots of every view go to MODESCOPE_TEST_OUTPUT_DIR/memd_*.png for looking at.
#include <H5Cpp.h>

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "app/gui/emd_results_pane.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/main_window.h"
#include "app/gui/memd_dialog.h"
#include "app/gui/memd_results_pane.h"
#include "app/gui/memd_workflow.h"
#include "engine/core/job_context.h"
#include "engine/io/hdf5_memd.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_util.h"
#include "engine/io/recording_io.h"
#include "engine/montage/channel_names.h"
#include "tests/gui/menu_dialog_support.h"
#include "widgets/browser_pane.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/job_list_widget.h"
#include "widgets/mode_grid_view.h"
#include "widgets/scalp_map_grid.h"
#include "widgets/signal_browser.h"

using namespace modescope;

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

constexpr double kRate = 250.0;
constexpr int64_t kSamples = 1000;  // 4 s
constexpr double kToneHz[] = {40.0, 10.0, 2.0};
const char* const kNames[] = {"Fz", "Cz", "Pz", "Oz", "C3", "C4"};
constexpr int kChannels = 6;
constexpr int kImfs = 3;

double sample(int c, int64_t n) {
  const double t = static_cast<double>(n) / kRate;
  double x = 0;
  for (int k = 0; k < 3; ++k) {
    const double amplitude = (k == 0 ? 10.0 : k == 1 ? 20.0 : 30.0) * (1.0 + 0.15 * c);
    x += amplitude * std::sin(2 * std::numbers::pi * kToneHz[k] * t + 0.7 * c * (k + 1));
  }
  return x;
}

// The six tone channels as an HDF5 file with their 10-05 positions (the scalp maps need them).
void writeToneRecording(const QString& path) {
  Recording rec;
  std::vector<std::vector<float>> data(kChannels);
  for (int c = 0; c < kChannels; ++c) {
    ChannelInfo info;
    info.label = info.name = kNames[c];
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = kRate;
    info.sampleCount = kSamples;
    info.physicalMin = -200;
    info.physicalMax = 200;
    info.position = standardPosition(kNames[c]);
    rec.channels.push_back(info);
    for (int64_t n = 0; n < kSamples; ++n) data[c].push_back(static_cast<float>(sample(c, n)));
  }
  rec.source = std::make_shared<InMemorySource>(std::move(data));
  Provenance prov;
  prov.method = "test";
  JobContext ctx;
  writeRecording(rec, QFile::encodeName(path).toStdString(), OutputFormat::Hdf5, prov, ctx);
}

MemdParams quickParams() {
  MemdParams p = memdPreset("rehman-mandic-fix-h");  // memd.m 'fix_h' 2
  p.maxSifts = 20;
  p.sNumber = 4;
  p.directions = 16;
  p.maxImfs = kImfs;
  return p;
}

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

bool waitForJob(MainWindow& w, JobId id) {
  (void)QTest::qWaitFor(
      [&] {
        const auto s = w.jobList()->jobState(id);
        return s == JobState::Succeeded || s == JobState::Failed || s == JobState::Cancelled;
      },
      60000);
  return w.jobList()->jobState(id) == std::optional<JobState>(JobState::Succeeded);
}

}  // namespace

class MemdViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // The dialog: generated from memdParamTable(), memd.m's preset first, NA-MEMD fields only
  // with noise channels, the engine's own selection check, and the memory plan refusing a run
  // that cannot fit on the device.
  void dialogComesFromTheDeclarations() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("tones.h5"));
    writeToneRecording(path);
    const auto rec = openRecording(QFile::encodeName(path).toStdString());
    MemdDialog d(rec, {}, 0.0, -1.0, 0);
    QCOMPARE(d.currentPresetName(), QStringLiteral("rehman-mandic"));
    QVERIFY(d.validationMessage().isEmpty());
    QCOMPARE(d.request().channels.size(), std::size_t(kChannels));
    // One editor per declaration, named from its key.
    for (const auto& f : memdParamTable().fields())
      QVERIFY2(d.findChild<QWidget*>(paramObjectName(f.decl, QStringLiteral("memd"))),
               f.decl.key.c_str());
    auto* noise = d.findChild<QSpinBox*>(QStringLiteral("memdNoiseChannels"));
    auto* level = d.findChild<QWidget*>(QStringLiteral("memdNoiseLevel"));
    QVERIFY(noise && level);
    QVERIFY(!level->isEnabled());
    noise->setValue(4);
    QVERIFY(level->isEnabled());
    QVERIFY(d.applyPreset(QStringLiteral("na-memd")));
    QCOMPARE(d.params().noiseChannels, 4);
    QVERIFY(d.applyPreset(QStringLiteral("rehman-mandic")));
    // The CPU plan says what the result takes.
    QVERIFY2(d.memoryPlanText().startsWith(QStringLiteral("CPU")), qPrintable(d.memoryPlanText()));
    // sd above sd2: the engine's cross check, word for word, and Run refused.
    auto* sd = d.findChild<QDoubleSpinBox*>(QStringLiteral("memdSd"));
    QVERIFY(sd);
    sd->setValue(0.9);
    QVERIFY2(d.validationMessage().contains(QStringLiteral("sd2")),
             qPrintable(d.validationMessage()));
    sd->setValue(0.075);
    QVERIFY(d.validationMessage().isEmpty());

    // On a GPU of 80 GB the plan fits; on one of 1 MiB it is refused before the run, with the
    // planner's own numbers.
    MemdDialog big(rec, {}, 0.0, -1.0, std::size_t(80) << 30);
    QVERIFY2(big.memoryPlanText().startsWith(QStringLiteral("GPU memory")),
             qPrintable(big.memoryPlanText()));
    QVERIFY(big.validationMessage().isEmpty());
    MemdDialog tiny(rec, {}, 0.0, -1.0, std::size_t(64) << 10);
    QVERIFY2(tiny.validationMessage().startsWith(QStringLiteral("Will not fit")),
             qPrintable(tiny.validationMessage()));
    QVERIFY(tiny.validationMessage().contains(QStringLiteral("samples fit")));
    tiny.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tiny));
    save(&tiny, "memd_dialog_refused");
    // The refusal does not apply to a CPU run.
    fillRangeAndBackendOnly(tiny, BackendChoice::Cpu);
    QVERIFY2(tiny.validationMessage().isEmpty(), qPrintable(tiny.validationMessage()));
  }

  void memdFromTheMenuToCleanedExportAndReplay() {
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("tones.h5"));
    writeToneRecording(input);
    MainWindow w;
    w.resize(1500, 980);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    w.openFile(input);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    const auto rec = w.currentDocument()->recording;
    MemdWorkflow* memd = w.memdWorkflow();
    QVERIFY(memd && !memd->dock()->isVisible());

    // A run cancelled from the job list leaves no result and no history step.
    QSignalSpy shown(memd, &MemdWorkflow::resultsShown);
    MemdRequest slow;
    slow.params = MemdParams{};  // memd.m's stop rule, up to 1000 sifts per IMF
    for (std::size_t c = 0; c < kChannels; ++c) slow.channels.push_back(c);
    slow.backend = BackendChoice::Cpu;
    const JobId cancelled = memd->runMemd(slow);
    QVERIFY(cancelled != 0);
    w.engine()->cancel(cancelled);
    QTRY_COMPARE_WITH_TIMEOUT(w.jobList()->jobState(cancelled),
                              std::optional<JobState>(JobState::Cancelled), 30000);
    QTest::qWait(50);
    QCOMPARE(shown.count(), 0);
    QVERIFY(w.history().steps.empty());

    // Analysis > Multivariate EMD: the dialog, filled, runs the job in the background.
    const QString problem = gui_test::runMenuDialog<MemdDialog>(
        w, QStringLiteral("&Multivariate EMD (MEMD, NA-MEMD)..."), [](MemdDialog& d) {
          d.setParams(quickParams());
          gui_test::fillRangeAndBackend(d, 0.0, -1.0, BackendChoice::Cpu);
          save(&d, "memd_dialog");
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    MemdResultsPane* pane = memd->currentResults();
    QVERIFY(pane && memd->dock()->isVisible());
    // The window did not grow past the screen's room for it.
    QVERIFY(w.height() <= 1000);

    // The grid: channels x (IMFs + residue) cells.
    ModeGridView* grid = pane->grid();
    QCOMPARE(grid->rowCount(), kChannels);
    QCOMPARE(grid->columnCount(), kImfs + 1);
    QCOMPARE(pane->modes()->channels.front().rows, kImfs + 1);
    QTest::qWait(300);
    save(&w, "memd_main_window");

    // Alignment: IMF k is tone k on every channel (mean instantaneous frequency within 15 %).
    const MemdAlignment& a = pane->alignment();
    QCOMPARE(a.channels, kChannels);
    QCOMPARE(a.imfs, kImfs);
    for (int k = 0; k < kImfs; ++k) {
      for (int c = 0; c < kChannels; ++c) {
        const double f = a.frequency(c, k);
        QVERIFY2(std::fabs(f - kToneHz[k]) < 0.05 * kToneHz[k],
                 qPrintable(QStringLiteral("IMF %1 on %2: %3 Hz, expected %4 Hz")
                                .arg(k + 1)
                                .arg(QLatin1String(kNames[c]))
                                .arg(f)
                                .arg(kToneHz[k])));
      }
      QVERIFY(a.imfSpreadHz[k] < 0.02 * kToneHz[k]);
    }
    QTableWidget* table = pane->alignmentTable();
    QCOMPARE(table->rowCount(), kChannels + 2);
    QCOMPARE(table->columnCount(), kImfs);
    QCOMPARE(table->item(2, 1)->text(), QString::number(a.frequency(2, 1), 'f', 2));
    pane->views()->setCurrentIndex(MemdResultsPane::kAlignmentView);
    save(pane, "memd_alignment");

    // A click on IMF 2 of Pz opens IMF 2 of every channel in the browser view.
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->cellRect(2, 1).center());
    QCOMPARE(pane->openedMode(), 1);
    QCOMPARE(pane->views()->currentIndex(), int(MemdResultsPane::kImfView));
    const auto imf2 = pane->modeBrowser()->recording();
    QCOMPARE(imf2->channelCount(), std::size_t(kChannels));
    QCOMPARE(QString::fromStdString(imf2->channels[3].name), QStringLiteral("Oz"));
    const EmdChannelModes& oz = pane->modes()->channels[3];
    const std::vector<float> shownOz = imf2->readChannel(3, 0, kSamples);
    for (int64_t n = 0; n < kSamples; n += 17) QCOMPARE(shownOz[n], oz.row(1, kSamples)[n]);
    // It follows the recording's browser page (time link on).
    w.currentBrowser()->setPageLength(2.0);
    w.currentBrowser()->setPageStart(1.0);
    QCOMPARE(pane->modeBrowser()->browser()->pageStart(), 1.0);
    QCOMPARE(pane->modeBrowser()->browser()->pageLength(), 2.0);
    QTest::qWait(200);
    save(pane, "memd_imf_across_channels");

    // Scalp maps of energy and mean frequency, one per IMF.
    QCOMPARE(pane->energyMaps()->count(), kImfs);
    QCOMPARE(pane->frequencyMaps()->count(), kImfs);
    pane->views()->setCurrentIndex(MemdResultsPane::kScalpView);
    QTest::qWait(100);
    save(pane, "memd_scalp_maps");

    // Hilbert spectra: the sum across channels first, then each channel.
    QCOMPARE(pane->spectrumChannel()->count(), kChannels + 1);
    const SpectrumGrid summed = pane->spectrum()->grid();
    QVERIFY(summed.valid());
    double cellSum = 0;
    const std::size_t probe = summed.values.size() / 3;
    for (const HhtChannel& h : pane->hht()->channels) cellSum += h.spectrum[probe];
    QVERIFY(std::fabs(summed.values[probe] - cellSum) <= 1e-4 * (1 + std::fabs(cellSum)));
    pane->views()->setCurrentIndex(MemdResultsPane::kSpectrumView);
    QTest::qWait(100);
    save(pane, "memd_summed_spectrum");
    pane->spectrumChannel()->setCurrentIndex(2);
    QCOMPARE(pane->spectrum()->grid().values, spectrumGridFromHht(*pane->hht(), 1, "uV").values);

    // Cleaning: IMF 1 (40 Hz) on every channel (Ctrl+click its header), and the residue on Cz
    // only (Ctrl+click the cell); the preview overlays the kept rows on the original.
    QTest::mouseClick(grid, Qt::LeftButton, Qt::ControlModifier, grid->cellRect(-1, 0).center());
    QTest::mouseClick(grid, Qt::LeftButton, Qt::ControlModifier, grid->cellRect(1, kImfs).center());
    const DroppedRows dropped = pane->droppedRows();
    QCOMPARE(dropped.size(), std::size_t(kChannels));
    for (int c = 0; c < kChannels; ++c) {
      const std::vector<int> expected = c == 1 ? std::vector<int>{0, kImfs} : std::vector<int>{0};
      std::vector<int> rows = dropped.at(std::size_t(c));
      std::sort(rows.begin(), rows.end());
      QVERIFY(rows == expected);
      QVERIFY(grid->isDropped(c, 0));
    }
    QVERIFY(grid->isDropped(1, kImfs) && !grid->isDropped(0, kImfs));
    pane->views()->setCurrentIndex(MemdResultsPane::kGridView);
    QTest::qWait(50);
    save(pane, "memd_grid_dropped");
    pane->channelsPane()->setPreviewEnabled(true);
    pane->views()->setCurrentIndex(MemdResultsPane::kChannelsView);
    QTest::qWait(100);
    save(pane, "memd_channels_preview");

    // Apply: a derived recording whose decomposed channels are the sum of the kept rows.
    QSignalSpy cleaned(memd, &MemdWorkflow::cleanedRecordingOpened);
    QTest::mouseClick(pane->applyButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(cleaned.count() == 1, 30000);
    QVERIFY(w.currentDocument()->derived);
    const auto clean = w.currentDocument()->recording;
    for (int c = 0; c < kChannels; ++c) {
      const EmdChannelModes& m = pane->modes()->channels[c];
      const std::vector<float> x = clean->readChannel(std::size_t(c), 0, kSamples);
      for (int64_t n = 0; n < kSamples; n += 7) {
        double kept = 0;
        for (int r = 1; r < m.rows; ++r)
          if (!(c == 1 && r == kImfs)) kept += m.row(r, kSamples)[n];
        QVERIFY2(
            std::fabs(x[n] - kept) < 1e-3,
            qPrintable(QStringLiteral("%1 at %2: %3 vs %4").arg(c).arg(n).arg(x[n]).arg(kept)));
      }
    }

    // Exported to HDF5 with the provenance of the cleaning and of the MEMD run.
    const QString h5 = dir.filePath(QStringLiteral("cleaned.h5"));
    QVERIFY(waitForJob(w, w.exportRecording(h5)));
    {
      h5::Lock lock(h5::hdf5Mutex());
      H5::H5File file(QFile::encodeName(h5).toStdString(), H5F_ACC_RDONLY);
      const Provenance written =
          h5::readProvenance(h5::Reader(h5.toStdString()), file.openGroup("/"));
      QCOMPARE(written.method, std::string("emd-cleaning"));
      std::map<std::string, std::string> params(written.parameters.begin(),
                                                written.parameters.end());
      QCOMPARE(params["decomposition"], std::string("memd"));
      QVERIFY2(params["dropped"].find("Cz: IMF 1, residue") != std::string::npos,
               params["dropped"].c_str());
      QCOMPARE(params["stop"].substr(0, 5), std::string("fix_h"));
      QCOMPARE(params["directions"].substr(0, 2), std::string("16"));
    }
    const auto reread = openRecording(QFile::encodeName(h5).toStdString());
    QCOMPARE(reread->readChannel(4, 0, kSamples), clean->readChannel(4, 0, kSamples));
    // BDF+ too (24-bit samples: equal to a quantisation step of the cleaned range).
    const QString bdf = dir.filePath(QStringLiteral("cleaned.bdf"));
    QVERIFY(waitForJob(w, w.exportRecording(bdf)));
    const auto rereadBdf = openRecording(QFile::encodeName(bdf).toStdString());
    QCOMPARE(rereadBdf->channelCount(), std::size_t(kChannels));
    const std::vector<float> c4 = rereadBdf->readChannel(5, 0, kSamples);
    const std::vector<float> c4Clean = clean->readChannel(5, 0, kSamples);
    for (int64_t n = 0; n < kSamples; n += 11) QVERIFY(std::fabs(c4[n] - c4Clean[n]) < 0.01);

    // Figures: every view as PNG (and the grid as SVG and PDF).
    for (const char* which :
         {"grid", "imf", "energy", "frequency", "spectrum", "marginal", "alignment"}) {
      const QString out =
          QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/memd_figure_%1.png").arg(QLatin1String(which));
      QString error;
      QVERIFY2(pane->exportFigure(QLatin1String(which), out, &error), qPrintable(error));
      QVERIFY(QFileInfo(out).size() > 1000);
    }
    for (const char* ext : {"svg", "pdf"}) {
      const QString out = dir.filePath(QStringLiteral("grid.") + QLatin1String(ext));
      QVERIFY(pane->exportFigure(QStringLiteral("grid"), out));
      QVERIFY(QFileInfo(out).size() > 500);
    }
    QString error;
    QVERIFY(!pane->exportFigure(QStringLiteral("nonsense"), dir.filePath("x.png"), &error));
    QVERIFY(error.contains(QStringLiteral("alignment")));

    // History: the run is a memd step with the dialog's parameters ...
    QCOMPARE(w.history().steps.size(), std::size_t(1));
    const auto* step = std::get_if<PipelineMemdStep>(&w.history().steps[0]);
    QVERIFY(step);
    QVERIFY(step->params.stop == MemdStopKind::FixH && step->params.directions == 16 &&
            step->params.maxImfs == kImfs && step->params.maxSifts == 20);
    QCOMPARE(step->selection.channels->size(), std::size_t(kChannels));
    const QString pipeline = dir.filePath(QStringLiteral("memd.json"));
    QVERIFY2(w.exportPipeline(pipeline, &error), qPrintable(error));
    QVERIFY(readPipelineFile(pipeline.toStdString()).steps == w.history().steps);

    // ... that `modescope-cli run` replays headless ...
    QProcess run;
    run.setProcessChannelMode(QProcess::MergedChannels);
    run.start(
        QStringLiteral(MODESCOPE_CLI),
        {QStringLiteral("run"), pipeline, QStringLiteral("--input"), input, QStringLiteral("-o"),
         dir.filePath(QStringLiteral("out")), QStringLiteral("--quiet")});
    QVERIFY(run.waitForFinished(60000));
    QVERIFY2(run.exitCode() == 0, run.readAll().constData());
    QVERIFY(isMemdFile(dir.filePath(QStringLiteral("out/01-memd.h5")).toStdString()));

    // ... and File > Apply pipeline replays in the window to the same modes (CPU: bit for bit).
    w.tabs()->setCurrentIndex(0);
    QSignalSpy applied(&w, &MainWindow::pipelineApplied);
    QSignalSpy failed(&w, &MainWindow::pipelineFailed);
    QVERIFY2(w.applyPipeline(pipeline, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(applied.count() + failed.count() == 1, 60000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(1).toString()));
    QCOMPARE(shown.count(), 2);
    QCOMPARE(memd->resultTabs()->count(), 2);
    const auto replayed = memd->currentResults()->modes();
    QCOMPARE(replayed->channels.size(), pane->modes()->channels.size());
    for (std::size_t c = 0; c < replayed->channels.size(); ++c)
      QVERIFY(replayed->channels[c].data == pane->modes()->channels[c].data);

    // NA-MEMD: two noise channels decomposed with the data and dropped from the views.
    MemdRequest noisy;
    noisy.params = quickParams();
    noisy.params.noiseChannels = 2;
    noisy.channels = {0, 1, 2};
    noisy.backend = BackendChoice::Cpu;
    w.tabs()->setCurrentIndex(0);
    QVERIFY(memd->runMemd(noisy) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 3, 60000);
    MemdResultsPane* na = memd->currentResults();
    QVERIFY(memd->resultTabs()->tabText(memd->resultTabs()->currentIndex()).startsWith("NA-MEMD"));
    QCOMPARE(na->grid()->rowCount(), 3);
    QCOMPARE(na->result()->dims, 5);
    QCOMPARE(na->alignment().channels, 3);
  }

  void cleanupTestCase() { QSettings().clear(); }

 private:
  static void fillRangeAndBackendOnly(QWidget& dialog, BackendChoice backend) {
    auto* combo = dialog.findChild<QComboBox*>(QStringLiteral("backend"));
    combo->setCurrentIndex(combo->findData(static_cast<int>(backend)));
  }
};

QTEST_MAIN(MemdViewsTest)
#include "memd_views_test.moc"
