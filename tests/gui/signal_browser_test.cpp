// QtTest for the signal browser (widgets/signal_browser.h) and its data path (page_cache.h,
// annotation_index.h, view_state_text.h).
//
// Oracles: closed forms (a sine of amplitude A at D uV per division on rows h px apart is drawn
// 2*A*h/D px tall; a step at t lands at x = left + (t - start) * width / length), brute-force
// recomputation (min/max per column, annotation overlap), a fresh cache against an incrementally
// scrolled one, and file signatures for the exports. Traces are drawn without antialiasing, so
// a channel's pixels carry its type colour exactly and can be told apart from the others.
#include "widgets/signal_browser.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <set>

#include "engine/core/recording.h"
#include "widgets/annotation_colours.h"
#include "widgets/annotation_index.h"
#include "widgets/page_cache.h"
#include "widgets/trace_renderer.h"
#include "widgets/view_state_text.h"

using namespace modescope;

namespace {

constexpr double kRate = 256.0;
constexpr double kDuration = 120.0;
constexpr int kChannels = 64;
constexpr double kAmplitude = 20.0;  // uV, every EEG sine
constexpr int kEcgChannel = 10;      // drawn in the ECG colour, so its pixels are identifiable
constexpr double kEcgFrequency = 7.0;

const char* const kNames[] = {
    "Fp1", "Fp2", "F7",  "F3",  "Fz",  "F4",  "F8",   "FC5",  "FC1", "FC2",  "ECG", "FC6", "T7",
    "C3",  "Cz",  "C4",  "T8",  "TP9", "CP5", "CP1",  "CP2",  "CP6", "TP10", "P7",  "P3",  "Pz",
    "P4",  "P8",  "PO9", "O1",  "Oz",  "O2",  "PO10", "AF7",  "AF3", "AF4",  "AF8", "F5",  "F1",
    "F2",  "F6",  "FT9", "FT7", "FC3", "FC4", "FT8",  "FT10", "C5",  "C1",   "C2",  "C6",  "TP7",
    "CP3", "CPz", "CP4", "TP8", "P5",  "P1",  "P2",   "P6",   "PO7", "PO3",  "POz", "PO4"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kChannels);

struct ChannelSpec {
  std::string name;
  ChannelType type = ChannelType::EEG;
  double rate = kRate;
  std::function<double(double)> value;  // uV at time t
};

std::shared_ptr<Recording> makeRecording(const std::vector<ChannelSpec>& specs, double duration,
                                         std::vector<Annotation> annotations = {}) {
  auto rec = std::make_shared<Recording>();
  rec->info.format = "synthetic";
  rec->info.reader = "memory";
  rec->info.startDateTime = "2024-03-01T10:00:00";
  std::vector<std::vector<float>> data;
  for (const auto& s : specs) {
    ChannelInfo c;
    c.label = s.name;
    c.name = s.name;
    c.type = s.type;
    c.unit = "uV";
    c.sampleRate = s.rate;
    c.sampleCount = static_cast<int64_t>(std::llround(duration * s.rate));
    std::vector<float> v(static_cast<std::size_t>(c.sampleCount));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(s.value(i / s.rate));
    data.push_back(std::move(v));
    rec->channels.push_back(c);
  }
  rec->annotations = std::move(annotations);
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

std::shared_ptr<Recording> standardRecording() {
  std::vector<ChannelSpec> specs;
  for (int k = 0; k < kChannels; ++k) {
    const double f = k == kEcgChannel ? kEcgFrequency : 5.0 + (k % 11);
    specs.push_back(
        {kNames[k], k == kEcgChannel ? ChannelType::ECG : ChannelType::EEG, kRate,
         [f](double t) { return kAmplitude * std::sin(2 * std::numbers::pi * f * t); }});
  }
  std::vector<Annotation> ann;
  for (int i = 0; i < 50; ++i)
    ann.push_back({2.0 * i + 0.5, i % 5 == 0 ? 1.5 : 0.0, "event " + std::to_string(i)});
  return makeRecording(specs, kDuration, std::move(ann));
}

QImage render(const SignalBrowser& b, QSize size) {
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  b.renderPage(p, QRect(QPoint(0, 0), size));
  return img;
}

browser::BrowserLayout layoutOf(const SignalBrowser& b, QSize size) {
  const int rows =
      std::min(b.visibleChannelCount(), static_cast<int>(b.recording()->channelCount()));
  return browser::BrowserLayout::compute(QRectF(QPointF(0, 0), QSizeF(size)), rows,
                                         QFontMetricsF(b.font()));
}

// Vertical extent (px) of the pixels of colour `c` inside `r`; 0 when there are none.
int colourExtent(const QImage& img, const QRect& r, QColor c, int* count = nullptr) {
  int lo = INT32_MAX, hi = INT32_MIN, n = 0;
  const QRgb want = c.rgb();
  for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y) {
    for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x) {
      if ((img.pixel(x, y) & 0xffffff) == (want & 0xffffff)) {
        lo = std::min(lo, y);
        hi = std::max(hi, y);
        ++n;
      }
    }
  }
  if (count) *count = n;
  return n ? hi - lo + 1 : 0;
}

QRect inner(const QRectF& r, int margin) {
  return r.toAlignedRect().adjusted(margin, margin, -margin, -margin);
}

void sendWheel(QWidget& w, int dy, Qt::KeyboardModifiers mods) {
  const QPointF pos(w.width() / 2.0, w.height() / 2.0);
  QWheelEvent ev(pos, w.mapToGlobal(pos), QPoint(), QPoint(0, dy), Qt::NoButton, mods,
                 Qt::NoScrollPhase, false);
  QApplication::sendEvent(&w, &ev);
}

}  // namespace

class SignalBrowserTest : public QObject {
  Q_OBJECT

 private slots:
  void rendersTracesNotBlank();
  void traceHeightFollowsAmplitudeScale();
  void badChannelIsGreyed();
  void mixedRatesAlignInTime();
  void keysScrollByDocumentedSteps();
  void wheelScrollsTimeChannelsAndAmplitude();
  void clickSelectsAndDoubleClickActivates();
  void exportsPngSvgPdf();
  void viewStateRoundTrips();
  void filterTextRoundTrips();
  void displayFilterRemovesOutOfBandComponent();
  void montageThatDoesNotFitFallsBack();
  void decimationMatchesBruteForce();
  void quarterScrollReadsQuarterPageAndMatchesFreshPage();
  void annotationQueryMatchesBruteForce();
  void rasterizerMatchesQPainterPolyline();
  void thousandsOfAnnotationsInOnePage();
};

void SignalBrowserTest::rendersTracesNotBlank() {
  SignalBrowser b;
  b.resize(1200, 800);
  b.setRecording(standardRecording());
  const QImage img = render(b, b.size());
  const auto l = layoutOf(b, b.size());
  int eeg = 0;
  colourExtent(img, inner(l.traces, 2), browser::channelTypeColour(ChannelType::EEG), &eeg);
  // 31 EEG rows of ~1100 px wide traces: tens of thousands of trace pixels. A blank or a
  // background-only render has none.
  QVERIFY2(eeg > 10000, qPrintable(QString("EEG trace pixels: %1").arg(eeg)));
  // The shown widget paints through the same path.
  b.show();
  QVERIFY(QTest::qWaitForWindowExposed(&b));
  const QImage grabbed = b.grab().toImage();
  int shown = 0;
  colourExtent(grabbed.convertToFormat(QImage::Format_RGB32), inner(l.traces, 2),
               browser::channelTypeColour(ChannelType::EEG), &shown);
  QVERIFY(shown > 10000);
}

void SignalBrowserTest::traceHeightFollowsAmplitudeScale() {
  SignalBrowser b;
  const QSize size(1200, 800);
  b.resize(size);
  b.setRecording(standardRecording());
  b.setPageStart(10.0);
  const auto l = layoutOf(b, size);
  const QColor ecg = browser::channelTypeColour(ChannelType::ECG);
  // Closed form: peak-to-peak 2A uV at rowHeight/D px per uV. The sampled sine reaches
  // A*cos(pi f / fs) >= 0.9993 A within a page, and each end of the line may round by one pixel:
  // hence +-2 px.
  auto expected = [&](double d) { return 2 * kAmplitude * l.rowHeight / d; };
  const QRect band = inner(l.traces, 2).adjusted(0, 0, -120, 0);  // keep clear of the scale bar
  const int h1 = colourExtent(render(b, size), band, ecg);
  QVERIFY2(std::abs(h1 - expected(50.0)) <= 2.0,
           qPrintable(QString("height %1, expected %2").arg(h1).arg(expected(50.0))));
  b.zoomAmplitude(0.5);  // 25 uV per division: twice as tall
  QCOMPARE(b.microvoltsPerDivision(), 25.0);
  const int h2 = colourExtent(render(b, size), band, ecg);
  QVERIFY2(std::abs(h2 - expected(25.0)) <= 2.0,
           qPrintable(QString("height %1, expected %2").arg(h2).arg(expected(25.0))));
  QVERIFY(h2 > h1 * 1.8);
}

void SignalBrowserTest::badChannelIsGreyed() {
  SignalBrowser b;
  const QSize size(1200, 800);
  b.resize(size);
  b.setRecording(standardRecording());
  b.setBadChannels({"cz"});  // case-insensitive, normalised names
  const QImage img = render(b, size);
  const auto l = layoutOf(b, size);
  const int row = 14;  // Cz
  // Half a row around Cz's zero line: neighbours' traces reach at most 0.4 row into it.
  const QRect band(static_cast<int>(l.traces.left()) + 2,
                   static_cast<int>(l.rowCentre(row) - 0.1 * l.rowHeight),
                   static_cast<int>(l.traces.width()) - 130, static_cast<int>(0.2 * l.rowHeight));
  int grey = 0, eeg = 0;
  colourExtent(img, band, browser::kBadChannelColour, &grey);
  colourExtent(img, band, browser::channelTypeColour(ChannelType::EEG), &eeg);
  QVERIFY(grey > 100);
  QCOMPARE(eeg, 0);
}

void SignalBrowserTest::mixedRatesAlignInTime() {
  // A step at t = 5.25 s in channels at 100, 256 and 1000 Hz: each uses its own rate, so all
  // three rise at the same x (within a column: each reduces to min/max per pixel column).
  std::vector<ChannelSpec> specs;
  const double rates[] = {100.0, 256.0, 1000.0};
  const ChannelType types[] = {ChannelType::EEG, ChannelType::ECG, ChannelType::EOG};
  for (int i = 0; i < 3; ++i) {
    specs.push_back({"S" + std::to_string(i), types[i], rates[i],
                     [](double t) { return t >= 5.25 ? 20.0 : -20.0; }});
  }
  auto rec = makeRecording(specs, 20.0);
  SignalBrowser b;
  const QSize size(1000, 400);
  b.resize(size);
  b.setRecording(rec);
  b.setPageStart(0.0);
  b.setPageLength(10.0);
  const QImage img = render(b, size);
  const auto l = layoutOf(b, size);
  const double expectedX = l.traces.left() + 5.25 * l.traces.width() / 10.0;
  for (int i = 0; i < 3; ++i) {
    const QColor c = browser::channelTypeColour(types[i]);
    // The step is the only place where the trace has pixels above and below the row centre in
    // the same column: find the column with the largest vertical extent.
    int bestX = -1, bestExtent = 0;
    const int top = static_cast<int>(l.rowCentre(i) - l.rowHeight / 2) + 1;
    for (int x = static_cast<int>(l.traces.left()) + 1; x < l.traces.right() - 130; ++x) {
      const int e = colourExtent(img, QRect(x, top, 1, static_cast<int>(l.rowHeight) - 2), c);
      if (e > bestExtent) {
        bestExtent = e;
        bestX = x;
      }
    }
    QVERIFY2(
        std::abs(bestX - expectedX) <= 1.5,
        qPrintable(
            QString("rate %1: step at x=%2, expected %3").arg(rates[i]).arg(bestX).arg(expectedX)));
  }
}

void SignalBrowserTest::keysScrollByDocumentedSteps() {
  SignalBrowser b;
  b.resize(1000, 700);
  b.setRecording(standardRecording());
  b.setPageLength(10.0);
  b.setPageStart(20.0);
  const double step = SignalBrowser::kArrowStepFraction * 10.0;
  QTest::keyClick(&b, Qt::Key_Right);
  QCOMPARE(b.pageStart(), 20.0 + step);
  QTest::keyClick(&b, Qt::Key_Left);
  QTest::keyClick(&b, Qt::Key_Left);
  QCOMPARE(b.pageStart(), 20.0 - step);
  b.setPageStart(20.0);
  QTest::keyClick(&b, Qt::Key_PageDown);
  QCOMPARE(b.pageStart(), 30.0);
  QTest::keyClick(&b, Qt::Key_PageUp);
  QTest::keyClick(&b, Qt::Key_PageUp);
  QCOMPARE(b.pageStart(), 10.0);
  QTest::keyClick(&b, Qt::Key_End);
  QCOMPARE(b.pageStart(), kDuration - 10.0);
  QTest::keyClick(&b, Qt::Key_PageDown);  // clamped: the last page stays the last page
  QCOMPARE(b.pageStart(), kDuration - 10.0);
  QTest::keyClick(&b, Qt::Key_Home);
  QCOMPARE(b.pageStart(), 0.0);
  QTest::keyClick(&b, Qt::Key_Left);  // clamped at 0
  QCOMPARE(b.pageStart(), 0.0);

  QCOMPARE(b.firstVisibleChannel(), 0);
  QTest::keyClick(&b, Qt::Key_Down);
  QTest::keyClick(&b, Qt::Key_Down);
  QCOMPARE(b.firstVisibleChannel(), 2);
  QTest::keyClick(&b, Qt::Key_Up);
  QCOMPARE(b.firstVisibleChannel(), 1);
  b.setFirstVisibleChannel(1000);  // clamped so that the last page of channels is full
  QCOMPARE(b.firstVisibleChannel(), kChannels - b.visibleChannelCount());

  const double uv = b.microvoltsPerDivision();
  QTest::keyClick(&b, Qt::Key_Plus);
  QCOMPARE(b.microvoltsPerDivision(), uv / SignalBrowser::kAmplitudeStep);
  QTest::keyClick(&b, Qt::Key_Minus);
  QTest::keyClick(&b, Qt::Key_Minus);
  QCOMPARE(b.microvoltsPerDivision(), uv * SignalBrowser::kAmplitudeStep);

  QSignalSpy changed(&b, &SignalBrowser::viewChanged);
  QTest::keyClick(&b, Qt::Key_Right);
  QCOMPARE(changed.count(), 1);
}

void SignalBrowserTest::wheelScrollsTimeChannelsAndAmplitude() {
  SignalBrowser b;
  b.resize(1000, 700);
  b.setRecording(standardRecording());
  b.setPageLength(10.0);
  b.setPageStart(50.0);
  const double notch = SignalBrowser::kWheelStepFraction * 10.0;
  sendWheel(b, -120, Qt::NoModifier);  // one notch towards the user: forward in time
  QCOMPARE(b.pageStart(), 50.0 + notch);
  sendWheel(b, 240, Qt::NoModifier);
  QCOMPARE(b.pageStart(), 50.0 - notch);
  sendWheel(b, -60, Qt::NoModifier);  // half a notch (high-resolution wheels)
  QCOMPARE(b.pageStart(), 50.0 - notch / 2);

  sendWheel(b, -120, Qt::ShiftModifier);
  sendWheel(b, -120, Qt::ShiftModifier);
  QCOMPARE(b.firstVisibleChannel(), 2);
  sendWheel(b, 120, Qt::ShiftModifier);
  QCOMPARE(b.firstVisibleChannel(), 1);

  const double uv = b.microvoltsPerDivision();
  sendWheel(b, 120, Qt::ControlModifier);  // up: larger traces
  QCOMPARE(b.microvoltsPerDivision(), uv / SignalBrowser::kAmplitudeStep);
  QCOMPARE(b.pageStart(), 50.0 - notch / 2);  // ctrl+wheel does not scroll
}

void SignalBrowserTest::clickSelectsAndDoubleClickActivates() {
  SignalBrowser b;
  const QSize size(1000, 700);
  b.resize(size);
  b.setRecording(standardRecording());
  b.setFirstVisibleChannel(4);
  const auto l = layoutOf(b, size);
  auto labelPoint = [&](int row) {
    return QPoint(static_cast<int>(l.labels.left() + 10), static_cast<int>(l.rowCentre(row)));
  };
  QSignalSpy selection(&b, &SignalBrowser::selectionChanged);
  QTest::mouseClick(&b, Qt::LeftButton, Qt::NoModifier, labelPoint(3));
  QCOMPARE(b.selectedChannels(), std::vector<int>({7}));
  QTest::mouseClick(&b, Qt::LeftButton, Qt::ControlModifier, labelPoint(5));
  QCOMPARE(b.selectedChannels(), std::vector<int>({7, 9}));
  QTest::mouseClick(&b, Qt::LeftButton, Qt::ControlModifier, labelPoint(3));
  QCOMPARE(b.selectedChannels(), std::vector<int>({9}));
  QTest::mouseClick(&b, Qt::LeftButton, Qt::NoModifier, labelPoint(0));
  QCOMPARE(b.selectedChannels(), std::vector<int>({4}));
  QCOMPARE(selection.count(), 4);
  // A click in the traces selects nothing.
  QTest::mouseClick(
      &b, Qt::LeftButton, Qt::NoModifier,
      QPoint(static_cast<int>(l.traces.center().x()), static_cast<int>(l.rowCentre(8))));
  QCOMPARE(b.selectedChannels(), std::vector<int>({4}));

  QSignalSpy activated(&b, &SignalBrowser::channelActivated);
  QTest::mouseDClick(&b, Qt::LeftButton, Qt::NoModifier, labelPoint(6));
  QCOMPARE(activated.count(), 1);
  QCOMPARE(activated.at(0).at(0).toInt(), 10);

  // The selected row is highlighted: its label background differs from an unselected row's.
  b.setSelectedChannels({9});
  const QImage img = render(b, size);
  const int x = static_cast<int>(l.labels.right()) - 3;
  QVERIFY(img.pixel(x, static_cast<int>(l.rowCentre(5))) !=
          img.pixel(x, static_cast<int>(l.rowCentre(2))));
}

void SignalBrowserTest::exportsPngSvgPdf() {
  SignalBrowser b;
  b.resize(900, 600);
  b.setRecording(standardRecording());
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QString error;
  const QString png = dir.filePath("page.png"), svg = dir.filePath("page.svg"),
                pdf = dir.filePath("page.pdf");
  QVERIFY2(b.exportPage(png, &error), qPrintable(error));
  QVERIFY2(b.exportPage(svg, &error), qPrintable(error));
  QVERIFY2(b.exportPage(pdf, &error), qPrintable(error));

  QImage img;
  QVERIFY(img.load(png));
  QCOMPARE(img.size(), QSize(1800, 1200));  // twice the widget size
  int eeg = 0;
  colourExtent(img.convertToFormat(QImage::Format_RGB32), QRect(400, 100, 1300, 1000),
               browser::channelTypeColour(ChannelType::EEG), &eeg);
  QVERIFY(eeg > 10000);

  QFile s(svg);
  QVERIFY(s.open(QIODevice::ReadOnly));
  const QByteArray svgText = s.readAll();
  QVERIFY(svgText.contains("<svg"));
  QVERIFY(svgText.contains("</svg>"));
  QVERIFY(svgText.contains("Fp1"));  // labels are text, not pixels
  QVERIFY(svgText.contains("polyline") || svgText.contains("<path"));

  QFile p(pdf);
  QVERIFY(p.open(QIODevice::ReadOnly));
  const QByteArray pdfBytes = p.readAll();
  QVERIFY(pdfBytes.startsWith("%PDF"));
  QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
  QVERIFY(pdfBytes.size() > 5000);

  QVERIFY(!b.exportPage(dir.filePath("page.bmp"), &error));
  QVERIFY(error.contains(".bmp") || error.contains("bmp"));
  QVERIFY(!QFile::exists(dir.filePath("page.bmp")));
  QVERIFY(!b.exportPage("/nonexistent-dir/page.png", &error));
  QVERIFY(!error.isEmpty());
}

void SignalBrowserTest::viewStateRoundTrips() {
  SignalBrowser b;
  b.resize(1000, 700);
  b.setRecording(standardRecording());
  ViewState s;
  s.pageStart = 33.5;
  s.pageLength = 20.0;
  s.microvoltsPerDivision = 70.0;
  s.firstVisibleChannel = 4;
  s.visibleChannelCount = 16;
  s.selectedChannels = {"Cz", "O1"};
  s.montage = "average";
  s.displayFilter = "bandpass 1-40 Hz";
  QSignalSpy problems(&b, &SignalBrowser::displayProblem);
  b.setViewState(s);
  QCOMPARE(problems.count(), 0);
  const ViewState r = b.viewState();
  QCOMPARE(r.pageStart, s.pageStart);
  QCOMPARE(r.pageLength, s.pageLength);
  QCOMPARE(r.microvoltsPerDivision, s.microvoltsPerDivision);
  QCOMPARE(r.firstVisibleChannel, s.firstVisibleChannel);
  QCOMPARE(r.visibleChannelCount, s.visibleChannelCount);
  QCOMPARE(r.selectedChannels, s.selectedChannels);
  QCOMPARE(r.montage, s.montage);
  QCOMPARE(r.displayFilter, s.displayFilter);
  QCOMPARE(b.selectedChannels(), std::vector<int>({14, 29}));

  // A second browser restored from the state renders the same page pixel for pixel.
  SignalBrowser b2;
  b2.resize(1000, 700);
  b2.setRecording(b.recording());
  b2.setViewState(r);
  QCOMPARE(render(b2, QSize(1000, 700)), render(b, QSize(1000, 700)));

  // A state from a longer recording is clamped, not trusted.
  ViewState far = s;
  far.pageStart = 1e6;
  far.visibleChannelCount = 500;
  b2.setViewState(far);
  QCOMPARE(b2.pageStart(), kDuration - s.pageLength);
  QCOMPARE(b2.visibleChannelCount(), kChannels);

  ViewState bad = s;
  bad.displayFilter = "wobble 3 Hz";
  QSignalSpy p2(&b2, &SignalBrowser::displayProblem);
  b2.setViewState(bad);
  QCOMPARE(p2.count(), 1);
  QVERIFY(p2.at(0).at(0).toString().contains("wobble"));
}

void SignalBrowserTest::filterTextRoundTrips() {
  std::vector<std::optional<FilterSpec>> specs;
  specs.push_back(std::nullopt);
  FilterSpec f;
  f.kind = FilterKind::BandPass, f.lowHz = 0.5, f.highHz = 45;
  specs.push_back(f);
  f = {};
  f.kind = FilterKind::HighPass, f.lowHz = 1, f.transitionHz = 0.5;
  specs.push_back(f);
  f = {};
  f.kind = FilterKind::LowPass, f.highHz = 30;
  specs.push_back(f);
  f = {};
  f.kind = FilterKind::Notch, f.notchHz = 60, f.notchHarmonics = false;
  specs.push_back(f);
  for (const auto& spec : specs) {
    const std::string text = browser::filterText(spec);
    const auto back = browser::parseFilterText(text);
    QVERIFY2(back.has_value(), text.c_str());
    QCOMPARE(browser::filterText(*back), text);
  }
  // The command line's spelling is understood too.
  const auto cli = browser::parseFilterText("bandpass:1-40");
  QVERIFY(cli && *cli && (*cli)->lowHz == 1 && (*cli)->highHz == 40);
  QVERIFY(!browser::parseFilterText("bandpass 40").has_value());
  for (const char* m : {"as recorded", "average", "linked mastoids", "ref:Cz"}) {
    const auto spec = browser::parseMontageText(m);
    QVERIFY(spec.has_value());
    QCOMPARE(browser::montageText(*spec), std::string(m));
  }
  QVERIFY(browser::parseMontageText("channel:Cz")->channel == "Cz");
  QVERIFY(!browser::parseMontageText("bipolar").has_value());
}

void SignalBrowserTest::displayFilterRemovesOutOfBandComponent() {
  // ECG row: 7 Hz at A plus 60 Hz at A. Low-pass 30 Hz leaves the 7 Hz sine, so the drawn
  // peak-to-peak falls from about 4A to 2A (the FIR's stop band at 60 Hz is far below 1 %).
  std::vector<ChannelSpec> specs;
  for (int k = 0; k < 8; ++k) {
    specs.push_back({kNames[k], k == 3 ? ChannelType::ECG : ChannelType::EEG, kRate, [](double t) {
                       return kAmplitude * (std::sin(2 * std::numbers::pi * 7 * t) +
                                            std::sin(2 * std::numbers::pi * 60 * t));
                     }});
  }
  auto rec = makeRecording(specs, 60.0);
  SignalBrowser b;
  const QSize size(1200, 800);
  b.resize(size);
  b.setRecording(rec);
  b.setPageStart(20.0);
  b.setMicrovoltsPerDivision(200.0);
  const auto l = layoutOf(b, size);
  const QColor ecg = browser::channelTypeColour(ChannelType::ECG);
  const QRect band = inner(l.traces, 2).adjusted(0, 0, -130, 0);
  const double pxPerUv = l.rowHeight / 200.0;
  const int raw = colourExtent(render(b, size), band, ecg);
  FilterSpec lp;
  lp.kind = FilterKind::LowPass;
  lp.highHz = 30.0;
  QSignalSpy problems(&b, &SignalBrowser::displayProblem);
  b.setDisplayFilter(lp);
  QCOMPARE(problems.count(), 0);
  const int filtered = colourExtent(render(b, size), band, ecg);
  // Peak-to-peak of sin(7t)+sin(60t) sampled over 10 s: close to 4A (>= 3.9A); after the
  // filter 2A, +-2 px of line rounding and 2 % for the pass-band ripple.
  QVERIFY2(raw >= 3.9 * kAmplitude * pxPerUv - 2, qPrintable(QString::number(raw)));
  QVERIFY2(
      std::abs(filtered - 2 * kAmplitude * pxPerUv) <= 2 + 0.02 * 2 * kAmplitude * pxPerUv,
      qPrintable(QString("filtered %1, expected %2").arg(filtered).arg(2 * kAmplitude * pxPerUv)));
  QCOMPARE(b.viewState().displayFilter, std::string("lowpass 30 Hz"));
}

void SignalBrowserTest::montageThatDoesNotFitFallsBack() {
  // Eight frontal channels: no mastoid pair (M1/M2, A1/A2, TP9/TP10) to link.
  std::vector<ChannelSpec> specs;
  for (int k = 0; k < 8; ++k) {
    specs.push_back({kNames[k], ChannelType::EEG, kRate, [k](double t) {
                       return kAmplitude * std::sin(2 * std::numbers::pi * (3 + k) * t);
                     }});
  }
  auto rec = makeRecording(specs, 30.0);
  SignalBrowser b;
  b.resize(800, 600);
  b.setRecording(rec);
  QSignalSpy problems(&b, &SignalBrowser::displayProblem);
  ReferenceSpec mastoids;
  mastoids.kind = ReferenceKind::LinkedMastoids;
  b.setMontage(mastoids);
  QCOMPARE(problems.count(), 1);
  QVERIFY(problems.at(0).at(0).toString().contains("as recorded"));
  QCOMPARE(b.viewState().montage, std::string("as recorded"));
  // The page still renders, as recorded: identical to a browser that never had a montage.
  SignalBrowser plain;
  plain.resize(800, 600);
  plain.setRecording(rec);
  QCOMPARE(render(b, QSize(800, 600)), render(plain, QSize(800, 600)));
  // A montage that fits does change the traces (average reference of unequal sines).
  ReferenceSpec average;
  average.kind = ReferenceKind::Average;
  b.setMontage(average);
  QCOMPARE(problems.count(), 1);
  QVERIFY(render(b, QSize(800, 600)) != render(plain, QSize(800, 600)));
}

void SignalBrowserTest::decimationMatchesBruteForce() {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 10.0f);
  const double rate = 1000.0;
  std::vector<float> x(20000);
  for (auto& v : x) v = noise(rng);
  const int64_t first = 3000;  // the samples start at 3 s
  const double start = 4.1234, length = 10.0;
  const int columns = 777;
  const auto t = browser::decimateTrace(x.data(), first, static_cast<int64_t>(x.size()), rate,
                                        start, length, columns, 2.0);
  QVERIFY(t.decimated);
  // Brute force: put each sample in column floor((t - start) / dt) and keep min and max.
  const double dt = length / columns;
  std::vector<float> lo(columns, INFINITY), hi(columns, -INFINITY);
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double time = (first + static_cast<double>(i)) / rate;
    const auto c = static_cast<int>(std::floor((time - start) / dt + 1e-9));
    if (c < 0 || c >= columns) continue;
    lo[c] = std::min(lo[c], x[i] * 2.0f);
    hi[c] = std::max(hi[c], x[i] * 2.0f);
    sum += x[i] * 2.0;
    ++n;
  }
  QCOMPARE(static_cast<int>(t.x.size()), 2 * columns);
  for (int c = 0; c < columns; ++c) {
    const float a = t.y[2 * c], b = t.y[2 * c + 1];
    QCOMPARE(t.x[2 * c], c + 0.5f);
    QCOMPARE(std::min(a, b), lo[c]);
    QCOMPARE(std::max(a, b), hi[c]);
  }
  QVERIFY(std::abs(t.offset - sum / n) < 1e-3);
  // Zoomed in (fewer than two samples per column): the samples themselves at their times.
  const auto z = browser::decimateTrace(x.data(), first, static_cast<int64_t>(x.size()), rate, 5.0,
                                        0.5, 1000, 1.0);
  QVERIFY(!z.decimated);
  for (std::size_t i = 0; i < z.x.size(); ++i) {
    const double sampleIndex = 5.0 * rate + z.x[i] * (0.5 / 1000) * rate;  // back from columns
    const auto k = static_cast<int64_t>(std::llround(sampleIndex)) - first;
    QVERIFY(std::abs(sampleIndex - std::round(sampleIndex)) < 1e-3);
    QCOMPARE(z.y[i], x[static_cast<std::size_t>(k)]);
  }
}

void SignalBrowserTest::quarterScrollReadsQuarterPageAndMatchesFreshPage() {
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 5.0);
  std::vector<ChannelSpec> specs;
  for (int k = 0; k < 16; ++k) {
    auto phase = std::make_shared<std::vector<double>>(static_cast<std::size_t>(60 * kRate));
    for (auto& v : *phase) v = noise(rng);
    specs.push_back({kNames[k], ChannelType::EEG, kRate, [phase](double t) {
                       const auto i = static_cast<std::size_t>(std::llround(t * kRate));
                       return 30 * std::sin(2 * std::numbers::pi * 9 * t) + (*phase)[i];
                     }});
  }
  auto rec = makeRecording(specs, 60.0);
  std::vector<int> channels(16);
  for (int i = 0; i < 16; ++i) channels[i] = i;

  for (bool readAhead : {false, true}) {
    for (bool filtered : {false, true}) {
      browser::PageCache scrolled;
      scrolled.setRecording(rec);
      scrolled.setReadAhead(readAhead);
      FilterSpec bp;
      bp.kind = FilterKind::BandPass, bp.lowHz = 1.0, bp.highHz = 40.0;
      if (filtered) QCOMPARE(scrolled.setFilter(bp), std::string());
      browser::PageRequest req{channels, 10.0, 8.0, 640};
      scrolled.page(req);
      scrolled.waitForReadAhead();
      const int64_t before = scrolled.samplesRead(), aheadBefore = scrolled.samplesReadAhead();
      req.start += req.length / 4;
      const browser::DecimatedPage page = scrolled.page(req);
      const int64_t read = scrolled.samplesRead() - before;
      const int64_t readAhead = scrolled.samplesReadAhead() - aheadBefore;
      // New samples: a quarter page per channel (+ the filter's half-length on each side when
      // filtering, + the 2-3 samples of margin the page window keeps). With read-ahead,
      // kReadAheadMax pages were read in the background after the first page and the scroll
      // reads nothing.
      const int64_t pad = filtered ? static_cast<int64_t>(designFir(bp, kRate).taps.size() / 2) : 0;
      const int64_t quarter = static_cast<int64_t>(kRate * req.length / 4);
      const auto ahead = static_cast<int64_t>(browser::kReadAheadMax * 4 * quarter);
      const QString what =
          QString("read-ahead %1, filter %2: read %3 + %4 ahead, a quarter page is %5")
              .arg(readAhead)
              .arg(filtered)
              .arg(read)
              .arg(readAhead)
              .arg(16 * quarter);
      if (readAhead) {
        QVERIFY2(read == 0, qPrintable(what));
        QVERIFY2(readAhead >= 16 * ahead && readAhead <= 16 * (ahead + 2 * pad + 12),
                 qPrintable(what));
      } else {
        QVERIFY2(read >= 16 * quarter && read <= 16 * (quarter + 2 * pad + 4), qPrintable(what));
        QCOMPARE(readAhead, int64_t{0});
      }

      browser::PageCache fresh;
      fresh.setRecording(rec);
      fresh.setReadAhead(false);
      if (filtered) fresh.setFilter(bp);
      const browser::DecimatedPage& expected = fresh.page(req);
      QCOMPARE(page.traces.size(), expected.traces.size());
      for (std::size_t c = 0; c < page.traces.size(); ++c) {
        QCOMPARE(page.traces[c].y.size(), expected.traces[c].y.size());
        for (std::size_t i = 0; i < page.traces[c].y.size(); ++i) {
          // Same samples through the same FIR; only the FFT's float rounding may differ
          // (relative ~1e-6 of the ~50 uV signal).
          QVERIFY2(std::abs(page.traces[c].y[i] - expected.traces[c].y[i]) < 1e-3,
                   qPrintable(QString("channel %1 point %2: %3 vs %4")
                                  .arg(c)
                                  .arg(i)
                                  .arg(page.traces[c].y[i])
                                  .arg(expected.traces[c].y[i])));
        }
      }
      // An unchanged request is served from the cache: nothing is read.
      scrolled.waitForReadAhead();
      const int64_t again = scrolled.samplesRead() + scrolled.samplesReadAhead();
      scrolled.page(req);
      QCOMPARE(scrolled.samplesRead() + scrolled.samplesReadAhead(), again);
      // Scrolling back (no read-ahead that way) reads the quarter again and still matches.
      req.start -= req.length / 4;
      const browser::DecimatedPage back = scrolled.page(req);
      browser::PageCache fresh2;
      fresh2.setRecording(rec);
      fresh2.setReadAhead(false);
      if (filtered) fresh2.setFilter(bp);
      const browser::DecimatedPage& expectedBack = fresh2.page(req);
      for (std::size_t c = 0; c < back.traces.size(); ++c) {
        for (std::size_t i = 0; i < back.traces[c].y.size(); ++i) {
          QVERIFY(std::abs(back.traces[c].y[i] - expectedBack.traces[c].y[i]) < 1e-3);
        }
      }
    }
  }
}

void SignalBrowserTest::annotationQueryMatchesBruteForce() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> onset(0, 1000), dur(0, 5);
  std::vector<Annotation> file, user;
  for (int i = 0; i < 3000; ++i) file.push_back({onset(rng), i % 3 ? 0.0 : dur(rng), "f"});
  file.push_back({1.0, 900.0, "long span"});  // starts long before most pages
  for (int i = 0; i < 100; ++i) user.push_back({onset(rng), 0.0, "u"});
  browser::AnnotationIndex index;
  index.build(&file, &user);
  QCOMPARE(index.size(), file.size() + user.size());
  for (double t0 : {0.0, 12.5, 499.0, 899.0, 950.0}) {
    const double t1 = t0 + 10.0;
    std::size_t expected = 0;
    for (const auto* list : {&file, &user}) {
      for (const auto& a : *list) expected += (a.onset < t1 && a.onset + a.duration >= t0);
    }
    const auto got = index.query(t0, t1);
    QCOMPARE(got.size(), expected);
    for (std::size_t i = 1; i < got.size(); ++i) {
      QVERIFY(got[i - 1].annotation->onset <= got[i].annotation->onset);
    }
  }
}

void SignalBrowserTest::rasterizerMatchesQPainterPolyline() {
  // The fast raster path against QPainter's own aliased cosmetic polyline through the same
  // points, per column: the topmost and the bottommost pixel. Rasterisers differ in endpoint
  // conventions (QPainter leaves out the last pixel of a segment, ours draws the extremes
  // inclusively), so one pixel of difference is allowed; more than one in under 2 % of the
  // columns (rounding where a segment passes exactly between pixels), never more than two.
  std::mt19937 rng(5);
  std::normal_distribution<float> step(0.0f, 3.0f);
  const int w = 500, h = 300;
  std::vector<float> walk(40000);
  float v = 0;
  for (auto& x : walk) x = v += step(rng);
  struct Case {
    const char* name;
    browser::DecimatedTrace trace;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"decimated", browser::decimateTrace(walk.data(), 0, 40000, 1000.0, 0.0, 40.0, w, 0.5)});
  cases.push_back(
      {"raw", browser::decimateTrace(walk.data(), 0, 40000, 1000.0, 1.0, 0.06, w, 0.5)});
  QVERIFY(cases[0].trace.decimated && !cases[1].trace.decimated);
  const QRgb colour = qRgb(10, 20, 30);
  auto span = [&](const QImage& img, int x, int* top, int* bottom) {
    *top = *bottom = -1;
    for (int y = 0; y < h; ++y) {
      if (img.pixel(x, y) != colour) continue;
      if (*top < 0) *top = y;
      *bottom = y;
    }
  };
  for (const Case& c : cases) {
    const double centre = h / 2.0, yScale = 0.8;
    QImage mine(w, h, QImage::Format_ARGB32_Premultiplied);
    mine.fill(Qt::white);
    browser::rasterizeTrace(mine, c.trace, 1.0, centre, yScale, colour);
    QImage qt(w, h, QImage::Format_ARGB32_Premultiplied);
    qt.fill(Qt::white);
    {
      QPainter p(&qt);
      p.setPen(QPen(QColor::fromRgb(colour), 0));
      std::vector<QPointF> pts;
      for (std::size_t i = 0; i < c.trace.x.size(); ++i) {
        pts.emplace_back(c.trace.x[i], centre - (c.trace.y[i] - c.trace.offset) * yScale);
      }
      p.drawPolyline(pts.data(), static_cast<int>(pts.size()));
    }
    int columns = 0, moreThanOne = 0;
    for (int x = 1; x < w - 1; ++x) {
      int t1, b1, t2, b2;
      span(mine, x, &t1, &b1);
      span(qt, x, &t2, &b2);
      if (t1 < 0 && t2 < 0) continue;
      QVERIFY2(t1 >= 0 && t2 >= 0,
               qPrintable(QString("%1, column %2: drawn by one only").arg(c.name).arg(x)));
      ++columns;
      const int d = std::max(std::abs(t1 - t2), std::abs(b1 - b2));
      QVERIFY2(d <= 2, qPrintable(QString("%1, column %2: rows %3-%4 vs QPainter %5-%6")
                                      .arg(c.name)
                                      .arg(x)
                                      .arg(t1)
                                      .arg(b1)
                                      .arg(t2)
                                      .arg(b2)));
      moreThanOne += d > 1;
    }
    QVERIFY(columns > w * 0.9);
    QVERIFY2(moreThanOne <= columns / 50, qPrintable(QString("%1: %2 of %3 columns differ by 2 px")
                                                         .arg(c.name)
                                                         .arg(moreThanOne)
                                                         .arg(columns)));
  }
}

void SignalBrowserTest::thousandsOfAnnotationsInOnePage() {
  auto rec = standardRecording();
  std::vector<Annotation> many;
  for (int i = 0; i < 5000; ++i)
    many.push_back({20.0 + i * 0.002, 0.0, "spike " + std::to_string(i)});
  SignalBrowser b;
  const QSize size(1200, 800);
  b.resize(size);
  b.setRecording(rec);
  b.setUserAnnotations(many);
  b.setPageStart(18.0);
  const QImage img = render(b, size);
  const auto l = layoutOf(b, size);
  // Markers cover the 10 s of events: [20, 30) s maps to x in [left + 2/10 w, left + w).
  // Counted on the line between the first two rows, where no trace reaches (each sine spans
  // 0.8 of a row around its centre).
  int markers = 0;
  const int y = static_cast<int>(std::lround(l.traces.top() + l.rowHeight));
  // Each marker in its event type's colour (widgets/annotation_colours.h).
  std::set<QRgb> colours;
  for (const Annotation& a : many) colours.insert(annotationColour(a.text).rgb() & 0xffffff);
  for (int x = static_cast<int>(l.traces.left()); x < l.traces.right(); ++x) {
    markers += colours.count(img.pixel(x, y) & 0xffffff) > 0;
  }
  const double expectedColumns = 0.8 * l.traces.width();
  QVERIFY2(markers > 0.9 * expectedColumns && markers <= expectedColumns + 2,
           qPrintable(
               QString("%1 marker columns, expected about %2").arg(markers).arg(expectedColumns)));
}

QTEST_MAIN(SignalBrowserTest)
#include "signal_browser_test.moc"
