// The OpenGL path of the Hilbert spectrum view (issue 3, item 4; DESIGN.md "GPU"): the canvas's
// pixel buffer object filled from host memory or by a SpectrumPixelWriter, the texture drawn at
// 1:1 and zoomed, the fallbacks (a writer that refuses or fails, no OpenGL at all) and the app's
// CUDA adapter on a display that is not driven by a CUDA device (Xvfb's llvmpipe).
//
// Oracles: hand-made grids whose colours follow from the colour table by the closed form of
// engine/hht/spectrum_image.h (index round(t x 255), t = v / high), and a test-double writer that
// fills the buffer with a position-coded pattern no colouring produces, so a drawn pixel proves
// which path filled the buffer and where its pixels went. Pixels are compared exactly: nearest
// filtering of RGBA8 texels into an RGBA8 framebuffer copies bytes, and every sampled position is
// a texel centre (integer pixels per bin), so there is nothing to round.
//
// Needs OpenGL widgets: run under Xvfb with xcb/GLX (ctest does); the GL cases skip on the
// offscreen platform. Screenshots: MODESCOPE_TEST_OUTPUT_DIR/spectrum_gl_*.png.
#include "widgets/spectrum_gl_canvas.h"

#include <QApplication>
#include <QLabel>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QSet>
#include <QTest>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "app/gui/cuda_spectrum_pixel_writer.h"
#include "app/gui/emd_results_pane.h"
#include "engine/core/recording.h"
#include "widgets/colour_map.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/spectrum_pixel_writer.h"

using namespace modescope;

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

// The pattern the test writer puts in the buffer: opaque, red = column, green = image row (top
// first), blue 0x5a. No viridis entry has blue 0x5a with these red/green pairs.
uint32_t patternPixel(int x, int y) {
  return 0xff000000u | (static_cast<uint32_t>(x * 20 + 7) << 16) |
         (static_cast<uint32_t>(y * 30 + 3) << 8) | 0x5au;
}

// What a writer saw, kept outside it so that it can be read after the canvas (and the writer)
// are gone.
struct WriterLog {
  int attaches = 0, grids = 0, writes = 0, forgets = 0;
  bool forgotLiveBuffer = true;  // every forgetBuffer() came with the context current and the
                                 // buffer still alive
  unsigned lastBuffer = 0;
};

// A writer that fills the buffer itself (as the CUDA kernel does) with patternPixel().
class PatternWriter : public SpectrumPixelWriter {
 public:
  explicit PatternWriter(WriterLog* log) : log_(log) {}
  bool attach(std::string&) override {
    ++log_->attaches;
    return true;
  }
  void setGrid(const float*, int rows, int cols) override {
    ++log_->grids;
    rows_ = rows;
    cols_ = cols;
  }
  void write(unsigned glBuffer, const SpectrumColouring&) override {
    ++log_->writes;
    log_->lastBuffer = glBuffer;
    std::vector<uint32_t> pixels(static_cast<std::size_t>(rows_) * cols_);
    for (int y = 0; y < rows_; ++y)
      for (int x = 0; x < cols_; ++x)
        pixels[static_cast<std::size_t>(y) * cols_ + x] = patternPixel(x, y);
    QOpenGLFunctions* f = QOpenGLContext::currentContext()->functions();
    f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, glBuffer);
    f->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(pixels.size() * 4),
                       pixels.data());
    f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  }
  void forgetBuffer(unsigned glBuffer) override {
    ++log_->forgets;
    QOpenGLContext* ctx = QOpenGLContext::currentContext();
    if (!ctx || !ctx->functions()->glIsBuffer(glBuffer)) log_->forgotLiveBuffer = false;
  }
  std::string describe() const override { return "the pattern test writer"; }

 private:
  WriterLog* log_;
  int rows_ = 0, cols_ = 0;
};

class RefusingWriter : public SpectrumPixelWriter {
 public:
  bool attach(std::string& why) override {
    why = "the test writer refuses this context";
    return false;
  }
  void setGrid(const float*, int, int) override { throw std::logic_error("setGrid after refusal"); }
  void write(unsigned, const SpectrumColouring&) override {
    throw std::logic_error("write after refusal");
  }
  void forgetBuffer(unsigned) override {}
  std::string describe() const override { return "refusing writer"; }
};

class FailingWriter : public PatternWriter {
 public:
  using PatternWriter::PatternWriter;
  void write(unsigned, const SpectrumColouring&) override {
    throw std::runtime_error("simulated device error");
  }
};

// rows x cols with value r * cols + c, except three cells that test the edges of the colouring:
// NaN and a negative value (first entry) and one far above the range (last entry).
std::vector<float> handGrid(int rows, int cols) {
  std::vector<float> g(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g[static_cast<std::size_t>(r) * cols + c] = float(r * cols + c);
  g[1] = std::numeric_limits<float>::quiet_NaN();
  g[2] = -3.0f;
  g[g.size() - 2] = 1e6f;
  return g;
}

// The colour of value v on a linear scale [0, high], by the closed form (not the code under test).
QRgb expectedColour(const ColourMap& map, float v, double high) {
  if (!std::isfinite(v) || v <= 0) return map.table().front();
  const double t = std::min(1.0, v / high);
  return map.table()[static_cast<std::size_t>(std::lround(t * 255))];
}

QImage grabCanvas(SpectrumGlCanvas& canvas) {
  return canvas.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

void save(const QImage& image, const char* name) {
  image.save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

// A canvas of exactly w x h pixels inside a host window (X servers dislike tiny top-levels).
struct CanvasWindow {
  QWidget window;
  SpectrumGlCanvas* canvas;
  CanvasWindow(int w, int h) : canvas(new SpectrumGlCanvas(&window)) {
    window.resize(std::max(w, 100) + 20, std::max(h, 100) + 20);
    canvas->setGeometry(10, 10, w, h);
  }
  // The grid, its colouring, and the whole grid visible.
  void load(const std::vector<float>& grid, int rows, int cols, const ColourMap& map,
            const ColourScale& scale) {
    canvas->setGrid(grid.data(), rows, cols);
    canvas->setColouring(map, scale);
    canvas->setVisibleBins(0, cols, 0, rows);
  }
  bool show() {
    window.show();
    return QTest::qWaitForWindowExposed(&window);
  }
};

SpectrumGrid viewGrid(int rows, int cols) {
  SpectrumGrid g;
  g.rows = rows;
  g.cols = cols;
  // Distinct values without the outliers of handGrid(): the view fits its range to the maximum.
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g.values.push_back(float(r * cols + c + 1));
  for (int r = 0; r <= rows; ++r) g.frequencyEdges.push_back(2.0 * r);
  for (int c = 0; c <= cols; ++c) g.timeEdges.push_back(0.5 * c);
  g.valueUnit = QStringLiteral("uV");
  g.quantity = QStringLiteral("Amplitude");
  return g;
}

}  // namespace

class SpectrumGlCanvasTest : public QObject {
  Q_OBJECT

 private slots:
  // Every case but the QPainter one needs OpenGL widgets (QSKIP in init() skips the case).
  void init() {
    QString why;
    if (qstrcmp(QTest::currentTestFunction(), "switchedOffOpenGlDrawsWithQPainter") != 0 &&
        !HilbertSpectrumView::openGlDrawingPossible(&why))
      QSKIP(qPrintable(why));
  }

  // (a) Host path at 1:1: exactly mapGridToImage's pixels, each the closed-form colour.
  void hostPathDrawsTheHostImageAtOneToOne() {
    const int rows = 7, cols = 11;
    const auto grid = handGrid(rows, cols);
    const ColourMap map = ColourMap::viridis();
    const ColourScale scale{ColourScaleKind::Linear, 0.0, rows * cols - 1.0};
    CanvasWindow w(cols, rows);
    w.load(grid, rows, cols, map, scale);
    QVERIFY(w.show());
    const QImage drawn = grabCanvas(*w.canvas);
    QCOMPARE(drawn.size(), QSize(cols, rows));
    QCOMPARE(w.canvas->path(), SpectrumGlCanvas::Path::Host);
    QVERIFY2(w.canvas->pathText().contains(QStringLiteral("no GPU pixel writer")),
             qPrintable(w.canvas->pathText()));
    const QImage host = mapGridToImage(grid.data(), rows, cols, map, scale);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        const float v = grid[static_cast<std::size_t>(rows - 1 - y) * cols + x];
        QCOMPARE(drawn.pixel(x, y), host.pixel(x, y));
        QCOMPARE(drawn.pixel(x, y), expectedColour(map, v, scale.high));
      }
    save(drawn.scaled(cols * 20, rows * 20), "spectrum_gl_host_1to1");
  }

  // (b) A writer that fills the buffer itself: its pixels are what is drawn, the host never
  // colours, a new colouring asks the writer again, and buffers are forgotten before they go.
  void writerFilledBufferIsWhatIsDrawn() {
    const int rows = 5, cols = 9;
    const auto grid = handGrid(rows, cols);
    WriterLog log;
    {
      CanvasWindow w(cols, rows);
      w.canvas->setPixelWriter(std::make_unique<PatternWriter>(&log));
      w.load(grid, rows, cols, ColourMap::viridis(), {ColourScaleKind::Linear, 0.0, 44.0});
      QVERIFY(w.show());
      QImage drawn = grabCanvas(*w.canvas);
      QCOMPARE(w.canvas->path(), SpectrumGlCanvas::Path::Writer);
      QCOMPARE(w.canvas->pathText(), QStringLiteral("drawn by the pattern test writer"));
      QCOMPARE(w.canvas->hostFills(), 0);
      QCOMPARE(log.attaches, 1);
      QCOMPARE(log.grids, 1);
      for (int y = 0; y < rows; ++y)
        for (int x = 0; x < cols; ++x) QCOMPARE(drawn.pixel(x, y), patternPixel(x, y));
      save(drawn.scaled(cols * 20, rows * 20), "spectrum_gl_writer_pattern");

      // Re-colouring goes to the writer again, without a new grid.
      const int writes = log.writes;
      w.canvas->setColouring(ColourMap::greys(), {ColourScaleKind::Log, 1.0, 44.0});
      drawn = grabCanvas(*w.canvas);
      QCOMPARE(log.writes, writes + 1);
      QCOMPARE(log.grids, 1);
      QCOMPARE(w.canvas->hostFills(), 0);

      // A grid of another size: the old buffer is forgotten before it is resized.
      const auto small = handGrid(3, 4);
      w.canvas->setGrid(small.data(), 3, 4);
      w.canvas->setVisibleBins(0, 4, 0, 3);
      w.canvas->resize(4, 3);
      drawn = grabCanvas(*w.canvas);
      QCOMPARE(log.forgets, 1);
      QCOMPARE(log.grids, 2);
      QCOMPARE(drawn.pixel(3, 2), patternPixel(3, 2));
    }
    // Destroying the canvas forgot its buffer while the buffer and the context were alive.
    QCOMPARE(log.forgets, 2);
    QVERIFY(log.forgotLiveBuffer);
  }

  // (c) A writer that refuses, and one that fails: host path, with the reason in the view.
  void refusingOrFailingWriterFallsBackToHostWithTheReason() {
    const SpectrumGrid grid = viewGrid(6, 8);
    HilbertSpectrumView view;
    view.resize(600, 380);
    view.setPixelWriter(std::make_unique<RefusingWriter>());
    view.setGrid(grid);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.glCanvas());
    QTRY_VERIFY(view.glCanvas()->path() == SpectrumGlCanvas::Path::Host);
    QCOMPARE(view.drawingPath(),
             QStringLiteral("drawn from host memory through OpenGL: the test writer refuses "
                            "this context"));
    // The host-filled texture shows the grid: the bin centres have their colours.
    const QImage shot = view.grab().toImage();
    save(shot, "spectrum_gl_view_refused");
    const QRectF p = view.plotRect();
    QSet<QRgb> seen;
    for (int r : {0, 3, 5})
      for (int c : {0, 4, 7}) {
        const QPoint at(int(p.left() + (c + 0.5) / 8 * p.width()),
                        int(p.bottom() - (r + 0.5) / 6 * p.height()));
        QCOMPARE(shot.pixel(at), expectedColour(ColourMap::viridis(), grid.values[r * 8 + c],
                                                view.colourScale().high));
        seen.insert(shot.pixel(at));
      }
    QCOMPARE(seen.size(), 9);  // nine different colours: a flipped or shifted image would show

    WriterLog log;
    HilbertSpectrumView failing;
    failing.resize(600, 380);
    failing.setPixelWriter(std::make_unique<FailingWriter>(&log));
    failing.setGrid(grid);
    failing.show();
    QVERIFY(QTest::qWaitForWindowExposed(&failing));
    QTRY_VERIFY(failing.glCanvas()->path() == SpectrumGlCanvas::Path::Host);
    QVERIFY2(failing.drawingPath().contains(QStringLiteral("simulated device error")),
             qPrintable(failing.drawingPath()));
    QCOMPARE(failing.glCanvas()->hostFills(), 1);
  }

  // (d) Zoom shows a window of the texture: 3 x 2 bins over 12 x 8 pixels, 4 x 4 per bin.
  void zoomShowsTheVisibleWindow() {
    const int rows = 4, cols = 6;
    const auto grid = handGrid(rows, cols);
    const ColourMap map = ColourMap::viridis();
    const ColourScale scale{ColourScaleKind::Linear, 0.0, 23.0};
    CanvasWindow w(12, 8);
    w.load(grid, rows, cols, map, scale);
    w.canvas->setVisibleBins(2, 5, 1, 3);  // columns 2..4, rows 1..2
    QVERIFY(w.show());
    const QImage drawn = grabCanvas(*w.canvas);
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 12; ++x) {
        const int col = 2 + x / 4, row = 2 - y / 4;  // top pixel rows show grid row 2
        QCOMPARE(drawn.pixel(x, y),
                 expectedColour(map, grid[static_cast<std::size_t>(row) * cols + col], 23.0));
      }
    save(drawn.scaled(120, 80), "spectrum_gl_zoomed");

    // Through the view: zoomTo() reaches the canvas, and the GL-drawn view shows the same picture
    // as the QPainter path (renderTo, the export path) away from bin edges, where the two
    // rasterisations may put a boundary one pixel apart (the canvas sits inside the plot frame).
    const SpectrumGrid vg = viewGrid(6, 8);
    HilbertSpectrumView view;
    view.resize(640, 400);
    view.setGrid(vg);
    view.zoomTo(1.0, 3.0, 2.0, 8.0);  // columns 2..5, rows 1..3
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.glCanvas()->path() == SpectrumGlCanvas::Path::Host);
    const QImage gl = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QImage painted(view.size(), QImage::Format_RGB32);
    {
      QPainter painter(&painted);
      view.renderTo(painter, view.rect());
    }
    save(gl, "spectrum_gl_view_zoomed");
    save(painted, "spectrum_gl_view_zoomed_qpainter");
    const QRectF p = view.plotRect();
    const double binW = p.width() / 4, binH = p.height() / 3;
    int compared = 0;
    for (int y = int(p.top()) + 2; y < int(p.bottom()) - 1; ++y)
      for (int x = int(p.left()) + 2; x < int(p.right()) - 1; ++x) {
        const double fx = std::fmod(x + 0.5 - p.left(), binW),
                     fy = std::fmod(y + 0.5 - p.top(), binH);
        if (fx < 2 || fx > binW - 2 || fy < 2 || fy > binH - 2) continue;
        QCOMPARE(gl.pixel(x, y), painted.pixel(x, y));
        ++compared;
      }
    QVERIFY(compared > 0.8 * p.width() * p.height());
  }

  // Without OpenGL the view draws with QPainter and says why.
  void switchedOffOpenGlDrawsWithQPainter() {
    qputenv("MODESCOPE_SPECTRUM_GL", "0");
    HilbertSpectrumView view;
    qunsetenv("MODESCOPE_SPECTRUM_GL");
    QVERIFY(!view.glCanvas());
    QCOMPARE(view.drawingPath(), QStringLiteral("drawn from host memory by QPainter: OpenGL "
                                                "drawing is switched off "
                                                "(MODESCOPE_SPECTRUM_GL=0)"));
    const SpectrumGrid grid = viewGrid(6, 8);
    view.resize(600, 380);
    view.setGrid(grid);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage shot = view.grab().toImage();
    const QRectF p = view.plotRect();
    const QPoint at(int(p.left() + 4.5 / 8 * p.width()), int(p.bottom() - 3.5 / 6 * p.height()));
    QCOMPARE(shot.pixel(at),
             expectedColour(ColourMap::viridis(), grid.values[3 * 8 + 4], view.colourScale().high));
  }

  // (e) The app's CUDA adapter on this display: under Xvfb (llvmpipe) or in a build without CUDA
  // it refuses with a readable reason and the host path draws; on a display driven by a CUDA
  // device it writes, and then its pixels must be the host image's.
  void cudaAdapterRefusesOrMatchesTheHostImage() {
    const int rows = 7, cols = 11;
    const auto grid = handGrid(rows, cols);
    const ColourMap map = ColourMap::viridis();
    const ColourScale scale{ColourScaleKind::Linear, 0.0, 76.0};
    CanvasWindow w(cols, rows);
    w.canvas->setPixelWriter(std::make_unique<CudaSpectrumPixelWriter>());
    w.load(grid, rows, cols, map, scale);
    QVERIFY(w.show());
    const QImage drawn = grabCanvas(*w.canvas);
    const QString text = w.canvas->pathText();
    w.canvas->makeCurrent();
    const auto* renderer =
        reinterpret_cast<const char*>(w.canvas->context()->functions()->glGetString(GL_RENDERER));
    qInfo("OpenGL renderer: %s; %s", renderer ? renderer : "?", qPrintable(text));
    w.canvas->doneCurrent();
    if (w.canvas->path() == SpectrumGlCanvas::Path::Writer) {
      QVERIFY(text.startsWith(QStringLiteral("drawn by CUDA-OpenGL interop on ")));
    } else {
      QCOMPARE(w.canvas->path(), SpectrumGlCanvas::Path::Host);
      // "the OpenGL context does not run on a CUDA device (...)" or "this build has no CUDA
      // backend": a sentence that names CUDA, not an error code alone.
      QVERIFY2(text.startsWith(QStringLiteral("drawn from host memory through OpenGL: ")) &&
                   text.contains(QStringLiteral("CUDA")) && text.size() > 60,
               qPrintable(text));
    }
    const QImage host = mapGridToImage(grid.data(), rows, cols, map, scale);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) QCOMPARE(drawn.pixel(x, y), host.pixel(x, y));
  }

  // The results pane installs the CUDA adapter on its spectrum and says how the spectrum is drawn.
  void resultsPaneInstallsTheCudaAdapterAndShowsThePath() {
    constexpr int64_t kSamples = 400;
    constexpr double kRate = 100.0;
    auto rec = std::make_shared<Recording>();
    ChannelInfo info;
    info.label = info.name = "Cz";
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = kRate;
    info.sampleCount = kSamples;
    rec->channels.push_back(info);
    std::vector<std::vector<float>> samples(1, std::vector<float>(kSamples));
    for (int64_t n = 0; n < kSamples; ++n) samples[0][n] = float(std::sin(0.6 * n));
    rec->source = std::make_shared<InMemorySource>(samples);
    auto emd = std::make_shared<EmdResult>();
    emd->sampleRate = kRate;
    emd->samples = kSamples;
    EmdChannelModes modes;
    modes.rows = 2;  // the tone and a zero residue
    modes.data = samples[0];
    modes.data.resize(2 * kSamples, 0.0f);
    modes.sifts = {3, 0};
    emd->channels.push_back(modes);
    auto hht = std::make_shared<HhtResult>();
    hht->sampleRate = kRate;
    hht->samples = kSamples;
    hht->params.frequencyBins = 6;
    hht->params.timeBins = 8;
    for (int i = 0; i <= 6; ++i) hht->frequencyEdges.push_back(5.0 * i);
    for (int i = 0; i <= 8; ++i) hht->timeEdges.push_back(50 * i);
    HhtChannel ch;
    ch.spectrum = viewGrid(6, 8).values;
    ch.marginal.assign(6, 1.0);
    hht->channels.push_back(ch);

    EmdResultsPane pane(rec, emd, hht, QStringLiteral("test"));
    pane.resize(1200, 700);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    HilbertSpectrumView* view = pane.spectrum();
    QVERIFY(view->glCanvas());
    QVERIFY(dynamic_cast<CudaSpectrumPixelWriter*>(view->glCanvas()->pixelWriter()));
    QTRY_VERIFY(view->glCanvas()->path() != SpectrumGlCanvas::Path::NotYet);
    const QLabel* label = pane.drawingPathLabel();
    QVERIFY2(label->text().startsWith(QStringLiteral("Drawn by CUDA-OpenGL interop on ")) ||
                 label->text() == QStringLiteral("Drawn from host memory through OpenGL \u2026"),
             qPrintable(label->text()));
    // The whole sentence, reason included, is the label's tool tip.
    QCOMPARE(label->toolTip().toLower(), view->drawingPath().toLower());
    pane.grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/spectrum_gl_results_pane.png"));
  }
};

QTEST_MAIN(SpectrumGlCanvasTest)
#include "spectrum_gl_canvas_test.moc"
