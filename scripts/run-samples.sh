#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The batch job on the bundled sample photos, without a browser: builds retouch, then for each
# photo prints its suggestions and writes the top one (or says the photo is good as it is) into
# retouch-output/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -c release --product retouch 2>&1 | grep -E "error|warning: unre|Build" | tail -3 || true
bin="$(swift build -c release --show-bin-path)/retouch"
out="retouch-output"
mkdir -p "$out"
for photo in Samples/*.jpg Samples/*.png Samples/*.heic; do
  [ -e "$photo" ] || continue
  name="$(basename "${photo%.*}")"
  echo "$photo"
  "$bin" suggest "$photo" --max 4
  "$bin" auto "$photo" -o "$out/$name-auto.jpg"
  echo
done
