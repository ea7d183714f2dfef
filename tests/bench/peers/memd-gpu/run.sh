#!/usr/bin/env bash
# Side-by-side peer run: the published MEMD-GPU code (EEGLab-Pannon/MEMD-GPU, MIT; our main() only,
# see memd-gpu/PATCHES.md) on real EEG inputs of its own shapes. Run from anywhere on the GPU machine:
#   OUT=/some/dir peer/run.sh          (default OUT=out, relative to the current directory)
# Writes ${OUT}/peer_build.txt, peer_32ch_30504.txt, peer_64ch_102401.txt, peer_128ch_102401.txt.
# Each case file has the program's stdout, its stderr and its exit status (124 = killed by timeout).
# Result lines: "peer C N K imfs sifts run r memd_s X end_to_end_s Y" (run 0 = "peer_warmup").
# Env: REPEATS (3), SIFTS (10), IMFS (9 = 8 IMFs + residue, as published), K32 (64), K64 (128),
#      K128 (256) -- the published runBenchmark()'s pairing of channels and directions, as memd_bench --
#      LARGE_TIMEOUT (120 s), LARGE_DIR (/tmp/memd_peer_inputs, where the large inputs are made),
#      REBUILD=1 to force a build, SKIP_LARGE=1.
set -uo pipefail
PEER="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
REPEATS="${REPEATS:-3}" SIFTS="${SIFTS:-10}" IMFS="${IMFS:-9}"
K32="${K32:-64}" K64="${K64:-128}" K128="${K128:-256}"
LARGE_TIMEOUT="${LARGE_TIMEOUT:-120}"
BIN="$PEER/memd-gpu/memd_peer"

# ---- build (if not built, or if the binary cannot start here) ----
{
  echo "## $(date -u +%FT%TZ) $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  if [[ "${REBUILD:-0}" == 1 || ! -x "$BIN" ]] || { "$BIN" >/dev/null 2>&1; [[ $? -ne 2 ]]; }; then
    "$PEER/build.sh" 2>&1
  else
    echo "memd_peer already built and starts here; REBUILD=1 to rebuild"
  fi
} > "$OUT/peer_build.txt"
cat "$OUT/peer_build.txt"
if ! [[ -x "$BIN" ]]; then echo "build failed, see $OUT/peer_build.txt" >&2; exit 1; fi

# ---- inputs: the 32-channel one travels in peer/; the large ones (78.6 MB, over the 64 MiB that a
# run can carry) are made here by tile_input.py (numpy only) into LARGE_DIR, and checked against
# the checksums make_input.py recorded.
PY=""
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  [[ -n "$p" ]] && "$p" -c 'import numpy' >/dev/null 2>&1 && { PY="$p"; break; }
done
[[ -n "$PY" ]] || echo "no python3 with numpy: the large inputs cannot be made" | tee -a "$OUT/peer_build.txt"
LARGE_DIR="${LARGE_DIR:-/tmp/memd_peer_inputs}"
mkdir -p "$LARGE_DIR"
input_path() { [[ "$1" -le 32 ]] && echo "$PEER/EEG_${1}CH_${2}.bin" || echo "$LARGE_DIR/EEG_${1}CH_${2}.bin"; }
for spec in "32 30504" "64 102401" "128 102401"; do
  set -- $spec
  f="$(input_path "$1" "$2")"
  if [[ "$1" -gt 32 && ! -s "$f" ]]; then
    [[ "${SKIP_LARGE:-0}" == 1 ]] && continue
    "$PY" "$PEER/tile_input.py" "$1" "$2" "$f" 2>&1 | tee -a "$OUT/peer_build.txt"
  fi
  want="$(awk -v n="$(basename "$f")" '$2 == n {print $1}' "$PEER/inputs.sha256")"
  got="$(sha256sum "$f" 2>/dev/null | cut -d' ' -f1)"
  echo "input $f sha256 ${got:-missing} $([[ -n "$got" && "$got" == "$want" ]] && echo OK || echo "MISMATCH (want $want)")" | tee -a "$OUT/peer_build.txt"
done

# ---- one case: stdout, stderr, exit status into one file ----
run_case() {  # name timeout C N K repeats
  local name="$1" to="$2" c="$3" n="$4" k="$5" reps="$6"
  local in o="$OUT/$name.txt" rc
  in="$(input_path "$c" "$n")"
  local tmpo tmpe
  tmpo="$(mktemp)" tmpe="$(mktemp)"
  echo "== $name: C=$c N=$n K=$k imfs=$IMFS sifts=$SIFTS repeats=$reps timeout=${to}s"
  if [[ "$to" -gt 0 ]]; then
    timeout "$to" "$BIN" "$in" "$c" "$k" "$IMFS" "$SIFTS" "$reps" >"$tmpo" 2>"$tmpe"; rc=$?
  else
    "$BIN" "$in" "$c" "$k" "$IMFS" "$SIFTS" "$reps" >"$tmpo" 2>"$tmpe"; rc=$?
  fi
  {
    echo "# command: $BIN $in $c $k $IMFS $SIFTS $reps (timeout ${to}s)"
    echo "## stdout"; cat "$tmpo"
    echo "## stderr"; cat "$tmpe"
    echo "## exit_status $rc$([[ $rc -eq 124 ]] && echo ' (timeout)')"
  } > "$o"
  rm -f "$tmpo" "$tmpe"
  cat "$o"
}

run_case peer_32ch_30504 0 32 30504 "$K32" "$REPEATS"
if [[ "${SKIP_LARGE:-0}" != 1 ]]; then
  # The published code is said to fail here (fixed 4 MiB cuSPARSE buffer, 32-bit offsets, and for
  # 128 x 102401 x 256 more device memory than an H200 has, with every cudaMalloc unchecked).
  run_case peer_64ch_102401 "$LARGE_TIMEOUT" 64 102401 "$K64" 1
  run_case peer_128ch_102401 "$LARGE_TIMEOUT" 128 102401 "$K128" 1
fi
echo "results in $OUT/peer_*.txt"
