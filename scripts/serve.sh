#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: builds retouch and starts the web editor on your library (the first run creates
# it with the bundled sample photos in it). Prints the address to open; Ctrl-C stops it.
# Usage: scripts/serve.sh [retouch serve options, e.g. --open, --port 8080, --library DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -c release --product retouch 2>&1 | grep -E "error|warning: unre|Build" | tail -3 || true
bin="$(swift build -c release --show-bin-path)/retouch"
export RETOUCH_SAMPLES="$PWD/Samples"
exec "$bin" serve "$@"
