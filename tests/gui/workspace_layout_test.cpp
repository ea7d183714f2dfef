// The main window as a place to work in: results of several methods open in one tabbed area that
// never grows the window past the screen or squeezes the browser; unsaved derived recordings and
// results are not discarded without a question; the layout is kept across runs.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include "app/core/method_registry.h"
#include "app/gui/ar_dialog.h"
#include "app/gui/ar_workflow.h"
#include "app/gui/decompose_dialog.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/entropy_dialog.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/dsp/preprocess.h"
#include "menu_dialog_support.h"
#include "widgets/signal_browser.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif

class WorkspaceLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("workspace_layout_test"));
    QSettings().clear();
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);  // the demo's BioSig fallback runs the CLI
  }

  void resultsShareOneAreaAndTheWindowKeepsItsSize() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString opened = gui_test::openDemoAndWait(w);
    QVERIFY2(opened.isEmpty(), qPrintable(opened));
    const int browserHeight = w.currentBrowser()->height();

    // EMD of one channel, 4 s.
    QSignalSpy emdShown(w.emdWorkflow(), &EmdWorkflow::resultsShown);
    QString problem = gui_test::runMenuDialog<DecomposeDialog>(
        w, QStringLiteral("&Decompose (EMD family)..."), [](DecomposeDialog& d) {
          EmdParams p = emdPreset("emd-rilling");
          d.setParams(p);
          gui_test::fillRangeAndBackend(d, 0.0, 4.0, BackendChoice::Cpu);
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(emdShown.wait(120000) || emdShown.count() > 0);

    // AR spectra of T1 against T2 with a common average reference.
    QSignalSpy arShown(w.arWorkflow(), &ArWorkflow::resultsShown);
    problem = gui_test::runMenuDialog<ArDialog>(
        w, QStringLiteral("Event-related &spectra (AR)..."), [](ArDialog& d) {
          gui_test::fillRangeAndBackend(d, 0.0, -1.0, BackendChoice::Cpu);
          d.setClasses(QStringLiteral("T1"), QStringLiteral("T2"));
          d.setSpatialFilter(ArSpatialFilterKind::CommonAverage);
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(arShown.wait(120000) || arShown.count() > 0);

    // Entropy matrices of four channels, two epochs.
    QSignalSpy entropyShown(w.entropyWorkflow(), &EntropyWorkflow::resultsShown);
    problem = gui_test::runMenuDialog<EntropyDialog>(
        w, QStringLiteral("&Entropy matrices (Cross-ApEn / SampEn)..."), [](EntropyDialog& d) {
          gui_test::fillRangeAndBackend(d, 0.0, 512 / 160.0, BackendChoice::Cpu);
          d.setChannels({0, 1, 2, 3});
          d.setEpoch(256, EntropyEpochUnit::Samples);
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(entropyShown.wait(120000) || entropyShown.count() > 0);
    QTest::qWait(200);  // let the layout settle

    QImage shot = w.grab().toImage();
    shot.save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/workspace_three_results.png"));
    qInfo("result dock %d px, job dock %d px", w.entropyWorkflow()->dock()->height(),
          w.findChild<QDockWidget*>(QStringLiteral("jobDock"))->height());
    // One area: the three result docks are tabs of one another, the newest in front.
    QDockWidget* emd = w.emdWorkflow()->dock();
    QDockWidget* ar = w.arWorkflow()->dock();
    QDockWidget* entropy = w.entropyWorkflow()->dock();
    const QList<QDockWidget*> tabbed = w.tabifiedDockWidgets(emd);
    QVERIFY2(tabbed.contains(ar) && tabbed.contains(entropy),
             "the result docks should share one tabbed area");
    QVERIFY(entropy->isVisible());

    // The window did not grow (1400 x 1515 before the result area was shared) and fits the
    // screen; the browser keeps most of its height.
    QCOMPARE(w.size(), QSize(1400, 900));
    const QRect room = w.screen()->availableGeometry();
    QVERIFY2(w.frameGeometry().height() <= room.height(),
             qPrintable(QStringLiteral("window %1 px tall on a %2 px screen")
                            .arg(w.frameGeometry().height())
                            .arg(room.height())));
    QVERIFY2(w.currentBrowser()->height() >= browserHeight / 3,
             qPrintable(QStringLiteral("browser %1 px, was %2 px")
                            .arg(w.currentBrowser()->height())
                            .arg(browserHeight)));

    // Quitting would lose three results: the user is asked, and "Cancel" keeps the window.
    QStringList asked;
    bool answer = false;
    w.setDiscardQuestion([&](const QString& action, const QStringList& lost) {
      asked = lost;
      asked.prepend(action);
      return answer;
    });
    QVERIFY(!w.close());
    QVERIFY(w.isVisible());
    QCOMPARE(asked.size(), 4);  // the action and three results
    QCOMPARE(asked.front(), QStringLiteral("Quit"));
    // "Discard" closes it, and the layout is saved for the next run.
    answer = true;
    QVERIFY(w.close());
    QVERIFY(QSettings().contains(QStringLiteral("mainWindow/state")));
  }

  void layoutIsRestoredAndClampedToTheScreen() {
    {
      MainWindow w;
      w.resize(1111, 777);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY(w.close());  // nothing unsaved: no question
    }
    MainWindow again;
    again.restoreLayout();
    QCOMPARE(again.size(), QSize(1111, 777));
    // A layout saved on a taller screen opens within this one.
    {
      MainWindow big;
      big.resize(1200, 5000);
      big.saveLayout();
    }
    MainWindow clamped;
    clamped.restoreLayout();
    const QRect room = QGuiApplication::primaryScreen()->availableGeometry();
    QVERIFY2(clamped.height() <= room.height(), qPrintable(QString::number(clamped.height())));
  }

  // Filtering adds a derived tab as one undoable step of the window's one undo stack; the
  // unexported tab is unsaved work until it is exported.
  void filteringIsUndoable() {
    MainWindow w;
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    SynthParams synth;
    synth.channels = 8;
    synth.duration = 10.0;
    w.newSyntheticRecording(synth);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    QSignalSpy added(&w, &MainWindow::documentAdded);
    PreprocessRequest filter;
    filter.spec.filters = {parseFilterSpec("highpass:1")};
    filter.channels = {0, 1, 2, 3};
    filter.backend = BackendChoice::Cpu;
    QVERIFY(w.runPreprocess(filter) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(added.count() == 1, 60000);
    QCOMPARE(w.documentCount(), 2);
    QCOMPARE(w.unsavedWork().size(), 1);
    QVERIFY(w.undoStack()->canUndo());
    QVERIFY(w.undoStack()->undoText().startsWith(QLatin1String("filter")));
    w.undoStack()->undo();
    QCOMPARE(w.documentCount(), 1);
    QVERIFY(w.unsavedWork().isEmpty());
    w.undoStack()->redo();
    QCOMPARE(w.documentCount(), 2);
    QVERIFY(w.documents()[1].recording != nullptr);
    w.setDiscardQuestion([](const QString&, const QStringList&) { return true; });
  }

  // A real file whose first screen carries a long warning (mne_test.edf: "The data of this file
  // look damaged from record 5 ..."): the window keeps its 1400 x 900 and stays on the screen.
  // The info bar's line used to set the window's minimum width (1762 px on a 1400 px screen).
  void aRealFileWithALongWarningKeepsTheWindowOnTheScreen() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openFile(QStringLiteral(MODESCOPE_TEST_DATA "/mne_test.edf"));
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() + failed.count() > 0, 60000);
    QVERIFY(failed.isEmpty());
    QTest::qWait(200);  // the browser's first page and the info bar's layout
    auto* bar = w.findChild<QWidget*>(QStringLiteral("infoBar"));
    QVERIFY2(bar && bar->isVisible(), "mne_test.edf opens with a warning on the info bar");
    w.grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/layout_mne_test.png"));
    const QRect room = w.screen()->availableGeometry();
    QVERIFY2(w.minimumSizeHint().width() <= 1400,
             qPrintable(QStringLiteral("minimum width %1 px").arg(w.minimumSizeHint().width())));
    QCOMPARE(w.size(), QSize(1400, 900));
    QVERIFY2(w.frameGeometry().width() <= room.width(),
             qPrintable(QStringLiteral("window %1 px wide on a %2 px screen")
                            .arg(w.frameGeometry().width())
                            .arg(room.width())));
    QVERIFY(w.close());
  }

  // The Process and Analysis menus are built from the one method list.
  void everyRegisteredMethodHasAMenuAction() {
    MainWindow w;
    for (const MethodEntry& m : methodRegistry()) {
      if (m.menu.empty()) continue;  // no dialog yet (method_registry.h)
      QAction* a = w.findChild<QAction*>(QStringLiteral("method_") + QString::fromStdString(m.id));
      QVERIFY2(a, m.id.c_str());
      QCOMPARE(a->text(), QString::fromStdString(m.menuText));
    }
  }

  void cleanupTestCase() { QSettings().clear(); }
};

QTEST_MAIN(WorkspaceLayoutTest)
#include "workspace_layout_test.moc"
