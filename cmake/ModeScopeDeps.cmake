# Third-party libraries. HDF5 and FFTW are required everywhere (also on GPU servers);
# EDFlib and BioSig are optional: without them the EDF/BDF/GDF readers drop out.
find_package(Threads REQUIRED)
# Eigen: dense linear algebra of the CPU ICA (engine/ica), header-only.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)

set(HDF5_PREFER_PARALLEL OFF)
set(HDF5_NO_FIND_PACKAGE_CONFIG_FILE ON)
find_package(HDF5 REQUIRED COMPONENTS C CXX)
if(HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Found parallel HDF5 (${HDF5_LIBRARIES}); ModeScope needs the serial build")
endif()

find_path(FFTW3_INCLUDE_DIR fftw3.h REQUIRED)
find_library(FFTW3_LIBRARY NAMES fftw3 REQUIRED)
find_library(FFTW3_THREADS_LIBRARY NAMES fftw3_threads)
add_library(FFTW3::fftw3 UNKNOWN IMPORTED)
set_target_properties(FFTW3::fftw3 PROPERTIES IMPORTED_LOCATION "${FFTW3_LIBRARY}"
                      INTERFACE_INCLUDE_DIRECTORIES "${FFTW3_INCLUDE_DIR}")

set(MODESCOPE_HAVE_EDFLIB OFF)
find_path(EDFLIB_INCLUDE_DIR edflib.h)
find_library(EDFLIB_LIBRARY NAMES edf)
if(EDFLIB_INCLUDE_DIR AND EDFLIB_LIBRARY)
  add_library(EDFlib::edf UNKNOWN IMPORTED)
  set_target_properties(EDFlib::edf PROPERTIES IMPORTED_LOCATION "${EDFLIB_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${EDFLIB_INCLUDE_DIR}")
  set(MODESCOPE_HAVE_EDFLIB ON)
endif()

set(MODESCOPE_HAVE_BIOSIG OFF)
find_path(BIOSIG_INCLUDE_DIR biosig.h)
find_library(BIOSIG_LIBRARY NAMES biosig)
if(BIOSIG_INCLUDE_DIR AND BIOSIG_LIBRARY)
  add_library(BioSig::biosig UNKNOWN IMPORTED)
  set_target_properties(BioSig::biosig PROPERTIES IMPORTED_LOCATION "${BIOSIG_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${BIOSIG_INCLUDE_DIR}")
  set(MODESCOPE_HAVE_BIOSIG ON)
endif()

if(MODESCOPE_TESTS)
  find_package(GTest REQUIRED)
endif()
if(MODESCOPE_BENCHMARKS)
  find_package(benchmark QUIET)
endif()
if(MODESCOPE_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Svg Charts Test PrintSupport OpenGL
               OpenGLWidgets)
endif()
