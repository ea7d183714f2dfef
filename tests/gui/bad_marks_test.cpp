// Bad channels and segments in the window (app/gui/bad_marks_workflow.h) on the demo recording
// (PhysioNet eegmmidb S001R03, 64 EEG channels at 160 Hz): Shift + click on a label marks a
// channel, Shift + drag a segment, both undoable, listed in the dock and given to the recording
// that methods read; the suggestions dialog shows the thresholds; Process > Interpolate bad
// channels opens a new tab whose marked channel is replaced and good again, and joins the
// history. Screenshots go to the build folder (bad_marks_*.png). One window is shared by the
// test functions, which run in the order written.
#include "engine/core/bad_marks.h"

#include <QColor>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "app/gui/bad_channel_suggestions_dialog.h"
#include "app/gui/bad_marking_input.h"
#include "app/gui/bad_marks_workflow.h"
#include "app/gui/help_browser.h"
#include "app/gui/interpolation_dialog.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/io/recording_io.h"
#include "widgets/channel_table_model.h"
#include "widgets/param_editor.h"
#include "widgets/signal_browser.h"
#include "widgets/trace_renderer.h"

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif

using namespace modescope;

namespace {

// The centre of the label of the browser's visible row `row`.
QPoint labelCentre(const SignalBrowser& b, int row) {
  const auto layout = browser::BrowserLayout::compute(QRectF(b.rect()), b.visibleChannelCount(),
                                                      QFontMetricsF(b.font()));
  return QPointF(layout.labels.center().x(), layout.rowCentre(row)).toPoint();
}

// The point on the traces at `fraction` of the page, on row `row`.
QPoint tracePoint(const SignalBrowser& b, double fraction, int row) {
  const auto layout = browser::BrowserLayout::compute(QRectF(b.rect()), b.visibleChannelCount(),
                                                      QFontMetricsF(b.font()));
  return QPointF(layout.traces.left() + fraction * layout.traces.width(), layout.rowCentre(row))
      .toPoint();
}

void save(QWidget* w, const char* name) {
  QTest::qWait(150);
  const QString path = QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/") + QLatin1String(name);
  QVERIFY2(w->grab().save(path), qPrintable(path));
}

}  // namespace

class BadMarksTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("bad_marks_test"));
    QSettings().clear();
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);  // the demo's BioSig fallback runs the CLI
    qRegisterMetaType<BadChannelSuggestionsDialog*>();
    w_ = std::make_unique<MainWindow>();
    const QString opened = gui_test::showWithDemo(*w_);
    QVERIFY2(opened.isEmpty(), qPrintable(opened));
    w_->badMarksWorkflow()->dock()->raise();
    w_->currentBrowser()->setVisibleChannelCount(16);
  }

  void shiftClickOnALabelMarksTheChannelUndoably() {
    SignalBrowser* b = w_->currentBrowser();
    const std::string name = b->recording()->channels[2].name;
    QTest::mouseClick(b, Qt::LeftButton, Qt::ShiftModifier, labelCentre(*b, 2));
    QCOMPARE(w_->marks().badChannels, std::vector<std::string>{name});
    QCOMPARE(w_->badMarksWorkflow()->channelList()->count(), 1);
    // The recording methods read carries the flag; the plain click still only selects.
    QVERIFY(w_->documents().front().recording->channels[2].bad);
    // The Channels dock greys it too.
    const QModelIndex cell = w_->channelModel()->index(2, 1);
    QCOMPARE(w_->channelModel()->data(cell, Qt::ForegroundRole).value<QColor>(), QColor(Qt::gray));
    QTest::mouseClick(b, Qt::LeftButton, Qt::NoModifier, labelCentre(*b, 4));
    QCOMPARE(w_->marks().badChannels.size(), std::size_t{1});
    w_->undoStack()->undo();
    QVERIFY(w_->marks().badChannels.empty());
    QVERIFY(!w_->documents().front().recording->channels[2].bad);
    w_->undoStack()->redo();
    QCOMPARE(w_->marks().badChannels, std::vector<std::string>{name});
  }

  void shiftDragMarksABadSegment() {
    SignalBrowser* b = w_->currentBrowser();
    b->setPageStart(0.0);
    const double page = b->pageLength();
    QTest::mousePress(b, Qt::LeftButton, Qt::ShiftModifier, tracePoint(*b, 0.2, 5));
    QTest::mouseMove(b, tracePoint(*b, 0.3, 5));
    QTest::mouseRelease(b, Qt::LeftButton, Qt::ShiftModifier, tracePoint(*b, 0.4, 5));
    const auto segments = badSegments(w_->marks().userAnnotations);
    QCOMPARE(segments.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(segments[0].text), QStringLiteral("BAD_segment"));
    // One pixel is page / width seconds; allow two.
    const double pixel = page / b->width();
    QVERIFY2(std::abs(segments[0].onset - 0.2 * page) < 2 * pixel + 0.02 * page,
             qPrintable(QString::number(segments[0].onset)));
    QVERIFY(std::abs(segments[0].duration - 0.2 * page) < 0.02 * page);
    QCOMPARE(badSegments(w_->documents().front().recording->annotations).size(), std::size_t{1});
    QCOMPARE(w_->badMarksWorkflow()->segmentList()->count(), 1);
    // The overlay draws it hatched over the traces.
    auto* overlay = b->findChild<BadSegmentOverlay*>();
    QVERIFY(overlay);
    QVERIFY(overlay->spanOnPage(segments[0].onset, segments[0].onset + segments[0].duration));
    save(w_.get(), "bad_marks_window.png");
  }

  void suggestionsShowThresholdsAndMarkTheTicked() {
    QSignalSpy shown(w_->badMarksWorkflow(), &BadMarksWorkflow::suggestionsShown);
    QVERIFY(w_->badMarksWorkflow()->suggest() != 0);
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 60000));
    auto* dialog = w_->findChild<BadChannelSuggestionsDialog*>();
    QVERIFY(dialog);
    // The marked channel is not measured (left out as bad); the 63 others are.
    QCOMPARE(dialog->table()->rowCount(), 63);
    const QString thresholds =
        dialog->findChild<QLabel*>(QStringLiteral("suggestionThresholds"))->text();
    QVERIFY2(thresholds.contains(QStringLiteral("|robust z of the robust SD| > 5")),
             qPrintable(thresholds));
    QVERIFY(thresholds.contains(QStringLiteral("98th-percentile |r| < 0.4")));
    QVERIFY(thresholds.contains(QStringLiteral("Suggested")));
    // The suggested channels come first, ticked, with why.
    QVERIFY(!dialog->table()->item(0, 5)->text().isEmpty());  // T8 on this recording
    QCOMPARE(dialog->table()->item(0, 0)->checkState(), Qt::Checked);
    save(dialog, "bad_marks_suggestions.png");
    // Tick one more channel by hand and accept: it joins the marks, the first one stays.
    const std::vector<std::string> before = w_->marks().badChannels;
    QTableWidgetItem* item = dialog->table()->item(10, 0);
    item->setCheckState(Qt::Checked);
    const std::string ticked = item->text().toStdString();
    dialog->accept();
    QVERIFY(std::find(w_->marks().badChannels.begin(), w_->marks().badChannels.end(), ticked) !=
            w_->marks().badChannels.end());
    QVERIFY(std::find(w_->marks().badChannels.begin(), w_->marks().badChannels.end(),
                      before.front()) != w_->marks().badChannels.end());
  }

  void interpolationOpensANewTabWithTheChannelsReplaced() {
    QSignalSpy done(w_->badMarksWorkflow(), &BadMarksWorkflow::interpolated);
    const auto before = w_->documents().front().recording;
    const std::vector<std::size_t> bad = badChannelIndices(*before);
    QVERIFY(!bad.empty());
    const std::size_t historyBefore = w_->history().steps.size();
    QVERIFY(w_->badMarksWorkflow()->interpolate() != 0);
    QVERIFY(QTest::qWaitFor([&] { return done.count() > 0; }, 60000));
    QCOMPARE(w_->documentCount(), 2);
    const auto after = w_->documents()[1].recording;
    QVERIFY(badChannelIndices(*after).empty());  // interpolated channels are good again
    const auto original = before->readChannel(bad[0], 0, 800);
    const auto fixed = after->readChannel(bad[0], 0, 800);
    QVERIFY(original != fixed);
    // A good channel is copied as it was.
    const std::size_t good = bad[0] == 0 ? 1 : 0;
    QCOMPARE(after->readChannel(good, 0, 800), before->readChannel(good, 0, 800));
    QCOMPARE(w_->history().steps.size(), historyBefore + 1);
    QCOMPARE(QString::fromLatin1(stepKind(w_->history().steps.back())),
             QStringLiteral("interpolate"));
    save(w_.get(), "bad_marks_interpolated.png");
    w_->undoStack()->undo();  // closes the tab
    QCOMPARE(w_->documentCount(), 1);
  }

  void interpolationDialogTakesTheSplineParameters() {
    // Found from the Process menu, with "..." because it asks first.
    QAction* action = w_->findChild<QAction*>(QStringLiteral("method_interpolate"));
    QVERIFY(action && action->text().endsWith(QStringLiteral("...")));
    QSignalSpy done(w_->badMarksWorkflow(), &BadMarksWorkflow::interpolated);
    // A direct connection: the signal's pointer type needs no meta-type registration then.
    InterpolationDialog* dialog = nullptr;
    const auto asked = connect(w_->badMarksWorkflow(), &BadMarksWorkflow::interpolationAsked,
                               [&dialog](InterpolationDialog* d) { dialog = d; });
    action->trigger();
    disconnect(asked);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QCOMPARE(helpTopicFor(dialog).heading, QStringLiteral("Interpolation"));
    // One editor per declaration, with MNE's defaults.
    for (const auto& f : splineInterpolationParamTable().fields())
      QVERIFY2(dialog->findChild<QWidget*>(paramObjectName(f.decl, QStringLiteral("spline"))),
               f.decl.key.c_str());
    QCOMPARE(dialog->params().terms, 50);
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    save(dialog, "bad_marks_interpolation_dialog.png");
    // EEGLAB's settings; the step records them.
    // EEGLAB's 7 terms without regularisation leave 62 electrodes' system singular (EEGLAB
    // takes a pseudo-inverse): the plan's own message shows before anything runs, Interpolate
    // is disabled.
    SplineInterpolationParams eeglab;
    eeglab.terms = 7;
    eeglab.lambda = 0.0;
    dialog->setParams(eeglab);
    QVERIFY2(dialog->problem().contains(QStringLiteral("raise lambda")),
             qPrintable(dialog->problem()));
    QVERIFY(!dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    save(dialog, "bad_marks_interpolation_refused.png");
    // 7 terms with MNE's lambda: accepted, and the step records what was chosen.
    eeglab.lambda = 1e-5;
    dialog->setParams(eeglab);
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    dialog->accept();
    QVERIFY(QTest::qWaitFor([&] { return done.count() > 0; }, 60000));
    const auto* step = std::get_if<PipelineInterpolateStep>(&w_->history().steps.back());
    QVERIFY(step);
    QCOMPARE(step->params.terms, 7);
    QCOMPARE(step->params.lambda, 1e-5);
    w_->undoStack()->undo();
    QCOMPARE(w_->documentCount(), 1);
  }

  void interpolationWithoutMarksIsRefusedWithAHint() {
    w_->badMarksWorkflow()->setBadChannels({});
    QSignalSpy refused(w_->badMarksWorkflow(), &BadMarksWorkflow::interpolationRefused);
    QCOMPARE(w_->badMarksWorkflow()->interpolate(), JobId{0});
    QCOMPARE(refused.count(), 1);
    QVERIFY(refused.at(0).at(0).toString().contains(QStringLiteral("Shift+click")));
  }

  void sessionAndExportsKeepTheMarks() {
    w_->setDiscardQuestion([](const QString&, const QStringList&) { return true; });
    BadMarksWorkflow* bm = w_->badMarksWorkflow();
    bm->toggleBadChannel(QStringLiteral("C3"));
    bm->markBadSegment(10.0, 1.5);
    QTemporaryDir tmp;
    // EDF+: the bad segment as an annotation, the bad channel in the BIDS sidecar.
    const QString edf = tmp.filePath(QStringLiteral("marked_eeg.edf"));
    const QString sidecar = tmp.filePath(QStringLiteral("marked_channels.tsv"));
    w_->exportRecording(edf);
    QVERIFY(QTest::qWaitFor([&] { return QFile::exists(edf) && QFile::exists(sidecar); }, 30000));
    QFile table(sidecar);
    QVERIFY(table.open(QIODevice::ReadOnly));
    QVERIFY(table.readAll().contains("C3\tEEG\tuV\t160\tn/a\tn/a\tbad"));
    OpenOptions open;
    open.helperExecutable = MODESCOPE_CLI;
    const auto back = openRecording(QFile::encodeName(edf).toStdString(), open);
    QCOMPARE(badChannelIndices(*back).size(), std::size_t{1});
    // The segment of shiftDragMarksABadSegment and this one.
    const std::size_t segments = badSegments(w_->marks().userAnnotations).size();
    QCOMPARE(segments, std::size_t{2});
    QCOMPARE(badSegments(back->annotations).size(), segments);
    // The session keeps both and gives them back to the recording methods read.
    const QString session = tmp.filePath(QStringLiteral("marks.h5"));
    QSignalSpy saved(w_.get(), &MainWindow::sessionSaved);
    w_->saveSession(session);
    QVERIFY(QTest::qWaitFor([&] { return saved.count() == 1; }, 30000));
    bm->setBadChannels({});
    QSignalSpy loaded(w_.get(), &MainWindow::sessionLoaded);
    w_->loadSession(session);
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() == 1; }, 60000));
    QCOMPARE(w_->marks().badChannels, std::vector<std::string>{"C3"});
    const auto rec = w_->documents().front().recording;
    QVERIFY(rec->channels[static_cast<std::size_t>(rec->findChannel("C3"))].bad);
    QCOMPARE(badSegments(rec->annotations).size(), segments);
    QCOMPARE(bm->segmentList()->count(), static_cast<int>(segments));
  }

  void cleanupTestCase() {
    w_->setDiscardQuestion([](const QString&, const QStringList&) { return true; });
    w_.reset();
    QSettings().clear();
  }

 private:
  std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(BadMarksTest)
#include "bad_marks_test.moc"
