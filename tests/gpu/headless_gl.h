// A headless OpenGL context on the GPU, for the CUDA-OpenGL interop test
// (tests/gpu/spectrum_interop_test.cpp) and the time-frequency view's frames-per-second benchmark
// (tests/bench/tf_view_bench.cpp): EGL's device platform (EGL_EXT_platform_device), no display,
// no window system, no Qt, so both run on a GPU server built with the GUI off. Header-only; the
// includer links OpenGL::OpenGL and OpenGL::EGL (MODESCOPE_HAVE_EGL).
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <string>

namespace modescope::gpu_test {

// A pbuffer context on the first EGL device that initialises (EGL_EXT_platform_device).
class HeadlessGl {
 public:
  HeadlessGl() = default;
  HeadlessGl(const HeadlessGl&) = delete;
  HeadlessGl& operator=(const HeadlessGl&) = delete;
  bool open(std::string& why) {
    auto queryDevices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!queryDevices || !platformDisplay) {
      why = "EGL has no device platform (eglQueryDevicesEXT missing): no GPU EGL driver";
      return false;
    }
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (!queryDevices(8, devices, &count) || count == 0) {
      why = "EGL lists no devices";
      return false;
    }
    for (EGLint i = 0; i < count && display_ == EGL_NO_DISPLAY; ++i) {
      EGLDisplay d = platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
      if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) display_ = d;
    }
    if (display_ == EGL_NO_DISPLAY) {
      why = "no EGL device could be initialised";
      return false;
    }
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    if (!eglChooseConfig(display_, configAttribs, &config, 1, &n) || n == 0) {
      why = "no EGL config with a pbuffer and desktop OpenGL";
      return false;
    }
    const EGLint pbufferAttribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    surface_ = eglCreatePbufferSurface(display_, config, pbufferAttribs);
    eglBindAPI(EGL_OPENGL_API);
    context_ = eglCreateContext(display_, config, EGL_NO_CONTEXT, nullptr);
    if (surface_ == EGL_NO_SURFACE || context_ == EGL_NO_CONTEXT ||
        !eglMakeCurrent(display_, surface_, surface_, context_)) {
      why = "could not make an EGL OpenGL context current";
      return false;
    }
    return true;
  }
  ~HeadlessGl() {
    if (display_ != EGL_NO_DISPLAY) {
      eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
      if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
      eglTerminate(display_);
    }
  }

 private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLSurface surface_ = EGL_NO_SURFACE;
  EGLContext context_ = EGL_NO_CONTEXT;
};

}  // namespace modescope::gpu_test
