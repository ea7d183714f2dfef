// The main window end to end, on the embedded demo recording (PhysioNet eegmmidb S001R03: 64 EEG
// channels at 160 Hz, 125 s, 30 annotations T0/T1/T2 - PhysioNet's description of the dataset
// and the file's own annotation channel). One window is shared by the test functions, which run
// in the order written.
#include "app/gui/main_window.h"

#include <QAbstractItemView>
#include <QActionGroup>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <map>

#include "app/core/gpu_backend.h"
#include "app/gui/about_dialog.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/error_presenter.h"
#include "app/gui/recent_files.h"
#include "demo_window_support.h"
#include "resources/embedded_resources.h"
#include "widgets/annotation_model.h"
#include "widgets/browser_pane.h"
#include "widgets/browser_toolbar.h"
#include "widgets/channel_table_model.h"
#include "widgets/info_bar.h"
#include "widgets/job_list_widget.h"
#include "widgets/recording_info_widget.h"
#include "widgets/signal_browser.h"

using namespace modescope;

namespace {

// Where the build put a program of this project: the path CMake passed in, else the usual
// place relative to this test (build/tests/gui -> build/app).
QString builtProgram(const char* fromCMake, const char* name) {
  if (fromCMake && *fromCMake) return QString::fromLocal8Bit(fromCMake);
  return QDir(QCoreApplication::applicationDirPath())
      .absoluteFilePath(QStringLiteral("../../app/") + QLatin1String(name));
}

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif
#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."  // ctest runs the test in its build folder
#endif

constexpr int kDemoChannels = 64;
constexpr int kDemoAnnotations = 30;
// Opening the demo runs the BioSig fallback in a child process (EDFlib refuses the file): allow
// for a slow shared machine.
constexpr int kOpenTimeoutMs = 60000;

int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) colours.insert(image.pixel(x, y));
  }
  return colours.size();
}

// Fraction of pixels that differ from the most common colour (the background).
double foregroundFraction(const QImage& image) {
  std::map<QRgb, int> counts;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) ++counts[image.pixel(x, y)];
  }
  int most = 0;
  for (const auto& [c, n] : counts) most = std::max(most, n);
  const double total = double(image.width()) * image.height();
  return total > 0 ? (total - most) / total : 0.0;
}

std::vector<int> selectedRows(QTableView* view) {
  std::vector<int> rows;
  for (const QModelIndex& i : view->selectionModel()->selectedRows()) rows.push_back(i.row());
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> w_;
  QTemporaryDir tmp_;

  QMessageBox* visibleErrorBox() const {
    for (QMessageBox* box : w_->findChildren<QMessageBox*>(QLatin1String(kErrorBoxName))) {
      if (box->isVisible()) return box;
    }
    return nullptr;
  }

  SignalBrowser* browser() const { return w_->currentBrowser(); }

  void openDemoAndWait() {
    const QString error = gui_test::openDemoAndWait(*w_, kOpenTimeoutMs);
    QVERIFY2(error.isEmpty(), qPrintable(error));
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("main_window_test"));
    RecentFiles::clear();
    // The BioSig fallback's helper (recording_io.h looks at $MODESCOPE_CLI); the demo needs it.
    qputenv("MODESCOPE_CLI", QFile::encodeName(builtProgram(MODESCOPE_CLI, "modescope-cli")));
    QVERIFY(tmp_.isValid());
    w_ = std::make_unique<MainWindow>();
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QSignalSpy drawn(w_.get(), &MainWindow::pageDrawn);
    openDemoAndWait();
    QTRY_VERIFY_WITH_TIMEOUT(drawn.count() >= 1, 10000);
  }

  void cleanupTestCase() { w_.reset(); }

  void cleanup() {
    while (QMessageBox* box = visibleErrorBox()) box->close();
  }

  void demoShowsChannelsAnnotationsAndInfo() {
    QCOMPARE(w_->documentCount(), 1);
    QCOMPARE(w_->channelModel()->rowCount(), kDemoChannels);
    for (int r = 0; r < kDemoChannels; ++r) {
      QCOMPARE(w_->channelModel()
                   ->index(r, ChannelTableModel::VisibleColumn)
                   .data(Qt::CheckStateRole)
                   .toInt(),
               int(Qt::Checked));
    }
    QCOMPARE(w_->annotationView()->model()->rowCount(), kDemoAnnotations);
    QCOMPARE(int(browser()->recording()->channelCount()), kDemoChannels);
    QVERIFY(!w_->recordingInfo()->fieldText(QStringLiteral("Format")).isEmpty());
    QVERIFY(!w_->recordingInfo()->fieldText(QStringLiteral("Reader")).isEmpty());
    QVERIFY(w_->recordingInfo()
                ->fieldText(QStringLiteral("Channels"))
                .startsWith(QStringLiteral("64 ")));
    QVERIFY(w_->recordingInfo()
                ->fieldText(QStringLiteral("Sample rates"))
                .contains(QStringLiteral("160 Hz")));
    // EDFlib refuses this file; whatever read it instead must have said so. The demo is
    // ModeScope's own file, so the bar above the traces stays hidden (a calm first screen) and
    // the Recording panel keeps the full text.
    const auto& diagnostics = browser()->recording()->diagnostics;
    QVERIFY(!diagnostics.empty());
    QVERIFY(!w_->infoBar()->isVisible());
    QVERIFY(w_->recordingInfo()
                ->fieldText(QStringLiteral("Diagnostics"))
                .contains(QString::fromStdString(diagnostics.front().message)));
  }

  void statusBarNamesBackendAndFile() {
    QCOMPARE(w_->backendLabel()->text(), w_->engine()->backendDescription());
    QVERIFY(!w_->backendLabel()->text().isEmpty());
    QVERIFY(w_->fileLabel()->text().endsWith(QStringLiteral("physionet_eegmmidb_S001R03.edf")));
  }

  void cursorTimeFollowsTheMouse() {
    SignalBrowser* b = browser();
    b->setPageStart(0.0);
    const QPoint middle(b->width() * 3 / 4, b->height() / 2);
    QTest::mouseMove(b, middle);
    QTRY_VERIFY(w_->cursorLabel()->text().startsWith(QStringLiteral("Cursor:")));
  }

  void scrollingMovesThePage() {
    SignalBrowser* b = browser();
    BrowserPane* pane = w_->currentPane();
    b->setPageStart(0.0);
    QCOMPARE(b->pageStart(), 0.0);
    // The time scroll bar: one page step forward moves the page by its length.
    pane->timeScrollBar()->triggerAction(QAbstractSlider::SliderPageStepAdd);
    QCOMPARE(b->pageStart(), b->pageLength());
    // And the other way: the browser moves, the bar follows.
    b->nextPage();
    QCOMPARE(pane->timeScrollBar()->value(), qRound(b->pageStart() * BrowserPane::kTicksPerSecond));
    QCOMPARE(b->pageStart(), 2 * b->pageLength());
    b->setPageStart(0.0);
  }

  void channelTableAndBrowserShareTheSelection() {
    SignalBrowser* b = browser();
    QTableView* view = w_->channelView();
    QItemSelection selection;
    for (int row : {2, 5}) {
      selection.select(w_->channelModel()->index(row, 0), w_->channelModel()->index(row, 1));
    }
    view->selectionModel()->select(selection,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(b->selectedChannels(), (std::vector<int>{2, 5}));
    b->setSelectedChannels({7});
    QCOMPARE(selectedRows(view), (std::vector<int>{7}));
    b->setSelectedChannels({});
  }

  void untickingAChannelHidesIt() {
    ChannelTableModel* model = w_->channelModel();
    const QModelIndex box = model->index(3, ChannelTableModel::VisibleColumn);
    const std::string fifth = browser()->recording()->channels[4].name;
    QVERIFY(model->setData(box, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(int(browser()->recording()->channelCount()), kDemoChannels - 1);
    QCOMPARE(browser()->recording()->channels[3].name, fifth);
    QVERIFY(model->setData(box, Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(int(browser()->recording()->channelCount()), kDemoChannels);
  }

  void annotationFilterNarrowsTheList() {
    const auto& annotations = w_->currentDocument()->recording->annotations;
    int withT1 = 0;
    for (const auto& a : annotations) {
      if (QString::fromStdString(a.text).contains(QStringLiteral("t1"), Qt::CaseInsensitive))
        ++withT1;
    }
    QVERIFY(withT1 > 0 && withT1 < kDemoAnnotations);
    QTest::keyClicks(w_->annotationFilterEdit(), QStringLiteral("t1"));
    QCOMPARE(w_->annotationView()->model()->rowCount(), withT1);
    w_->annotationFilterEdit()->clear();
    QCOMPARE(w_->annotationView()->model()->rowCount(), kDemoAnnotations);
  }

  void annotationDoubleClickJumps() {
    SignalBrowser* b = browser();
    b->setPageStart(0.0);
    QTableView* view = w_->annotationView();
    const int row = view->model()->rowCount() - 1;  // the last one lies far beyond page 1
    const double onset = w_->annotationFilter()->onsetAt(row);
    QVERIFY(onset > b->pageLength());
    const QModelIndex index = view->model()->index(row, AnnotationModel::TextColumn);
    view->scrollTo(index);
    const QPoint at = view->visualRect(index).center();
    // A real double click is press, release, double-click: QTest's mouseDClick on a widget sends
    // only the last, which item views treat as a fresh press.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
    QTRY_VERIFY(b->pageStart() > 0.0);
    QVERIFY2(b->pageStart() <= onset && onset <= b->pageStart() + b->pageLength(),
             qPrintable(QStringLiteral("onset %1, page [%2, +%3]")
                            .arg(onset)
                            .arg(b->pageStart())
                            .arg(b->pageLength())));
  }

  void toolbarDrivesTheBrowserAndFollowsIt() {
    SignalBrowser* b = browser();
    BrowserToolbar* t = w_->browserToolbar();
    QCOMPARE(t->browser(), b);
    const ViewState original = b->viewState();

    const int i20 = t->pageLengthCombo()->findData(20.0);
    QVERIFY(i20 >= 0);
    t->pageLengthCombo()->setCurrentIndex(i20);
    emit t->pageLengthCombo()->activated(i20);  // what a user's choice emits
    QCOMPARE(b->pageLength(), 20.0);
    b->setPageLength(5.0);
    QCOMPARE(t->pageLengthCombo()->currentData().toDouble(), 5.0);

    t->amplitudeSpin()->setValue(80.0);
    QCOMPARE(b->microvoltsPerDivision(), 80.0);
    b->zoomAmplitude(2.0);
    QCOMPARE(t->amplitudeSpin()->value(), 160.0);

    ReferenceSpec average;
    average.kind = ReferenceKind::Average;
    t->chooseMontage(average);
    QCOMPARE(b->viewState().montage, std::string("average"));  // view_state_text.h spelling
    FilterSpec band;
    band.kind = FilterKind::BandPass;
    band.lowHz = 1.0;
    band.highHz = 40.0;
    t->chooseDisplayFilter(band);
    QCOMPARE(b->viewState().displayFilter, std::string("bandpass 1-40 Hz"));

    // A view state set elsewhere (a session) shows in the combos, new entries included.
    ViewState vs = b->viewState();
    vs.montage = "ref:Cz";
    vs.displayFilter = "notch 60 Hz";
    b->setViewState(vs);
    QCOMPARE(t->montageCombo()->currentText(), QStringLiteral("Reference: Cz"));
    QCOMPARE(t->filterCombo()->currentText(), QStringLiteral("Notch 60 Hz"));

    b->setViewState(original);
    QCOMPARE(t->montageCombo()->currentText(), QStringLiteral("As recorded"));
    QCOMPARE(t->filterCombo()->currentText(), QStringLiteral("No filter"));
    QCOMPARE(b->pageLength(), original.pageLength);
  }

  void forcingAnUnavailableBackendSaysWhy() {
    if (gpuFactory() != nullptr) QSKIP("this build has CUDA: forcing it may succeed");
    const BackendChoice before = w_->engine()->backendChoice();
    const QString description = w_->backendLabel()->text();
    w_->setBackendChoice(BackendChoice::Cuda);
    QMessageBox* box = visibleErrorBox();
    QVERIFY(box);
    QVERIFY(box->informativeText().contains(QStringLiteral("CUDA")));
    box->close();
    QCOMPARE(w_->engine()->backendChoice(), before);
    QCOMPARE(w_->backendLabel()->text(), description);
    auto groups = w_->findChildren<QActionGroup*>();
    QCOMPARE(groups.size(), 1);
    QVERIFY(groups.front()->checkedAction());
    QCOMPARE(groups.front()->checkedAction()->data().toInt(), int(before));
  }

  void screenshotIsNotBlank() {
    browser()->setPageStart(0.0);
    QTest::qWait(200);
    const QImage window = w_->grab().toImage();
    const QString path = QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/main_window.png");
    QVERIFY(window.save(path));
    // Text, widgets and antialiased traces give hundreds of colours; a blank grab gives a few.
    QVERIFY2(distinctColours(window) > 64, qPrintable(QString::number(distinctColours(window))));
    // Inside the browser, 64 traces over a 10 s page cover far more than 1 % of the pixels; an
    // empty page (background, labels and axis only) stays well below that.
    const QImage page = browser()->grab().toImage();
    const double fg = foregroundFraction(page);
    QVERIFY2(fg > 0.05, qPrintable(QString::number(fg)));
  }

  void exportPageWritesPngSvgPdf() {
    const std::pair<const char*, QByteArray> formats[] = {{"png", QByteArray("\x89PNG", 4)},
                                                          {"svg", QByteArray("<svg")},
                                                          {"pdf", QByteArray("%PDF")}};
    for (const auto& [ext, magic] : formats) {
      const QString path = tmp_.filePath(QStringLiteral("page.") + QLatin1String(ext));
      QString error;
      QVERIFY2(w_->exportPage(path, &error), qPrintable(error));
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray head = f.read(4096);
      QVERIFY2(ext == std::string("svg") ? head.contains(magic) : head.startsWith(magic), ext);
    }
  }

  void sessionRoundTripRestoresTheView() {
    SignalBrowser* b = browser();
    b->setPageStart(40.0);
    b->setMicrovoltsPerDivision(123.0);
    b->setSelectedChannels({3, 7});
    const QString path = tmp_.filePath(QStringLiteral("session.h5"));
    QSignalSpy saved(w_.get(), &MainWindow::sessionSaved);
    w_->saveSession(path);
    QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1, 30000);
    QVERIFY(!visibleErrorBox());

    b->setPageStart(0.0);
    b->setMicrovoltsPerDivision(50.0);
    b->setSelectedChannels({});
    QSignalSpy loaded(w_.get(), &MainWindow::sessionLoaded);
    w_->loadSession(path);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 || visibleErrorBox(), kOpenTimeoutMs);
    QVERIFY2(!visibleErrorBox(),
             visibleErrorBox() ? qPrintable(visibleErrorBox()->informativeText()) : "");
    SignalBrowser* restored = browser();
    QCOMPARE(restored->pageStart(), 40.0);
    QCOMPARE(restored->microvoltsPerDivision(), 123.0);
    QCOMPARE(restored->selectedChannels(), (std::vector<int>{3, 7}));
    QCOMPARE(selectedRows(w_->channelView()), (std::vector<int>{3, 7}));
    QCOMPARE(w_->channelModel()->rowCount(), kDemoChannels);
    restored->setSelectedChannels({});
  }

  void failingOpenShowsAnErrorAndTheAppSurvives_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");  // null: the file does not exist
    QTest::newRow("missing") << QStringLiteral("does_not_exist.edf") << QByteArray();
    // A header that starts like EDF and then stops: version "0", an 8-byte patient field and
    // nothing after it.
    QTest::newRow("truncated") << QStringLiteral("truncated.edf")
                               << QByteArray("0       X X X X ", 16);
    // A full 256-byte header whose numeric fields are garbage.
    QByteArray garbage(256, ' ');
    garbage.replace(0, 8, "0       ");
    garbage.replace(184, 8, "abcdefgh");  // header bytes: not a number
    garbage.replace(236, 8, "-99     ");  // number of data records
    garbage.replace(252, 4, "9999");      // number of signals, far more than the file holds
    QTest::newRow("damaged header") << QStringLiteral("damaged.edf") << garbage;
  }

  void failingOpenShowsAnErrorAndTheAppSurvives() {
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    const QString path = tmp_.filePath(name);
    if (!content.isNull()) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(content);
    }
    const int documentsBefore = w_->documentCount();
    QSignalSpy failed(w_.get(), &MainWindow::openFailed);
    const JobId id = w_->openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, kOpenTimeoutMs);
    QMessageBox* box = visibleErrorBox();
    QVERIFY(box);
    // The box names the file; the engine's message (informative text) says what was wrong.
    QVERIFY2((box->text() + box->informativeText()).contains(name), qPrintable(box->text()));
    QVERIFY(!box->informativeText().isEmpty());
    QCOMPARE(w_->jobList()->jobState(id), std::optional<JobState>(JobState::Failed));
    QVERIFY(!w_->jobList()->errorText(id).isEmpty());
    box->close();
    // Still alive, still showing what was open before.
    QCOMPARE(w_->documentCount(), documentsBefore);
    QVERIFY(w_->isVisible());
    QVERIFY(browser() != nullptr);
  }

  void longJobCancelsPromptlyAndGuiStaysResponsive() {
    // Large enough to run for several seconds on any machine (64 channels x 512 Hz x 1 h =
    // 118 M samples), small enough for memory (~0.5 GB).
    SynthParams params;
    params.channels = 64;
    params.sampleRate = 512.0;
    params.duration = 3600.0;
    params.seed = 11;
    const QString titleBefore = w_->currentDocument()->title;
    JobListWidget* jobs = w_->jobList();
    const JobId id = w_->newSyntheticRecording(params);
    QTRY_VERIFY_WITH_TIMEOUT(jobs->jobState(id) == std::optional<JobState>(JobState::Running),
                             10000);

    // A GUI-thread timer at 10 ms: its longest gap shows whether the GUI thread was blocked.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, longestGap = 0;
    int ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, this, [&] {
      longestGap = std::max(longestGap, clock.elapsed() - last);
      last = clock.elapsed();
      ++ticks;
    });
    timer.start();
    QTest::qWait(500);
    // Only meaningful if the job outlives the wait.
    QCOMPARE(jobs->jobState(id), std::optional<JobState>(JobState::Running));
    QVERIFY(jobs->jobProgress(id) < 1.0);

    QElapsedTimer sinceCancel;
    sinceCancel.start();
    jobs->cancelButton(id)->click();
    QTRY_VERIFY_WITH_TIMEOUT(jobs->jobState(id) == std::optional<JobState>(JobState::Cancelled),
                             5000);
    const qint64 latency = sinceCancel.elapsed();
    timer.stop();
    QVERIFY2(latency < 500, qPrintable(QStringLiteral("cancel took %1 ms").arg(latency)));
    // 250 ms: far above the 10 ms tick, far below a blocked GUI thread (the whole job).
    QVERIFY2(longestGap < 250, qPrintable(QStringLiteral("longest gap %1 ms").arg(longestGap)));
    QVERIFY(ticks >= 20);
    QVERIFY(!jobs->cancelButton(id)->isEnabled());
    // A cancelled generation leaves the open recording alone.
    QCOMPARE(w_->currentDocument()->title, titleBefore);
  }

  void preprocessOpensADerivedTab() {
    QCOMPARE(w_->documentCount(), 1);
    PreprocessRequest request;
    FilterSpec band;
    band.kind = FilterKind::BandPass;
    band.lowHz = 1.0;
    band.highHz = 40.0;
    request.spec.filters.push_back(band);
    request.spec.reference.kind = ReferenceKind::Average;
    request.channels = {0, 1, 2, 3, 4, 5, 6, 7};
    request.startSeconds = 10.0;
    request.durationSeconds = 20.0;
    request.backend = BackendChoice::Cpu;
    QSignalSpy added(w_.get(), &MainWindow::documentAdded);
    const JobId id = w_->runPreprocess(request);
    QVERIFY(id != 0);
    QTRY_VERIFY_WITH_TIMEOUT(added.count() == 1 || visibleErrorBox(), 60000);
    QVERIFY2(!visibleErrorBox(),
             visibleErrorBox() ? qPrintable(visibleErrorBox()->informativeText()) : "");
    QCOMPARE(w_->documentCount(), 2);
    QCOMPARE(w_->tabs()->currentIndex(), 1);
    const Document* derived = w_->currentDocument();
    QVERIFY(derived->derived);
    QCOMPARE(derived->recording->channelCount(), size_t{8});
    // 20 s at 160 Hz.
    QCOMPARE(derived->recording->channels[0].sampleCount, int64_t{3200});
    QVERIFY(w_->recordingInfo()
                ->fieldText(QStringLiteral("Origin"))
                .contains(QStringLiteral("Derived from")));
    QCOMPARE(w_->channelModel()->rowCount(), 8);
  }

  void sessionKeepsDerivedResults() {
    // The derived tab from the previous test is a job result: a session stores it and brings it
    // back as a tab, with the job in the list.
    QCOMPARE(w_->documentCount(), 2);
    const std::shared_ptr<const Recording> derived = w_->currentDocument()->recording;
    const QString path = tmp_.filePath(QStringLiteral("session_with_result.h5"));
    QSignalSpy saved(w_.get(), &MainWindow::sessionSaved);
    w_->saveSession(path);
    QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1 || visibleErrorBox(), 30000);
    QVERIFY2(!visibleErrorBox(),
             visibleErrorBox() ? qPrintable(visibleErrorBox()->informativeText()) : "");
    const int jobsBefore = w_->jobList()->jobCount();
    QSignalSpy loaded(w_.get(), &MainWindow::sessionLoaded);
    w_->loadSession(path);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 || visibleErrorBox(), kOpenTimeoutMs);
    QVERIFY2(!visibleErrorBox(),
             visibleErrorBox() ? qPrintable(visibleErrorBox()->informativeText()) : "");
    QCOMPARE(w_->documentCount(), 2);
    QCOMPARE(w_->tabs()->currentIndex(), 0);
    w_->tabs()->setCurrentIndex(1);
    const Document* restored = w_->currentDocument();
    QVERIFY(restored->derived);
    QCOMPARE(restored->recording->channelCount(), derived->channelCount());
    QCOMPARE(restored->recording->readChannel(1, 0, 64), derived->readChannel(1, 0, 64));
    QCOMPARE(w_->channelModel()->rowCount(), int(derived->channelCount()));
    // The finished preprocess job is listed again (plus this session's own open job).
    QVERIFY(w_->jobList()->jobCount() >= jobsBefore + 2);
  }

  void exportedRecordingReopens() {
    // The derived tab (8 channels, 20 s) is current: export it, then open the file.
    QCOMPARE(w_->documentCount(), 2);
    const std::shared_ptr<const Recording> exported = w_->currentDocument()->recording;
    const QString path = tmp_.filePath(QStringLiteral("derived.h5"));
    const JobId id = w_->exportRecording(path);
    QTRY_VERIFY_WITH_TIMEOUT(
        w_->jobList()->jobState(id) != std::optional<JobState>(JobState::Queued) &&
            w_->jobList()->jobState(id) != std::optional<JobState>(JobState::Running),
        60000);
    QCOMPARE(w_->jobList()->jobState(id), std::optional<JobState>(JobState::Succeeded));
    QSignalSpy opened(w_.get(), &MainWindow::recordingOpened);
    w_->openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || visibleErrorBox(), kOpenTimeoutMs);
    QVERIFY(!visibleErrorBox());
    QCOMPARE(w_->documentCount(), 1);
    const auto& reopened = *w_->currentDocument()->recording;
    QCOMPARE(reopened.channelCount(), exported->channelCount());
    // HDF5 keeps float32 samples exactly.
    QCOMPARE(reopened.readChannel(2, 100, 50), exported->readChannel(2, 100, 50));
    QCOMPARE(RecentFiles::list().front(), QFileInfo(path).absoluteFilePath());
  }

  void droppedFileOpens() {
    const QString path = QStringLiteral(MODESCOPE_TEST_DATA "/mne_test.edf");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint centre = w_->rect().center();
    QDragEnterEvent enter(centre, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);  // events start accepted; the window must accept it itself
    QCoreApplication::sendEvent(w_.get(), &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy opened(w_.get(), &MainWindow::recordingOpened);
    QDropEvent drop(centre, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(w_.get(), &drop);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || visibleErrorBox(), kOpenTimeoutMs);
    QVERIFY(!visibleErrorBox());
    QCOMPARE(opened.at(0).at(0).toString(), path);
  }

  void aboutNamesVersionAndDemoSource() {
    const QString html = AboutDialog::html(w_->engine()->backendDescription());
    QVERIFY(html.contains(QStringLiteral("PhysioNet")));
    QVERIFY(html.contains(QStringLiteral("Schalk")));
    QVERIFY(html.contains(QStringLiteral("ModeScope")));
    QVERIFY(html.contains(QStringLiteral("EDFlib")));
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
