#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on the bundled sample photos: builds retouch, shows what each photo is, and writes
# an upright, colour-managed 1080-px preview of each into retouch-output/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product retouch 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3 || true
bin="$(swift build -c release --show-bin-path)/retouch"
out="retouch-output"
mkdir -p "$out"
for photo in Samples/*.jpg Samples/*.png Samples/*.heic; do
  [ -e "$photo" ] || continue
  "$bin" info "$photo"
  name="$(basename "${photo%.*}")"
  "$bin" convert "$photo" "$out/$name-preview.jpg" --max-size 1080
  echo "  → $out/$name-preview.jpg"
  echo
done
