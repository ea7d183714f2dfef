#include "widgets/spectrum_gl_canvas.h"

#include <QGenericMatrix>
#include <QMatrix4x4>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QSurfaceFormat>
#include <algorithm>
#include <exception>

namespace modescope {

SpectrumGlCanvas::SpectrumGlCanvas(QWidget* parent) : QOpenGLWidget(parent) {
  setFocusPolicy(Qt::NoFocus);
}

SpectrumGlCanvas::~SpectrumGlCanvas() {
  releaseGl();
  // The writer may hold device memory and streams but no GL registration any more.
  writer_.reset();
}

void SpectrumGlCanvas::setPixelWriter(std::unique_ptr<SpectrumPixelWriter> writer) {
  if (writer_ && writerAttached_ && pbo_ && context()) {
    makeCurrent();
    writer_->forgetBuffer(pbo_);
    doneCurrent();
  }
  writer_ = std::move(writer);
  writerAttached_ = false;
  writerAttachPending_ = true;
  writerGridStale_ = true;
  pixelsStale_ = true;
  update();
}

void SpectrumGlCanvas::setGrid(const float* values, int rows, int cols) {
  const bool ok = values && rows > 0 && cols > 0;
  rows_ = ok ? rows : 0;
  cols_ = ok ? cols : 0;
  grid_.assign(values, ok ? values + static_cast<std::size_t>(rows) * cols : values);
  writerGridStale_ = true;
  pixelsStale_ = true;
  if (path_ == Path::Failed && !glUnusable_) path_ = Path::NotYet;
  update();
}

void SpectrumGlCanvas::setColouring(const ColourMap& map, const ColourScale& scale) {
  std::copy(map.table().begin(), map.table().end(), table_.begin());
  scale_ = scale;
  pixelsStale_ = true;
  update();
}

void SpectrumGlCanvas::setVisibleBins(double c0, double c1, double r0, double r1) {
  c0_ = c0;
  c1_ = c1;
  r0_ = r0;
  r1_ = r1;
  update();
}

void SpectrumGlCanvas::setSelection(const QRectF& rect) {
  selection_ = rect;
  update();
}

QString SpectrumGlCanvas::pathText() const {
  switch (path_) {
    case Path::Writer:
      return tr("drawn by %1").arg(QString::fromStdString(writer_ ? writer_->describe() : ""));
    case Path::Host:
      return tr("drawn from host memory through OpenGL: %1").arg(pathWhy_);
    case Path::Failed:
      return tr("OpenGL cannot draw this spectrum: %1").arg(pathWhy_);
    case Path::NotYet:
      break;
  }
  return tr("not drawn yet");
}

void SpectrumGlCanvas::setPath(Path path, const QString& why) {
  if (path == path_ && why == pathWhy_) return;
  path_ = path;
  pathWhy_ = why;
  emit pathChanged(pathText());
}

void SpectrumGlCanvas::fail(const QString& why) {
  setPath(Path::Failed, why);
  emit failed(why);
}

void SpectrumGlCanvas::initializeGL() {
  // A context is recreated when the widget moves to another top-level window: everything tied to
  // the old one goes first, with it current.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &SpectrumGlCanvas::releaseGl);
  glUnusable_ = false;
  QOpenGLContext* ctx = context();
  if (ctx->isOpenGLES()) {
    // ES uploads have no GL_BGRA without an extension; the QImage path is as fast there.
    glUnusable_ = true;
    fail(tr("OpenGL ES has no BGRA pixel uploads"));
    return;
  }
  if (ctx->format().version() < qMakePair(2, 1) &&
      !ctx->hasExtension(QByteArrayLiteral("GL_ARB_pixel_buffer_object"))) {
    glUnusable_ = true;
    fail(tr("OpenGL %1.%2 has no pixel buffer objects (2.1 needed)")
             .arg(ctx->format().majorVersion())
             .arg(ctx->format().minorVersion()));
    return;
  }
  blitter_ = std::make_unique<QOpenGLTextureBlitter>();
  if (!blitter_->create()) {
    glUnusable_ = true;
    fail(tr("the texture drawing shader could not be built"));
    return;
  }
  GLint maxSize = 0;
  ctx->functions()->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
  maxTextureSize_ = maxSize;
  glReady_ = true;
  writerAttachPending_ = true;
  writerGridStale_ = true;
  pixelsStale_ = true;
}

void SpectrumGlCanvas::releaseGl() {
  if (!glReady_ && !pbo_ && !texture_ && !blitter_) return;
  makeCurrent();
  QOpenGLFunctions* f = context() ? context()->functions() : nullptr;
  if (pbo_) {
    // The registration goes before the buffer it names.
    if (writer_ && writerAttached_) writer_->forgetBuffer(pbo_);
    if (f) f->glDeleteBuffers(1, &pbo_);
    pbo_ = 0;
  }
  if (texture_) {
    if (f) f->glDeleteTextures(1, &texture_);
    texture_ = 0;
  }
  blitter_.reset();
  doneCurrent();
  storageRows_ = storageCols_ = 0;
  glReady_ = false;
  writerAttached_ = false;
  writerAttachPending_ = true;
  pixelsStale_ = true;
}

void SpectrumGlCanvas::attachWriter() {
  writerAttachPending_ = false;
  writerAttached_ = false;
  if (!writer_) {
    hostWhy_ = tr("no GPU pixel writer is installed");
    return;
  }
  std::string why;
  bool ok = false;
  try {
    ok = writer_->attach(why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!ok) {
    hostWhy_ = why.empty() ? tr("the GPU pixel writer cannot use this OpenGL context")
                           : QString::fromStdString(why);
    return;
  }
  writerAttached_ = true;
  writerGridStale_ = true;
}

bool SpectrumGlCanvas::ensureStorage() {
  if (rows_ > maxTextureSize_ || cols_ > maxTextureSize_) {
    fail(tr("the spectrum (%1 x %2 bins) is larger than this OpenGL's largest texture (%3 pixels "
            "a side)")
             .arg(rows_)
             .arg(cols_)
             .arg(maxTextureSize_));
    return false;
  }
  if (pbo_ && texture_ && storageRows_ == rows_ && storageCols_ == cols_) return true;
  QOpenGLFunctions* f = context()->functions();
  while (f->glGetError() != GL_NO_ERROR) {
  }
  if (pbo_ && writer_ && writerAttached_) writer_->forgetBuffer(pbo_);  // about to be resized
  if (!pbo_) f->glGenBuffers(1, &pbo_);
  const auto bytes = static_cast<GLsizeiptr>(rows_) * cols_ * 4;
  f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  f->glBufferData(GL_PIXEL_UNPACK_BUFFER, bytes, nullptr, GL_DYNAMIC_DRAW);
  f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!texture_) f->glGenTextures(1, &texture_);
  f->glBindTexture(GL_TEXTURE_2D, texture_);
  // Nearest: one bin is one texel, drawn as a crisp block at any zoom.
  f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  f->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  f->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, cols_, rows_, 0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  f->glBindTexture(GL_TEXTURE_2D, 0);
  const GLenum error = f->glGetError();
  if (error != GL_NO_ERROR) {
    storageRows_ = storageCols_ = 0;
    fail(tr("OpenGL could not allocate %1 x %2 pixels (error 0x%3)")
             .arg(cols_)
             .arg(rows_)
             .arg(error, 0, 16));
    return false;
  }
  storageRows_ = rows_;
  storageCols_ = cols_;
  writerGridStale_ = true;
  return true;
}

void SpectrumGlCanvas::fillPixelBuffer() {
  QOpenGLFunctions* f = context()->functions();
  SpectrumColouring colouring;
  colouring.logScale = scale_.kind == ColourScaleKind::Log;
  colouring.low = scale_.low;
  colouring.high = scale_.high;
  colouring.table = table_.data();
  const std::size_t count = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_);

  if (writerAttached_) {
    try {
      if (writerGridStale_) writer_->setGrid(grid_.data(), rows_, cols_);
      writerGridStale_ = false;
      writer_->write(pbo_, colouring);
      ++writerFills_;
      setPath(Path::Writer, {});
    } catch (const std::exception& e) {
      writerAttached_ = false;
      hostWhy_ = tr("the GPU pixel writer failed (%1)").arg(QString::fromUtf8(e.what()));
      try {
        writer_->forgetBuffer(pbo_);
      } catch (const std::exception&) {
      }
    }
  }
  if (!writerAttached_) {
    std::vector<uint32_t> pixels(count);
    renderSpectrumImage(grid_.data(), rows_, cols_, colouring, pixels.data());
    f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
    f->glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(count * 4),
                       pixels.data());
    f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    ++hostFills_;
    setPath(Path::Host, hostWhy_);
  }

  // Texture from the PBO: the data pointer is an offset into the bound buffer.
  f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  f->glBindTexture(GL_TEXTURE_2D, texture_);
  f->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  f->glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  f->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols_, rows_, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  f->glBindTexture(GL_TEXTURE_2D, 0);
  f->glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  pixelsStale_ = false;
}

void SpectrumGlCanvas::paintGL() {
  QOpenGLFunctions* f = context()->functions();
  // QPainter (the rubber band) may have left its state behind in the previous frame.
  f->glDisable(GL_BLEND);
  f->glDisable(GL_DEPTH_TEST);
  f->glDisable(GL_SCISSOR_TEST);
  const QColor base = palette().color(QPalette::Base);
  f->glClearColor(base.redF(), base.greenF(), base.blueF(), 1.0f);
  f->glClear(GL_COLOR_BUFFER_BIT);
  if (!glReady_ || rows_ <= 0 || cols_ <= 0 || path_ == Path::Failed) return;
  if (writerAttachPending_) attachWriter();
  if (!ensureStorage()) return;
  if (pixelsStale_) fillPixelBuffer();

  // The quad covers the viewport (identity target); its texture coordinates (u, v), v up, pick
  // the visible bins. Texture row 0 is the top image row (grid row rows - 1), so grid row r sits
  // at texture y (rows - r) / rows.
  QMatrix3x3 source;
  source(0, 0) = static_cast<float>((c1_ - c0_) / cols_);
  source(0, 2) = static_cast<float>(c0_ / cols_);
  source(1, 1) = static_cast<float>(-(r1_ - r0_) / rows_);
  source(1, 2) = static_cast<float>((rows_ - r0_) / rows_);
  blitter_->bind();
  blitter_->blit(texture_, QMatrix4x4(), source);
  blitter_->release();

  if (!selection_.isEmpty()) {
    QPainter painter(this);
    painter.setPen(QPen(Qt::white, 1, Qt::DashLine));
    painter.setBrush(QColor(255, 255, 255, 40));
    painter.drawRect(selection_);
  }
}

}  // namespace modescope
