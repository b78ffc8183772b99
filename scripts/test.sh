#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the whole test suite, optimised (pixel tests are too slow in debug builds). Tests use
# @testable imports, so the optimised build enables testing; it lives in its own build folder so
# it never invalidates the plain release build that the benchmarks use.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=(-c release --scratch-path .build/test -Xswiftc -enable-testing)
scripts/build.sh "${build[@]}" --build-tests
bin="$(swift build "${build[@]}" --show-bin-path)"
swift test "${build[@]}" --skip-build "$@"
RETOUCH_BIN="$bin/retouch" scripts/webtest.sh
