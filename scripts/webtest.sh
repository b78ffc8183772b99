#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the web editor's browser tests: builds `retouch` (release, as users run it), sets up
# Chromium + Playwright (scripts/webtest-setup.sh), then pytest on Tests/WebUI. Screenshots and
# downloads land in .build/webtest-artifacts. Usage: scripts/webtest.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/webtest-setup.sh
swift build -c release --product retouch
export RETOUCH_BIN="$PWD/.build/release/retouch"
exec .build/webtest-venv/bin/python -m pytest Tests/WebUI -s -p no:cacheprovider "$@"
