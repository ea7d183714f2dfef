#!/usr/bin/env bash
# Builds the published MEMD-GPU code (EEGLab-Pannon/MEMD-GPU, MIT) with our benchmark main():
# memd-gpu/memd_peer.cu -> memd-gpu/memd_peer. Outside the product tree; nothing here is linked into ModeScope.
# Env: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (default sm_90, H100/H200).
set -euo pipefail
cd "$(dirname "$0")/memd-gpu"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ARCH="${ARCH:-sm_90}"
"$NVCC" --version | tail -1
# -diag-suppress 177: "declared but never referenced" (13 of them in the published code)
"$NVCC" -O3 -std=c++17 -arch="$ARCH" -Xcompiler -fopenmp -diag-suppress 177 \
  memd_peer.cu -o memd_peer -lcublas -lcusparse -lgomp
echo "built $(pwd)/memd_peer"
