#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages Retouch needs to build and test, then what the web editor's
# browser tests need (scripts/webtest-setup.sh). Idempotent: quiet when all is there, otherwise
# says what it installs. Usage: scripts/setup.sh
set -euo pipefail

packages=(
  pkg-config
  libjpeg62-turbo-dev   # JPEG decode/encode (libjpeg-turbo)
  libpng-dev            # PNG
  libheif-dev           # HEIC and AVIF (libheif with libde265 and dav1d, x265 and libaom)
  libwebp-dev           # WebP (libwebp, loaded on first use)
  libtiff-dev           # TIFF decoding (libtiff, loaded on first use)
  libdeflate-dev        # Deflate for the TIFF files Retouch writes (2-3x faster than zlib)
  liblcms2-dev          # ICC colour management
  libexif-dev           # EXIF parsing
  libmicrohttpd-dev     # HTTP server of the web editor (retouch serve)
  libsqlite3-dev        # the photo library's database
  libdlib-dev           # face detection (dlib's HOG detector, built into the library)
  libblas-dev           # linked by dlib, not pulled in by libdlib-dev
  liblapack-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ! command -v swift >/dev/null; then
  echo "setup: the Swift toolchain (6.1 or later) is not on PATH; install it from swift.org first." >&2
  exit 1
fi

install_missing() {
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  for attempt in 1 2 3 4 5 6; do
    if $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null; then
      return 0
    fi
    echo "setup: apt-get failed (attempt $attempt); retrying in 10 s" >&2
    sleep 10
  done
  echo "setup: could not install ${missing[*]}" >&2
  exit 1
}

install_missing
"$(dirname "$0")/webtest-setup.sh"
