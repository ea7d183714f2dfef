// The event-related AR spectra workflow (issue 5, items 3 and 5) on the demo recording (PhysioNet
// eegmmidb S001R03: 64 channels at 160 Hz, T0/T1/T2 events): the Analysis menu's dialog run on T1
// vs T2 with a common average reference, the results pane (r^2 map, scalp map at the chosen bin,
// the two classes' spectra at the chosen channel), figure export, and bad input (a window shorter
// than the order, a Laplacian over channels without positions) shown as messages.
//
// Oracles: the bin centres follow from the bci2000 preset's definition (0..30 Hz every 3 Hz); the
// trial counts from the recording's annotations; the map's rows from the recording's channel
// names; the spectra's standard-error bands are recomputed here from the per-trial features
// (sample standard deviation / sqrt(n)). The pictures go next to the test
// (MODESCOPE_TEST_OUTPUT_DIR/ar_*.png); docs/images/ar_r2_map.png is written only when
// MODESCOPE_DOCS_AR_SCREENSHOT names a folder.
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "app/gui/ar_dialog.h"
#include "app/gui/ar_results_pane.h"
#include "app/gui/ar_workflow.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/error_presenter.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "tests/gui/menu_dialog_support.h"
#include "widgets/info_bar.h"
#include "widgets/matrix_heat_map.h"
#include "widgets/scalp_map_view.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif
#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

std::size_t annotationCount(const Recording& rec, const std::string& text) {
  std::size_t n = 0;
  for (const Annotation& a : rec.annotations) n += a.text == text ? 1 : 0;
  return n;
}

void closeErrorBoxes() {
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w->objectName() == QLatin1String(kErrorBoxName)) w->close();
}

}  // namespace

class ArViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // The demo's EDF needs the BioSig fallback, which runs modescope-cli in a child process.
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    window_ = std::make_unique<MainWindow>();
    const QString problem = gui_test::showWithDemo(*window_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void dialogDefaults() {
    const Document* doc = window_->currentDocument();
    QVERIFY(doc);
    ArDialog d(doc->recording, {});
    const ArRequest r = d.request();
    QCOMPARE(QString::fromStdString(r.spec.classA), QStringLiteral("T1"));
    QCOMPARE(QString::fromStdString(r.spec.classB), QStringLiteral("T2"));
    QCOMPARE(d.currentPresetName(), QStringLiteral("bci2000"));
    QCOMPARE(r.spec.params.order, 16);
    QCOMPARE(r.spec.lengthSeconds, 0.0);  // each annotation's duration
    QCOMPARE(r.spec.channels.size(), std::size_t{64});
    QVERIFY2(d.validationMessage().isEmpty(), qPrintable(d.validationMessage()));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    save(&d, "ar_dialog");
    // T0 is offered too.
    auto* a = d.findChild<QComboBox*>(QStringLiteral("arClassA"));
    QVERIFY(a->findData(QStringLiteral("T0")) >= 0);
    // Editing a field makes the preset custom; choosing the other preset fills its order.
    d.findChild<QSpinBox*>(QStringLiteral("arOrder"))->setValue(12);
    QCOMPARE(d.currentPresetName(), QString());
    QVERIFY(d.applyPreset(QStringLiteral("wilson2009")));
    QCOMPARE(d.params().order, 30);
    QCOMPARE(d.currentPresetName(), QStringLiteral("wilson2009"));
  }

  void runFromMenuWithCar() {
    QSignalSpy shown(window_->arWorkflow(), &ArWorkflow::resultsShown);
    const QString problem = gui_test::runMenuDialog<ArDialog>(
        *window_, QStringLiteral("Event-related &spectra (AR)..."), [](ArDialog& d) {
          gui_test::fillRangeAndBackend(d, 0.0, -1.0, BackendChoice::Cpu);
          d.setClasses(QStringLiteral("T1"), QStringLiteral("T2"));
          d.setSpatialFilter(ArSpatialFilterKind::CommonAverage);
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(shown.wait(120000) || shown.count() > 0);
    ArResultsPane* pane = window_->arWorkflow()->currentResults();
    QVERIFY(pane);
    QVERIFY(window_->arWorkflow()->dock()->isVisible());
    const EventR2Result& r = pane->result();
    const Recording& rec = *window_->currentDocument()->recording;

    // 64 rows named as the recording's channels (CAR keeps the names), 11 bins 0..30 Hz.
    MatrixHeatMap* map = pane->heatMap();
    QCOMPARE(map->rowCount(), 64);
    QCOMPARE(map->columnCount(), 11);
    for (int b = 0; b < 11; ++b) QCOMPARE(r.binCenters[static_cast<std::size_t>(b)], 3.0 * b);
    for (std::size_t c = 0; c < 64; ++c) QCOMPARE(r.rowNames[c], rec.channels[r.channels[c]].name);
    // Every usable trial: those not used are explained in the diagnostics.
    QVERIFY(r.trialsA >= 2 && r.trialsA <= annotationCount(rec, "T1"));
    QVERIFY(r.trialsB >= 2 && r.trialsB <= annotationCount(rec, "T2"));
    if (r.trialsA + r.trialsB < annotationCount(rec, "T1") + annotationCount(rec, "T2"))
      QVERIFY(pane->diagnosticsList()->count() > 0);
    QVERIFY(pane->summaryLabel()->text().contains(QLatin1String("common average")));
    QVERIFY(pane->summaryLabel()->text().contains(QLatin1String("bci2000")));
    // The map shows r^2 in [0, 1] on a scale from 0.
    QCOMPARE(map->scaleLow(), 0.0);
    for (int row = 0; row < 64; ++row)
      for (int b = 0; b < 11; ++b) {
        const double v = map->value(row, b);
        QVERIFY(v >= 0.0 && v <= 1.0);
        QCOMPARE(v, r.r2[r.index(static_cast<std::size_t>(row), static_cast<std::size_t>(b))]);
      }

    // Click a cell: the scalp map and the spectra follow.
    const int row = 8;  // C3 on the demo (Fc5 Fc3 Fc1 Fcz Fc2 Fc4 Fc6 C5 C3 ...)
    QCOMPARE(r.rowNames[8], std::string("C3"));
    const int bin = 4;  // 12 Hz, in the mu band
    QSignalSpy cell(pane, &ArResultsPane::currentCellChanged);
    pane->heatMap()->setFocus();
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, bin).center().toPoint());
    QCOMPARE(pane->currentRow(), row);
    QCOMPARE(pane->currentBin(), bin);
    QVERIFY(cell.count() >= 1);
    QVERIFY(pane->scalpMap()->title().contains(QLatin1String("12 Hz")));
    QVERIFY2(pane->scalpMap()->message().isEmpty(), qPrintable(pane->scalpMap()->message()));
    QVERIFY(pane->scalpMap()->unmappedChannels().isEmpty());  // every demo channel has a position
    const QString rowName = QString::fromStdString(r.rowNames[static_cast<std::size_t>(row)]);
    QVERIFY(pane->spectraView()->chart()->title().contains(rowName));
    QCOMPARE(pane->classASeries()->count(), 11);
    QCOMPARE(pane->classBSeries()->count(), 11);
    for (int k = 0; k < 11; ++k) {
      const std::size_t i = r.index(static_cast<std::size_t>(row), static_cast<std::size_t>(k));
      QCOMPARE(pane->classASeries()->at(k).x(), r.binCenters[static_cast<std::size_t>(k)]);
      QCOMPARE(pane->classASeries()->at(k).y(), r.meanA[i]);
      QCOMPARE(pane->classBSeries()->at(k).y(), r.meanB[i]);
      // The band is mean +- SE with SE = sample SD / sqrt(n), recomputed from the trials. The
      // tolerance covers the summation order only (relative 1e-9 of the values).
      const ClassFeatures& fa = r.featuresA;
      const std::size_t n = fa.trials.size();
      double m = 0, ss = 0;
      for (std::size_t t = 0; t < n; ++t) m += fa.at(t, static_cast<std::size_t>(row), k);
      m /= static_cast<double>(n);
      for (std::size_t t = 0; t < n; ++t) {
        const double d = fa.at(t, static_cast<std::size_t>(row), k) - m;
        ss += d * d;
      }
      const double se = std::sqrt(ss / (n - 1.0) / n);
      QVERIFY(std::abs(m - r.meanA[i]) <= 1e-9 * std::abs(m) + 1e-12);
      QVERIFY(std::abs(pane->classABand()->upperSeries()->at(k).y() - (r.meanA[i] + se)) <=
              1e-9 * (std::abs(r.meanA[i]) + se) + 1e-12);
    }
    QCOMPARE(pane->binMarker()->at(0).x(), 12.0);
    // The arrow keys move the chosen cell.
    QTest::keyClick(map, Qt::Key_Right);
    QCOMPARE(pane->currentBin(), bin + 1);
    QVERIFY(pane->scalpMap()->title().contains(QLatin1String("15 Hz")));
    QCOMPARE(pane->binMarker()->at(0).x(), 15.0);

    // Signed r^2: a diverging symmetric scale on both maps.
    pane->setSigned(true);
    QCOMPARE(map->colourMode(), MatrixHeatMap::ColourMode::Diverging);
    QCOMPARE(map->scaleLow(), -map->scaleHigh());
    QCOMPARE(pane->scalpMap()->scaleLow(), -pane->scalpMap()->scaleHigh());
    save(pane, "ar_pane_signed");
    pane->setSigned(false);
    pane->setCurrentCell(row, bin);

    // Figures.
    QTemporaryDir tmp;
    for (const char* which : {"map", "scalp", "spectra", "all"}) {
      for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = tmp.filePath(QStringLiteral("%1.%2").arg(which, ext));
        QString error;
        QVERIFY2(pane->exportFigure(QLatin1String(which), path, &error), qPrintable(error));
        QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
      }
    }
    QString error;
    QVERIFY(!pane->exportFigure(QStringLiteral("nothing"), tmp.filePath("x.png"), &error));
    // An export right after a change shows the new cell (Qt Charts lays out lazily): the same
    // pixels as an export after the event loop has run.
    pane->setCurrentCell(row + 1, bin + 2);
    QVERIFY(pane->exportFigure(QStringLiteral("spectra"), tmp.filePath("now.png")));
    QTest::qWait(300);
    QVERIFY(pane->exportFigure(QStringLiteral("spectra"), tmp.filePath("later.png")));
    QCOMPARE(QImage(tmp.filePath("now.png")), QImage(tmp.filePath("later.png")));
    pane->setCurrentCell(row, bin);
    pane->exportFigure(QStringLiteral("all"),
                       QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/ar_all.png"));

    // Power spectra start on a log axis; the linear one is a click away.
    QVERIFY(pane->isLogScale());
    pane->setLogScale(false);
    QVERIFY(!pane->isLogScale());
    QCOMPARE(pane->classASeries()->at(2).y(), r.meanA[r.index(8, 2)]);
    save(pane, "ar_pane_linear");
    pane->setLogScale(true);

    window_->infoBar()->hide();  // the demo's reader warning: not what this picture is about
    QTest::qWait(200);
    save(pane, "ar_pane");
    save(window_.get(), "ar_window");
    const QByteArray docs = qgetenv("MODESCOPE_DOCS_AR_SCREENSHOT");
    if (!docs.isEmpty()) {
      // The dock floated at a size where every view has room (the docked pane shares the
      // window's height with the signal browser).
      QDockWidget* dock = window_->arWorkflow()->dock();
      dock->setFloating(true);
      dock->resize(1440, 780);
      QTest::qWait(400);
      QVERIFY(dock->grab().save(QString::fromLocal8Bit(docs) + QStringLiteral("/ar_r2_map.png")));
      dock->setFloating(false);
    }
  }

  void badInputShowsMessages() {
    const Document* doc = window_->currentDocument();
    QVERIFY(doc);
    // A window shorter than the order allows, in the dialog: refused with the engine's message.
    const QString message = gui_test::runMenuDialog<ArDialog>(
        *window_, QStringLiteral("Event-related &spectra (AR)..."), [](ArDialog& d) {
          d.findChild<QSpinBox*>(QStringLiteral("arOrder"))->setValue(40);
          d.findChild<QDoubleSpinBox*>(QStringLiteral("arWindow"))->setValue(0.1);  // 16 samples
          return d.validationMessage();
        });
    QVERIFY2(message.contains(QLatin1String("window")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("41")), qPrintable(message));  // order + 1 samples

    // A small Laplacian over channels without positions: the dialog names them.
    auto bare = std::make_shared<Recording>(*doc->recording);
    for (ChannelInfo& c : bare->channels) c.position.reset();
    {
      ArDialog d(bare, {});
      d.setSpatialFilter(ArSpatialFilterKind::SmallLaplacian);
      QVERIFY2(d.validationMessage().contains(QLatin1String("position")),
               qPrintable(d.validationMessage()));
      QVERIFY(d.validationMessage().contains(QLatin1String("Fc5")) ||
              d.validationMessage().contains(QLatin1String("FC5")));
      d.setSpatialFilter(ArSpatialFilterKind::CommonAverage);  // CAR needs no positions
      QVERIFY2(d.validationMessage().isEmpty(), qPrintable(d.validationMessage()));
    }

    // The same bad window past the dialog: the job fails, the message is shown, no new tab.
    const int tabs = window_->arWorkflow()->resultTabs()->count();
    QSignalSpy failed(window_->arWorkflow(), &ArWorkflow::runFailed);
    ArRequest request;
    request.spec.channels = {0, 1, 2, 3};
    request.spec.params = burgArPreset("wilson2009");
    request.spec.params.window = {20.0, ArLengthUnit::Samples};  // order 30 needs 31
    request.backend = BackendChoice::Cpu;
    QVERIFY(window_->arWorkflow()->runAr(request) != 0);
    QVERIFY(failed.wait(30000) || failed.count() > 0);
    const QString text = failed.at(0).at(0).toString();
    QVERIFY2(text.contains(QLatin1String("window")) && text.contains(QLatin1String("31")),
             qPrintable(text));
    QTRY_VERIFY(!QApplication::topLevelWidgets().isEmpty());
    bool boxShown = false;
    for (QWidget* w : QApplication::topLevelWidgets())
      boxShown |= w->objectName() == QLatin1String(kErrorBoxName) && w->isVisible();
    QVERIFY(boxShown);
    closeErrorBoxes();
    QCOMPARE(window_->arWorkflow()->resultTabs()->count(), tabs);
  }

  // The job's range and checks (app/core/ar_job.h), run directly on the CPU backend: trials
  // within [start, start + duration) are the annotations whose whole segment lies there,
  // counted here from the annotation list.
  void jobRangeAndChecks() {
    const std::shared_ptr<const Recording> rec = window_->currentDocument()->recording;
    ArJobSpec spec;
    for (std::size_t c = 0; c < 64; ++c) spec.channels.push_back(c);
    spec.params = burgArPreset("bci2000");
    spec.startSeconds = 20.0;
    spec.durationSeconds = 60.0;
    std::size_t inA = 0, inB = 0;
    for (const Annotation& a : rec->annotations) {
      const bool inside = a.onset >= 20.0 && a.onset + a.duration <= 80.0;
      inA += inside && a.text == "T1";
      inB += inside && a.text == "T2";
    }
    const EventFeatureOptions o = arEventOptions(*rec, spec, nullptr);
    QCOMPARE(o.gaps.size(), std::size_t{2});
    QCOMPARE(o.gaps[0].startSeconds, 0.0);
    QCOMPARE(o.gaps[0].durationSeconds, 20.0);
    QCOMPARE(o.gaps[1].startSeconds, 80.0);
    std::unique_ptr<ComputeBackend> cpu = makeCpuBackend(1);
    JobContext ctx;
    const ArJobResult job = runArJob(*rec, spec, *cpu, ctx);
    QCOMPARE(job.result->trialsA, inA);
    QCOMPARE(job.result->trialsB, inB);
    QCOMPARE(QString::fromStdString(job.filterDescription), QStringLiteral("none"));

    auto message = [&](const ArJobSpec& s) -> QString {
      try {
        checkArJob(*rec, s);
      } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
      }
      return {};
    };
    ArJobSpec same = spec;
    same.classB = "T1";
    QVERIFY(message(same).contains(QLatin1String("two different classes")));
    ArJobSpec missing = spec;
    missing.classA = "T7";
    QVERIFY(message(missing).contains(QLatin1String("'T7'")));
    ArJobSpec shortTrials = spec;
    shortTrials.lengthSeconds = 0.25;  // the 0.5 s window does not fit
    QVERIFY2(message(shortTrials).contains(QLatin1String("trial length")),
             qPrintable(message(shortTrials)));
    ArJobSpec noFile = spec;
    noFile.filter = ArSpatialFilterKind::UserMatrix;
    QVERIFY(message(noFile).contains(QLatin1String("spatial filter file")));
    noFile.filterPath = "/nonexistent/matrix.txt";
    QVERIFY(message(noFile).contains(QLatin1String("/nonexistent/matrix.txt")));
  }

  // Cancel from the job list: the job stops, no tab opens and no error is shown.
  void cancelLeavesNothing() {
    const int tabs = window_->arWorkflow()->resultTabs()->count();
    QSignalSpy finished(window_->engine(), &EngineBridge::jobFinished);
    QSignalSpy failed(window_->arWorkflow(), &ArWorkflow::runFailed);
    ArRequest request;
    for (std::size_t c = 0; c < 64; ++c) request.spec.channels.push_back(c);
    request.spec.params = burgArPreset("wilson2009");  // order 30: the slower preset
    request.backend = BackendChoice::Cpu;
    const JobId id = window_->arWorkflow()->runAr(request);
    QVERIFY(id != 0);
    window_->engine()->cancel(id);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 30000);
    const auto outcome = finished.at(0).at(1).value<JobOutcome>();
    QCOMPARE(outcome.state, JobState::Cancelled);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(window_->arWorkflow()->resultTabs()->count(), tabs);
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(ArViewsTest)
#include "ar_views_test.moc"
