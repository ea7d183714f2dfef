// The OpenGL drawing surface of the Hilbert spectrum view (spectrogram-like
// views are drawn from a GL pixel buffer the GPU can write directly).
//
// The canvas owns a pixel buffer object (GL_PIXEL_UNPACK_BUFFER, rows x cols x 4 bytes) and a
// rows x cols texture. When the grid or the colouring changes, the PBO is refilled either by the
// installed SpectrumPixelWriter (the app's CUDA-OpenGL interop: the pixels never pass through host
// memory) or, when there is none, it refuses, or it fails, from host memory (renderSpectrumImage,
// then glBufferSubData). The texture is then updated from the PBO (glTexSubImage2D, GL_BGRA) and
// the visible window of bins is drawn as one textured quad over the whole canvas with nearest
// filtering, so bins stay crisp at any zoom. Both paths produce renderSpectrumImage's pixels, the
// ones mapGridToImage gives the view's QImage path (export, and the fallback when there is no GL).
//
// pathText() says which path draws ("drawn by CUDA-OpenGL interop on ...", "drawn from host
// memory through OpenGL: <why>"); pathChanged() announces it. failed() says the canvas cannot draw
// this grid at all (no pixel buffer objects, texture too large): its owner must draw instead.
//
// GL resources and the writer's registrations are released with the context current, before the
// context goes (QOpenGLContext::aboutToBeDestroyed, or the destructor), forgetBuffer() first.
//
// Thread rules: a GUI-thread widget.
#pragma once

#include <QOpenGLTextureBlitter>
#include <QOpenGLWidget>
#include <QRectF>
#include <QString>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "widgets/colour_map.h"
#include "widgets/spectrum_pixel_writer.h"

namespace modescope {

class SpectrumGlCanvas : public QOpenGLWidget {
  Q_OBJECT

 public:
  enum class Path {
    NotYet,  // no frame drawn yet
    Writer,  // the pixel writer fills the PBO
    Host,    // filled from host memory
    Failed   // cannot draw (see failed())
  };

  explicit SpectrumGlCanvas(QWidget* parent = nullptr);
  ~SpectrumGlCanvas() override;

  // Takes the writer (nullptr: host memory only). It is attached with this canvas's context
  // current before the next frame.
  void setPixelWriter(std::unique_ptr<SpectrumPixelWriter> writer);
  SpectrumPixelWriter* pixelWriter() const { return writer_.get(); }

  // rows x cols, row-major, row 0 = lowest frequency (drawn at the bottom). Copied. After a
  // failure that concerned only the previous grid (its size), the canvas tries again.
  void setGrid(const float* values, int rows, int cols);
  void setColouring(const ColourMap& map, const ColourScale& scale);
  // The visible window in continuous bin coordinates: columns [c0, c1] of [0, cols], rows
  // [r0, r1] of [0, rows]; it fills the canvas.
  void setVisibleBins(double c0, double c1, double r0, double r1);
  // A rubber band drawn over the image (canvas coordinates; an empty rect hides it).
  void setSelection(const QRectF& rect);

  Path path() const { return path_; }
  QString pathText() const;
  // How often the PBO was filled by each path (tests: a colouring change must refill it).
  int writerFills() const { return writerFills_; }
  int hostFills() const { return hostFills_; }

 signals:
  void pathChanged(const QString& text);
  void failed(const QString& why);

 protected:
  void initializeGL() override;
  void paintGL() override;

 private:
  void releaseGl();  // makes the context current itself
  void attachWriter();
  bool ensureStorage();
  void fillPixelBuffer();
  void fail(const QString& why);
  void setPath(Path path, const QString& why);

  std::unique_ptr<SpectrumPixelWriter> writer_;
  bool writerAttached_ = false;
  bool writerAttachPending_ = true;
  bool writerGridStale_ = true;
  QString hostWhy_;

  std::vector<float> grid_;
  int rows_ = 0, cols_ = 0;
  std::array<uint32_t, kSpectrumTableSize> table_{};
  ColourScale scale_;
  double c0_ = 0, c1_ = 1, r0_ = 0, r1_ = 1;
  QRectF selection_;

  // GL state (valid while the context lives).
  bool glReady_ = false;
  unsigned pbo_ = 0, texture_ = 0;
  int storageRows_ = 0, storageCols_ = 0;
  int maxTextureSize_ = 0;
  bool pixelsStale_ = true;
  bool glUnusable_ = false;  // this context cannot draw any grid (set by initializeGL)
  // Recreated with each context: a destroyed QOpenGLTextureBlitter cannot be created again.
  std::unique_ptr<QOpenGLTextureBlitter> blitter_;

  Path path_ = Path::NotYet;
  QString pathWhy_;
  int writerFills_ = 0, hostFills_ = 0;
};

}  // namespace modescope
