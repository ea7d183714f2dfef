// The connectivity scalp view (widgets/connectivity_scalp_view.h): K channel pairs of a matrix
// drawn as lines between electrodes on the 2-D head. Oracles: the matrices are built here so the
// K lowest / highest pairs are known by construction; electrode places follow from the montage
// (Cz is the vertex, the head's centre; Fz lies toward the nose, up; C3 left, C4 right); line
// colours are read back from the grabbed widget at a line's midpoint.
#include "widgets/connectivity_scalp_view.h"

#include <QApplication>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "engine/montage/channel_names.h"
#include "widgets/page_export.h"

using namespace modescope;

namespace {

ChannelInfo site(const char* name) {
  ChannelInfo ch;
  ch.name = ch.label = name;
  ch.type = ChannelType::EEG;
  ch.position = standardPosition(name);
  return ch;
}

// Sites Fz Cz Pz C3 C4 and X1 (no position). Entry [u][v] = 10 + u + v by default, so the
// lowest pairs prefer small indices, with three designed pairs far below the rest.
struct Fixture {
  std::vector<ChannelInfo> channels{site("Fz"), site("Cz"), site("Pz"),
                                    site("C3"), site("C4"), site("X1")};
  std::vector<double> m;
  Fixture() {
    const std::size_t c = channels.size();
    m.resize(c * c);
    for (std::size_t u = 0; u < c; ++u)
      for (std::size_t v = 0; v < c; ++v) m[u * c + v] = 10.0 + static_cast<double>(u + v);
    auto set = [&](std::size_t u, std::size_t v, double a, double b) {
      m[u * c + v] = a;
      m[v * c + u] = b;
    };
    set(3, 4, 1.0, 3.0);          // C3-C4: mean 2 (asymmetric on purpose), the lowest
    set(0, 2, 4.0, 4.0);          // Fz-Pz: 4
    set(1, 5, 0.0, 0.0);          // Cz-X1: lowest of all, but X1 has no position: never drawn
    set(2, 4, 30.0, 40.0);        // Pz-C4: 35, the highest
    m[1 * c + 3] = std::nan("");  // Cz->C3 undefined: the pair uses C3->Cz alone (10 + 4)
  }
};

}  // namespace

class ConnectivityScalpViewTest : public QObject {
  Q_OBJECT

 private slots:
  void picksAndPlaces() {
    Fixture f;
    ConnectivityScalpView view;
    view.resize(420, 440);
    view.setLineCount(2);
    view.setMatrix(f.channels, f.m, QStringLiteral("test"), QStringLiteral("Cross-ApEn"));
    QVERIFY(view.message().isEmpty());
    QCOMPARE(view.unmappedChannels(), QStringList{QStringLiteral("X1")});
    // Pairs among the 5 positioned channels: 10.
    QCOMPARE(view.rankedPairCount(), 10);
    QCOMPARE(view.lines().size(), std::size_t{2});
    QCOMPARE(view.lines()[0].u, std::size_t{3});
    QCOMPARE(view.lines()[0].v, std::size_t{4});
    QCOMPARE(view.lines()[0].value, 2.0);  // the mean of both directions
    QCOMPARE(view.lines()[1].u, std::size_t{0});
    QCOMPARE(view.lines()[1].v, std::size_t{2});
    QVERIFY(view.legendText().contains(QLatin1String("2 lowest of 10")));
    // The NaN direction: Cz-C3 ranks by C3->Cz = 14 alone; with K = 10 every pair is drawn.
    view.setLineCount(10);
    QCOMPARE(view.lines().size(), std::size_t{10});
    bool found = false;
    for (const auto& l : view.lines())
      if (l.u == 1 && l.v == 3) found = (l.value == 14.0);
    QVERIFY(found);
    // Highest: Pz-C4 first.
    view.setPick(ConnectivityScalpView::Pick::Highest);
    view.setLineCount(1);
    QCOMPARE(view.lines().size(), std::size_t{1});
    QCOMPARE(view.lines()[0].u, std::size_t{2});
    QCOMPARE(view.lines()[0].v, std::size_t{4});
    QCOMPARE(view.lines()[0].value, 35.0);

    // Places: Cz at the centre of the head circle, Fz above, Pz below, C3 left, C4 right.
    const QPointF cz = view.electrodePixel(1), fz = view.electrodePixel(0),
                  pz = view.electrodePixel(2), c3 = view.electrodePixel(3),
                  c4 = view.electrodePixel(4);
    QVERIFY(std::isnan(view.electrodePixel(5).x()));
    QVERIFY(std::abs(fz.x() - cz.x()) < 1.0 && fz.y() < cz.y() - 20);
    QVERIFY(std::abs(pz.x() - cz.x()) < 1.0 && pz.y() > cz.y() + 20);
    QVERIFY(c3.x() < cz.x() - 20 && std::abs(c3.y() - cz.y()) < 3.0);
    QVERIFY(c4.x() > cz.x() + 20 && std::abs(c4.y() - cz.y()) < 3.0);
    // Fz-Cz and Cz-Pz are equally far apart (both 10-20 steps of the midline).
    QVERIFY(std::abs((cz.y() - fz.y()) - (pz.y() - cz.y())) < 2.0);
  }

  void drawsLinesInTheirColour() {
    Fixture f;
    ConnectivityScalpView view;
    view.resize(420, 440);
    view.setLineCount(1);
    view.setMatrix(f.channels, f.m, QStringLiteral("test"), QStringLiteral("Cross-ApEn"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // The line is an arc over Cz (its midpoint above the head's centre, clear of Cz's dot).
    const QPointF a = view.electrodePixel(3), b = view.electrodePixel(4);
    const QPointF mid = view.lineMidpoint(0);
    QVERIFY(mid.y() < view.electrodePixel(1).y() - 4.0);
    QVERIFY(std::abs(mid.x() - (a.x() + b.x()) / 2) < 1.0);
    const QPoint q = mid.toPoint();
    const QImage img = view.grab().toImage();
    const QColor got = img.pixelColor(q * img.devicePixelRatio());
    const QColor want = view.colourFor(view.lines()[0].value);
    // Antialiasing touches only the edges of a >= 1.2 px line: its centre pixel is the colour
    // itself (a few levels for blending with the background at sub-pixel offsets).
    QVERIFY2(std::abs(got.red() - want.red()) < 40 && std::abs(got.green() - want.green()) < 40 &&
                 std::abs(got.blue() - want.blue()) < 40,
             qPrintable(QStringLiteral("%1 vs %2").arg(got.name(), want.name())));
    // Away from any line, inside the head: the background.
    const QPointF fz = view.electrodePixel(0);
    const QPoint empty = QPointF(fz.x() + 40, fz.y() - 10).toPoint();
    QCOMPARE(img.pixelColor(empty * img.devicePixelRatio()), view.palette().color(QPalette::Base));
    // Export in every format.
    QTemporaryDir dir;
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString path = dir.filePath(QStringLiteral("lines.%1").arg(QLatin1String(ext)));
      QString error;
      QVERIFY2(exportView(
                   path, view.size(), [&](QPainter& p, const QRect& r) { view.render(p, r); }, {},
                   &error),
               qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 100);
    }
  }

  void badInput() {
    Fixture f;
    ConnectivityScalpView view;
    f.m.pop_back();
    view.setMatrix(f.channels, f.m, QStringLiteral("test"), QStringLiteral("v"));
    QVERIFY(view.message().contains(QLatin1String("expected 36")));
    QVERIFY(view.lines().empty());
    // Only one positioned channel: nothing to draw, and it says why.
    std::vector<ChannelInfo> one{site("Cz"), site("X1")};
    view.setMatrix(one, {0.0, 1.0, 1.0, 0.0}, QStringLiteral("t"), QStringLiteral("v"));
    QVERIFY(view.lines().empty());
    QVERIFY(!view.message().isEmpty());
    view.resize(300, 300);
    QImage img(300, 300, QImage::Format_ARGB32);
    QPainter p(&img);
    view.render(p, QRect(0, 0, 300, 300));  // no crash
  }
};

QTEST_MAIN(ConnectivityScalpViewTest)
#include "connectivity_scalp_view_test.moc"
