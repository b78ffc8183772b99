#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: scripts/drop-stale-modules.sh BIN_DIR   (a build folder, e.g. `swift build --show-bin-path`)
#
# SwiftPM's incremental build can leave a module compiled against an older layout of a struct
# from a module it imports: add a stored property to a public struct and the modules that only
# use it (their own objects, unchanged) are not recompiled, so they copy and allocate the old
# size and corrupt memory at run time. Seen here as heap corruption in the release test suite
# that a clean build did not have. This drops the objects of every module whose dependency file
# is older than one of the project's modules it lists, so the next `swift build` recompiles it.
# Prints what it dropped; exits 0 when it dropped something, 1 when everything was current.
set -euo pipefail
dir="${1:?usage: $0 BIN_DIR}"
dropped=1
for dep in "$dir"/*.build/*.d; do
  [[ -f "$dep" ]] || continue
  module_dir="$(dirname "$dep")"
  stale=""
  while read -r imported; do
    if [[ "$imported" -nt "$dep" ]]; then stale="$imported"; break; fi
  done < <(tr ' ' '\n' < "$dep" | grep -F "$dir/Modules/" | grep '\.swiftmodule$' | sort -u)
  if [[ -n "$stale" ]]; then
    echo "rebuilding $(basename "$module_dir" .build): older than $(basename "$stale")"
    rm -f "$module_dir"/*.o "$dep"
    dropped=0
  fi
done
exit "$dropped"
