// Annotating, epochs and averages, and channel spectra in the main window (issue 19, items 1 and
// 5) on the demo recording (PhysioNet eegmmidb S001R03: 64 channels at 160 Hz, T0/T1/T2 events).
//
// Oracles: the event counts from the recording's annotations (15 T0, 8 T1, 7 T2); the times a
// Shift + drag marks from cursorTimeAt (the status bar's own mapping); the ERP at Cz recomputed
// here from the raw samples (round(onset fs) events, baseline mean over -0.2..0 s); what an
// exported EDF+ and a saved session hold, read back by the engine. The pictures go next to the
// test (MODESCOPE_TEST_OUTPUT_DIR/annot_*.png, epochs_*.png).
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <fstream>

#include "app/gui/annotation_drag_tool.h"
#include "app/gui/annotation_workflow.h"
#include "app/gui/cursor_time.h"
#include "app/gui/epoch_dialog.h"
#include "app/gui/epoch_results_pane.h"
#include "app/gui/epoch_workflow.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/io/annotation_files.h"
#include "engine/io/recording_io.h"
#include "widgets/annotation_model.h"
#include "widgets/browser_pane.h"
#include "widgets/curve_plot.h"
#include "widgets/event_type_model.h"
#include "widgets/job_list_widget.h"
#include "widgets/scalp_map_view.h"
#include "widgets/signal_browser.h"

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

bool finished(MainWindow& w, JobId id) {
  const auto s = w.jobList()->jobState(id);
  return s && *s != JobState::Queued && *s != JobState::Running;
}

}  // namespace

class AnnotationEpochViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    window_ = std::make_unique<MainWindow>();
    const QString problem = gui_test::showWithDemo(*window_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    flow_ = window_->annotationWorkflow();
    flow_->setTextQuestion([this](const QString&) { return nextText_; });
  }

  void eventTypesListCountsAndColours() {
    EventTypeModel* types = flow_->eventTypes();
    QCOMPARE(types->rowCount(), 3);
    QCOMPARE(QString::fromStdString(types->type(0)), QStringLiteral("T0"));
    QCOMPARE(types->count(types->rowOf("T0")), 15);
    QCOMPARE(types->count(types->rowOf("T1")), 8);
    QCOMPARE(types->count(types->rowOf("T2")), 7);
    const QColor t1 = types->index(types->rowOf("T1"), 0).data(Qt::DecorationRole).value<QColor>();
    const QColor t2 = types->index(types->rowOf("T2"), 0).data(Qt::DecorationRole).value<QColor>();
    QVERIFY(t1.isValid() && t2.isValid() && t1 != t2);
  }

  void shiftDragMarksASpanAndUndoRemovesIt() {
    SignalBrowser* b = window_->currentBrowser();
    QVERIFY(b);
    const int y = b->height() / 2;
    const QPoint from(b->width() / 3, y), to(b->width() / 2, y);
    const auto t0 = cursorTimeAt(*b, from), t1 = cursorTimeAt(*b, to);
    QVERIFY(t0 && t1);
    nextText_ = QStringLiteral("BAD_movement");
    // Annotate mode (key A) makes a plain drag mark a span; Shift+drag marks a bad segment.
    QAction* annotate = window_->annotationWorkflow()->annotateModeAction();
    QVERIFY(annotate && annotate->isCheckable());
    annotate->setChecked(true);
    QTest::mousePress(b, Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(b, to);
    QTest::mouseRelease(b, Qt::LeftButton, Qt::NoModifier, to);
    annotate->setChecked(false);
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{1});
    const Annotation& a = window_->marks().userAnnotations.front();
    QCOMPARE(a.text, std::string("BAD_movement"));
    QVERIFY(std::abs(a.onset - *t0) < 1e-9);
    QVERIFY(std::abs(a.duration - (*t1 - *t0)) < 1e-9);
    // The dock lists it (bold, "yours") among the file's 30, and the types list counts it.
    QCOMPARE(window_->annotationFilter()->rowCount(), 31);
    QCOMPARE(flow_->eventTypes()->count(flow_->eventTypes()->rowOf("BAD_movement")), 1);
    save(window_.get(), "annot_window");
    window_->undoStack()->undo();
    QVERIFY(window_->marks().userAnnotations.empty());
    QCOMPARE(window_->annotationFilter()->rowCount(), 30);
    QCOMPARE(flow_->eventTypes()->rowOf("BAD_movement"), -1);
    window_->undoStack()->redo();
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{1});
  }

  void addAtCursorEditAndDeleteAreUndoable() {
    nextText_ = QStringLiteral("spike");
    flow_->askAdd(12.25, 0.0);
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{2});
    const auto& marks = window_->marks().userAnnotations;
    int spike = marks[0].text == "spike" ? 0 : 1;
    flow_->edit(spike, {13.5, 0.75, "sharp wave"});
    spike = window_->marks().userAnnotations[0].text == "sharp wave" ? 0 : 1;
    QCOMPARE(window_->marks().userAnnotations[static_cast<std::size_t>(spike)].onset, 13.5);
    QCOMPARE(window_->marks().userAnnotations[static_cast<std::size_t>(spike)].duration, 0.75);
    window_->undoStack()->undo();  // the edit
    QVERIFY(std::any_of(window_->marks().userAnnotations.begin(),
                        window_->marks().userAnnotations.end(),
                        [](const Annotation& x) { return x.text == "spike" && x.onset == 12.25; }));
    window_->undoStack()->redo();
    flow_->remove(spike);
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{1});
    window_->undoStack()->undo();
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{2});
    // Deleting a row of the file's is a correction kept in the session, not a change of yours
    // (annotation_corrections_test.cpp); undone here so that the counts below hold.
    QCOMPARE(window_->annotationFilter()->rowCount(), 32);
    window_->annotationView()->selectRow(0);
    QVERIFY(window_->annotationFilter()->fileIndexAt(0) >= 0);
    flow_->removeSelected();
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{2});
    QCOMPARE(window_->annotationFilter()->rowCount(), 31);
    window_->undoStack()->undo();
    QVERIFY(!window_->marks().fileAnnotations.has_value());
    QCOMPARE(window_->annotationFilter()->rowCount(), 32);
  }

  void importExportCsvAndEventsTsv() {
    const QString csv = tmp_.filePath(QStringLiteral("marks.csv"));
    std::ofstream(csv.toStdString())
        << "onset,duration,description\n30,0,\"eyes, closed\"\n40,2,T9\n";
    QString error;
    QVERIFY2(flow_->importFile(csv, &error), qPrintable(error));
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{4});
    window_->undoStack()->undo();  // one step for the whole import
    QCOMPARE(window_->marks().userAnnotations.size(), std::size_t{2});
    window_->undoStack()->redo();
    const QString tsv = tmp_.filePath(QStringLiteral("sub-01_events.tsv"));
    QVERIFY2(flow_->exportFile(tsv, &error), qPrintable(error));
    const std::vector<Annotation> back = readAnnotationFile(tsv.toStdString());
    QCOMPARE(back.size(), std::size_t{34});  // 30 of the file's and 4 of yours
    QVERIFY(std::any_of(back.begin(), back.end(),
                        [](const Annotation& x) { return x.text == "eyes, closed"; }));
    const QString bad = tmp_.filePath(QStringLiteral("bad.csv"));
    std::ofstream(bad.toStdString()) << "onset,duration,description\nsoon,0,x\n";
    QVERIFY(!flow_->importFile(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("line 2")), qPrintable(error));
  }

  void exportedEdfAndSessionKeepYourAnnotations() {
    const QString edf = tmp_.filePath(QStringLiteral("marked.edf"));
    const JobId id = window_->exportRecording(edf);
    QTRY_VERIFY_WITH_TIMEOUT(finished(*window_, id), 60000);
    QCOMPARE(window_->jobList()->jobState(id), std::optional<JobState>(JobState::Succeeded));
    const auto rec = openRecording(edf.toStdString());
    QCOMPARE(rec->annotations.size(), std::size_t{34});
    QVERIFY(std::any_of(rec->annotations.begin(), rec->annotations.end(),
                        [](const Annotation& x) { return x.text == "BAD_movement"; }));
    const QString session = tmp_.filePath(QStringLiteral("s.h5"));
    QSignalSpy saved(window_.get(), &MainWindow::sessionSaved);
    window_->saveSession(session);
    QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1, 30000);
    const std::vector<Annotation> before = window_->marks().userAnnotations;
    QSignalSpy loaded(window_.get(), &MainWindow::sessionLoaded);
    window_->loadSession(session);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, 60000);
    QCOMPARE(window_->marks().userAnnotations.size(), before.size());
    QCOMPARE(window_->annotationFilter()->rowCount(), 34);
    QCOMPARE(flow_->eventTypes()->count(flow_->eventTypes()->rowOf("T9")), 1);
  }

  void epochDialogChecksItsInput() {
    const Document* doc = window_->currentDocument();
    EpochDialog d(doc->recording, window_->marks().userAnnotations, {});
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    save(&d, "epochs_dialog");
    const EpochJobSpec s = d.spec();
    // The bad segment is not offered as a condition but honoured; the others are checked.
    QVERIFY(std::find(s.epochs.eventTypes.begin(), s.epochs.eventTypes.end(), "BAD_movement") ==
            s.epochs.eventTypes.end());
    QVERIFY(std::find(s.epochs.eventTypes.begin(), s.epochs.eventTypes.end(), "T1") !=
            s.epochs.eventTypes.end());
    QCOMPARE(s.epochs.badSegments.size(), std::size_t{1});
    QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
    // The bad-marks dock's segment is counted with what it rejects, before anything runs; the
    // count is the job's own.
    const QString bad = d.badSegmentText();
    QVERIFY2(bad.startsWith(QStringLiteral("1 bad segment(s) (1 marked in the window, 0 in the "
                                           "file)")),
             qPrintable(bad));
    const QRegularExpressionMatch counted =
        QRegularExpression(QStringLiteral("(\\d+) of (\\d+) epochs overlap them")).match(bad);
    QVERIFY2(counted.hasMatch(), qPrintable(bad));
    QSignalSpy shown(window_->epochWorkflow(), &EpochWorkflow::resultsShown);
    QVERIFY(window_->epochWorkflow()->runEpochs(s) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    const EpochSet& ran = shown.at(0).at(0).value<EpochResultsPane*>()->result().file->set;
    QCOMPARE(counted.captured(1).toULongLong(),
             static_cast<qulonglong>(ran.droppedCount(EpochFate::BadSegment)));
    QCOMPARE(counted.captured(2).toULongLong(), static_cast<qulonglong>(ran.log.size()));
    EpochParams keep;
    keep.rejectBadSegments = false;
    d.setParams(keep);
    QVERIFY2(d.badSegmentText().contains(QStringLiteral("kept")), qPrintable(d.badSegmentText()));
    d.setParams(EpochParams{});
    EpochParams p;
    p.tmin = 0.8;  // after tmax 0.5
    d.setParams(p);
    QVERIFY(d.problem().contains(QStringLiteral("tmin")));
    QVERIFY(!d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    d.setParams(EpochParams{});
    d.setDifferences(QStringLiteral("T1-T7"));
    QVERIFY(d.problem().contains(QStringLiteral("T1-T7")));
  }

  void erpButterflyMapsEpochsAndSpectrum() {
    // The recording's own events only (the session's marks out of the way), whole recording.
    window_->setUserAnnotations({});
    EpochJobSpec spec;
    const Recording& rec = *window_->currentDocument()->recording;
    for (std::size_t c = 0; c < rec.channelCount(); ++c)
      if (rec.channels[c].type == ChannelType::EEG) spec.epochs.channels.push_back(c);
    QCOMPARE(spec.epochs.channels.size(), std::size_t{64});
    spec.epochs.eventTypes = {"T1", "T2"};
    spec.epochs.params.tmin = -0.2;
    spec.epochs.params.tmax = 0.6;
    spec.differences = {"T1-T2"};
    QSignalSpy shown(window_->epochWorkflow(), &EpochWorkflow::resultsShown);
    QVERIFY(window_->epochWorkflow()->runEpochs(spec) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    auto* pane = shown.at(0).at(0).value<EpochResultsPane*>();
    QVERIFY(pane);

    // ERP at Cz: two conditions with bands, and the difference.
    pane->channelChoice()->setCurrentText(QStringLiteral("Cz"));
    const auto& curves = pane->erpPlot()->curves();
    QCOMPARE(curves.size(), std::size_t{3});
    QCOMPARE(curves[0].x.size(), std::size_t{129});  // -32 .. 96 samples at 160 Hz
    QVERIFY(std::isfinite(curves[0].bandLow[60]) && curves[0].bandLow[60] < curves[0].y[60]);
    // Oracle: the T1 average at Cz, 0.25 s, from the raw samples.
    const int cz = rec.findChannel("Cz");
    double sum = 0;
    int n = 0;
    for (const Annotation& a : rec.annotations) {
      if (a.text != "T1") continue;
      const auto s = static_cast<int64_t>(std::llround(a.onset * 160.0));
      if (s - 32 < 0 || s + 96 >= rec.channels[cz].sampleCount) continue;
      const std::vector<float> x = rec.readChannel(cz, s - 32, 129);
      double base = 0;
      for (int i = 0; i <= 32; ++i) base += x[i];
      sum += x[32 + 40] - base / 33.0;
      ++n;
    }
    QCOMPARE(n, 8);
    QVERIFY2(std::abs(curves[0].y[32 + 40] - sum / n) < 1e-3,
             qPrintable(QStringLiteral("%1 vs %2").arg(curves[0].y[72]).arg(sum / n)));
    QVERIFY(std::abs(curves[2].y[72] - (curves[0].y[72] - curves[1].y[72])) < 1e-9);
    window_->epochWorkflow()->dock()->raise();
    pane->tabs()->setCurrentIndex(0);
    QTest::qWait(50);
    save(window_.get(), "epochs_window");
    save(pane, "epochs_erp");

    pane->tabs()->setCurrentIndex(1);
    QCOMPARE(pane->butterflyPlot()->curves().size(), std::size_t{65});  // 64 channels + GFP
    QTest::qWait(50);
    save(pane, "epochs_butterfly");

    pane->tabs()->setCurrentIndex(2);
    pane->setMapTime(0.1);
    QCOMPARE(pane->scalpMaps().size(), std::size_t{6});
    QVERIFY2(pane->scalpMaps()[0]->message().isEmpty(),
             qPrintable(pane->scalpMaps()[0]->message()));
    QCOMPARE(pane->scalpMaps()[0]->title(), QStringLiteral("100 ms"));
    // One scale for the series: every map's bar ends at the same value.
    QVERIFY(pane->scalpMaps()[0]->scaleHigh() > 0);
    for (ScalpMapView* m : pane->scalpMaps())
      if (m->message().isEmpty()) QCOMPARE(m->scaleHigh(), pane->scalpMaps()[0]->scaleHigh());
    QTest::qWait(50);
    save(pane, "epochs_topography");

    pane->tabs()->setCurrentIndex(3);
    const auto epochRec = pane->epochBrowser()->browser()->recording();
    QCOMPARE(epochRec->channels[0].sampleCount, int64_t{15 * 129});
    QCOMPARE(pane->eventLog()->rowCount(), 15);
    QTest::qWait(50);
    save(pane, "epochs_browser");

    pane->tabs()->setCurrentIndex(4);
    QVERIFY(pane->spectrumPlot()->logY());
    QCOMPARE(pane->spectrumPlot()->curves().size(), std::size_t{65});
    QTest::qWait(50);
    save(pane, "epochs_spectrum");
  }

  void pageSpectrumIsLogScaled() {
    CurvePlot* plot = window_->epochWorkflow()->showPageSpectrum(false);
    QVERIFY(plot);
    QVERIFY(plot->logY());
    QCOMPARE(plot->curves().size(), std::size_t{65});
    // 10 s page at 160 Hz: 2 s segments (256 samples), bins to 80 Hz.
    QCOMPARE(plot->curves().back().x.size(), std::size_t{129});
    QTest::qWait(50);
    save(plot, "epochs_page_spectrum");
  }

 private:
  std::unique_ptr<MainWindow> window_;
  AnnotationWorkflow* flow_ = nullptr;
  QString nextText_;
  QTemporaryDir tmp_;
};

QTEST_MAIN(AnnotationEpochViewsTest)
#include "annotation_epoch_views_test.moc"
