// The EMD-family views and workflow (issue 3, item 4) on hand-made results: modes that are sums
// of known tones and a Hilbert spectrum filled by hand, so every expected value (trace count,
// bin value under the cursor, visible range after a zoom, the cleaned samples) follows from the
// construction, not from the code under test. Each view is also saved as a PNG next to the test
// (MODESCOPE_TEST_OUTPUT_DIR/emd_*.png) for looking at.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/core/imf_reconstruction.h"
#include "app/gui/decompose_dialog.h"
#include "app/gui/emd_job.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/emd_workflow.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/core/error.h"
#include "tests/gui/menu_dialog_support.h"
#include "tests/unit/backend_test_double.h"
#include "widgets/colour_map.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/imf_stack_view.h"
#include "widgets/job_list_widget.h"
#include "widgets/marginal_spectrum_view.h"
#include "widgets/signal_browser.h"

using namespace modescope;

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

constexpr double kRate = 200.0;     // Hz
constexpr int64_t kSamples = 2000;  // 10 s
constexpr int64_t kFirst = 200;     // the block starts 1 s into the recording
// IMF k is a tone kAmp[k] sin(2 pi kFreq[k] t); the residue a ramp.
constexpr double kFreq[] = {40.0, 10.0, 2.0};
constexpr double kAmp[] = {5.0, 20.0, 30.0};
constexpr int kRows = 4;

double rowValue(int r, int64_t n) {
  const double t = static_cast<double>(n) / kRate;
  return r < 3 ? kAmp[r] * std::sin(2 * std::numbers::pi * kFreq[r] * t) : 10.0 + 2.0 * t;
}

EmdChannelModes modesFor(std::size_t channel) {
  EmdChannelModes m;
  m.channel = channel;
  m.rows = kRows;
  m.data.resize(kRows * kSamples);
  for (int r = 0; r < kRows; ++r)
    for (int64_t n = 0; n < kSamples; ++n) m.row(r, kSamples)[n] = float(rowValue(r, n));
  m.sifts = {12, 9, 7, 0};
  return m;
}

std::shared_ptr<EmdResult> makeResult(std::vector<std::size_t> channels = {0, 2}) {
  auto r = std::make_shared<EmdResult>();
  r->sampleRate = kRate;
  r->firstSample = kFirst;
  r->samples = kSamples;
  for (std::size_t c : channels) r->channels.push_back(modesFor(c));
  r->provenance.backend = "CPU, test";
  return r;
}

// 50 linear bins of 2 Hz from 0 to 100 Hz, 100 time bins of 20 samples. `unique`: bin (r, c)
// holds 1000 r + c (every value tells where it came from); otherwise each IMF's amplitude sits
// in the bin of its tone.
constexpr int kFreqBins = 50;
constexpr int kTimeBins = 100;

std::shared_ptr<HhtResult> makeHht(const EmdResult& modes, bool unique) {
  auto h = std::make_shared<HhtResult>();
  h->params.fMin = 0;
  h->params.fMax = 100;
  h->params.frequencyBins = kFreqBins;
  h->params.timeBins = kTimeBins;
  h->sampleRate = kRate;
  h->firstSample = kFirst;
  h->samples = kSamples;
  for (int i = 0; i <= kFreqBins; ++i) h->frequencyEdges.push_back(2.0 * i);
  for (int i = 0; i <= kTimeBins; ++i) h->timeEdges.push_back(20 * i);
  for (const auto& m : modes.channels) {
    HhtChannel ch;
    ch.channel = m.channel;
    ch.spectrum.assign(kFreqBins * kTimeBins, 0.0f);
    for (int r = 0; r < kFreqBins; ++r)
      for (int c = 0; c < kTimeBins; ++c)
        if (unique) ch.spectrum[r * kTimeBins + c] = float(1000 * r + c);
    ch.marginal.assign(kFreqBins, 0.0);
    for (int k = 0; k < 3; ++k) {
      const int bin = static_cast<int>(kFreq[k] / 2.0);
      if (!unique)
        for (int c = 0; c < kTimeBins; ++c) ch.spectrum[bin * kTimeBins + c] = float(kAmp[k]);
      ch.marginal[bin] = kAmp[k] * kSamples / kRate;
      HhtImf imf;
      imf.row = k;
      imf.meanFrequencyHz = kFreq[k];
      imf.energy = kAmp[k] * kAmp[k] / 2 * kSamples / kRate;
      imf.amplitude.assign(kSamples, float(kAmp[k]));
      // A small wobble so the frequency trace is visible as a line, not a flat edge.
      for (int64_t n = 0; n < kSamples; ++n)
        imf.frequencyHz.push_back(float(kFreq[k] * (1 + 0.1 * std::sin(n / 40.0))));
      ch.imfs.push_back(std::move(imf));
    }
    h->channels.push_back(std::move(ch));
  }
  return h;
}

// Three EEG channels of 15 s at kRate whose samples are 1000 c + i/1000 (recognisable).
std::shared_ptr<const Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  const char* names[] = {"Fp1", "Cz", "O1"};
  std::vector<std::vector<float>> data(3);
  for (int c = 0; c < 3; ++c) {
    ChannelInfo info;
    info.label = info.name = names[c];
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = kRate;
    info.sampleCount = 3000;
    rec->channels.push_back(info);
    for (int i = 0; i < 3000; ++i) data[c].push_back(float(1000 * c) + float(i) / 1000.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

// Pixels in `area` of colour close to `colour` (each channel within 40 levels: antialiasing).
int pixelsLike(const QImage& image, const QRect& area, QColor colour) {
  int n = 0;
  for (int y = std::max(0, area.top()); y <= std::min(image.height() - 1, area.bottom()); ++y)
    for (int x = std::max(0, area.left()); x <= std::min(image.width() - 1, area.right()); ++x) {
      const QColor p = image.pixelColor(x, y);
      if (std::abs(p.red() - colour.red()) < 40 && std::abs(p.green() - colour.green()) < 40 &&
          std::abs(p.blue() - colour.blue()) < 40)
        ++n;
    }
  return n;
}

const QColor kImfBlue(0x1f, 0x4e, 0x9a);
const QColor kGrey(0xb4, 0xb4, 0xb4);

void wheel(QWidget* w, QPointF pos, int delta, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, mods,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
}

// A backend for the decomposition job: decompose() returns the tone modes for the block's channels
// and records what it was given; hilbertHuang() the hand-filled spectrum.
class FakeBackend final : public test_support::UnexpectedCallBackend {
 public:
  SignalBlock seen;
  BackendInfo info() const override { return {}; }
  void applyReference(SignalBlock&, const ReferencePlan&, JobContext&) override {}
  void applyFir(SignalBlock&, const FirKernel&, JobContext&) override {}
  EmdResult decompose(const SignalBlock& block, const EmdParams& params, JobContext& ctx) override {
    seen = block;
    ctx.progress(1.0, "sifting");
    EmdResult r = *makeResult(block.channels);
    r.params = params;
    return r;
  }
  HhtResult hilbertHuang(const EmdResult& modes, const HhtParams&, JobContext&) override {
    return *makeHht(modes, false);
  }
};

std::vector<EmdPreset> testPresets() {
  EmdPreset a;
  a.name = "iceemdan-colominas";
  a.description = "test: iceemdan.m";
  a.params.method = EmdMethod::Iceemdan;
  a.params.ensembleSize = 100;
  a.params.noiseStd = 0.2;
  a.params.stop.maxSifts = 5000;
  EmdPreset b;
  b.name = "eemd-wu";
  b.description = "test: Wu and Huang 2009";
  b.params.method = EmdMethod::Eemd;
  b.params.ensembleSize = 250;
  b.params.noiseStd = 0.35;
  b.params.seed = 77;
  b.params.stop.kind = StopRuleKind::FixedSifts;
  b.params.stop.fixedSifts = 10;
  b.params.maxImfs = 9;
  return {a, b};
}

// Stands in for validateEmdParams with a rule of the same shape and a recognisable message.
void testValidator(const EmdParams& p) {
  if (p.ensembleSize == 7)
    throw InvalidParameterError("ensembleSize", "7", "anything but 7", "test rule");
}

// What decomposeFromMenu types into the dialog.
struct MenuDecompose {
  QStringList channels;  // names to tick; empty = every channel
  double startSeconds = 0.0;
  double durationSeconds = -1;  // < 0: to the end
  EmdMethod method = EmdMethod::Iceemdan;
  int ensembleSize = 10;
  int fixedSifts = 0;  // > 0: a fixed number of sifts (and noise sifts); 0: as preset
};

// "Analysis > Decompose (EMD family)..." with the dialog filled as a user would and the real CPU
// backend chosen; returns the dialog's validation message ("" when Run was accepted). The dialog
// is modal, so it is filled from a timer inside its event loop.
QString decomposeFromMenu(MainWindow& window, const MenuDecompose& m) {
  const auto rec = window.currentDocument()->recording;
  return gui_test::runMenuDialog<DecomposeDialog>(
      window, QStringLiteral("&Decompose (EMD family)..."), [&](DecomposeDialog& dialog) {
        DecomposeDialog* d = &dialog;
        auto* channels = d->findChild<QListWidget*>(QStringLiteral("channels"));
        for (int i = 0; i < channels->count(); ++i) {
          const bool tick = m.channels.isEmpty() ||
                            m.channels.contains(QString::fromStdString(rec->channels[i].name));
          channels->item(i)->setCheckState(tick ? Qt::Checked : Qt::Unchecked);
        }
        gui_test::fillRangeAndBackend(dialog, m.startSeconds, m.durationSeconds,
                                      BackendChoice::Cpu);
        auto pick = [d](const char* name, int value) {
          auto* c = d->findChild<QComboBox*>(QLatin1String(name));
          c->setCurrentIndex(c->findData(value));
        };
        pick("method", static_cast<int>(m.method));
        d->findChild<QSpinBox*>(QStringLiteral("ensembleSize"))->setValue(m.ensembleSize);
        if (m.fixedSifts > 0) {
          pick("stopKind", static_cast<int>(StopRuleKind::FixedSifts));
          d->findChild<QSpinBox*>(QStringLiteral("stopFixedSifts"))->setValue(m.fixedSifts);
          pick("noiseStopKind", static_cast<int>(StopRuleKind::FixedSifts));
          d->findChild<QSpinBox*>(QStringLiteral("noiseStopFixedSifts"))->setValue(m.fixedSifts);
        }
        return d->validationMessage();
      });
}

}  // namespace

class EmdViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("emd_views_test"));
  }

  void colourMapIsOrderedAndScalesMapValues() {
    const ColourMap map = ColourMap::viridis();
    // Ends are the published end colours; lightness (Rec. 709 luma) rises monotonically, which
    // is what makes the map readable in grey and ordered to the eye.
    QCOMPARE(map.colourAt(0.0), qRgb(68, 1, 84));
    QCOMPARE(map.colourAt(1.0), qRgb(253, 231, 37));
    double last = -1;
    for (QRgb c : map.table()) {
      const double luma = 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c);
      QVERIFY(luma >= last - 0.5);  // half a level: rounding of interpolated entries
      last = luma;
    }
    ColourScale log{ColourScaleKind::Log, 1e-3, 1.0};
    QVERIFY(std::fabs(log.position(std::pow(10.0, -1.5)) - 0.5) < 1e-12);
    QCOMPARE(log.position(0.0), 0.0);
    QCOMPARE(log.position(5.0), 1.0);
    ColourScale lin{ColourScaleKind::Linear, 0.0, 4.0};
    QCOMPARE(lin.position(1.0), 0.25);
    QCOMPARE(lin.valueAt(0.75), 3.0);
    const float values[] = {0.0f, 2.0f, 8.0f, NAN};
    const ColourScale fitted = ColourScale::fit(values, 4, ColourScaleKind::Log, 2.0);
    QCOMPARE(fitted.high, 8.0);
    QCOMPARE(fitted.low, 0.08);
    // The image puts row 0 at the bottom.
    const float grid[] = {0.0f, 0.0f, 4.0f, 4.0f};  // rows x cols = 2 x 2
    const QImage img = mapGridToImage(grid, 2, 2, map, lin);
    QCOMPARE(img.pixel(0, 1), map.colourAt(0.0));
    QCOMPARE(img.pixel(0, 0), map.colourAt(1.0));
  }

  void imfStackDrawsOneTracePerRowWithLabels() {
    auto result = makeResult();
    ImfStackView view;
    view.resize(900, 600);
    view.setModes(result, 0, makeHht(*result, false), QStringLiteral("uV"), QStringLiteral("Fp1"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.rowCount(), kRows);
    QCOMPARE(view.traceCount(), kRows);
    QCOMPARE(view.rowLabel(0), QStringLiteral("IMF 1 \u00b7 40.0 Hz"));
    QCOMPARE(view.rowLabel(2), QStringLiteral("IMF 3 \u00b7 2.00 Hz"));
    QCOMPARE(view.rowLabel(3), QStringLiteral("Residue"));
    // Every IMF row has its own trace drawn (blue pixels inside its band, right of the labels).
    const QImage image = view.grab().toImage();
    for (int r = 0; r < 3; ++r) {
      QRect band = view.labelRect(r);
      band.setLeft(160);
      band.setRight(view.width() - 60);
      QVERIFY2(pixelsLike(image, band, kImfBlue) > 200, qPrintable(QString::number(r)));
    }
    save(&view, "emd_imf_stack");
    // Figure export in the three formats (page_export.h); a bad extension is refused.
    QTemporaryDir tmp;
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString path = tmp.filePath(QStringLiteral("stack.") + QLatin1String(ext));
      QString error;
      QVERIFY2(view.exportImage(path, &error), qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 1000);
    }
    QVERIFY(!view.exportImage(tmp.filePath(QStringLiteral("stack.txt"))));

    QVERIFY(view.hasInstantaneousFrequency());
    view.setShowInstantaneousFrequency(true);
    QCOMPARE(view.traceCount(), kRows + 3);
    view.setPreview(std::vector<float>(kSamples, 1.0f), std::vector<float>(kSamples, 0.5f));
    QCOMPARE(view.traceCount(), kRows + 3 + 2);
    view.setTimeWindow(3.0, 1.0);
    save(&view, "emd_imf_stack_frequency_preview");
    // A preview of the wrong length is refused rather than read past its end.
    view.setPreview(std::vector<float>(10, 1.0f), std::vector<float>(10, 1.0f));
    QVERIFY(!view.hasPreview());
  }

  void clickingALabelTogglesItsMark() {
    auto result = makeResult();
    ImfStackView view;
    view.resize(800, 500);
    view.setModes(result, 0);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy marks(&view, &ImfStackView::marksChanged);
    const QRect label = view.labelRect(1);
    QTest::mouseClick(&view, Qt::LeftButton, {}, label.center());
    QVERIFY(view.isMarked(1));
    QCOMPARE(marks.count(), 1);
    QCOMPARE(view.markedRows(), std::vector<int>{1});
    // The marked row is drawn grey, the others still blue.
    QImage image = view.grab().toImage();
    QRect band = label;
    band.setLeft(160);
    band.setRight(view.width() - 60);
    QCOMPARE(pixelsLike(image, band, kImfBlue), 0);
    QVERIFY(pixelsLike(image, band, kGrey) > 200);
    save(&view, "emd_imf_stack_marked");
    QTest::mouseClick(&view, Qt::LeftButton, {}, label.center() + QPoint(0, 200));
    QTest::qWait(QApplication::doubleClickInterval() + 50);  // not a double-click
    QTest::mouseClick(&view, Qt::LeftButton, {}, label.center());
    QVERIFY(!view.isMarked(1));
    QCOMPARE(marks.count(), 3);
  }

  void stackTimeWindowFollowsAndReportsUserChanges() {
    auto result = makeResult();
    ImfStackView view;
    view.resize(800, 500);
    view.setModes(result, 0);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.windowStart(), 1.0);  // kFirst / kRate
    QCOMPARE(view.windowSeconds(), 10.0);
    QSignalSpy changed(&view, &ImfStackView::timeWindowChanged);
    view.setTimeWindow(4.0, 2.0);  // from a linked view: no echo
    QCOMPARE(view.windowStart(), 4.0);
    QCOMPARE(view.windowSeconds(), 2.0);
    QCOMPARE(changed.count(), 0);
    view.setTimeWindow(10.5, 2.0);  // clipped to the block's end (11 s)
    QCOMPARE(view.windowStart(), 9.0);
    // Ctrl+wheel up zooms in by kZoomStep about the cursor; plain wheel pans a tenth.
    wheel(&view, QPointF(500, 200), 120, Qt::ControlModifier);
    QCOMPARE(changed.count(), 1);
    QVERIFY(std::fabs(view.windowSeconds() - 2.0 / ImfStackView::kZoomStep) < 1e-9);
    const double start = view.windowStart();
    wheel(&view, QPointF(500, 200), 120);
    QCOMPARE(changed.count(), 2);
    QVERIFY(std::fabs(view.windowStart() -
                      (start - ImfStackView::kWheelPanFraction * view.windowSeconds())) < 1e-9);
    QCOMPARE(changed.last().at(0).toDouble(), view.windowStart());
  }

  void spectrumReadoutShowsTheBinUnderTheCursor() {
    auto result = makeResult();
    HilbertSpectrumView view;
    view.resize(700, 420);
    view.setGrid(spectrumGridFromHht(*makeHht(*result, true), 0, QStringLiteral("uV")));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QRectF p = view.plotRect();
    // The centre of bin (row 7 = 14..16 Hz, column 33 = samples 660..680).
    const int row = 7, col = 33;
    const QPointF pos(p.left() + (col + 0.5) / kTimeBins * p.width(),
                      p.bottom() - (row + 0.5) / kFreqBins * p.height());
    const auto r = view.readoutAt(pos);
    QVERIFY(r.has_value());
    QCOMPARE(r->row, row);
    QCOMPARE(r->col, col);
    QCOMPARE(r->value, 7033.0f);
    // Its time and frequency are the bin centre's: (200 + 670) / 200 s and 15 Hz (half a pixel
    // of the plot as tolerance: the position was rounded to the pixel grid by nothing, but the
    // bin is ~6 px wide).
    QVERIFY(std::fabs(r->seconds - 870.0 / kRate) < 0.05);
    QVERIFY(std::fabs(r->hz - 15.0) < 0.2);
    QSignalSpy moved(&view, &HilbertSpectrumView::cursorMoved);
    QTest::mouseMove(&view, pos.toPoint());
    QTRY_VERIFY(moved.count() >= 1);
    QVERIFY2(moved.last().at(0).toString().contains(QStringLiteral("7033")),
             qPrintable(moved.last().at(0).toString()));
    QVERIFY(!view.readoutAt(QPointF(2, 2)).has_value());
  }

  void spectrumZoomsByWheelAndRectangleAndResets() {
    auto result = makeResult();
    HilbertSpectrumView view;
    view.resize(700, 420);
    view.setGrid(spectrumGridFromHht(*makeHht(*result, false), 0, QStringLiteral("uV")));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.visibleTimeStart(), 1.0);
    QCOMPARE(view.visibleTimeEnd(), 11.0);
    QCOMPARE(view.visibleFrequencyHigh(), 100.0);
    save(&view, "emd_hilbert_spectrum");
    QTemporaryDir tmp;
    QVERIFY(view.exportImage(tmp.filePath(QStringLiteral("spectrum.svg"))));
    QVERIFY(QFileInfo(tmp.filePath(QStringLiteral("spectrum.svg"))).size() > 1000);
    // The 10 Hz tone's bin (5) is at the top of the colour scale; an empty bin at the bottom.
    const QImage image = view.grab().toImage();
    const QRectF p = view.plotRect();
    const auto yOfBin = [&](int bin) {
      return int(p.bottom() - (bin + 0.5) / kFreqBins * p.height());
    };
    const int x = int(p.center().x());
    const QRgb hot = ColourMap::viridis().colourAt(view.colourScale().position(20.0));
    QCOMPARE(image.pixel(x, yOfBin(5)), hot);
    QCOMPARE(image.pixel(x, yOfBin(30)), ColourMap::viridis().colourAt(0.0));

    QSignalSpy changed(&view, &HilbertSpectrumView::timeWindowChanged);
    // Wheel up at the centre: both ranges shrink by 1.25 about the centre.
    wheel(&view, p.center(), 120);
    QVERIFY(view.isZoomed());
    QVERIFY(std::fabs((view.visibleTimeEnd() - view.visibleTimeStart()) - 10.0 / 1.25) < 1e-6);
    QVERIFY(std::fabs((view.visibleFrequencyHigh() - view.visibleFrequencyLow()) - 100 / 1.25) <
            1e-6);
    QVERIFY(std::fabs((view.visibleTimeEnd() + view.visibleTimeStart()) / 2 - 6.0) < 0.05);
    QCOMPARE(changed.count(), 1);
    // A dragged rectangle over the left half and lower half of the plot.
    view.resetZoom();
    const QPoint a(int(p.left() + 0.1 * p.width()), int(p.top() + 0.5 * p.height()));
    const QPoint b(int(p.left() + 0.5 * p.width()), int(p.top() + 0.9 * p.height()));
    QTest::mousePress(&view, Qt::LeftButton, {}, a);
    QTest::mouseMove(&view, b);
    QTest::mouseRelease(&view, Qt::LeftButton, {}, b);
    // Tolerance: one pixel of the plot in each unit (rounding of the mouse positions).
    const double secPerPx = 10.0 / p.width(), hzPerPx = 100.0 / p.height();
    QVERIFY(std::fabs(view.visibleTimeStart() - (1.0 + 0.1 * 10)) < 1.5 * secPerPx);
    QVERIFY(std::fabs(view.visibleTimeEnd() - (1.0 + 0.5 * 10)) < 1.5 * secPerPx);
    QVERIFY(std::fabs(view.visibleFrequencyLow() - 10.0) < 1.5 * hzPerPx);
    QVERIFY(std::fabs(view.visibleFrequencyHigh() - 50.0) < 1.5 * hzPerPx);
    save(&view, "emd_hilbert_spectrum_zoomed");
    QTest::keyClick(&view, Qt::Key_R);
    QVERIFY(!view.isZoomed());
    // The log colour scale refits and draws.
    view.setColourScaleKind(ColourScaleKind::Log);
    QCOMPARE(view.colourScale().high, 30.0);
    QCOMPARE(view.colourScale().low, 0.03);
  }

  void marginalSpectrumDrawsItsCurve() {
    MarginalSpectrumView view;
    view.resize(500, 300);
    MarginalSpectrum m;
    for (int i = 0; i <= kFreqBins; ++i) m.frequencyEdges.push_back(2.0 * i);
    for (int i = 0; i < kFreqBins; ++i) m.values.push_back(100.0 / (1 + std::fabs(i - 5.0)));
    m.valueUnit = QStringLiteral("uV\u00b7s");
    m.quantity = QStringLiteral("Amplitude");
    m.markers = {{10.0, QStringLiteral("2")}};
    view.setSpectrum(m);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = view.grab().toImage();
    QVERIFY(pixelsLike(image, view.plotRect().toRect(), kImfBlue) > 100);
    save(&view, "emd_marginal_spectrum");
    // The peak (bin 5, centre 11 Hz) is drawn at the top part of the plot.
    QVERIFY(view.yOf(100.0) < view.plotRect().top() + 0.1 * view.plotRect().height());
    // Log frequency: equal ratios are equal distances.
    view.setLogFrequency(true);
    QVERIFY(std::fabs((view.xOf(20) - view.xOf(10)) - (view.xOf(40) - view.xOf(20))) < 1e-6);
    view.setLogValues(true);
    save(&view, "emd_marginal_spectrum_log");
  }

  void dialogProducesTheParametersItsFieldsShow() {
    DecomposeDialog dialog(makeRecording(), {1}, 2.0, 5.0, testPresets(), &testValidator);
    // The preferred preset fills the fields at start.
    QCOMPARE(dialog.currentPresetName(), QStringLiteral("iceemdan-colominas"));
    auto* ensemble = dialog.findChild<QSpinBox*>(QStringLiteral("ensembleSize"));
    auto* noise = dialog.findChild<QDoubleSpinBox*>(QStringLiteral("noiseStd"));
    auto* maxSifts = dialog.findChild<QSpinBox*>(QStringLiteral("stopMaxSifts"));
    auto* preset = dialog.findChild<QComboBox*>(QStringLiteral("preset"));
    auto* method = dialog.findChild<QComboBox*>(QStringLiteral("method"));
    auto* seed = dialog.findChild<QLineEdit*>(QStringLiteral("seed"));
    QVERIFY(ensemble && noise && maxSifts && preset && method && seed);
    QCOMPARE(ensemble->value(), 100);
    QCOMPARE(maxSifts->value(), 5000);
    QCOMPARE(method->currentText(), QStringLiteral("ICEEMDAN"));

    // Choosing the other preset in the combo fills every field from it.
    preset->setCurrentIndex(preset->findText(QStringLiteral("eemd-wu")));
    QCOMPARE(ensemble->value(), 250);
    QCOMPARE(noise->value(), 0.35);
    QCOMPARE(seed->text(), QStringLiteral("77"));
    QCOMPARE(method->currentText(), QStringLiteral("EEMD"));
    QCOMPARE(dialog.findChild<QSpinBox*>(QStringLiteral("stopFixedSifts"))->value(), 10);
    QCOMPARE(dialog.findChild<QSpinBox*>(QStringLiteral("maxImfs"))->value(), 9);
    const EmdParams p = dialog.params();
    const EmdParams& expected = testPresets()[1].params;
    QCOMPARE(p.method, expected.method);
    QCOMPARE(p.ensembleSize, expected.ensembleSize);
    QCOMPARE(p.noiseStd, expected.noiseStd);
    QCOMPARE(p.seed, expected.seed);
    QCOMPARE(p.stop.kind, expected.stop.kind);
    QCOMPARE(p.stop.fixedSifts, expected.stop.fixedSifts);
    QCOMPARE(p.maxImfs, expected.maxImfs);
    QCOMPARE(p.noiseStop.maxSifts, expected.noiseStop.maxSifts);
    QCOMPARE(dialog.request().presetName, std::string("eemd-wu"));

    // Editing a field makes the set custom; the request carries the edited value.
    ensemble->setValue(300);
    QCOMPARE(dialog.currentPresetName(), QString());
    QCOMPARE(dialog.params().ensembleSize, 300);
    QCOMPARE(dialog.request().presetName, std::string());

    // Channels, range, HHT fields.
    const DecomposeRequest r = dialog.request();
    QCOMPARE(r.channels, std::vector<std::size_t>{1});
    QCOMPARE(r.startSeconds, 2.0);
    QCOMPARE(r.durationSeconds, 5.0);
    dialog.findChild<QSpinBox*>(QStringLiteral("frequencyBins"))->setValue(64);
    dialog.findChild<QCheckBox*>(QStringLiteral("logFrequency"))->setChecked(true);
    // Log bins from 0 Hz are refused with a message until the lowest frequency is raised.
    QVERIFY(dialog.validationMessage().contains(QStringLiteral("logarithmic")));
    dialog.findChild<QDoubleSpinBox*>(QStringLiteral("fMin"))->setValue(0.5);
    QVERIFY(dialog.validationMessage().isEmpty());
    QCOMPARE(dialog.hhtParams().frequencyBins, 64);
    QVERIFY(dialog.hhtParams().logFrequency);
    QCOMPARE(dialog.hhtParams().fMin, 0.5);
  }

  void dialogShowsTheValidatorsMessageAndBlocksRun() {
    DecomposeDialog dialog(makeRecording(), {0}, 0.0, -1.0, testPresets(), &testValidator);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* ensemble = dialog.findChild<QSpinBox*>(QStringLiteral("ensembleSize"));
    auto* label = dialog.findChild<QLabel*>(QStringLiteral("validationMessage"));
    QVERIFY(dialog.validationMessage().isEmpty());
    QVERIFY(!label->isVisible());
    ensemble->setValue(7);
    // The engine error's own text (parameter, value found, value expected).
    const QString expected = QString::fromUtf8(
        InvalidParameterError("ensembleSize", "7", "anything but 7", "test rule").what());
    QCOMPARE(dialog.validationMessage(), expected);
    QCOMPARE(label->text(), expected);
    QVERIFY(label->isVisible());
    save(&dialog, "emd_decompose_dialog_error");
    dialog.accept();
    QVERIFY(dialog.isVisible());  // refused
    ensemble->setValue(8);
    QVERIFY(dialog.validationMessage().isEmpty());
    // No channel: refused with a message of its own.
    auto* channels = dialog.findChild<QListWidget*>(QStringLiteral("channels"));
    channels->item(0)->setCheckState(Qt::Unchecked);
    QVERIFY(dialog.validationMessage().contains(QStringLiteral("channel")));
    channels->item(0)->setCheckState(Qt::Checked);
    save(&dialog, "emd_decompose_dialog");
  }

  void decompositionJobCutsTheBlockAndSplitsProgress() {
    // The GUI runs the CLI's job (app/core/emd_job.h) on the dialog's request.
    const auto rec = makeRecording();
    FakeBackend backend;
    DecomposeRequest request;
    request.channels = {0, 2};
    request.startSeconds = 1.0;
    request.durationSeconds = 10.0;
    request.params.method = EmdMethod::Emd;
    request.presetName = "eemd-wu";
    std::vector<double> fractions;
    JobContext ctx(std::stop_source().get_token(),
                   [&](double f, std::string_view) { fractions.push_back(f); });
    const EmdJobResult out = runEmdJob(*rec, toJobSpec(request, "in.edf"), backend, ctx);
    QCOMPARE(backend.seen.firstSample, kFirst);
    QCOMPARE(backend.seen.samples, kSamples);
    QCOMPARE(backend.seen.channels, (std::vector<std::size_t>{0, 2}));
    QCOMPARE(backend.seen.channel(1)[5], 2000.0f + float(kFirst + 5) / 1000.0f);
    QVERIFY(out.modes && out.hht);
    QCOMPARE(out.modes->provenance.inputFile, std::string("in.edf"));
    QVERIFY(out.modes->provenance.selection.find("Fp1, O1") != std::string::npos);
    // The same parameter list as the CLI writes, preset first.
    QVERIFY(!out.modes->provenance.parameters.empty());
    QCOMPARE(out.modes->provenance.parameters.front().second, std::string("eemd-wu"));
    QCOMPARE(out.modes->provenance.parameters,
             emdProvenanceParameters(request.params, "eemd-wu", &out.hht->params));
    // The backend's "1.0" of decompose maps to the decomposition's share of the bar.
    QVERIFY(std::find(fractions.begin(), fractions.end(), kEmdJobDecomposeEnd) != fractions.end());
    QCOMPARE(fractions.back(), 1.0);
    // The job's checks refuse what the CLI refuses (a range too short), before decomposing.
    backend.seen = SignalBlock{};
    request.durationSeconds = 0.01;
    QVERIFY_THROWS_EXCEPTION(InvalidParameterError,
                             runEmdJob(*rec, toJobSpec(request, "in.edf"), backend, ctx));
    QCOMPARE(backend.seen.samples, int64_t(0));
  }

  void resultsPaneMarksPreviewsAndAsksToApply() {
    const auto rec = makeRecording();
    auto result = makeResult();
    EmdResultsPane pane(rec, result, makeHht(*result, false), QStringLiteral("test"));
    pane.resize(1400, 800);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QCOMPARE(pane.imfTable()->rowCount(), kRows);
    QCOMPARE(pane.imfTable()->item(1, EmdResultsPane::kFrequencyColumn)->text(),
             QStringLiteral("10.00"));
    QCOMPARE(pane.imfTable()->item(0, EmdResultsPane::kSiftsColumn)->text(), QStringLiteral("12"));
    // Ticking "Drop" in the table marks the row in the stack and in the dropped rows.
    pane.imfTable()->item(0, EmdResultsPane::kDropColumn)->setCheckState(Qt::Checked);
    QVERIFY(pane.imfStack()->isMarked(0));
    QCOMPARE(pane.droppedRows().at(0), std::vector<int>{0});
    // Marking in the stack ticks the table.
    pane.imfStack()->setMarked(3, true);
    QCOMPARE(pane.imfTable()->item(3, EmdResultsPane::kDropColumn)->checkState(), Qt::Checked);
    QCOMPARE(pane.droppedRows().at(0), (std::vector<int>{0, 3}));
    // Marks are per channel.
    pane.setCurrentChannel(1);
    QVERIFY(!pane.imfStack()->isMarked(0));
    pane.setDropped(1, 2, true);
    QCOMPARE(pane.droppedRows().at(2), std::vector<int>{2});
    pane.setCurrentChannel(0);
    QCOMPARE(pane.imfStack()->markedRows(), (std::vector<int>{0, 3}));
    // Preview: two more traces over the IMFs.
    pane.setPreviewEnabled(true);
    QVERIFY(pane.imfStack()->hasPreview());
    QCOMPARE(pane.imfStack()->traceCount(), kRows + 2);
    QSignalSpy apply(&pane, &EmdResultsPane::applyRequested);
    QTest::mouseClick(pane.applyButton(), Qt::LeftButton);
    QCOMPARE(apply.count(), 1);
    save(&pane, "emd_results_pane");
  }

  // End to end with the real CPU backend: "Analysis > Decompose (EMD family)..." on a short
  // synthetic recording, the dialog filled as a user would, the job run on the engine thread,
  // and the Decomposition dock filled. Oracles that do not come from the code under test: the
  // modes sum to the input (completeness, emd_result.h) and the dialog's choices reach the
  // provenance.
  void realCpuDecompositionThroughTheMenuFillsTheResults() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    SynthParams params;
    params.channels = 2;
    params.sampleRate = 100.0;
    params.duration = 10.0;
    params.seed = 5;
    params.lineNoiseHz = 0;  // 50 Hz would sit at Nyquist; the generator refuses it
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    w.newSyntheticRecording(params);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    const auto rec = w.currentDocument()->recording;
    EmdWorkflow* emd = w.emdWorkflow();
    QSignalSpy shown(emd, &EmdWorkflow::resultsShown);

    MenuDecompose choice;
    choice.method = EmdMethod::Iceemdan;
    choice.ensembleSize = 10;
    choice.fixedSifts = 5;
    const QString problem = decomposeFromMenu(w, choice);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);

    EmdResultsPane* pane = emd->currentResults();
    QVERIFY(pane && emd->dock()->isVisible());
    const EmdResult& modes = *pane->result();
    QCOMPARE(modes.channels.size(), std::size_t(2));
    QCOMPARE(modes.firstSample, int64_t(0));
    QCOMPARE(modes.samples, int64_t(1000));
    QCOMPARE(modes.params.method, EmdMethod::Iceemdan);
    QCOMPARE(modes.params.ensembleSize, 10);
    QCOMPARE(modes.params.stop.fixedSifts, 5);
    // The CLI's provenance, from the same job.
    QCOMPARE(modes.provenance.method, std::string("iceemdan"));
    QVERIFY(modes.provenance.backend.find("CPU") != std::string::npos);
    QCOMPARE(modes.provenance.parameters,
             emdProvenanceParameters(modes.params, "", &pane->hht()->params));
    // Completeness: IMFs + residue give the input back. ICEEMDAN's modes are differences of
    // float-stored ensemble means; 1e-4 of the signal's peak covers that rounding.
    for (const EmdChannelModes& m : modes.channels) {
      QVERIFY(m.rows >= 3);
      const std::vector<float> x = rec->readChannel(m.channel, 0, modes.samples);
      const std::vector<float> sum = reconstructKeptRows(m, modes.samples, {});
      float peak = 0;
      for (float v : x) peak = std::max(peak, std::fabs(v));
      for (int64_t n = 0; n < modes.samples; ++n)
        QVERIFY2(std::fabs(sum[n] - x[n]) <= 1e-4f * peak, qPrintable(QString::number(n)));
    }
    // The pane: a table row and a stack trace per mode, a non-empty spectrum and marginal.
    const int rows = modes.channels[0].rows;
    QCOMPARE(pane->imfTable()->rowCount(), rows);
    QVERIFY(pane->imfStack()->traceCount() >= rows);
    const SpectrumGrid& grid = pane->spectrum()->grid();
    QVERIFY(grid.valid());
    QVERIFY(std::any_of(grid.values.begin(), grid.values.end(), [](float v) { return v > 0; }));
    const MarginalSpectrum& marginal = pane->marginal()->spectrum();
    QVERIFY(marginal.valid());
    QVERIFY(std::any_of(marginal.values.begin(), marginal.values.end(),
                        [](double v) { return v > 0; }));
    save(&w, "emd_real_cpu_main_window");
  }

  // The picture in docs/gui.md: the embedded demo, C3, 10 s, ICEEMDAN with 20 members (the
  // preset's stop rules), on the CPU. Runs only when MODESCOPE_DOCS_EMD_SCREENSHOT names the PNG
  // to write (see docs/gui.md), so the suite does not rewrite the docs.
  void docsScreenshotOfTheDemoDecomposition() {
    const QString out = qEnvironmentVariable("MODESCOPE_DOCS_EMD_SCREENSHOT");
    if (out.isEmpty()) QSKIP("MODESCOPE_DOCS_EMD_SCREENSHOT is not set");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The demo is an EDF+ file the BioSig fallback converts: its helper is modescope-cli.
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    const QString openError = gui_test::openDemoAndWait(w);
    QVERIFY2(openError.isEmpty(), qPrintable(openError));
    QSignalSpy shown(w.emdWorkflow(), &EmdWorkflow::resultsShown);
    MenuDecompose choice;
    choice.channels = {QStringLiteral("C3")};
    choice.durationSeconds = 10.0;
    choice.ensembleSize = 20;
    const QString problem = decomposeFromMenu(w, choice);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 110000);
    QTest::qWait(500);  // the views draw their first frame
    // 256 colours and the strongest compression keep the docs' PNG small; a UI shot loses nothing
    // visible.
    const QImage image =
        w.grab().toImage().convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither);
    QVERIFY(image.save(out, "PNG", 0));
  }

  void cleanedRecordingOpensAndExports() {
    QTemporaryDir tmp;
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    SynthParams params;
    params.channels = 4;
    params.sampleRate = kRate;
    params.duration = 15.0;
    params.seed = 3;
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    w.newSyntheticRecording(params);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    const auto rec = w.currentDocument()->recording;
    EmdWorkflow* emd = w.emdWorkflow();
    QVERIFY(emd && !emd->dock()->isVisible());
    auto result = makeResult({1});
    EmdJobResult outcome;
    outcome.modes = result;
    outcome.hht = makeHht(*result, false);
    EmdResultsPane* pane =
        emd->showResults(rec, outcome, QStringLiteral("EMD test"), w.currentPane());
    QVERIFY(pane && emd->dock()->isVisible());
    QCOMPARE(emd->resultTabs()->count(), 1);
    // The stack follows the browser's page (linked time axis) ...
    w.currentBrowser()->setPageLength(2.0);
    w.currentBrowser()->setPageStart(4.0);
    QCOMPARE(pane->imfStack()->windowStart(), 4.0);
    QCOMPARE(pane->imfStack()->windowSeconds(), 2.0);
    // ... and drives it.
    wheel(pane->imfStack(), QPointF(400, 100), -120);  // pan forward a tenth
    QVERIFY(std::fabs(w.currentBrowser()->pageStart() - pane->imfStack()->windowStart()) < 1e-6);
    save(&w, "emd_main_window");

    pane->setDropped(0, 0, true);  // drop IMF 1 (40 Hz) of channel 1
    QSignalSpy cleaned(emd, &EmdWorkflow::cleanedRecordingOpened);
    QTest::mouseClick(pane->applyButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(cleaned.count() == 1, 30000);
    QCOMPARE(w.documentCount(), 2);
    const auto clean = w.currentDocument()->recording;
    QVERIFY(w.currentDocument()->derived);
    // Over the range: IMF 2 + IMF 3 + residue from the closed form (float rows: 1e-4).
    const auto x = clean->readChannel(1, kFirst, kSamples);
    for (int64_t n = 0; n < kSamples; n += 37)
      QVERIFY(std::fabs(x[n] - (rowValue(1, n) + rowValue(2, n) + rowValue(3, n))) < 1e-4);
    // Outside it and on the other channels: the original.
    QCOMPARE(clean->readChannel(1, 0, kFirst), rec->readChannel(1, 0, kFirst));
    QCOMPARE(clean->readChannel(0, 0, 3000), rec->readChannel(0, 0, 3000));

    // The File menu's export writes it; HDF5 keeps float32 exactly, so it reopens equal.
    const QString path = tmp.filePath(QStringLiteral("cleaned.h5"));
    const JobId id = w.exportRecording(path);
    QTRY_VERIFY_WITH_TIMEOUT(
        w.jobList()->jobState(id) == std::optional<JobState>(JobState::Succeeded) ||
            w.jobList()->jobState(id) == std::optional<JobState>(JobState::Failed),
        60000);
    QCOMPARE(w.jobList()->jobState(id), std::optional<JobState>(JobState::Succeeded));
    QSignalSpy reopened(&w, &MainWindow::recordingOpened);
    w.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(reopened.count() == 1, 60000);
    QCOMPARE(w.currentDocument()->recording->readChannel(1, kFirst, kSamples), x);
    // A newly opened recording starts with an empty Decomposition dock.
    QCOMPARE(emd->resultTabs()->count(), 0);
    QVERIFY(!emd->dock()->isVisible());
  }
};

QTEST_MAIN(EmdViewsTest)
#include "emd_views_test.moc"
