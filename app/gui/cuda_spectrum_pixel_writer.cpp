#include "app/gui/cuda_spectrum_pixel_writer.h"

#include <exception>

// CUDA-free header; only forCurrentContext() needs the cuda/ library, so only CUDA builds call it.
#include "cuda/spectrum_gl_writer.h"
#include "engine/core/error.h"

namespace modescope {

CudaSpectrumPixelWriter::CudaSpectrumPixelWriter() = default;
CudaSpectrumPixelWriter::~CudaSpectrumPixelWriter() = default;

bool CudaSpectrumPixelWriter::attach(std::string& why) {
  // A new context (the view moved to another window) needs a writer of its own.
  writer_.reset();
#ifdef MODESCOPE_HAVE_CUDA
  try {
    writer_ = SpectrumGlWriter::forCurrentContext(why);
  } catch (const std::exception& e) {
    why = std::string("CUDA-OpenGL interop could not start: ") + e.what();
    writer_.reset();
  }
#else
  why = "this build has no CUDA backend";
#endif
  return writer_ != nullptr;
}

void CudaSpectrumPixelWriter::setGrid(const float* grid, int rows, int cols) {
  if (writer_) writer_->setGrid(grid, rows, cols);
}

void CudaSpectrumPixelWriter::write(unsigned glBuffer, const SpectrumColouring& colouring) {
  if (!writer_) {
    throw InvalidParameterError("spectrum pixel writer", "not attached",
                                "attach() accepted the OpenGL context",
                                "colour the spectrum on the host");
  }
  writer_->write(glBuffer, colouring);
}

void CudaSpectrumPixelWriter::forgetBuffer(unsigned glBuffer) {
  if (writer_) writer_->forgetBuffer(glBuffer);
}

std::string CudaSpectrumPixelWriter::describe() const {
  return writer_ ? writer_->describe() : std::string("CUDA-OpenGL interop (not attached)");
}

}  // namespace modescope
