// Something that colours a spectrum grid straight into an OpenGL pixel buffer object the view
// owns (the widget owns the GL buffer and exposes only its id; the writer, e.g.
// the app's CUDA-OpenGL interop adapter, owns whatever registration it needs). The view
// (SpectrumGlCanvas) falls back to colouring on the host (renderSpectrumImage) when no writer is
// installed, when attach() refuses, or when write() throws. No CUDA here: widgets know only this
// interface.
//
// Thread rules: every call comes from the GUI thread with the view's OpenGL context current.
// The view calls attach() once per GL context (again after the context was recreated, e.g. when
// the widget moved to another top-level window) and forgetBuffer() before it deletes or resizes
// a buffer it passed to write().
#pragma once

#include <string>

#include "engine/hht/spectrum_image.h"

namespace modescope {

class SpectrumPixelWriter {
 public:
  virtual ~SpectrumPixelWriter() = default;

  // Prepares for the current OpenGL context. Returns false with `why` filled (one readable
  // sentence for the view's status text) when it cannot write into this context's buffers;
  // the view then colours on the host. Must not throw.
  virtual bool attach(std::string& why) = 0;
  // The grid to colour: rows x cols, row-major, row 0 = lowest frequency. Copied.
  virtual void setGrid(const float* grid, int rows, int cols) = 0;
  // Colours the grid into `glBuffer` (a GL buffer object of at least rows x cols x 4 bytes) with
  // renderSpectrumImage's layout: top image row first, 0xAARRGGBB (GL_BGRA bytes). Throws
  // (std::exception) on failure; the view then colours on the host and shows e.what().
  virtual void write(unsigned glBuffer, const SpectrumColouring& colouring) = 0;
  // The view is about to delete or resize `glBuffer`: drop anything tied to it.
  virtual void forgetBuffer(unsigned glBuffer) = 0;
  // What draws, for the view's status text: "CUDA-OpenGL interop on NVIDIA H100 80GB HBM3".
  virtual std::string describe() const = 0;
};

}  // namespace modescope
