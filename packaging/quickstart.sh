#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running ModeScope (see README, "Quick start").
#
#   packaging/quickstart.sh run         install what is missing, build, open the GUI on the demo
#   packaging/quickstart.sh run --headless   same, but run the demo through the CLI (no display)
#   packaging/quickstart.sh test        install what is missing, build, run every test
#
# Environment: BUILD_DIR (default build), MODESCOPE_CUDA=ON|OFF (default: ON when nvcc exists),
# MODESCOPE_GUI=ON|OFF (default ON), MODESCOPE_VTK=ON|OFF (default ON: the 3-D scalp view; needs
# the GUI), JOBS (default: number of cores).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
mode=${1:-}
shift || true

packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  libhdf5-dev libfftw3-dev libedf-dev libbiosig-dev
  libgtest-dev libbenchmark-dev libeigen3-dev
  python3 python3-mne python3-h5py python3-numpy
  # The study tests (docs/study.md): a one-machine Slurm and the report in a headless browser.
  slurm-wlm munge chromium
)
gui_packages=(
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev libqt6svg6-dev
  libgl-dev libgl1-mesa-dri xvfb xauth fonts-dejavu-core
)
# VTK 9 for the 3-D scalp view. Large (it pulls in MPI, Java and more); never libvtk9-qt-dev,
# which is built for Qt 5.
vtk_packages=(libvtk9-dev)

install_missing() {
  local want=("${packages[@]}")
  [[ "${MODESCOPE_GUI:-ON}" == "ON" ]] && want+=("${gui_packages[@]}")
  if [[ "${MODESCOPE_GUI:-ON}" == "ON" && "${MODESCOPE_VTK:-ON}" == "ON" ]]; then
    want+=("${vtk_packages[@]}")
  fi
  local missing=()
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

configure_and_build() {
  local build=${BUILD_DIR:-build}
  local cuda=${MODESCOPE_CUDA:-}
  if [[ -z "$cuda" ]]; then
    if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then cuda=ON; else cuda=OFF; fi
  fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMODESCOPE_CUDA="$cuda" -DMODESCOPE_GUI="${MODESCOPE_GUI:-ON}" \
        -DMODESCOPE_VTK="${MODESCOPE_VTK:-ON}"
  cmake --build "$build" -j "${JOBS:-$(nproc)}"
}

case "$mode" in
  run)
    install_missing
    configure_and_build
    build=${BUILD_DIR:-build}
    if [[ "${1:-}" == "--headless" || "${MODESCOPE_GUI:-ON}" != "ON" ]]; then
      exec "$build/app/modescope-cli" demo
    fi
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
      echo "quickstart: no display found; running the GUI under xvfb-run and saving a screenshot"
      exec xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/modescope" --screenshot modescope-demo.png
    fi
    exec "$build/app/modescope"
    ;;
  test)
    install_missing
    configure_and_build
    build=${BUILD_DIR:-build}
    ctest --test-dir "$build" --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
    ;;
  *)
    sed -n '2,10p' "$0"
    exit 1
    ;;
esac
