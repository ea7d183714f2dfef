// The 2-D scalp topography and the grid of component maps on the demo recording's 64 channel
// positions (PhysioNet eegmmidb S001R03, tests/data/physionet_S001R03_64ch.h5). The fields are
// first-degree spherical harmonics, v = d . r (the far field of a dipole at the head's centre), so
// where the map must be red, blue or white follows from d, not from the code under test. Pixels are
// read back from grabbed widgets at places given by the projection (pixelForDisc). Pictures are
// saved next to the test (MODESCOPE_TEST_OUTPUT_DIR/scalp_*.png); the docs' pictures are written
// only when MODESCOPE_DOCS_SCALP_SCREENSHOT names a folder (see docs/scalp-maps.md).
#include "widgets/scalp_map_view.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/io/recording_io.h"
#include "engine/montage/scalp_interpolation.h"
#include "widgets/page_export.h"
#include "widgets/scalp_map_grid.h"

using namespace modescope;

namespace {

std::vector<ChannelInfo> demoChannels() {
  OpenOptions options;
  options.allowFallback = false;
  const auto rec = openRecording(MODESCOPE_TEST_DATA "/physionet_S001R03_64ch.h5", options);
  return rec->channels;
}

ChannelInfo unpositioned(const char* name) {
  ChannelInfo ch;
  ch.label = name;
  ch.name = name;
  ch.type = ChannelType::EOG;
  return ch;
}

// v = amplitude * d . r for unit positions r; 0 for channels without a position.
std::vector<double> dipoleField(const std::vector<ChannelInfo>& channels, Position3 d,
                                double amplitude) {
  std::vector<double> v;
  const double n = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  for (const auto& ch : channels) {
    if (!ch.position) {
      v.push_back(0.0);
      continue;
    }
    const Position3 p = *ch.position;
    const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    v.push_back(amplitude * (p.x * d.x + p.y * d.y + p.z * d.z) / (r * n));
  }
  return v;
}

QRgb pixelAt(const QImage& image, QPointF p) {
  return image.pixel(static_cast<int>(std::floor(p.x())), static_cast<int>(std::floor(p.y())));
}

bool isRed(QRgb c) { return qRed(c) > 120 && qRed(c) > qBlue(c) + 60; }
bool isBlue(QRgb c) { return qBlue(c) > 120 && qBlue(c) > qRed(c) + 60; }

// Dark dips along a vertical line: pixels at least 20 grey levels darker than both pixels 3 rows
// away (a thin line on a smooth colour ramp), counted once per run.
int darkDips(const QImage& image, int x, int y0, int y1) {
  int dips = 0;
  bool inDip = false;
  for (int y = y0 + 3; y < y1 - 3; ++y) {
    const int g = qGray(image.pixel(x, y));
    const bool dip = g + 20 < qGray(image.pixel(x, y - 3)) && g + 20 < qGray(image.pixel(x, y + 3));
    if (dip && !inDip) ++dips;
    inDip = dip;
  }
  return dips;
}

int darkPixels(const QImage& image, const QRect& r) {
  int n = 0;
  for (int y = r.top(); y <= r.bottom(); ++y) {
    for (int x = r.left(); x <= r.right(); ++x) n += qGray(image.pixel(x, y)) < 100;
  }
  return n;
}

// The bottom 22 pixel rows left of disc x = -0.8 (the map's circle is narrower down there).
QRect bottomLeft(const ScalpMapView& view, const QImage& image) {
  const int right = static_cast<int>(view.pixelForDisc(-0.8, 0).x());
  return QRect(0, image.height() - 22, right, 20);
}

void save(const QImage& image, const char* name) {
  image.save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
  // The two pictures docs/scalp-maps.md shows.
  const QString docs = qEnvironmentVariable("MODESCOPE_DOCS_SCALP_SCREENSHOT");
  const QString base = QLatin1String(name);
  if (!docs.isEmpty() &&
      (base == QLatin1String("scalp_map") || base == QLatin1String("scalp_map_grid"))) {
    // Full colour (a 256-colour palette bands the smooth maps), strongest compression.
    image.convertToFormat(QImage::Format_RGB888)
        .save(QDir(docs).filePath(QLatin1String(name) + QStringLiteral(".png")), "PNG", 0);
  }
}

QImage grabbed(QWidget& w) { return w.grab().toImage().convertToFormat(QImage::Format_RGB32); }

}  // namespace

class ScalpMapViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    channels_ = demoChannels();
    QCOMPARE(channels_.size(), std::size_t{64});
    // The demo's labels ("Fc5.", "Cz..") are 10-10 sites: every channel has a position.
    QVERIFY(scalpLayout(channels_).unmapped.empty());
  }

  // A dipole toward the nose: red in front, blue behind, white along the T7-Cz-T8 line, the head
  // on the background, contours crossing the midline, a colour bar from blue to red.
  void dipoleFieldRedInFrontBlueBehind() {
    ScalpMapView view;
    view.resize(520, 440);
    view.setMap(channels_, dipoleField(channels_, {0, 1, 0}, 20.0), QStringLiteral("Dipole"),
                QStringLiteral("uV"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.message().isEmpty());
    const QImage image = grabbed(view);
    save(image, "scalp_dipole_front");

    // Fz-like (front) red, Pz-like (back) blue, left and right (x = +-0.6) near white.
    const QRgb front = pixelAt(image, view.pixelForDisc(0.05, 0.6));
    const QRgb back = pixelAt(image, view.pixelForDisc(0.05, -0.6));
    QVERIFY2(isRed(front), qPrintable(QColor(front).name()));
    QVERIFY2(isBlue(back), qPrintable(QColor(back).name()));
    for (double x : {-0.6, 0.6}) {
      const QRgb side = pixelAt(image, view.pixelForDisc(x, 0.02));
      QVERIFY2(qRed(side) > 200 && qGreen(side) > 200 && qBlue(side) > 200,
               qPrintable(QColor(side).name()));
    }
    // Outside the head (the map reaches T9/T10/Iz at radius 1.25): the background.
    const QRgb base = view.palette().color(QPalette::Base).rgb();
    for (const QPointF p : {view.pixelForDisc(-1.2, 1.2), view.pixelForDisc(1.15, -1.2)}) {
      QCOMPARE(QColor(pixelAt(image, p)).name(), QColor(base).name());
    }
    // The scale is symmetric around the largest |v| (an electrode of the front or back row).
    double largest = 0.0;
    for (double v : dipoleField(channels_, {0, 1, 0}, 20.0))
      largest = std::max(largest, std::abs(v));
    QVERIFY(view.scaleHigh() >= largest - 1e-9);
    QVERIFY(view.scaleHigh() < largest * 1.15);
    QCOMPARE(view.scaleLow(), -view.scaleHigh());
    // Seven contour levels (+-1/4, +-1/2, +-3/4 of max|v| and zero), each crossing the midline
    // once: dark dips along a line just off the midline electrodes. Without contours: none.
    QCOMPARE(view.contourLevels().size(), std::size_t{7});
    const int x = static_cast<int>(view.pixelForDisc(0.07, 0).x());
    const int top = static_cast<int>(view.pixelForDisc(0, 0.97).y());
    const int bottom = static_cast<int>(view.pixelForDisc(0, -0.97).y());
    const int dips = darkDips(image, x, top, bottom);
    QVERIFY2(dips >= 5 && dips <= 9, qPrintable(QString::number(dips)));
    view.setShowContours(false);
    QCOMPARE(darkDips(grabbed(view), x, top, bottom), 0);
    view.setShowContours(true);
    // Electrode dots: Cz (the field's zero) is drawn as a dark dot on white.
    QVERIFY(qGray(pixelAt(image, view.pixelForDisc(0, 0))) < 100);
    // The colour bar: some column right of the head is red at its top and blue at its bottom.
    const int headRight = static_cast<int>(view.pixelForDisc(1.3, 0).x());
    bool barFound = false;
    for (int cx = headRight; cx < image.width() && !barFound; ++cx) {
      int firstRed = -1, lastBlue = -1;
      for (int y = 0; y < image.height(); ++y) {
        if (firstRed < 0 && isRed(image.pixel(cx, y))) firstRed = y;
        if (isBlue(image.pixel(cx, y))) lastBlue = y;
      }
      barFound = firstRed >= 0 && lastBlue > firstRed + 100;
    }
    QVERIFY(barFound);
    // No channel left out: no "not shown" line at the bottom left (where the line starts; the
    // map's round bottom does not reach that corner).
    QVERIFY(view.unmappedChannels().isEmpty());
    QCOMPARE(darkPixels(image, bottomLeft(view, image)), 0);
  }

  // A left-right dipole turns the map: red on the right (T8 side), blue on the left.
  // Central sites only (C3, Cz, C4, FCz-like and CPz-like rows): the map stops 2 % beyond the
  // outermost electrode, as EEGLAB's topoplot masks at intrad; between there and the head
  // circle is the background, not invented colour.
  void mapIsMaskedBeyondTheOutermostElectrode() {
    std::vector<ChannelInfo> central;
    double outermost = 0.0;
    for (const ChannelInfo& ch : channels_) {
      const DiscPoint d = projectToDisc(*ch.position);
      const double r = std::hypot(d.x, d.y);
      if (r > 0.45) continue;
      central.push_back(ch);
      outermost = std::max(outermost, r);
    }
    QVERIFY(central.size() >= 8);
    ScalpMapView view;
    view.resize(520, 440);
    view.setMap(central, dipoleField(central, {1, 0, 0}, 20.0), QStringLiteral("Central"),
                QStringLiteral("uV"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = grabbed(view);
    save(image, "scalp_masked_central");
    const QRgb base = view.palette().color(QPalette::Base).rgb();
    // Inside the electrodes: coloured (red right, blue left); between 1.1 x outermost and the
    // head circle: the background on every side.
    QVERIFY(isRed(pixelAt(image, view.pixelForDisc(0.8 * outermost, 0.0))));
    QVERIFY(isBlue(pixelAt(image, view.pixelForDisc(-0.8 * outermost, 0.0))));
    const double r = 0.5 * (1.1 * outermost + 0.97);
    for (double angle = 0.0; angle < 6.2; angle += 0.7) {
      const QPointF p = view.pixelForDisc(r * std::cos(angle), r * std::sin(angle));
      QCOMPARE(QColor(pixelAt(image, p)).name(), QColor(base).name());
    }
  }

  void dipoleTowardTheRightEar() {
    ScalpMapView view;
    view.resize(400, 360);
    view.setMap(channels_, dipoleField(channels_, {1, 0, 0.2}, 5.0), QStringLiteral("Lateral"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = grabbed(view);
    QVERIFY(isRed(pixelAt(image, view.pixelForDisc(0.6, 0.05))));
    QVERIFY(isBlue(pixelAt(image, view.pixelForDisc(-0.6, 0.05))));
  }

  // A channel without a position is listed under the map, never dropped silently; the picture is
  // the one in docs/scalp-maps.md.
  void unmappedChannelIsListed() {
    auto channels = channels_;
    channels.push_back(unpositioned("VEOG"));
    ScalpMapView view;
    view.resize(520, 460);
    auto values = dipoleField(channels, {0.35, 0.9, 0.25}, 12.0);
    view.setMap(channels, values, QStringLiteral("Dipole-like field, 64 channels"),
                QStringLiteral("\u00b5V"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.unmappedChannels(), QStringList{QStringLiteral("VEOG")});
    const QImage image = grabbed(view);
    save(image, "scalp_map");
    // The "Not shown (no position): VEOG" line: dark text pixels in the bottom left corner.
    QVERIFY(darkPixels(image, bottomLeft(view, image)) > 20);
    QVERIFY(view.toolTip().contains(QStringLiteral("VEOG")));
    // A non-finite value is left out the same way, named as such.
    values[3] = std::nan("");
    view.setMap(channels, values, QStringLiteral("NaN at one channel"));
    const QString name = QString::fromStdString(channels[3].name);
    QVERIFY(view.unmappedChannels().contains(name + QStringLiteral(" (no value)")));
    QVERIFY(view.message().isEmpty());
  }

  void electrodeLabels() {
    ScalpMapView view;
    view.resize(560, 480);
    view.setShowElectrodeLabels(true);
    view.setMap(channels_, dipoleField(channels_, {0, 0.3, 1}, 8.0), QStringLiteral("Labels"),
                QStringLiteral("uV"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage with = grabbed(view);
    view.setShowElectrodeLabels(false);
    const QImage without = grabbed(view);
    save(with, "scalp_labels");
    // Labels add dark text pixels to the right of the dots.
    QVERIFY(darkPixels(with, with.rect()) > darkPixels(without, without.rect()) + 200);
  }

  // r^2 / band power: min..max on a sequential map (viridis: yellow at the top, violet at the
  // bottom of the scale).
  void sequentialScale() {
    ScalpMapView view;
    view.resize(400, 360);
    view.setSymmetricScale(false);
    std::vector<double> values = dipoleField(channels_, {0, 1, 0}, 1.0);
    for (double& v : values) v = 0.5 + 0.4 * v;  // 0.1 .. 0.9, positive
    view.setMap(channels_, values, QStringLiteral("r^2"), QStringLiteral("r^2"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    // The bar spans the electrodes' values exactly, whatever the spline does between them.
    QCOMPARE(view.scaleLow(), *lo);
    QCOMPARE(view.scaleHigh(), *hi);
    const QImage image = grabbed(view);
    const QRgb front = pixelAt(image, view.pixelForDisc(0.05, 0.85));
    QVERIFY2(qGreen(front) > 150 && qBlue(front) < 120, qPrintable(QColor(front).name()));
    const QRgb back = pixelAt(image, view.pixelForDisc(0.05, -0.85));
    QVERIFY2(qGreen(back) < 80 && qBlue(back) > 70, qPrintable(QColor(back).name()));
  }

  // A non-negative quantity peaking at one electrode: the spherical spline dips below 0 around
  // the peak, but the bar still starts at the electrodes' 0, so no colour means "negative r^2".
  void sequentialScaleIgnoresTheSplineOvershoot() {
    ScalpMapView view;
    view.resize(400, 360);
    view.setSymmetricScale(false);
    std::vector<double> values(channels_.size(), 0.0);
    values[channels_.size() / 2] = 1.0;
    const ScalpLayout layout = scalpLayout(channels_);
    std::vector<double> mapped;
    for (std::size_t i : layout.mapped) mapped.push_back(values[i]);
    const ScalpGrid grid =
        sharedScalpInterpolator(layout.positions, layout.headPolarDegrees)->grid(mapped);
    QVERIFY2(grid.minValue < 0.0, "this layout's spline should overshoot below 0");
    view.setInterpolated(channels_, layout, mapped, grid, QStringLiteral("r^2"),
                         QStringLiteral("r^2"));
    QCOMPARE(view.scaleLow(), 0.0);
    QCOMPARE(view.scaleHigh(), 1.0);
  }

  // Bad input shows why, and never throws: wrong value count, too few positions, duplicates.
  void badInputShowsAMessage() {
    ScalpMapView view;
    view.resize(300, 260);
    view.show();
    view.setMap(channels_, std::vector<double>(10, 1.0), QStringLiteral("x"));
    QVERIFY(view.message().contains(QStringLiteral("10 values for 64 channels")));
    std::vector<ChannelInfo> two(channels_.begin(), channels_.begin() + 2);
    two.push_back(unpositioned("EMG"));
    view.setMap(two, {1.0, 2.0, 3.0}, QStringLiteral("x"));
    QVERIFY2(view.message().contains(QStringLiteral("at least 3")), qPrintable(view.message()));
    QCOMPARE(view.unmappedChannels(), QStringList{QStringLiteral("EMG")});
    std::vector<ChannelInfo> dup(channels_.begin(), channels_.begin() + 4);
    dup[3].position = dup[0].position;
    view.setMap(dup, {1.0, 2.0, 3.0, 4.0}, QStringLiteral("x"));
    QVERIFY2(view.message().contains(QStringLiteral("same place")), qPrintable(view.message()));
    QVERIFY(!grabbed(view).isNull());  // paints the message
    view.setMap(channels_, dipoleField(channels_, {0, 1, 0}, 1.0), QStringLiteral("ok"));
    QVERIFY(view.message().isEmpty());
  }

  // Compact thumbnails: no colour bar; a marked map has a red frame; clicks are signalled.
  void compactMarkedThumbnail() {
    ScalpMapView view;
    view.setCompact(true);
    view.resize(view.sizeHint());
    view.setMap(channels_, dipoleField(channels_, {0, 1, 0}, 1.0), QStringLiteral("IC1 12.3%"));
    view.setMarked(true);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = grabbed(view);
    save(image, "scalp_compact_marked");
    QVERIFY(isRed(image.pixel(1, image.height() / 2)));
    QVERIFY(isRed(image.pixel(image.width() / 2, image.height() - 2)));
    view.setMarked(false);
    QVERIFY(!isRed(grabbed(view).pixel(1, image.height() / 2)));
    QSignalSpy clicked(&view, &ScalpMapView::clicked);
    QTest::mouseClick(&view, Qt::LeftButton);
    QCOMPARE(clicked.count(), 1);
  }

  // The grid: all columns of a channels x components matrix from one product; selection,
  // mark toggling (double click, Ctrl+click), marks drawn, export of the whole grid.
  void gridOfComponents() {
    auto channels = channels_;
    channels.push_back(unpositioned("VEOG"));
    const int columns = 64;
    const std::size_t rows = channels.size();
    std::vector<double> matrix(rows * columns);
    QStringList titles;
    for (int k = 0; k < columns; ++k) {
      // Dipoles pointing around the head and up: every map a different rotation.
      const double a = 2.0 * std::numbers::pi * k / 16.0;
      const auto v = dipoleField(channels, {std::cos(a), std::sin(a), 0.3 * (k % 4)}, 1.0 + k);
      for (std::size_t r = 0; r < rows; ++r) matrix[r * columns + k] = v[r];
      titles << QStringLiteral("IC%1 %2%").arg(k + 1).arg(30.0 / (k + 1), 0, 'f', 1);
    }
    ScalpMapGrid grid;
    grid.resize(900, 600);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    QElapsedTimer timer;
    timer.start();
    grid.setMaps(channels, matrix, columns, titles);
    const qint64 ms = timer.elapsed();
    qInfo("64 component maps set in %lld ms", ms);
    QVERIFY(ms < 1000);
    QCOMPARE(grid.count(), columns);
    QVERIFY(grid.message().isEmpty());
    QCOMPARE(grid.unmappedChannels(), QStringList{QStringLiteral("VEOG")});
    QCOMPARE(grid.view(0)->title(), QStringLiteral("IC1 30.0%"));
    QVERIFY(grid.view(10)->isCompact());
    // One fit for all maps: the shared interpolator of this electrode set is the cached one.
    const ScalpLayout layout = scalpLayout(channels);
    QCOMPARE(sharedScalpInterpolator(layout.positions).get(),
             sharedScalpInterpolator(layout.positions).get());
    // Column 4 points to +y (a = pi/2): red in front on its thumbnail.
    ScalpMapView* four = grid.view(4);
    const QImage thumb = grabbed(*four);
    QVERIFY(isRed(pixelAt(thumb, four->pixelForDisc(0.05, 0.6))));
    QVERIFY(isBlue(pixelAt(thumb, four->pixelForDisc(0.05, -0.6))));

    QSignalSpy clicked(&grid, &ScalpMapGrid::componentClicked);
    QSignalSpy toggled(&grid, &ScalpMapGrid::componentToggled);
    QTest::mouseClick(grid.view(3), Qt::LeftButton);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 3);
    QCOMPARE(grid.current(), 3);
    QVERIFY(grid.view(3)->isHighlighted());
    QTest::mouseClick(grid.view(5), Qt::LeftButton, Qt::ControlModifier);
    QCOMPARE(toggled.count(), 1);
    QCOMPARE(toggled.at(0).at(0).toInt(), 5);
    QCOMPARE(clicked.count(), 1);  // Ctrl+click does not select
    QTest::mouseDClick(grid.view(2), Qt::LeftButton);
    QCOMPARE(toggled.count(), 2);
    QCOMPARE(toggled.at(1).at(0).toInt(), 2);
    QVERIFY(!grid.isMarked(5));  // the owner of the marks decides
    grid.setMarked(5, true);
    grid.setMarked(2, true);
    QCOMPARE(grid.markedIndices(), (std::vector<int>{2, 5}));
    const QImage marked = grabbed(*grid.view(5));
    QVERIFY(isRed(marked.pixel(1, marked.height() / 2)));
    grid.setCurrent(40);  // scrolls to it
    QCOMPARE(grid.current(), 40);
    QVERIFY(!grid.view(3)->isHighlighted());
    QVERIFY(grid.view(40)->visibleRegion().boundingRect().height() > 0);
    save(grabbed(grid), "scalp_map_grid_widget");

    // Export of every map, 8 per row.
    QTemporaryDir tmp;
    const QString path = tmp.filePath(QStringLiteral("grid.png"));
    const QSize size = grid.exportSize(8);
    QCOMPARE(size.width(), 8 * grid.tileSize());
    QString error;
    QVERIFY2(exportView(
                 path, size, [&](QPainter& p, const QRect& r) { grid.render(p, r, 8); },
                 QStringLiteral("IC maps"), &error),
             qPrintable(error));
    QImage exported(path);
    QCOMPARE(exported.size(), size * kPngScale);
    save(exported.scaled(size, Qt::KeepAspectRatio, Qt::SmoothTransformation),
         "scalp_map_grid_all");

    // The docs' picture: the first 16 maps, two marked, one current, exported 8 per row.
    {
      const int first = 16;
      std::vector<double> sixteen(rows * first);
      for (std::size_t r = 0; r < rows; ++r) {
        for (int k = 0; k < first; ++k) sixteen[r * first + k] = matrix[r * columns + k];
      }
      ScalpMapGrid small;
      small.setTileSize(110);
      small.setMaps(channels, sixteen, first, titles.mid(0, first));
      small.setMarked(2, true);
      small.setMarked(5, true);
      small.setCurrent(9);
      const QString docsPath = tmp.filePath(QStringLiteral("grid16.png"));
      QVERIFY(exportView(docsPath, small.exportSize(8),
                         [&](QPainter& p, const QRect& r) { small.render(p, r, 8); }));
      save(QImage(docsPath).scaled(small.exportSize(8), Qt::KeepAspectRatio,
                                   Qt::SmoothTransformation),
           "scalp_map_grid");
    }

    // A matrix of the wrong size shows why.
    grid.setMaps(channels, std::vector<double>(5, 0.0), columns, titles);
    QCOMPARE(grid.count(), 0);
    QVERIFY(grid.message().contains(QStringLiteral("5 values")));
  }

  // Export of one map as PNG and SVG through page_export.
  void exportSingleMap() {
    ScalpMapView view;
    view.resize(400, 340);
    view.setMap(channels_, dipoleField(channels_, {0, 1, 0}, 3.0), QStringLiteral("Export"),
                QStringLiteral("uV"));
    QTemporaryDir tmp;
    for (const char* name : {"map.png", "map.svg", "map.pdf"}) {
      QString error;
      const QString path = tmp.filePath(QLatin1String(name));
      QVERIFY2(exportView(
                   path, view.size(), [&](QPainter& p, const QRect& r) { view.render(p, r); }, {},
                   &error),
               qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 1000);
    }
    const QImage png(tmp.filePath(QStringLiteral("map.png")));
    const QRect area(QPoint(0, 0), view.size());
    const QPointF front = view.pixelForDisc(0.05, 0.6, area) * kPngScale;
    QVERIFY(isRed(pixelAt(png.convertToFormat(QImage::Format_RGB32), front)));
  }

 private:
  std::vector<ChannelInfo> channels_;
};

QTEST_MAIN(ScalpMapViewTest)
#include "scalp_map_view_test.moc"
