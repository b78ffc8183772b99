#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the peers retouch-bench compares with (not needed for building or testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
need=()
command -v vipsthumbnail >/dev/null || need+=(libvips-tools)
command -v tjbench >/dev/null || need+=(libjpeg-turbo-progs)
command -v dwebp >/dev/null || need+=(webp)
command -v tiffcp >/dev/null || need+=(libtiff-tools)
command -v avifenc >/dev/null || need+=(libavif-bin)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench-setup: installing ${need[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
