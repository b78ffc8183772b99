#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the web editor's browser tests: sets up Chromium + Playwright (scripts/webtest-setup.sh),
# builds `retouch` (release, as users run it) unless $RETOUCH_BIN names one already built
# (scripts/test.sh passes the one its optimised test build made), then pytest on Tests/WebUI.
# Screenshots and downloads land in .build/webtest-artifacts. Usage: scripts/webtest.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/webtest-setup.sh
if [ -z "${RETOUCH_BIN:-}" ]; then
  swift build -c release --product retouch
  RETOUCH_BIN="$(swift build -c release --show-bin-path)/retouch"
fi
export RETOUCH_BIN
# The editor records what it saves for learning; keep the tests' records out of the user's file.
RETOUCH_LEARNING_FILE="$(mktemp -d)/learning.json"
export RETOUCH_LEARNING_FILE
exec .build/webtest-venv/bin/python -m pytest Tests/WebUI -s -p no:cacheprovider "$@"
