// The time-frequency view (app/gui/tf_view.h) on the demo recording, as a user reaches it:
// Analysis > Time-frequency opens it for the browser's channel; the page it shows is what
// computeTfPage gives for the browser's page; switching the order recomputes with that order;
// scrolling the browser recomputes for the new page; the figure exports as PNG and SVG; a ridge
// reconstruction opens as a derived recording whose channels are the input, the modes and the
// residual. A screenshot of the window is written for a person to look at.
#include "app/gui/tf_view.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <cmath>

#include "app/core/tf_page.h"
#include "app/gui/emd_job.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/ica_request.h"
#include "app/gui/ica_results_pane.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/main_window.h"
#include "app/gui/tf_page_worker.h"
#include "app/gui/tf_workflow.h"
#include "demo_window_support.h"
#include "engine/ica/ica_params.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/imf_stack_view.h"
#include "widgets/signal_browser.h"

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

using namespace modescope;

namespace {

// Waits until the view has drawn a page computed for `start` with `order`.
bool waitForPage(TfView& v, double start, TfOrder order, int ms = 30000) {
  return QTest::qWaitFor(
      [&] {
        const auto p = v.page();
        return p && std::abs(p->request.startSeconds - start) < 1e-9 &&
               p->request.params.order == order && !v.worker()->busy();
      },
      ms);
}

// The page as computeTfPage gives it directly on the CPU.
TfPage directPage(const TfView& v) {
  const auto backend = makeCpuBackend(1);
  JobContext ctx;
  return computeTfPage(*v.recording(), v.page()->request, *backend, ctx);
}

}  // namespace

class TfViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    window_ = std::make_unique<MainWindow>();
    window_->setBackendChoice(BackendChoice::Cpu);
    const QString problem = gui_test::showWithDemo(*window_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void openedFromTheAnalysisMenuForTheBrowsersChannel() {
    QAction* action = window_->findChild<QAction*>(QStringLiteral("method_tfr"));
    QVERIFY(action);
    QVERIFY(action->isEnabled());
    SignalBrowser* browser = window_->currentBrowser();
    QVERIFY(browser);
    browser->setPageLength(10.0);
    browser->setPageStart(20.0);
    QSignalSpy opened(window_->tfWorkflow(), &TfWorkflow::viewOpened);
    action->trigger();
    QCOMPARE(opened.count(), 1);
    view_ = window_->tfWorkflow()->viewTabs()->findChild<TfView*>();
    QVERIFY(view_);
    QVERIFY(window_->tfWorkflow()->dock()->isVisible());
    // The controls scroll sideways: the view never widens the window past a small screen.
    QVERIFY2(view_->minimumSizeHint().width() <= 800,
             qPrintable(QString::number(view_->minimumSizeHint().width())));
    QCOMPARE(static_cast<int>(view_->channel()), browser->firstVisibleChannel());
    // The default order is the table's (3, EVSS1).
    QVERIFY(waitForPage(*view_, 20.0, TfParams{}.order));
    const auto page = view_->page();
    QCOMPARE(page->request.seconds, 10.0);
    QVERIFY(!page->spectrogram.empty());
    QVERIFY(!page->squeezed.empty());
    QVERIFY(view_->spectrogramView()->grid().valid());
    QVERIFY(view_->squeezedView()->grid().valid());
    // One column per screen pixel, about: the hop the plot's width gives.
    const int pixels = static_cast<int>(view_->squeezedView()->plotRect().width());
    QCOMPARE(page->hop, tfDisplayHop(page->sampleRate, 10.0, pixels));
    // What is drawn is the engine's page for that request.
    const TfPage direct = directPage(*view_);
    QCOMPARE(direct.cols, page->cols);
    QCOMPARE(direct.rows, page->rows);
    QVERIFY(direct.squeezed == page->squeezed);
    QCOMPARE(view_->squeezedView()->grid().values, page->squeezed);
    // Ridges drawn over the squeezed image, one point per column.
    QCOMPARE(static_cast<int>(page->ridgeRows.size()), view_->ridgeCount());
    QCOMPARE(view_->squeezedView()->overlayCurves().size(), page->ridgeRows.size());
    QCOMPARE(view_->squeezedView()->overlayCurves().front().size(), page->cols);
    QVERIFY2(view_->problemText().isEmpty(), qPrintable(view_->problemText()));
    // The ridges are on screen (red, drawn over the image by whichever path draws it).
    QTest::qWait(200);
    const QImage shot = view_->squeezedView()->grab().toImage();
    shot.save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/tf_view_squeezed.png"));
    int red = 0;
    for (int y = 0; y < shot.height(); ++y)
      for (int x = 0; x < shot.width(); ++x) {
        const QColor c = shot.pixelColor(x, y);
        red += c.red() > 200 && c.green() < 140 && c.blue() < 140;
      }
    QVERIFY2(red > page->cols / 2, qPrintable(QStringLiteral("%1 red pixels").arg(red)));
    QVERIFY(view_->statusText().contains(QStringLiteral("order 3")));
    // The drawing path (here Mesa under Xvfb: the host path, and why) is the status tool tip.
    QVERIFY(view_->findChild<QLabel*>(QStringLiteral("tfStatus"))
                ->toolTip()
                .contains(QStringLiteral("drawn")));
    // The view's EEG band, 1-45 Hz (the demo runs at 160 Hz).
    QCOMPARE(page->request.params.minFrequency, 1.0);
    QCOMPARE(page->request.params.maxFrequency, 45.0);
    QVERIFY(page->firstHz >= 1.0 && page->rowHz(page->rows - 1) <= 45.0);
  }

  void switchingTheOrderRecomputes() {
    QVERIFY(view_);
    auto* order = view_->findChild<QComboBox*>(QStringLiteral("tfOrder"));
    QVERIFY(order);
    const int second = order->findData(static_cast<int>(TfOrder::Second));
    QVERIFY(second >= 0);
    const std::vector<float> before = view_->page()->squeezed;
    order->setCurrentIndex(second);
    QVERIFY(waitForPage(*view_, 20.0, TfOrder::Second));
    QVERIFY(view_->page()->squeezed != before);
    QVERIFY(directPage(*view_).squeezed == view_->page()->squeezed);
    QVERIFY(view_->squeezedView()->figureTitle().contains(QStringLiteral("order 2")));
    // A window squeezing cannot use is refused in the status line, not computed.
    auto* window = view_->findChild<QComboBox*>(QStringLiteral("tfWindow"));
    QVERIFY(window);
    window->setCurrentIndex(window->findData(static_cast<int>(TfWindow::Hann)));
    QVERIFY(view_->problemText().contains(QStringLiteral("Gaussian")));
    window->setCurrentIndex(window->findData(static_cast<int>(TfWindow::Gaussian)));
    QVERIFY(view_->problemText().isEmpty());
  }

  void followsTheBrowserAsItScrolls() {
    QVERIFY(view_);
    SignalBrowser* browser = window_->currentBrowser();
    const std::vector<float> before = view_->page()->spectrogram;
    const int computed = view_->worker()->pagesComputed();
    browser->nextPage();
    const double start = browser->pageStart();
    QCOMPARE(start, 30.0);
    QVERIFY(waitForPage(*view_, start, TfOrder::Second));
    QVERIFY(view_->worker()->pagesComputed() > computed);
    QVERIFY(view_->page()->spectrogram != before);
    QCOMPARE(view_->spectrogramView()->grid().timeEdges.front() < start + 0.1, true);
    QVERIFY(directPage(*view_).spectrogram == view_->page()->spectrogram);
    // Scrolling on faster than pages are computed: the view ends on the last page.
    for (int i = 0; i < 5; ++i) browser->setPageStart(31.0 + i);
    QVERIFY(waitForPage(*view_, 35.0, TfOrder::Second));
  }

  void exportsTheFigure() {
    QVERIFY(view_);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    // Kept beside the screenshot for a person to look at.
    const QString png = QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/tf_view_figure.png");
    QFile::remove(png);
    QVERIFY2(view_->exportFigure(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    // Both images side by side, at twice the on-screen size.
    QVERIFY(image.width() >=
            2 * (view_->spectrogramView()->width() + view_->squeezedView()->width()) - 4);
    const QString svg = dir.filePath(QStringLiteral("tf.svg"));
    QVERIFY2(view_->exportFigure(svg, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Time-frequency"));
    QVERIFY(!view_->exportFigure(dir.filePath(QStringLiteral("tf.bmpx")), &error));
    QVERIFY(!error.isEmpty());
  }

  void reconstructsRidgesAsADerivedRecording() {
    QVERIFY(view_);
    const int tabs = window_->documentCount();
    QSignalSpy opened(window_->tfWorkflow(), &TfWorkflow::modesOpened);
    auto* button = view_->findChild<QPushButton*>(QStringLiteral("tfReconstructRidges"));
    QVERIFY(button);
    const TfModesRequest request = view_->modesRequest();
    QCOMPARE(request.params.hop, 1);
    button->click();
    QVERIFY(QTest::qWaitFor([&] { return opened.count() > 0; }, 60000));
    QCOMPARE(window_->documentCount(), tabs + 1);
    const Document& doc = window_->documents().back();
    QVERIFY(doc.derived);
    const Recording& modes = *doc.recording;
    QCOMPARE(static_cast<int>(modes.channelCount()), request.readout.ridges + 2);
    QVERIFY(QString::fromStdString(modes.channels[1].name).contains(QStringLiteral("ridge 1")));
    QVERIFY(
        QString::fromStdString(modes.channels.back().name).endsWith(QStringLiteral("residual")));
    // The first channel is the input over the page; the modes carry part of its energy.
    const Recording& source = *view_->recording();
    const double fs = source.channels[view_->channel()].sampleRate;
    const auto n = static_cast<int64_t>(std::llround(request.seconds * fs));
    const auto input =
        source.readChannel(view_->channel(), std::llround(request.startSeconds * fs), n);
    const auto first = modes.readChannel(0, 0, n);
    QVERIFY(input == first);
    double energy = 0, modeEnergy = 0;
    for (int64_t i = 0; i < n; ++i) {
      energy += double(input[i]) * input[i];
      double sum = 0;
      for (int m = 1; m <= request.readout.ridges; ++m) sum += modes.readChannel(m, i, 1)[0];
      modeEnergy += sum * sum;
    }
    QVERIFY(modeEnergy > 0.01 * energy);
    QVERIFY(modeEnergy < energy * 1.5);
    // Undoable like every derived recording.
    window_->undoStack()->undo();
    QCOMPARE(window_->documentCount(), tabs);
  }

  // One image instead of two: the squeezed image alone, twice as wide, on a hop refitted to its
  // width; the spectrogram is not computed.
  void showingOneImageRefitsTheHop() {
    QVERIFY(view_);
    const int hopBefore = view_->page()->hop;
    view_->setDisplay(TfView::Display::Squeezed);
    QVERIFY(QTest::qWaitFor(
        [&] {
          const auto p = view_->page();
          const int pixels = static_cast<int>(view_->squeezedView()->plotRect().width());
          return p && p->spectrogram.empty() && !view_->worker()->busy() &&
                 p->hop == tfDisplayHop(p->sampleRate, p->request.seconds, pixels);
        },
        30000));
    QVERIFY(view_->spectrogramView()->isHidden());
    QVERIFY(view_->page()->hop < hopBefore);
    view_->setDisplay(TfView::Display::SideBySide);
    QVERIFY(QTest::qWaitFor(
        [&] { return !view_->page()->spectrogram.empty() && !view_->worker()->busy(); }, 30000));
  }

  // The component browser's context menu opens the view of the current component's activation,
  // following the activation browser.
  void openedForAnIndependentComponent() {
    IcaWorkflow* ica = window_->icaWorkflow();
    QSignalSpy shown(ica, &IcaWorkflow::resultsShown);
    IcaRequest r;
    r.params = icaPreset("eeglab-runica");
    r.params.maxSteps = 30;  // a decomposition, not a converged one: what is tested is the link
    for (std::size_t c = 0; c < 4; ++c) r.channels.push_back(c);
    r.startSeconds = 0.0;
    r.durationSeconds = 60.0;
    r.backend = BackendChoice::Cpu;
    window_->tabs()->setCurrentIndex(0);
    QVERIFY(ica->runIca(r) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);
    IcaResultsPane* pane = ica->currentResults();
    QVERIFY(pane);
    SignalBrowser* activations = pane->activationBrowser();
    QAction* action = nullptr;
    for (QAction* a : activations->actions())
      if (a->objectName() == QStringLiteral("icaTimeFrequency")) action = a;
    QVERIFY(action);
    QCOMPARE(activations->contextMenuPolicy(), Qt::ActionsContextMenu);
    QSignalSpy opened(window_->tfWorkflow(), &TfWorkflow::viewOpened);
    action->trigger();
    QCOMPARE(opened.count(), 1);
    auto* view = qobject_cast<TfView*>(window_->tfWorkflow()->viewTabs()->currentWidget());
    QVERIFY(view && view != view_);
    QCOMPARE(view->recording(), activations->recording());
    QCOMPARE(static_cast<int>(view->channel()), pane->currentComponent());
    QVERIFY(waitForPage(*view, activations->pageStart(), TfParams{}.order));
    activations->setPageStart(activations->pageStart() + 5.0);
    QVERIFY(waitForPage(*view, activations->pageStart(), TfParams{}.order));
    QVERIFY(directPage(*view).squeezed == view->page()->squeezed);
  }

  // An IMF of an EMD result: the view of that mode on the recording's time axis, following the
  // browser the decomposition came from; the IMF stack offers it on right-click.
  void openedForAnImf() {
    window_->tabs()->setCurrentIndex(0);
    EmdWorkflow* emd = window_->emdWorkflow();
    QSignalSpy shown(emd, &EmdWorkflow::resultsShown);
    DecomposeRequest request;
    request.params.method = EmdMethod::Emd;
    request.channels = {0};
    request.startSeconds = 10.0;
    request.durationSeconds = 40.0;
    request.backend = BackendChoice::Cpu;
    QVERIFY(emd->runDecompose(request) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);
    EmdResultsPane* pane = emd->currentResults();
    QVERIFY(pane);
    QCOMPARE(pane->imfStack()->contextMenuPolicy(), Qt::CustomContextMenu);
    SignalBrowser* browser = window_->currentBrowser();
    browser->setPageStart(20.0);
    TfView* view = window_->tfWorkflow()->openForImf(pane, 1, browser);
    QVERIFY(view);
    QVERIFY(view->title().endsWith(QStringLiteral("IMF 2")));
    QVERIFY(waitForPage(*view, 20.0, TfParams{}.order));
    // The view's channel is IMF 2, placed at the decomposition's start.
    const auto& modes = pane->result()->channels[0];
    const int64_t first = pane->result()->firstSample;
    const auto imf = view->recording()->readChannel(1, first, 100);
    for (int i = 0; i < 100; ++i) QCOMPARE(imf[i], modes.row(1, pane->result()->samples)[i]);
    QVERIFY(directPage(*view).squeezed == view->page()->squeezed);
    browser->setPageStart(25.0);
    QVERIFY(waitForPage(*view, 25.0, TfParams{}.order));
  }

  void screenshot() {
    QVERIFY(view_);
    window_->tabs()->setCurrentIndex(0);
    QTest::qWait(300);
    const QString path = QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/tf_view.png");
    QVERIFY(window_->grab().save(path));
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  std::unique_ptr<MainWindow> window_;
  TfView* view_ = nullptr;
};

QTEST_MAIN(TfViewTest)
#include "tf_view_test.moc"
