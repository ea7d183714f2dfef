#!/bin/sh
# Renders the user guide's pictures (docs/images) from the real program under Xvfb, so they show
# what the current build draws. Run from the repository root after building (BUILD=build by
# default):   docs/render_screenshots.sh
# The GUI tests that take them write into $MODESCOPE_DOCS_SCREENSHOTS as well as their own folder.
set -eu
BUILD=${BUILD:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export MODESCOPE_DOCS_SCREENSHOTS="$OUT"
export QT_QPA_PLATFORM=xcb
export MODESCOPE_CLI="$BUILD/app/modescope-cli"
# The pictures are taken whatever the checks say (the first run has no pictures to compile in).
xvfb-run -a -s "-screen 0 1600x1000x24" "$BUILD/tests/gui/review_tools_test" >/dev/null ||
  echo "render_screenshots: review_tools_test reported failures (see its output)" >&2
# The pictures the guide uses (the test writes a few more for its own checks).
for name in browser_ruler browser_fit_all_channels browser_double_banana montage_editor \
            review_damaged_file browser_cursor_readout filter_chain_dialog; do
  cp "$OUT/$name.png" "docs/images/$name.png"
done
# The first screen: the program itself, started on its demo (app/gui/screenshot.h).
xvfb-run -a -s "-screen 0 1600x1000x24" "$BUILD/app/modescope" --screenshot "$OUT/first_screen.png"
cp "$OUT/first_screen.png" docs/images/first_screen.png
echo "docs/images updated"
