// Spectrum images written by the GPU straight into OpenGL pixel buffer objects (CUDA-OpenGL
// interop): the view owns the GL buffer and passes its id; this class owns the
// CUDA registration, keeps the value grid on the device and runs the colouring kernel of
// engine/hht/spectrum_image.h into the mapped buffer, so re-colouring (range, log scale, colour
// map) never goes through host memory. CUDA-free header.
//
// Thread rules: use from the thread whose OpenGL context owns the buffers, with that context
// current; destroy the writer (or forgetBuffer) before the GL buffers or the context go.
#pragma once

#include <memory>
#include <string>

#include "engine/hht/spectrum_image.h"

namespace modescope {

class SpectrumGlWriter {
 public:
  // A writer for the current OpenGL context, or nullptr with `why` filled when that context does
  // not run on a CUDA device this process can use (another vendor's GPU, a software renderer,
  // no CUDA device, a build without OpenGL headers): the view then colours on the host.
  static std::unique_ptr<SpectrumGlWriter> forCurrentContext(std::string& why);

  virtual ~SpectrumGlWriter() = default;
  // Copies the grid (rows x cols, row-major, row 0 = lowest frequency) to the device.
  virtual void setGrid(const float* grid, int rows, int cols) = 0;
  // Colours the grid into `glBuffer` (a GL buffer object of at least rows x cols x 4 bytes):
  // pixel layout of renderSpectrumImage (top image row first, 0xAARRGGBB = GL_BGRA bytes).
  // Registers the buffer on first use. Throws DeviceError, InvalidParameterError (buffer too
  // small, no grid).
  virtual void write(unsigned glBuffer, const SpectrumColouring& colouring) = 0;
  // Drops the registration of a buffer the view is about to delete or resize.
  virtual void forgetBuffer(unsigned glBuffer) = 0;
  // "CUDA-OpenGL interop on NVIDIA H100 80GB HBM3" for the view's status text.
  virtual std::string describe() const = 0;
};

}  // namespace modescope
