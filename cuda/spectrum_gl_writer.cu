// SpectrumGlWriter (spectrum_gl_writer.h): registration, device grid, colouring kernel.
#include <cuda_runtime.h>

#include <map>
#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/spectrum_gl_writer.h"
#include "engine/core/error.h"

#if defined(MODESCOPE_HAVE_GL_HEADERS)
#include <GL/gl.h>
#include <cuda_gl_interop.h>
#define MODESCOPE_GL_INTEROP 1
#endif

namespace modescope {

#ifdef MODESCOPE_GL_INTEROP
namespace {

__global__ void colourSpectrumKernel(const float* grid, int rows, int cols, bool logScale,
                                     double low, double high, const uint32_t* table,
                                     uint32_t* pixels) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (i >= count) return;
  const int y = static_cast<int>(i / cols), x = static_cast<int>(i % cols);
  const float v = grid[static_cast<std::size_t>(rows - 1 - y) * cols + x];
  SpectrumColouring c;
  c.logScale = logScale;
  c.low = low;
  c.high = high;
  pixels[i] = spectrumColour(v, c, table);
}

class CudaSpectrumGlWriter final : public SpectrumGlWriter {
 public:
  explicit CudaSpectrumGlWriter(std::string device)
      : device_(std::move(device)), table_(kSpectrumTableSize) {}

  ~CudaSpectrumGlWriter() override {
    for (auto& [id, res] : registered_) cudaGraphicsUnregisterResource(res);
  }

  void setGrid(const float* grid, int rows, int cols) override {
    const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    if (grid_.size() != count) grid_ = cuda::DeviceBuffer<float>(count);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(grid_.get(), grid, count * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
    rows_ = rows;
    cols_ = cols;
  }

  void write(unsigned glBuffer, const SpectrumColouring& colouring) override {
    if (rows_ <= 0 || cols_ <= 0) {
      throw InvalidParameterError("grid", "none", "setGrid() before write()",
                                  "give the writer the spectrum first");
    }
    cudaGraphicsResource_t res = resourceFor(glBuffer);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(table_.get(), colouring.table,
                                       kSpectrumTableSize * sizeof(uint32_t),
                                       cudaMemcpyHostToDevice, stream_.get()));
    MODESCOPE_CUDA_TRY(cudaGraphicsMapResources(1, &res, stream_.get()));
    void* ptr = nullptr;
    std::size_t bytes = 0;
    cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, res);
    const std::size_t need = static_cast<std::size_t>(rows_) * cols_ * sizeof(uint32_t);
    if (e == cudaSuccess && bytes >= need) {
      const std::size_t count = static_cast<std::size_t>(rows_) * cols_;
      colourSpectrumKernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream_.get()>>>(
          grid_.get(), rows_, cols_, colouring.logScale, colouring.low, colouring.high,
          table_.get(), static_cast<uint32_t*>(ptr));
      e = cudaGetLastError();
    }
    // Unmap whatever happened: a mapped buffer left behind would block the view's GL calls.
    const cudaError_t u = cudaGraphicsUnmapResources(1, &res, stream_.get());
    MODESCOPE_CUDA_TRY(e);
    MODESCOPE_CUDA_TRY(u);
    if (bytes < need) {
      throw InvalidParameterError("glBuffer", std::to_string(bytes) + " bytes",
                                  "at least " + std::to_string(need) + " bytes (rows x cols x 4)",
                                  "resize the pixel buffer to the grid");
    }
    stream_.synchronize();
  }

  void forgetBuffer(unsigned glBuffer) override {
    auto it = registered_.find(glBuffer);
    if (it == registered_.end()) return;
    cudaGraphicsUnregisterResource(it->second);
    registered_.erase(it);
  }

  std::string describe() const override { return "CUDA-OpenGL interop on " + device_; }

 private:
  cudaGraphicsResource_t resourceFor(unsigned glBuffer) {
    auto it = registered_.find(glBuffer);
    if (it != registered_.end()) return it->second;
    cudaGraphicsResource_t res = nullptr;
    MODESCOPE_CUDA_TRY(
        cudaGraphicsGLRegisterBuffer(&res, glBuffer, cudaGraphicsRegisterFlagsWriteDiscard));
    registered_.emplace(glBuffer, res);
    return res;
  }

  std::string device_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<float> grid_;
  cuda::DeviceBuffer<uint32_t> table_;
  int rows_ = 0, cols_ = 0;
  std::map<unsigned, cudaGraphicsResource_t> registered_;
};

}  // namespace

std::unique_ptr<SpectrumGlWriter> SpectrumGlWriter::forCurrentContext(std::string& why) {
  unsigned int count = 0;
  int devices[4] = {};
  const cudaError_t e = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
  if (e != cudaSuccess || count == 0) {
    why = std::string("the OpenGL context does not run on a CUDA device (") +
          (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device drives it") +
          "): spectra are coloured on the host";
    cudaGetLastError();  // clear the sticky-free error state of the runtime call
    return nullptr;
  }
  cudaDeviceProp props{};
  if (cudaSetDevice(devices[0]) != cudaSuccess ||
      cudaGetDeviceProperties(&props, devices[0]) != cudaSuccess) {
    why = "the CUDA device of the OpenGL context cannot be used";
    cudaGetLastError();
    return nullptr;
  }
  return std::make_unique<CudaSpectrumGlWriter>(props.name);
}

#else

std::unique_ptr<SpectrumGlWriter> SpectrumGlWriter::forCurrentContext(std::string& why) {
  why =
      "this build has no OpenGL headers for CUDA-OpenGL interop: spectra are coloured on the host";
  return nullptr;
}

#endif

}  // namespace modescope
