// The generic matrix heat map (widgets/matrix_heat_map.h): a known matrix whose cells all have
// different values is drawn, and the pixel at each cell's centre must have the colour the
// published colour map gives that value's position on the scale (computed here from the values,
// not asked from the widget); NaN cells are grey; the read-out names the hovered cell; clicks and
// arrow keys select cells and emit cellSelected; crowded labels are thinned; each export format
// writes a file whose PNG pixels are the same cells.
#include "widgets/matrix_heat_map.h"

#include <QApplication>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>

#include "widgets/colour_map.h"
#include "widgets/page_export.h"

using namespace modescope;

namespace {

constexpr int kRows = 4, kCols = 6;

// v(r, c) = r * cols + c + 1: every cell different, row 0 the smallest, so a transposed or
// flipped drawing puts a wrong colour at every checked centre.
std::vector<double> rampMatrix() {
  std::vector<double> v;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) v.push_back(r * kCols + c + 1);
  return v;
}

QStringList labels(const char* prefix, int n) {
  QStringList out;
  for (int i = 0; i < n; ++i) out << QStringLiteral("%1%2").arg(QLatin1String(prefix)).arg(i);
  return out;
}

// Colours are compared per channel with a tolerance of 2 levels: the table lookup rounds t to one
// of 256 entries, and neighbouring viridis entries differ by at most ~2 levels per channel.
bool near(QRgb a, QRgb b, int tol = 2) {
  return std::abs(qRed(a) - qRed(b)) <= tol && std::abs(qGreen(a) - qGreen(b)) <= tol &&
         std::abs(qBlue(a) - qBlue(b)) <= tol;
}

QString rgb(QRgb c) {
  return QStringLiteral("(%1,%2,%3)").arg(qRed(c)).arg(qGreen(c)).arg(qBlue(c));
}

}  // namespace

class MatrixHeatMapTest : public QObject {
  Q_OBJECT

 private slots:
  void cellsHaveTheirColours() {
    MatrixHeatMap map;
    map.resize(600, 400);
    map.setMatrix(kRows, kCols, rampMatrix(), labels("ch", kRows), labels("f", kCols));
    map.setUnit(QStringLiteral("uV"));
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QCOMPARE(map.scaleLow(), 1.0);  // sequential scale fits min..max
    QCOMPARE(map.scaleHigh(), double(kRows * kCols));
    const QImage img = map.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const double dpr = img.devicePixelRatio();
    const ColourMap viridis = ColourMap::viridis();
    for (int r = 0; r < kRows; ++r) {
      for (int c = 0; c < kCols; ++c) {
        const QPointF centre = map.cellRect(r, c).center() * dpr;
        const double v = r * kCols + c + 1;
        const double t = (v - 1.0) / (kRows * kCols - 1.0);
        const QRgb want = viridis.colourAt(t);
        const QRgb got = img.pixel(centre.toPoint());
        QVERIFY2(near(got, want), qPrintable(QStringLiteral("cell (%1,%2): got %3, want %4")
                                                 .arg(r)
                                                 .arg(c)
                                                 .arg(rgb(got), rgb(want))));
      }
    }
    // Row 0 is at the top, column 0 at the left.
    QVERIFY(map.cellRect(0, 0).top() < map.cellRect(1, 0).top());
    QVERIFY(map.cellRect(0, 0).left() < map.cellRect(0, 1).left());
  }

  void nanIsGreyAndDivergingIsSymmetric() {
    MatrixHeatMap map;
    map.resize(500, 300);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // -2 .. 1 with a NaN: the diverging scale must be -2 .. +2 (symmetric about zero).
    map.setMatrix(2, 2, {-2.0, 0.0, nan, 1.0}, {"a", "b"}, {"x", "y"});
    map.setColourMode(MatrixHeatMap::ColourMode::Diverging);
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QCOMPARE(map.scaleLow(), -2.0);
    QCOMPARE(map.scaleHigh(), 2.0);
    const QImage img = map.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const double dpr = img.devicePixelRatio();
    auto at = [&](int r, int c) {
      return img.pixel((map.cellRect(r, c).center() * dpr).toPoint());
    };
    const QRgb zero = at(0, 1);  // the middle of blue-white-red is white
    QVERIFY2(qRed(zero) > 235 && qGreen(zero) > 235 && qBlue(zero) > 235, qPrintable(rgb(zero)));
    const QRgb low = at(0, 0);  // the blue end
    QVERIFY2(qBlue(low) > qRed(low) + 60, qPrintable(rgb(low)));
    const QRgb high = at(1, 1);  // +1 of 2: reddish
    QVERIFY2(qRed(high) > qBlue(high) + 40, qPrintable(rgb(high)));
    QCOMPARE(at(1, 0), qRgb(170, 170, 170));  // NaN: grey
    QCOMPARE(map.readoutText(1, 0), QStringLiteral("b, x: no value"));

    // A fixed range is used as given.
    map.setColourMode(MatrixHeatMap::ColourMode::Sequential);
    map.setFixedRange(0.0, 4.0);
    QCOMPARE(map.scaleHigh(), 4.0);
    QVERIFY(near(map.colourFor(2.0), ColourMap::viridis().colourAt(0.5), 0));
    map.setFixedRange(3.0, 1.0);  // refused: low >= high
    QCOMPARE(map.scaleLow(), 0.0);
  }

  void readoutSelectionAndKeys() {
    MatrixHeatMap map;
    map.resize(600, 400);
    map.setMatrix(kRows, kCols, rampMatrix(), labels("ch", kRows), labels("f", kCols));
    map.setUnit(QStringLiteral("uV"));
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    // Value of (2, 3) = 2 * 6 + 3 + 1 = 16.
    QCOMPARE(map.readoutText(2, 3), QStringLiteral("ch2, f3: 16 uV"));
    QTest::mouseMove(&map, map.cellRect(2, 3).center().toPoint());
    QTRY_COMPARE(map.readout(), QStringLiteral("ch2, f3: 16 uV"));

    QSignalSpy selected(&map, &MatrixHeatMap::cellSelected);
    QTest::mouseClick(&map, Qt::LeftButton, {}, map.cellRect(1, 4).center().toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), 1);
    QCOMPARE(selected.at(0).at(1).toInt(), 4);
    QCOMPARE(map.selectedRow(), 1);
    QCOMPARE(map.selectedColumn(), 4);
    QTest::keyClick(&map, Qt::Key_Right);
    QCOMPARE(map.selectedColumn(), 5);
    QTest::keyClick(&map, Qt::Key_Right);  // the last column: stays
    QCOMPARE(map.selectedColumn(), 5);
    QCOMPARE(selected.count(), 2);
    QTest::keyClick(&map, Qt::Key_Down);
    QCOMPARE(map.selectedRow(), 2);
    QTest::keyClick(&map, Qt::Key_Up);
    QTest::keyClick(&map, Qt::Key_Up);
    QCOMPARE(map.selectedRow(), 0);
    QTest::keyClick(&map, Qt::Key_Home);
    QCOMPARE(map.selectedColumn(), 0);
    // Clicking outside the cells selects nothing.
    const int before = selected.count();
    QTest::mouseClick(&map, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(selected.count(), before);
    // A smaller matrix keeps a selection that still fits and drops one that does not.
    map.setMatrix(1, 1, {5.0}, {"only"}, {"one"});
    QCOMPARE(map.selectedRow(), 0);
    map.setSelectedCell(0, 0);
    map.setMatrix(2, 2, {1, 2, 3}, {}, {});  // 3 values for 4 cells: refused, said why
    QCOMPARE(map.rowCount(), 0);
    QVERIFY(!map.message().isEmpty());
    QCOMPARE(map.selectedRow(), -1);
  }

  void crowdedLabelsAreThinned() {
    MatrixHeatMap map;
    const int rows = 64, cols = 40;
    std::vector<double> v(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.1 * static_cast<double>(i));
    map.setMatrix(rows, cols, v, labels("channel", rows), labels("", cols));
    map.resize(400, 300);
    const auto fewRows = map.shownRowLabels();
    const auto fewCols = map.shownColumnLabels();
    QVERIFY(fewRows.size() < static_cast<std::size_t>(rows));
    QVERIFY(fewCols.size() < static_cast<std::size_t>(cols));
    QCOMPARE(fewRows.front(), 0);
    // Shown labels never overlap: consecutive row labels at least one text line apart.
    const double line = map.fontMetrics().height();
    for (std::size_t i = 1; i < fewRows.size(); ++i)
      QVERIFY(map.cellRect(fewRows[i], 0).center().y() -
                  map.cellRect(fewRows[i - 1], 0).center().y() >=
              line - 0.5);
    map.resize(1400, 2000);
    QCOMPARE(map.shownRowLabels().size(), static_cast<std::size_t>(rows));
  }

  void exportsEveryFormat() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    MatrixHeatMap map;
    map.resize(600, 400);
    map.setTitle(QStringLiteral("ramp"));
    map.setAxisTitles(QStringLiteral("Channel"), QStringLiteral("Frequency (Hz)"));
    map.setMatrix(kRows, kCols, rampMatrix(), labels("ch", kRows), labels("f", kCols));
    for (const char* name : {"m.png", "m.svg", "m.pdf"}) {
      QString error;
      const QString path = tmp.filePath(QLatin1String(name));
      QVERIFY2(map.exportFigure(path, &error), qPrintable(error));
      QVERIFY2(QFileInfo(path).size() > 500, name);
    }
    QString error;
    QVERIFY(!map.exportFigure(tmp.filePath(QStringLiteral("m.bmp")), &error));
    QVERIFY(error.contains(QLatin1String(".png")));
    // The PNG is drawn at kPngScale x the widget: cell (3, 5) (the top of the scale) is yellow.
    const QImage png =
        QImage(tmp.filePath(QStringLiteral("m.png"))).convertToFormat(QImage::Format_RGB32);
    QCOMPARE(png.width(), 600 * kPngScale);
    const QRgb top = png.pixel((map.cellRect(3, 5).center() * kPngScale).toPoint());
    QVERIFY2(near(top, ColourMap::viridis().colourAt(1.0)), qPrintable(rgb(top)));
  }
};

QTEST_MAIN(MatrixHeatMapTest)
#include "matrix_heat_map_test.moc"
