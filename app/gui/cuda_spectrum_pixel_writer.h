// The app's SpectrumPixelWriter: CUDA-OpenGL interop for the Hilbert spectrum view (DESIGN.md,
// "GPU": widgets own the GL buffer and pass its id, cuda/ owns the registration, the app joins
// them). It adapts cuda/spectrum_gl_writer.h, so the view's pixel buffer is coloured by a CUDA
// kernel from a grid kept on the device, when the view's OpenGL context runs on a CUDA device.
// In a build without CUDA, and where the context is not on a CUDA device (Mesa llvmpipe under
// Xvfb, another vendor's GPU, a remote display), attach() refuses with the reason and the view
// colours on the host.
//
// Thread rules: the view's (GUI thread, its GL context current); see SpectrumPixelWriter.
#pragma once

#include <memory>
#include <string>

#include "widgets/spectrum_pixel_writer.h"

namespace modescope {

class SpectrumGlWriter;

class CudaSpectrumPixelWriter final : public SpectrumPixelWriter {
 public:
  CudaSpectrumPixelWriter();
  ~CudaSpectrumPixelWriter() override;

  bool attach(std::string& why) override;
  void setGrid(const float* grid, int rows, int cols) override;
  void write(unsigned glBuffer, const SpectrumColouring& colouring) override;
  void forgetBuffer(unsigned glBuffer) override;
  std::string describe() const override;

 private:
  std::unique_ptr<SpectrumGlWriter> writer_;  // for the attached context; null when refused
};

}  // namespace modescope
