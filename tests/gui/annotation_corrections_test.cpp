// Correcting the file's own annotations in the main window (issue 19, item 1) on the demo
// recording (PhysioNet eegmmidb S001R03: 30 events, 15 T0, 8 T1, 7 T2): a clinician edits a
// technician's event (onset, duration, text) and deletes one; the file is never changed.
//
// Oracles: the event counts read from the demo file itself; what an exported events.tsv, an
// exported EDF+ and a saved session hold, read back by the engine; the original file read again
// after everything. The picture goes next to the test (annot_corrected.png).
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <cmath>

#include "app/gui/annotation_workflow.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/io/annotation_files.h"
#include "engine/io/recording_io.h"
#include "menu_dialog_support.h"
#include "widgets/annotation_model.h"
#include "widgets/event_type_model.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif
#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

std::size_t countText(const std::vector<Annotation>& v, const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [&](const Annotation& a) { return a.text == text; }));
}

}  // namespace

class AnnotationCorrectionsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    window_ = std::make_unique<MainWindow>();
    const QString problem = gui_test::showWithDemo(*window_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    flow_ = window_->annotationWorkflow();
    original_ = window_->fileAnnotations(*window_->currentDocument());
    QCOMPARE(original_.size(), std::size_t{30});
    QCOMPARE(countText(original_, "T1"), std::size_t{8});
  }

  // Select the file's first T2 in the dock, Edit > Edit annotation..., and make it a T1 at a new
  // onset and duration: the dialog says the file is not changed.
  void editAFileAnnotationThroughTheDialog() {
    const int row = proxyRowOf("T2");
    QVERIFY(row >= 0);
    QVERIFY(window_->annotationFilter()->fileIndexAt(row) >= 0);
    const double onset = window_->annotationFilter()->onsetAt(row);
    window_->annotationView()->selectRow(row);
    QString title;
    const QString problem = gui_test::runMenuDialog<QDialog>(
        *window_, QStringLiteral("&Edit annotation..."), [&](QDialog& d) {
          title = d.windowTitle();
          QTest::qWait(50);
          d.grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/annot_correct_dialog.png"));
          d.findChild<QDoubleSpinBox*>(QStringLiteral("annotationOnset"))->setValue(onset + 0.5);
          d.findChild<QDoubleSpinBox*>(QStringLiteral("annotationDuration"))->setValue(1.25);
          d.findChild<QComboBox*>(QStringLiteral("annotationText"))
              ->setCurrentText(QStringLiteral("T1"));
          return QString();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(title.contains(QStringLiteral("not changed")), qPrintable(title));
    auto* action = window_->findChild<QAction*>(QStringLiteral("editAnnotation"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::Key_F2));
    QVERIFY(window_->marks().fileAnnotations.has_value());
    const auto& file = *window_->marks().fileAnnotations;
    QCOMPARE(file.size(), std::size_t{30});
    QCOMPARE(countText(file, "T1"), std::size_t{9});
    QCOMPARE(countText(file, "T2"), std::size_t{6});
    QVERIFY(std::any_of(file.begin(), file.end(), [&](const Annotation& a) {
      return a.text == "T1" && std::abs(a.onset - (onset + 0.5)) < 1e-9 && a.duration == 1.25;
    }));
    QVERIFY(window_->marks().userAnnotations.empty());  // a correction, not an added row
    // The Events dock counts the edited set; the recording that methods read carries it.
    EventTypeModel* types = flow_->eventTypes();
    QCOMPARE(types->count(types->rowOf("T1")), 9);
    QCOMPARE(types->count(types->rowOf("T2")), 6);
    const auto& forMethods = window_->documents().front().recording->annotations;
    QCOMPARE(countText(forMethods, "T1"), std::size_t{9});
  }

  void deleteAFileAnnotationAndUndoBoth() {
    const int row = proxyRowOf("T0");
    QVERIFY(row >= 0);
    window_->annotationView()->selectRow(row);
    flow_->removeSelected();
    QCOMPARE(window_->annotationFilter()->rowCount(), 29);
    QCOMPARE(countText(*window_->marks().fileAnnotations, "T0"), std::size_t{14});
    save("annot_corrected");
    // Two steps of the window's one undo stack.
    window_->undoStack()->undo();
    QCOMPARE(window_->annotationFilter()->rowCount(), 30);
    window_->undoStack()->undo();
    QVERIFY(!window_->marks().fileAnnotations.has_value());  // as read again
    QCOMPARE(flow_->eventTypes()->count(flow_->eventTypes()->rowOf("T1")), 8);
    QCOMPARE(countText(window_->documents().front().recording->annotations, "T1"), std::size_t{8});
    window_->undoStack()->redo();
    window_->undoStack()->redo();
    QCOMPARE(window_->annotationFilter()->rowCount(), 29);
    QCOMPARE(flow_->eventTypes()->count(flow_->eventTypes()->rowOf("T1")), 9);
  }

  void exportsCarryTheCorrectedSet() {
    QString error;
    const QString tsv = tmp_.filePath(QStringLiteral("sub-01_events.tsv"));
    QVERIFY2(flow_->exportFile(tsv, &error), qPrintable(error));
    const std::vector<Annotation> table = readAnnotationFile(tsv.toStdString());
    QCOMPARE(table.size(), std::size_t{29});
    QCOMPARE(countText(table, "T1"), std::size_t{9});
    QCOMPARE(countText(table, "T0"), std::size_t{14});

    const QString edf = tmp_.filePath(QStringLiteral("corrected.edf"));
    const JobId id = window_->exportRecording(edf);
    QTRY_VERIFY_WITH_TIMEOUT(gui_test::jobFinished(*window_, id), 60000);
    QCOMPARE(window_->jobList()->jobState(id), std::optional<JobState>(JobState::Succeeded));
    const auto rec = openRecording(edf.toStdString());
    QCOMPARE(rec->annotations.size(), std::size_t{29});
    QCOMPARE(countText(rec->annotations, "T1"), std::size_t{9});
    QVERIFY(std::any_of(rec->annotations.begin(), rec->annotations.end(),
                        [](const Annotation& a) { return a.text == "T1" && a.duration == 1.25; }));
  }

  void aSessionKeepsTheCorrections() {
    const QString session = tmp_.filePath(QStringLiteral("corrected.h5"));
    QSignalSpy saved(window_.get(), &MainWindow::sessionSaved);
    window_->saveSession(session);
    QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1, 30000);
    const std::vector<Annotation> before = *window_->marks().fileAnnotations;

    MainWindow other;
    other.resize(1200, 800);
    other.show();
    QVERIFY(QTest::qWaitForWindowExposed(&other));
    QSignalSpy loaded(&other, &MainWindow::sessionLoaded);
    other.loadSession(session);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, 60000);
    QVERIFY(other.marks().fileAnnotations.has_value());
    QCOMPARE(other.marks().fileAnnotations->size(), before.size());
    QCOMPARE(other.annotationFilter()->rowCount(), 29);
    EventTypeModel* types = other.annotationWorkflow()->eventTypes();
    QCOMPARE(types->count(types->rowOf("T1")), 9);
    QCOMPARE(countText(other.documents().front().recording->annotations, "T1"), std::size_t{9});
  }

  // Edit > Restore the file's annotations: one undoable step back to the file's as read.
  void restoringTheFileAnnotationsIsOneStep() {
    flow_->restoreFileAnnotations();
    QVERIFY(!window_->marks().fileAnnotations.has_value());
    QCOMPARE(window_->annotationFilter()->rowCount(), 30);
    window_->undoStack()->undo();
    QCOMPARE(window_->annotationFilter()->rowCount(), 29);
  }

  // The file itself was never written: read again, it has its 30 events as before.
  void theFileIsUnchanged() {
    const std::string path = window_->documents().front().recording->sourcePath;
    QVERIFY(!path.empty());
    const auto again = openRecording(path);
    QCOMPARE(again->annotations.size(), original_.size());
    QCOMPARE(countText(again->annotations, "T1"), std::size_t{8});
  }

  void cleanupTestCase() {
    window_->setDiscardQuestion([](const QString&, const QStringList&) { return true; });
    window_.reset();
  }

 private:
  int proxyRowOf(const char* text) const {
    QAbstractItemModel* m = window_->annotationFilter();
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->index(r, AnnotationModel::TextColumn).data().toString() == QLatin1String(text))
        return r;
    return -1;
  }
  void save(const char* name) {
    window_->grab().save(
        QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
  }

  std::unique_ptr<MainWindow> window_;
  AnnotationWorkflow* flow_ = nullptr;
  std::vector<Annotation> original_;
  QTemporaryDir tmp_;
};

QTEST_MAIN(AnnotationCorrectionsTest)
#include "annotation_corrections_test.moc"
