// The everyday review tools of the main window on the embedded demo (PhysioNet eegmmidb S001R03:
// 64 EEG channels at 160 Hz, 125 s): the calm first screen and the damaged-file warning with
// Details (issue 19 item 8), the cursor read-out, the ruler, context menus, fit all channels and
// go to time (item 6), derivation montages and the montage editor (item 4), and the user guide
// with F1 and the list of shortcuts (item 7). Pictures are saved next to the test; with
// MODESCOPE_DOCS_SCREENSHOTS naming a folder the docs' pictures are written there too
// (docs/render_screenshots.sh).
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "app/gui/browser_actions.h"
#include "app/gui/filter_chain_dialog.h"
#include "app/gui/help_browser.h"
#include "app/gui/main_window.h"
#include "app/gui/montage_chooser.h"
#include "app/gui/montage_editor_dialog.h"
#include "demo_window_support.h"
#include "resources/embedded_resources.h"
#include "widgets/browser_pane.h"
#include "widgets/browser_toolbar.h"
#include "widgets/filter_response_view.h"
#include "widgets/info_bar.h"
#include "widgets/page_cache.h"
#include "widgets/signal_browser.h"
#include "widgets/trace_measure_overlay.h"

using namespace modescope;

namespace {

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

void save(const QImage& image, const QString& name) {
  image.save(QDir(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR)).filePath(name + ".png"));
  const QByteArray docs = qgetenv("MODESCOPE_DOCS_SCREENSHOTS");
  if (!docs.isEmpty()) image.save(QDir(QString::fromLocal8Bit(docs)).filePath(name + ".png"));
}

// The demo EDF with one byte lost at the start of data record `record` (0-based) and a zero byte
// appended, so the size still matches the header: from that record on every 16-bit sample is
// made of halves of two neighbours.
QString shiftedDemo(const QString& dir, long long record) {
  const std::string_view demo = embeddedResource(kDemoResource);
  std::string bytes(demo);
  auto number = [&](std::size_t at, std::size_t width) {
    return std::stoll(bytes.substr(at, width));
  };
  const long long headerBytes = number(184, 8);
  const long long signalCount = number(252, 4);
  long long recordBytes = 0;
  for (long long s = 0; s < signalCount; ++s)
    recordBytes += 2 * number(static_cast<std::size_t>(256 + signalCount * 216 + s * 8), 8);
  bytes.erase(static_cast<std::size_t>(headerBytes + record * recordBytes), 1);
  bytes.push_back('\0');
  const QString path = QDir(dir).filePath(QStringLiteral("shifted_demo.edf"));
  std::ofstream(path.toStdString(), std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace

class ReviewToolsTest : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;
  QTemporaryDir tmp_;

  SignalBrowser* browser() const { return w_->currentBrowser(); }
  TraceMeasureOverlay* overlay() const { return BrowserActions::overlayOf(browser()); }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("review_tools_test"));
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    qRegisterMetaType<QMenu*>();
    qRegisterMetaType<SignalBrowser*>();
    QVERIFY(tmp_.isValid());
    w_ = std::make_unique<MainWindow>();
    const QString error = gui_test::showWithDemo(*w_);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(browser()->displayedPage() != nullptr, 10000);
  }

  void cleanupTestCase() { w_.reset(); }

  // Item 8: ModeScope's own demo opens without a bar above the traces.
  void demoOpensCalmly() {
    QVERIFY(!w_->infoBar()->isVisible());
    QVERIFY(!browser()->recording()->diagnostics.empty());  // they are in the Recording panel
    save(w_->grab().toImage(), QStringLiteral("review_first_screen"));
  }

  // The bar: warnings first, one short line, the full text behind Details; information blue.
  void infoBarOneLineWithDetails() {
    InfoBar bar;
    bar.setMessages(QList<InfoBar::Message>{
        {Severity::Info, QStringLiteral("The header does not follow the EDF+ specification in "
                                        "every detail (read anyway): a; b; c.")},
        {Severity::Warning, QStringLiteral("First warning. It has a second sentence.")}});
    QCOMPARE(bar.severity(), Severity::Warning);
    QCOMPARE(bar.summary(), QStringLiteral("First warning.  (+1 more)"));
    QVERIFY(bar.text().startsWith(QStringLiteral("Warning: First warning. It has a second")));
    QVERIFY(bar.text().contains(QStringLiteral("read anyway): a; b; c.")));
    QVERIFY(bar.detailsButton() != nullptr);
    bar.setMessages(QList<InfoBar::Message>{{Severity::Info, QStringLiteral("Only news.")}});
    QCOMPARE(bar.severity(), Severity::Info);
    QVERIFY(bar.styleSheet().contains(QStringLiteral("#e3f0ff")));
    QCOMPARE(InfoBar::firstSentence(QStringLiteral("Filter 0.5 Hz, e.g. this. Next.")),
             QStringLiteral("Filter 0.5 Hz, e.g. this."));
  }

  // Item 8: a damaged file is said to be damaged from its record, in one line, with Details.
  void damagedFileWarnsFromItsRecord() {
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    QSignalSpy drawn(&w, &MainWindow::pageDrawn);
    w.openFile(shiftedDemo(tmp_.path(), 20));
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(drawn.count() >= 1, 10000);
    QVERIFY(w.infoBar()->isVisible());
    QCOMPARE(w.infoBar()->severity(), Severity::Warning);
    const QString line = w.infoBar()->summary();
    QVERIFY2(line.startsWith(QStringLiteral("The data of this file look damaged from record 21 "
                                            "(20 s)")),
             qPrintable(line));
    QVERIFY(!line.contains(QLatin1Char('\n')));
    QVERIFY(line.size() <= 160);
    QVERIFY(w.infoBar()->text().contains(QStringLiteral("copy it again from its source")));
    // The bar is one line high, not four.
    QVERIFY2(w.infoBar()->height() < 3 * w.infoBar()->fontMetrics().height(),
             qPrintable(QString::number(w.infoBar()->height())));
    // Details shows the full text.
    QTimer::singleShot(300, [&w] {
      auto* d = w.findChild<QDialog*>(QStringLiteral("infoBarDetailsDialog"));
      if (d) d->reject();
    });
    QSignalSpy details(w.infoBar(), &InfoBar::detailsRequested);
    w.infoBar()->detailsButton()->click();
    QCOMPARE(details.count(), 1);
    // The derivation list follows the new recording (enabled once a tab is current).
    QVERIFY(w.findChild<MontageChooser*>(QStringLiteral("montageChooser"))->isEnabled());
    w.currentBrowser()->setPageStart(15.0);  // the damage begins at 20 s
    QTest::qWait(200);
    save(w.grab().toImage(), QStringLiteral("review_damaged_file"));
  }

  // Item 6: the read-out shows each trace's drawn value at the cursor's time.
  void cursorReadoutShowsEveryTrace() {
    SignalBrowser* b = browser();
    b->setPageLength(2.0);  // 320 samples over ~1000 px: raw samples, not min/max pairs
    b->setPageStart(10.0);
    b->setVisibleChannelCount(16);
    QTRY_VERIFY(b->displayedPage() && b->displayedPage()->request.length == 2.0);
    QVERIFY(overlay() != nullptr);
    const QPointF at = overlay()->positionFor(11.0, 3, 0.0);
    QTest::mouseMove(b, at.toPoint());
    QTRY_VERIFY(overlay()->cursorTime().has_value());
    const double t = *overlay()->cursorTime();
    QVERIFY(std::abs(t - 11.0) < 2.0 / b->width() * 2);
    const auto values = overlay()->valuesAt(t);
    QCOMPARE(int(values.size()), 16);
    QCOMPARE(values[0].label, b->rowLabel(0));
    // Row 0's value is one of the two recorded samples around t (no montage, no filter).
    const auto rec = b->recording();
    const auto i = static_cast<int64_t>(std::floor(t * 160.0));
    const auto around = rec->readChannel(0, i - 1, 3);
    const bool matches = std::any_of(around.begin(), around.end(),
                                     [&](float v) { return std::abs(v - values[0].value) < 1e-3; });
    QVERIFY2(matches, qPrintable(QString::number(values[0].value)));
    save(b->grab().toImage(), QStringLiteral("browser_cursor_readout"));
  }

  // Item 6: two clicks measure delta t, delta amplitude and 1/dt.
  void rulerMeasuresTimeAmplitudeAndFrequency() {
    SignalBrowser* b = browser();
    TraceMeasureOverlay* o = overlay();
    b->setMicrovoltsPerDivision(50.0);
    QVERIFY(b->height() / b->rowCount() > 20);
    w_->browserActions()->rulerAction()->trigger();
    QVERIFY(o->rulerArmed());
    const QPointF p0 = o->positionFor(10.5, 2, 20.0);
    const QPointF p1 = o->positionFor(10.75, 2, -30.0);
    QTest::mouseClick(b, Qt::LeftButton, Qt::NoModifier, p0.toPoint());
    QTest::mouseMove(b, p1.toPoint());
    QTest::mouseClick(b, Qt::LeftButton, Qt::NoModifier, p1.toPoint());
    const auto m = o->ruler();
    QVERIFY(m.has_value());
    QVERIFY(m->complete);
    const double secondsPerPixel = b->pageLength() / b->width();
    const double microvoltsPerPixel = b->microvoltsPerDivision() / 20.0;  // rows > 20 px here
    QVERIFY2(std::abs(m->dt() - 0.25) < 2 * secondsPerPixel, qPrintable(QString::number(m->dt())));
    QVERIFY2(std::abs(m->dAmplitude() + 50.0) < 2 * microvoltsPerPixel,
             qPrintable(QString::number(m->dAmplitude())));
    QVERIFY(std::abs(m->frequency() - 4.0) < 0.1);
    QVERIFY(TraceMeasureOverlay::measurementText(*m).contains(QStringLiteral("Hz")));
    save(b->grab().toImage(), QStringLiteral("browser_ruler"));
    // Esc removes it; a middle-button drag measures in one move.
    QTest::keyClick(b, Qt::Key_Escape);
    QVERIFY(!o->ruler().has_value());
    QTest::mousePress(b, Qt::MiddleButton, Qt::NoModifier, p0.toPoint());
    QTest::mouseMove(b, p1.toPoint());
    QTest::mouseRelease(b, Qt::MiddleButton, Qt::NoModifier, p1.toPoint());
    QVERIFY(o->ruler() && o->ruler()->complete);
    QVERIFY(std::abs(o->ruler()->dt() - 0.25) < 2 * secondsPerPixel);
    QTest::keyClick(b, Qt::Key_Escape);
  }

  // Item 6: context menus on a label and on the traces.
  void contextMenusOnLabelsAndTraces() {
    SignalBrowser* b = browser();
    const QPointF trace = overlay()->positionFor(11.0, 1, 0.0);
    const QPointF label(5, trace.y());
    QSignalSpy extended(w_->browserActions(), &BrowserActions::labelMenuAboutToShow);
    std::unique_ptr<QMenu> labelMenu(w_->browserActions()->contextMenuFor(b, label));
    QVERIFY(labelMenu);
    QCOMPARE(extended.count(), 1);
    QAction* select = nullptr;
    for (QAction* a : labelMenu->actions()) {
      if (a->text() == QStringLiteral("Select %1").arg(b->rowLabel(1))) select = a;
    }
    QVERIFY(select);
    select->trigger();
    QCOMPARE(b->selectedChannels(), std::vector<int>{b->firstVisibleChannel() + 1});
    std::unique_ptr<QMenu> traceMenu(w_->browserActions()->contextMenuFor(b, trace));
    QVERIFY(traceMenu);
    QStringList texts;
    for (QAction* a : traceMenu->actions()) texts << a->text();
    QVERIFY(texts.contains(QStringLiteral("Centre the page here")));
    QVERIFY(texts.contains(w_->browserActions()->fitAllChannelsAction()->text()));
    QVERIFY(texts.contains(w_->browserActions()->goToTimeAction()->text()));
    // The real right-click opens a menu.
    QContextMenuEvent event(QContextMenuEvent::Mouse, trace.toPoint(),
                            b->mapToGlobal(trace.toPoint()));
    QCoreApplication::sendEvent(b, &event);
    labelMenu.reset();
    traceMenu.reset();
    QMenu* shown = nullptr;
    QTRY_VERIFY((shown = b->findChild<QMenu*>(QStringLiteral("browserContextMenu"))) &&
                shown->isVisible());
    QVERIFY(shown->actions().size() >= 6);
    shown->close();
  }

  // Item 6: all 64 channels on one page, and go to time.
  void fitAllChannelsAndGoToTime() {
    SignalBrowser* b = browser();
    b->setPageLength(10.0);
    w_->browserActions()->fitAllChannelsAction()->trigger();
    QCOMPARE(b->visibleChannelCount(), 64);
    QCOMPARE(b->rowCount(), 64);
    QCOMPARE(b->firstVisibleChannel(), 0);
    QTest::qWait(200);
    save(w_->grab().toImage(), QStringLiteral("browser_fit_all_channels"));

    // Fewer and more channels per page: halved and doubled.
    w_->browserActions()->fewerChannelsAction()->trigger();
    QCOMPARE(b->visibleChannelCount(), 32);
    w_->browserActions()->fewerChannelsAction()->trigger();
    QCOMPARE(b->visibleChannelCount(), 16);
    w_->browserActions()->moreChannelsAction()->trigger();
    QCOMPARE(b->visibleChannelCount(), 32);
    QCOMPARE(w_->browserActions()->moreChannelsAction()->shortcut(),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down));

    QCOMPARE(parseTimeText(QStringLiteral("125.5")), std::optional<double>(125.5));
    QCOMPARE(parseTimeText(QStringLiteral("2:05")), std::optional<double>(125.0));
    QCOMPARE(parseTimeText(QStringLiteral("1:02:05.250")), std::optional<double>(3725.25));
    QCOMPARE(parseTimeText(QStringLiteral("30 s")), std::optional<double>(30.0));
    QVERIFY(!parseTimeText(QStringLiteral("1:75")).has_value());
    QVERIFY(!parseTimeText(QStringLiteral("soon")).has_value());
    QVERIFY(!parseTimeText(QStringLiteral("-3")).has_value());
    w_->browserActions()->setTimeQuestion(
        [](const QString&) { return std::optional<QString>(QStringLiteral("0:01:05")); });
    w_->browserActions()->goToTimeAction()->trigger();
    QCOMPARE(b->pageStart() + b->pageLength() / 2, 65.0);
    // The shortcut reaches the same action.
    QCOMPARE(w_->browserActions()->goToTimeAction()->shortcut(),
             QKeySequence(Qt::CTRL | Qt::Key_G));
  }

  // Item 4: the double banana, the Laplacian and back to the channels, from the tool bar.
  void derivationMontagesFromTheToolBar() {
    auto* chooser = w_->findChild<MontageChooser*>(QStringLiteral("montageChooser"));
    QVERIFY(chooser);
    BrowserPane* pane = w_->currentPane();
    SignalBrowser* b = browser();
    emit chooser->combo()->activated(1);
    QCOMPARE(int(b->recording()->channelCount()), 18);
    QCOMPARE(b->rowLabel(0), QStringLiteral("Fp1-F7"));
    QVERIFY(pane->derivations() != nullptr);
    QVERIFY(pane->selectedChannels().empty());
    // The drawn trace is Fp1 - F7.
    QTRY_VERIFY(b->displayedPage() && b->displayedPage()->traces.size() == 18);
    const auto full = pane->recording();
    const auto fp1 = full->readChannel(static_cast<std::size_t>(full->findChannel("Fp1")), 0, 50);
    const auto f7 = full->readChannel(static_cast<std::size_t>(full->findChannel("F7")), 0, 50);
    const auto row = b->recording()->readChannel(0, 0, 50);
    for (std::size_t i = 0; i < row.size(); ++i) QCOMPARE(row[i], fp1[i] - f7[i]);
    QTest::qWait(200);
    save(w_->grab().toImage(), QStringLiteral("browser_double_banana"));
    emit chooser->combo()->activated(3);
    QCOMPARE(int(b->recording()->channelCount()), 64);
    QCOMPARE(b->rowLabel(0).right(4), QStringLiteral("-Lap"));
    emit chooser->combo()->activated(0);
    QVERIFY(pane->derivations() == nullptr);
    QCOMPARE(b->recording(), full);
    // Sessions keep the montage: the pane's view state carries it and brings it back.
    emit chooser->combo()->activated(2);
    b->setPageStart(30.0);
    const ViewState saved = pane->viewState();
    QVERIFY(saved.montage.rfind(BrowserPane::kDerivationsPrefix, 0) == 0);
    emit chooser->combo()->activated(0);
    pane->setViewState(saved);
    QVERIFY(pane->derivations() != nullptr);
    QCOMPARE(*pane->derivations(), transverseBipolar1020());
    QCOMPARE(b->rowLabel(0), QStringLiteral("F7-Fp1"));
    QCOMPARE(b->pageStart(), 30.0);
    QCOMPARE(chooser->combo()->currentIndex(), 2);
    ViewState channels = saved;
    channels.montage = "as recorded";
    pane->setViewState(channels);
    QVERIFY(pane->derivations() == nullptr);
    QCOMPARE(b->recording(), full);
  }

  // Item 4: the editor starts from presets, lists what does not fit, saves and loads files.
  void montageEditorSavesAndLoads() {
    MontageEditorDialog dialog(w_->currentPane()->recording());
    QVERIFY(dialog.usePreset(QStringLiteral("Transverse bipolar")));
    QCOMPARE(dialog.table()->rowCount(), 18);
    QVERIFY(dialog.problems().isEmpty());
    dialog.table()->item(0, 1)->setText(QStringLiteral("F7 - X99"));
    QVERIFY(dialog.problems().contains(QStringLiteral("no channel X99")));
    dialog.table()->item(0, 1)->setText(QStringLiteral("F7 -"));
    QVERIFY(dialog.problems().contains(QStringLiteral("Row 1")));
    dialog.table()->item(0, 1)->setText(QStringLiteral("F7 - 0.5*Fp1 - 0.5*Fp2"));
    QVERIFY(dialog.problems().isEmpty());
    const QString path = tmp_.filePath(QStringLiteral("mine.montage"));
    QString error;
    QVERIFY2(dialog.saveFile(path, &error), qPrintable(error));
    MontageEditorDialog other(nullptr);
    QVERIFY2(other.loadFile(path, &error), qPrintable(error));
    DerivationMontage a, b;
    QVERIFY(dialog.montage(&a));
    QVERIFY(other.montage(&b));
    QVERIFY(a == b);
    QCOMPARE(b.rows[0].terms.size(), std::size_t{3});
    QVERIFY(!other.usePreset(QStringLiteral("Average reference"), &error));  // needs a recording
    QVERIFY(!other.loadFile(tmp_.filePath(QStringLiteral("missing.montage")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.montage")));
    dialog.resize(620, 560);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    save(dialog.grab().toImage(), QStringLiteral("montage_editor"));
  }

  // Item 4: a high-pass, a low-pass and a notch together, with the response drawn.
  void displayFilterChainWithResponse() {
    SignalBrowser* b = browser();
    FilterChainDialog dialog({}, 160.0);
    dialog.highPassBox()->setChecked(true);
    dialog.highPassEdit()->setValue(1.0);
    dialog.lowPassBox()->setChecked(true);
    dialog.lowPassEdit()->setValue(30.0);
    dialog.notchBox()->setChecked(true);
    const std::vector<FilterSpec> chain = dialog.chain();
    QCOMPARE(chain.size(), std::size_t{3});
    FilterResponseView* r = dialog.response();
    QVERIFY(r->message().isEmpty());
    // The curve: passes 10 Hz, stops 50 Hz (notch) and 70 Hz (low-pass), and 0.1 Hz.
    auto gainAt = [r](double hz) {
      std::size_t best = 0;
      for (std::size_t i = 0; i < r->frequencies().size(); ++i) {
        if (std::abs(r->frequencies()[i] - hz) < std::abs(r->frequencies()[best] - hz)) best = i;
      }
      return r->gainsDb()[best];
    };
    QVERIFY(std::abs(gainAt(10.0)) < 0.5);
    QVERIFY(gainAt(50.0) < -30.0);
    QVERIFY(gainAt(70.0) < -40.0);
    QVERIFY(gainAt(0.0) < -40.0);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QImage picture = dialog.grab().toImage();
    save(picture, QStringLiteral("filter_chain_dialog"));
    // The curve is drawn where the numbers say: blue-ish at (10 Hz, 0 dB) in the response view.
    const QImage plot = r->grab().toImage();
    bool curve = false;
    const QPoint at = r->positionFor(10.0, 0.0).toPoint();
    for (int dy = -2; dy <= 2; ++dy) {
      const QColor c = plot.pixelColor(at.x(), at.y() + dy);
      curve = curve || (c.blue() > 120 && c.red() < 120);
    }
    QVERIFY(curve);
    // A low-pass above Nyquist: the reason instead of a curve.
    dialog.lowPassEdit()->setMaximum(200.0);
    dialog.lowPassEdit()->setValue(100.0);
    QVERIFY(r->message().contains(QStringLiteral("Nyquist")));
    dialog.close();
    // The browser applies the chain and keeps it in its view state (sessions).
    b->setDisplayFilters(chain);
    QCOMPARE(b->displayFilters().size(), std::size_t{3});
    // The tool bar's filter list shows the chain as its text (no single entry stands for it).
    QComboBox* filterCombo = w_->browserToolbar()->filterCombo();
    QCOMPARE(filterCombo->currentIndex(), -1);
    QVERIFY(filterCombo->placeholderText().contains(QStringLiteral(" + ")));
    const ViewState state = b->viewState();
    QVERIFY2(state.displayFilter.find(" + ") != std::string::npos, state.displayFilter.c_str());
    b->setDisplayFilters({});
    QVERIFY(b->displayFilters().empty());
    b->setViewState(state);
    QCOMPARE(b->displayFilters().size(), std::size_t{3});
    QCOMPARE(w_->browserActions()->filterChainAction()->shortcut(),
             QKeySequence(Qt::CTRL | Qt::Key_L));
    b->setDisplayFilters({});
  }

  // Item 7: Help > User guide shows the docs inside the program; F1 in a dialog opens its page;
  // the shortcut list names the real shortcuts.
  void userGuideF1AndShortcuts() {
    QAction* guide = nullptr;
    QAction* keys = nullptr;
    for (QAction* a : w_->menuBar()->actions()) {
      if (!a->menu() || a->menu()->title() != QStringLiteral("&Help")) continue;
      for (QAction* h : a->menu()->actions()) {
        if (h->text() == QStringLiteral("&User guide")) guide = h;
        if (h->text() == QStringLiteral("&Keyboard shortcuts")) keys = h;
      }
    }
    QVERIFY(guide && keys);
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guide->trigger();
    HelpBrowser* help = HelpBrowser::instance();
    QVERIFY(help && help->isVisible());
    QVERIFY(help->view()->source().toString().endsWith(QStringLiteral("user-guide.md")));
    QVERIFY(help->view()->toPlainText().contains(QStringLiteral("User guide")));
    // Every page the guide links to is compiled in.
    for (const QString& page : {QStringLiteral("browser.md"), QStringLiteral("montages.md"),
                                QStringLiteral("ica.md"), QStringLiteral("readers.md")}) {
      QVERIFY2(QFile::exists(QStringLiteral(":/guide/") + page), qPrintable(page));
    }
    QVERIFY(QFile::exists(QStringLiteral(":/guide/images/browser_ruler.png")));
    help->resize(860, 700);
    QTest::qWait(100);
    save(help->grab().toImage(), QStringLiteral("help_user_guide"));

    // F1 in the montage editor opens montages.md.
    MontageEditorDialog dialog(nullptr, w_.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTest::keyClick(dialog.table(), Qt::Key_F1);
    QVERIFY(help->view()->source().toString().endsWith(QStringLiteral("montages.md")));
    QCOMPARE(helpTopicFor(&dialog).page, QStringLiteral("montages.md"));
    dialog.close();
    // A section: the browser page's measuring section.
    HelpBrowser::showPage(w_.get(), QStringLiteral("browser.md"), QStringLiteral("Measuring"));
    QCOMPARE(help->currentHeading(), QStringLiteral("Measuring"));
    // F1 in a dialog scrolls to its section: the heading's line is at the top of the view.
    QCOMPARE(helpTopicFor(&dialog).heading, QStringLiteral("The montage editor"));
    auto headingAtTop = [&](const QString& heading) {
      QTest::qWait(50);  // the deferred second scroll
      const QTextCursor c = help->view()->textCursor();
      const QRect r = help->view()->cursorRect(c);
      const QScrollBar* bar = help->view()->verticalScrollBar();
      // At the top, or as high as the page's end lets it go (a last section).
      const bool top = r.top() >= -2 && r.top() < help->view()->viewport()->height() / 4;
      const bool highest = bar->value() == bar->maximum() && r.top() >= 0 &&
                           r.bottom() <= help->view()->viewport()->height();
      return c.block().text().trimmed() == heading && bar->value() > 0 && (top || highest);
    };
    for (const auto& [cls, topic] : dialogHelpTopics()) {
      if (topic.heading.isEmpty()) continue;
      HelpBrowser::showPage(w_.get(), topic.page, topic.heading);
      QVERIFY2(help->currentHeading() == topic.heading, qPrintable(cls + ": " + topic.heading));
      QVERIFY2(headingAtTop(topic.heading), qPrintable(cls + ": " + topic.heading));
    }
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTest::keyClick(dialog.table(), Qt::Key_F1);
    QVERIFY(headingAtTop(QStringLiteral("The montage editor")));
    save(help->grab().toImage(), QStringLiteral("help_f1_section"));
    dialog.close();

    keys->trigger();
    const QString text = help->view()->toPlainText();
    // Each shortcut once.
    QCOMPARE(text.count(QStringLiteral("Go to time")), 1);
    for (const QString& s :
         {QStringLiteral("Go to time"), QStringLiteral("Fit all channels"), QStringLiteral("Ruler"),
          QStringLiteral("Page Up / Page Down"),
          QKeySequence(Qt::CTRL | Qt::Key_G).toString(QKeySequence::NativeText)}) {
      QVERIFY2(text.contains(s), qPrintable(s));
    }
    save(help->grab().toImage(), QStringLiteral("help_shortcuts"));
    help->hide();
  }
};

QTEST_MAIN(ReviewToolsTest)
#include "review_tools_test.moc"
