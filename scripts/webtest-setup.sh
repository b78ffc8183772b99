#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the browser tests of the web editor need: Debian's Chromium (Playwright's own
# browser download cannot work offline) and a Python venv inside the build folder with
# Playwright, pytest and Pillow pinned. Idempotent and quiet when all is there.
# Usage: scripts/webtest-setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/webtest-venv
# Pinned: a Playwright release speaks the DevTools protocol of Chromium releases around it;
# Debian's chromium follows upstream stable, so move these pins together with Debian's updates.
pins=(playwright==1.65.2 pytest==9.2.0 pillow==13.0.0)

if [ ! -x /usr/lib/chromium/chromium ]; then
  echo "webtest-setup: installing chromium" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  for attempt in 1 2 3 4 5; do
    if $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
        --no-install-recommends chromium >/dev/null; then
      break
    fi
    echo "webtest-setup: apt-get failed (attempt $attempt); retrying in 10 s" >&2
    sleep 10
  done
  [ -x /usr/lib/chromium/chromium ] || { echo "webtest-setup: could not install chromium" >&2; exit 1; }
fi

stamp="$venv/.pins"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${pins[*]}" ]; then exit 0; fi

echo "webtest-setup: creating $venv with ${pins[*]}" >&2
mkdir -p .build
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
echo "${pins[*]}" > "$stamp"
