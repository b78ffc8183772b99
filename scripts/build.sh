#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: scripts/build.sh SWIFT-BUILD-ARGUMENTS…   (e.g. -c release --product retouch)
#
# `swift build`, then recompiles any module an incremental build left compiled against an older
# struct layout of a module it imports (see drop-stale-modules.sh), until none is left. Each
# pass can only reach modules further up the graph, so three passes cover the package.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build "$@"
bin="$(swift build "$@" --show-bin-path)"
for _ in 1 2 3; do
  scripts/drop-stale-modules.sh "$bin" || break
  swift build "$@"
done
