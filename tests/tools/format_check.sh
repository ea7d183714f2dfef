#!/usr/bin/env bash
# Checks that every tracked C++/CUDA file is formatted as .clang-format says (Debian 12's
# clang-format 14). Fix a failure with: git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang-format >/dev/null; then
  echo "format_check: clang-format is not installed (apt-get install clang-format)" >&2
  exit 1
fi
git ls-files -z '*.cpp' '*.h' '*.cu' '*.cuh' | xargs -0 clang-format --dry-run --Werror
echo "format_check: $(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | wc -l) files formatted as .clang-format says"
