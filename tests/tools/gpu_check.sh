#!/usr/bin/env bash
# Builds the headless GPU configuration and runs the gpu-labelled tests and the benchmarks on a
# machine with an NVIDIA GPU (H100/H200). Output goes to ${OUT:-out}/ (logs and tables).
# memcheck skips the cancel tests: their time limits do not hold under the sanitizer.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
# The CUDA-OpenGL interop test renders headless through EGL: the GL loader and header packages
# (libegl1, libopengl0, libgl1, libglvnd0, libglx0 and their -dev packages, downloaded into .gl/
# on a machine with apt) are unpacked when present, and the NVIDIA EGL vendor file selected.
if compgen -G ".gl/*.deb" >/dev/null; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
for v in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json \
         /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  if [[ -f $v ]]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$v; break; fi
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DMODESCOPE_GUI=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 2>&1 | tail -5
cmake --build build-gpu -j 16 2>&1 | tail -20 | tee "$out/build.txt"
echo "== gpu tests under compute-sanitizer (memcheck), then plain =="
if command -v compute-sanitizer >/dev/null; then
  timeout 300 compute-sanitizer --tool memcheck --leak-check full \
    build-gpu/tests/modescope_gpu_tests --gtest_brief=1 --gtest_filter=-*Cancel* 2>&1 | tail -30 | tee "$out/sanitizer.txt"
fi
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure 2>&1 | tee "$out/gpu_tests.txt" | tail -40
timeout 300 ctest --test-dir build-gpu -L 'unit|integration' -j 16 2>&1 | tail -15 | tee "$out/cpu_tests.txt"
for b in build-gpu/tests/bench/*_bench; do
  [[ -x "$b" ]] || continue
  echo "== $b"; timeout 240 stdbuf -oL "$b" 2>&1 | tee "$out/$(basename "$b").txt"
done
# The time-frequency view's frames per second with CUDA compute, drawn through a headless EGL
# context: host colouring uploaded to OpenGL, and CUDA-OpenGL interop (docs/time-frequency.md).
if [[ -x build-gpu/tests/bench/tf_view_bench ]]; then
  for d in host-gl interop; do
    echo "== tf_view_bench --backend cuda --draw $d"
    timeout 240 stdbuf -oL build-gpu/tests/bench/tf_view_bench --backend cuda --draw "$d" 2>&1 |
      tee "$out/tf_view_bench_cuda_$d.txt"
  done
fi
