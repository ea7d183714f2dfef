// The entropy-matrix workflow (issue 6, item 3) on the demo recording (PhysioNet eegmmidb
// S001R03: 64 channels at 160 Hz): the Analysis menu's dialog run on 21 channels x 4 epochs of 256
// samples on the CPU, the results pane (heat map with labels and read-out, epoch stepping, the
// cell's signals, the scalp lines, the difference view), exports, and bad input shown as
// messages.
//
// Oracles: Cross-ApEn(v||u) and ApEn are recomputed here from the recording's samples by the
// definition in docs/entropy.md (z-scores by each epoch's own mean and population SD, Chebyshev
// distance, d <= r, natural log, bias max), by a direct double loop independent of the engine's
// merged counting; the average is recomputed as the mean over the epochs; the z-scored series of
// the signal view are recomputed from the samples; the K lowest scalp pairs from the shown matrix.
// Pictures go next to the test (MODESCOPE_TEST_OUTPUT_DIR/entropy_*.png);
// docs/images/entropy_matrix.png is written only when MODESCOPE_DOCS_ENTROPY_SCREENSHOT names a
// folder.
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineSeries>
#include <QPointer>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "app/gui/engine_bridge.h"
#include "app/gui/entropy_dialog.h"
#include "app/gui/entropy_results_pane.h"
#include "app/gui/entropy_workflow.h"
#include "app/gui/error_presenter.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_entropy.h"
#include "tests/gui/menu_dialog_support.h"
#include "widgets/connectivity_scalp_view.h"
#include "widgets/info_bar.h"
#include "widgets/job_list_widget.h"
#include "widgets/matrix_heat_map.h"
#include "widgets/param_editor.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif
#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

constexpr int kChannels = 21;  // the FC, C and CP rows of the demo (7 each): a central strip
constexpr int kEpochSamples = 256;
constexpr int kEpochs = 4;

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

void closeErrorBoxes() {
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w->objectName() == QLatin1String(kErrorBoxName)) w->close();
}

std::vector<double> zScore(const std::vector<float>& x) {
  double mean = 0;
  for (float v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (float v : x) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(x.size()));
  std::vector<double> z;
  for (float v : x) z.push_back((v - mean) / sd);
  return z;
}

// Cross-ApEn(v||u) by the definition (docs/entropy.md, "What is computed"), bias max.
double crossApEn(const std::vector<double>& x, const std::vector<double>& y, int m, double r) {
  const int n = static_cast<int>(x.size());
  auto phi = [&](int len, int templates, double noMatch) {
    double sum = 0;
    for (int i = 0; i < templates; ++i) {
      int count = 0;
      for (int j = 0; j < templates; ++j) {
        double d = 0;
        for (int k = 0; k < len; ++k) d = std::max(d, std::abs(x[i + k] - y[j + k]));
        count += d <= r ? 1 : 0;
      }
      sum += std::log(count > 0 ? static_cast<double>(count) / templates : noMatch);
    }
    return sum / templates;
  };
  const int t = n - m + 1;
  return phi(m, t, 1.0) - phi(m + 1, t - 1, 1.0 / (n - m + 1));
}

}  // namespace

class EntropyViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    window_ = std::make_unique<MainWindow>();
    const QString problem = gui_test::showWithDemo(*window_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void dialogCountsEpochsAndRefusesBadInput() {
    const Document* doc = window_->currentDocument();
    QVERIFY(doc);
    EntropyDialog d(doc->recording, {});
    // Defaults: ApEn, m 1, r 0.2, the seed's 1024-sample epochs, the 64 EEG channels.
    const EntropyRequest q = d.request();
    QCOMPARE(q.spec.params.measure, EntropyMeasure::ApproximateEntropy);
    QCOMPARE(q.spec.params.m, 1);
    QCOMPARE(q.spec.params.r, 0.2);
    QCOMPARE(q.spec.params.epochSamples, int64_t{1024});
    QCOMPARE(q.spec.channels.size(), std::size_t{64});
    QVERIFY2(d.validationMessage().isEmpty(), qPrintable(d.validationMessage()));
    // The epoch count follows from the recording's length: floor(samples / N).
    const int64_t total = doc->recording->channels[0].sampleCount;
    QVERIFY(d.epochCountText().startsWith(QString::number(total / 1024) + QLatin1String(" epoch")));
    // Seconds: 1.6 s at 160 Hz = 256 samples.
    d.setEpoch(1.6, EntropyEpochUnit::Seconds);
    QCOMPARE(d.request().spec.params.epochSamples, int64_t{256});
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    save(&d, "entropy_dialog");
    // r = 0 cannot be entered: the r editor's range is the declaration's (r > 0, 3 decimals), so
    // it holds its least value, 0.001.
    EntropyParams p;
    p.r = 0.0;
    d.setParams(p);
    QCOMPARE(d.request().spec.params.r, 0.001);
    QVERIFY2(d.validationMessage().isEmpty(), qPrintable(d.validationMessage()));
    // An epoch shorter than m + 2 (m = 2: 4 samples): the engine's message, naming the epoch; Run
    // disabled.
    p.r = 0.2;
    p.m = 2;
    d.setParams(p);
    QVERIFY(d.validationMessage().isEmpty());
    d.setEpoch(3, EntropyEpochUnit::Samples);
    QVERIFY(d.validationMessage().contains(QLatin1String("epoch")));
    QVERIFY(!d.findChild<QLabel*>(QStringLiteral("entropyValidationMessage"))->isHidden());
    save(&d, "entropy_dialog_error");
    d.accept();
    QCOMPARE(d.result(), 0);  // refused, still open
    d.setEpoch(256, EntropyEpochUnit::Samples);
    QVERIFY(d.validationMessage().isEmpty());
  }

  void dialogSaysWhichEpochsBadSegmentsLeaveOut() {
    // A bad segment over the second 1024-sample epoch (6.4-12.8 s at 160 Hz).
    auto marked = std::make_shared<Recording>(*window_->currentDocument()->recording);
    marked->annotations.push_back({8.0, 1.0, "BAD_muscle"});
    EntropyDialog d(marked, {});
    const auto* field = entropyParamTable().find("excludeBadSegments");
    QVERIFY(field);
    const auto* leaveOut =
        d.findChild<QCheckBox*>(paramObjectName(field->decl, QStringLiteral("entropy")));
    QVERIFY(leaveOut && leaveOut->isChecked());  // on by default
    QVERIFY2(d.epochCountText().contains(
                 QStringLiteral("1 of them overlap bad segments and are left out")),
             qPrintable(d.epochCountText()));
    QVERIFY(d.request().spec.params.excludeBadSegments);
    EntropyParams keep;
    keep.excludeBadSegments = false;
    d.setParams(keep);
    QVERIFY2(
        d.epochCountText().contains(QStringLiteral("1 of them overlap bad segments and are kept")),
        qPrintable(d.epochCountText()));
    QVERIFY(!d.request().spec.params.excludeBadSegments);
  }

  void badRequestFailsWithMessage() {
    // A request that bypasses the dialog: the job refuses it and the window stays usable.
    EntropyRequest q;
    q.spec.channels = {0, 1, 2};
    q.spec.params.r = -1.0;
    q.backend = BackendChoice::Cpu;
    QSignalSpy failed(window_->entropyWorkflow(), &EntropyWorkflow::runFailed);
    QVERIFY(window_->entropyWorkflow()->runEntropy(q) != 0);
    QVERIFY(failed.wait(30000) || failed.count() > 0);
    QVERIFY(failed.at(0).at(0).toString().contains(QLatin1String("r")));
    closeErrorBoxes();
  }

  void runAndBrowse() {
    QSignalSpy shown(window_->entropyWorkflow(), &EntropyWorkflow::resultsShown);
    std::vector<std::size_t> channels;
    for (int c = 0; c < kChannels; ++c) channels.push_back(static_cast<std::size_t>(c));
    const QString problem = gui_test::runMenuDialog<EntropyDialog>(
        *window_, QStringLiteral("&Entropy matrices (Cross-ApEn / SampEn)..."),
        [&](EntropyDialog& d) {
          gui_test::fillRangeAndBackend(d, 0.0, kEpochs * kEpochSamples / 160.0,
                                        BackendChoice::Cpu);
          d.setChannels(channels);
          d.setEpoch(kEpochSamples, EntropyEpochUnit::Samples);
          return d.validationMessage();
        });
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(shown.wait(120000) || shown.count() > 0);
    EntropyResultsPane* pane = window_->entropyWorkflow()->currentResults();
    QVERIFY(pane);
    pane_ = pane;
    QVERIFY(window_->entropyWorkflow()->dock()->isVisible());
    const EntropyMatrixResult& r = pane->result();
    const Recording& rec = *window_->currentDocument()->recording;
    QCOMPARE(r.channelCount(), std::size_t{kChannels});
    QCOMPARE(r.epochCount(), std::size_t{kEpochs});
    QCOMPARE(r.epochSamples, int64_t{kEpochSamples});

    // The oracle: Cross-ApEn of (u, v) in epoch 0 and ApEn on the diagonal, from the samples.
    auto epochZ = [&](std::size_t ch, std::size_t e) {
      return zScore(rec.readChannel(ch, static_cast<int64_t>(e) * kEpochSamples, kEpochSamples));
    };
    // A boundary match (d within rounding of r) could flip one count; that moves a value by
    // ~1e-4, while summation order alone moves it by ~1e-13: 1e-9 separates the two.
    for (auto [u, v] : {std::pair<std::size_t, std::size_t>{0, 1}, {5, 2}, {3, 3}}) {
      const double want = crossApEn(epochZ(u, 0), epochZ(v, 0), 1, 0.2);
      QVERIFY2(
          std::abs(r.at(0, u, v) - want) < 1e-9,
          qPrintable(
              QStringLiteral("[%1][%2]: %3 vs %4").arg(u).arg(v).arg(r.at(0, u, v)).arg(want)));
    }
    // Not symmetric: the two directions differ somewhere.
    bool asymmetric = false;
    for (std::size_t u = 0; u < kChannels; ++u)
      for (std::size_t v = 0; v < kChannels; ++v)
        asymmetric = asymmetric || std::abs(r.at(0, u, v) - r.at(0, v, u)) > 1e-6;
    QVERIFY(asymmetric);

    // The heat map: the average, labelled with the channel names, axis titles as in the docs.
    MatrixHeatMap* map = pane->heatMap();
    QCOMPARE(map->rowCount(), kChannels);
    QCOMPARE(map->columnCount(), kChannels);
    QCOMPARE(pane->epoch(), -1);
    for (std::size_t u = 0; u < kChannels; ++u)
      for (std::size_t v = 0; v < kChannels; ++v) {
        double mean = 0;
        for (std::size_t e = 0; e < kEpochs; ++e) mean += r.at(e, u, v);
        mean /= kEpochs;
        QVERIFY(std::abs(map->value(static_cast<int>(u), static_cast<int>(v)) - mean) < 1e-12);
      }
    const QString n0 = QString::fromStdString(rec.channels[0].name);
    const QString n1 = QString::fromStdString(rec.channels[1].name);
    // Hovering a cell reads out both names and the value. The pointer first leaves the cell: a
    // move to where it already is sends no event, whatever the result area's layout.
    QTest::mouseMove(map, QPoint(1, 1));
    QTest::mouseMove(map, map->cellRect(0, 1).center().toPoint());
    QTRY_VERIFY(map->readout().contains(n0) && map->readout().contains(n1));
    QCOMPARE(map->readout(), map->readoutText(0, 1));

    // Epoch stepping: the spin box, the slider, PageDown.
    pane->epochSpin()->setValue(2);
    QCOMPARE(pane->epoch(), 1);
    QCOMPARE(map->value(2, 3), r.at(1, 2, 3));
    pane->epochSlider()->setValue(3);
    QCOMPARE(pane->epoch(), 2);
    QCOMPARE(pane->epochSpin()->value(), 3);
    QTest::keyClick(pane, Qt::Key_PageDown);
    QCOMPARE(pane->epoch(), 3);
    QCOMPARE(map->value(4, 1), r.at(3, 4, 1));
    QTest::keyClick(pane, Qt::Key_PageDown);  // stays at the last epoch
    QCOMPARE(pane->epoch(), 3);

    // Mask the diagonal: no value there, the pairs keep theirs.
    pane->setMaskDiagonal(true);
    QVERIFY(std::isnan(map->value(2, 2)));
    QCOMPARE(map->value(2, 3), r.at(3, 2, 3));
    // The colour scale fits the pairs only.
    double minOff = 1e300;
    for (std::size_t u = 0; u < kChannels; ++u)
      for (std::size_t v = 0; v < kChannels; ++v)
        if (u != v) minOff = std::min(minOff, r.at(3, u, v));
    QCOMPARE(map->scaleLow(), minOff);

    // Click a cell: the signal view shows both channels' z-scored epoch 4.
    QSignalSpy cell(pane, &EntropyResultsPane::currentCellChanged);
    map->setFocus();
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(2, 5).center().toPoint());
    QCOMPARE(pane->currentRow(), 2);
    QCOMPARE(pane->currentColumn(), 5);
    QVERIFY(cell.count() >= 1);
    QCOMPARE(pane->templateSeries()->count(), kEpochSamples);
    QCOMPARE(pane->targetSeries()->count(), kEpochSamples);
    const std::vector<double> zu = epochZ(2, 3), zv = epochZ(5, 3);
    for (int k : {0, 17, kEpochSamples - 1}) {
      QVERIFY(std::abs(pane->templateSeries()->at(k).y() - zu[k]) < 1e-9);
      QVERIFY(std::abs(pane->targetSeries()->at(k).y() - zv[k]) < 1e-9);
      QCOMPARE(pane->templateSeries()->at(k).x(), (3.0 * kEpochSamples + k) / 160.0);
    }
    QVERIFY(pane->templateSeries()->name().contains(QString::fromStdString(rec.channels[2].name)));
    QVERIFY(
        pane->cellLabel()->text().contains(QString::fromStdString(formatNumber(r.at(3, 2, 5)))));
    // The arrow keys move the cell; the signals follow.
    QTest::keyClick(map, Qt::Key_Right);
    QCOMPARE(pane->currentColumn(), 6);
    QCOMPARE(pane->targetSeries()->at(0).y(), epochZ(6, 3)[0]);

    // Scalp lines: K lowest pairs by the mean of both directions of the shown matrix.
    ConnectivityScalpView* scalp = pane->scalpView();
    QCOMPARE(scalp->lines().size(), std::size_t{10});
    pane->findChild<QSpinBox*>(QStringLiteral("entropyLineCount"))->setValue(3);
    QCOMPARE(scalp->lines().size(), std::size_t{3});
    std::vector<double> means;
    const std::vector<double>& s = pane->shownMatrix();
    for (std::size_t u = 0; u < kChannels; ++u)
      for (std::size_t v = u + 1; v < kChannels; ++v)
        means.push_back(0.5 * (s[u * kChannels + v] + s[v * kChannels + u]));
    std::sort(means.begin(), means.end());
    for (std::size_t k = 0; k < 3; ++k) QCOMPARE(scalp->lines()[k].value, means[k]);
    QVERIFY(scalp->unmappedChannels().isEmpty());  // the demo's channels all have positions

    pane->setEpoch(-1);
    window_->infoBar()->hide();
    QTest::qWait(200);
    save(pane, "entropy_pane");
  }

  void differenceView() {
    QVERIFY(pane_);
    EntropyResultsPane* pane = pane_;
    // With itself: every entry 0 on a diverging scale.
    QString error;
    QVERIFY2(pane->setComparison({QStringLiteral("itself"), pane->job().run}, &error),
             qPrintable(error));
    QVERIFY(pane->showsDifference());
    QCOMPARE(pane->heatMap()->colourMode(), MatrixHeatMap::ColourMode::Diverging);
    for (double v : pane->shownMatrix()) QCOMPARE(v, 0.0);
    pane->setShowDifference(false);
    // Mismatched parameters and channels are refused with the reason.
    auto other = std::make_shared<EntropyFileRecording>(*pane->job().run);
    other->result.params.r = 0.25;
    QVERIFY(!pane->setComparison({QStringLiteral("r"), other}, &error));
    QVERIFY2(error.contains(QLatin1String("r 0.2 vs 0.25")), qPrintable(error));
    other = std::make_shared<EntropyFileRecording>(*pane->job().run);
    std::swap(other->result.channelNames[0], other->result.channelNames[1]);
    QVERIFY(!pane->setComparison({QStringLiteral("order"), other}, &error));
    QVERIFY(error.contains(QLatin1String("channels differ")));
    QVERIFY(!pane->showsDifference());
  }

  void exports() {
    QVERIFY(pane_);
    EntropyResultsPane* pane = pane_;
    QTemporaryDir tmp;
    for (const char* which : {"matrix", "scalp", "signals", "all"})
      for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = tmp.filePath(QStringLiteral("%1.%2").arg(which, ext));
        QString error;
        QVERIFY2(pane->exportFigure(QLatin1String(which), path, &error), qPrintable(error));
        QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
      }
    // HDF5: read back with the engine's reader; the average round-trips exactly.
    const QString h5 = tmp.filePath(QStringLiteral("m.h5"));
    QString error;
    QVERIFY2(pane->exportHdf5(h5, &error), qPrintable(error));
    QVERIFY(isEntropyFile(h5.toStdString()));
    const EntropyFile f = readEntropyFile(h5.toStdString());
    QCOMPARE(f.recordings.size(), std::size_t{1});
    QCOMPARE(f.recordings[0].result.average, pane->result().average);
    QCOMPARE(f.recordings[0].result.epochValues, pane->result().epochValues);
    QCOMPARE(f.recordings[0].result.channelNames, pane->result().channelNames);
    // The exported file as B: A - B is zero.
    QVERIFY2(pane->loadComparisonFile(h5, &error), qPrintable(error));
    for (double v : pane->shownMatrix()) QCOMPARE(v, 0.0);
    pane->setShowDifference(false);
    // CSV of the shown matrix (the average): header, then one row per template channel.
    const QString csv = tmp.filePath(QStringLiteral("m.csv"));
    QVERIFY2(pane->exportCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), kChannels + 1);
    QVERIFY(lines[0].startsWith(QLatin1String("template\\target,")));
    const QStringList row1 = lines[2].split(',');
    QCOMPARE(row1[0], QString::fromStdString(pane->result().channelNames[1]));
    QCOMPARE(row1[3].toDouble(), pane->result().averageAt(1, 2));  // 17 digits: exact
    // A bad path fails with a message, no crash.
    QVERIFY(!pane->exportCsv(QStringLiteral("/nonexistent-dir/x.csv"), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!pane->loadComparisonFile(csv, &error));
    QVERIFY(!error.isEmpty());

    const QByteArray docs = qgetenv("MODESCOPE_DOCS_ENTROPY_SCREENSHOT");
    pane->setMaskDiagonal(true);
    pane->setCurrentCell(2, 5);
    pane->findChild<QSpinBox*>(QStringLiteral("entropyLineCount"))->setValue(10);
    QDockWidget* dock = window_->entropyWorkflow()->dock();
    dock->setFloating(true);
    dock->resize(1440, 800);
    QTest::qWait(400);
    save(dock, "entropy_matrix");
    if (!docs.isEmpty())
      QVERIFY(
          dock->grab().save(QString::fromLocal8Bit(docs) + QStringLiteral("/entropy_matrix.png")));
    dock->setFloating(false);
  }

  void sessionComparison() {
    // B: the same channels and parameters on the next 6.4 s. Its "Compare with..." offers A.
    QVERIFY(pane_);
    EntropyRequest q;
    q.spec = EntropyJobSpec{};
    for (int c = 0; c < kChannels; ++c) q.spec.channels.push_back(static_cast<std::size_t>(c));
    q.spec.params.epochSamples = kEpochSamples;
    q.spec.startSeconds = kEpochs * kEpochSamples / 160.0;
    q.spec.durationSeconds = kEpochs * kEpochSamples / 160.0;
    q.backend = BackendChoice::Cpu;
    QSignalSpy shown(window_->entropyWorkflow(), &EntropyWorkflow::resultsShown);
    QVERIFY(window_->entropyWorkflow()->runEntropy(q) != 0);
    QVERIFY(shown.wait(120000) || shown.count() > 0);
    EntropyResultsPane* b = window_->entropyWorkflow()->currentResults();
    QVERIFY(b && b != pane_);
    QCOMPARE(window_->entropyWorkflow()->resultTabs()->count(), 2);
    QCOMPARE(b->result().epochStarts.size(), std::size_t{kEpochs});
    const std::vector<EntropyComparison> offered = b->comparisonSources();
    QCOMPARE(offered.size(), std::size_t{1});
    QCOMPARE(offered[0].second, pane_->job().run);
    QString error;
    QVERIFY2(b->setComparison(offered[0], &error), qPrintable(error));
    const std::size_t c = kChannels;
    for (std::size_t i = 0; i < c * c; ++i)
      QCOMPARE(b->shownMatrix()[i], b->result().average[i] - pane_->result().average[i]);
    QCOMPARE(b->heatMap()->scaleLow(), -b->heatMap()->scaleHigh());
    save(b, "entropy_difference");
  }

  void cancelLeavesNoResult() {
    // All 64 channels over the whole recording in the seed's 1024-sample epochs: minutes of CPU
    // work, so only the cancel ends it.
    EntropyRequest q;
    for (std::size_t ch = 0; ch < 64; ++ch) q.spec.channels.push_back(ch);
    q.spec.params.epochSamples = 1024;
    q.backend = BackendChoice::Cpu;
    const int tabs = window_->entropyWorkflow()->resultTabs()->count();
    QSignalSpy shown(window_->entropyWorkflow(), &EntropyWorkflow::resultsShown);
    QSignalSpy progressed(window_->engine(), &EngineBridge::jobProgressed);
    const JobId id = window_->entropyWorkflow()->runEntropy(q);
    QVERIFY(id != 0);
    QTRY_VERIFY_WITH_TIMEOUT(!progressed.isEmpty(), 30000);
    window_->engine()->cancel(id);
    QTRY_VERIFY_WITH_TIMEOUT(
        window_->jobList()->jobState(id) == std::optional<JobState>(JobState::Cancelled), 30000);
    QTest::qWait(100);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(window_->entropyWorkflow()->resultTabs()->count(), tabs);
  }

  void cleanupTestCase() { window_.reset(); }

 private:
  std::unique_ptr<MainWindow> window_;
  QPointer<EntropyResultsPane> pane_;
};

QTEST_MAIN(EntropyViewsTest)
#include "entropy_views_test.moc"
