#!/usr/bin/env bash
# Runs the same short benchmark set on a GPU machine for one tree, so two trees (a change and
# its base) can be compared side by side on the same warm machine:
#
#   tests/tools/bench_compare.sh SRC BUILD LABEL     # builds SRC into BUILD (GUI off, sm_90)
#
# SRC is "." for this tree or a folder unpacked from `git archive REV`. Tables go to
# ${OUT:-out}/LABEL-<bench>.txt. Each benchmark has a time limit; the sizes are the documented
# cases that finish in about a minute each (docs/emd.md, docs/ica.md, docs/ar.md,
# docs/entropy.md, docs/preprocessing.md).
set -uo pipefail
src=${1:?source folder}
build=${2:?build folder}
label=${3:?label}
out=${OUT:-out}
mkdir -p "$out"
cmake -S "$src" -B "$build" -G Ninja -DMODESCOPE_GUI=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null 2>&1
cmake --build "$build" -j 16 --target ica_bench emd_bench ar_bench xapen_bench preprocess_bench \
      2>&1 | tail -3 | tee "$out/$label-build.txt"
run() {
  local name=$1
  shift
  echo "== $label $name $*"
  timeout 150 stdbuf -oL "$build/tests/bench/$name" "$@" 2>&1 | tee "$out/$label-$name.txt" |
    tail -12
}
run emd_bench --quick --cpu-budget 20
run ica_bench --case 64,460800 --only conv --cpu-steps 2
run ar_bench --cpu-blocks 20
run xapen_bench --subjects 1 --cpu-epochs 1
run preprocess_bench --small
