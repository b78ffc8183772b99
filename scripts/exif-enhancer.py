#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs `retouch auto` on a degraded copy from the evaluation harness with its photo's EXIF.

The harness hands its enhancers PNGs without metadata, but photos arrive with their camera's
EXIF, and the analysis reads it (the scene brightness from the exposure settings, the flash).
This wrapper gives each degraded copy the EXIF of the reference photo it was made from, with
the orientation set to upright (the harness's copies are upright) and, for an exposure
degradation, the exposure time a camera would have recorded: a copy 1.3 EV under was exposed
for 2^-1.3 of the time, so its EXIF reads a scene 1.3 EV brighter than the light it shows.
Every other degradation keeps the photo's EXIF as it is.

Use it as the harness's enhancer command (evaluation tooling only; needs Pillow):

    evaluate.py run --refs REFS --enhancer \
      "retouch=python3 scripts/exif-enhancer.py --harness HARNESS_DIR --refs REFS \
       --bin .build/release/retouch {in} {out}"

HARNESS_DIR is the folder holding evaluate.py (its degradation levels are read from there);
REFS is the folder of reference photos given to the harness.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

from PIL import Image
from PIL.TiffImagePlugin import IFDRational

EXIF_IFD = 0x8769
ORIENTATION = 0x0112
EXPOSURE_TIME = 0x829A
BRIGHTNESS_VALUE = 0x9203


def rational(value: float, limit: int) -> IFDRational:
    f = Fraction(value).limit_denominator(limit)
    return IFDRational(f.numerator, f.denominator)


def exposure_change(case: str, degradations: dict) -> float:
    """EV the case's degradations moved the exposure by: `ref__under-mild` or `ref__a+b`."""
    _, _, spec = case.partition("__")
    ev = 0.0
    for part in spec.split("+"):
        name, _, level = part.partition("-")
        entry = degradations.get(name)
        if entry is None or name not in ("under", "over"):
            continue
        params = entry["levels"].get(level) if level else entry.get("pair_level")
        ev += float((params or {}).get("ev", 0.0))
    return ev


def reference_photo(refs: str, ref: str) -> str | None:
    for name in sorted(os.listdir(refs)):
        stem, _ = os.path.splitext(name)
        if stem == ref:
            return os.path.join(refs, name)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", required=True, help="folder holding evaluate.py")
    parser.add_argument("--refs", required=True, help="the harness's reference photos")
    parser.add_argument("--bin", required=True, help="the retouch executable")
    parser.add_argument("input")
    parser.add_argument("output")
    args = parser.parse_args()

    sys.path.insert(0, args.harness)
    from evaluate import DEGRADATIONS  # the harness's own levels

    case = os.path.splitext(os.path.basename(args.input))[0]
    ref = case.partition("__")[0]
    photo = reference_photo(args.refs, ref)
    exif = Image.open(photo).getexif() if photo else Image.Exif()
    options = {}
    if len(exif):
        exif[ORIENTATION] = 1
        ev = exposure_change(case, DEGRADATIONS)
        ifd = exif.get_ifd(EXIF_IFD)
        if ev and EXPOSURE_TIME in ifd:
            ifd[EXPOSURE_TIME] = rational(float(ifd[EXPOSURE_TIME]) * 2.0**ev, 1_000_000)
        if ev and BRIGHTNESS_VALUE in ifd:
            ifd[BRIGHTNESS_VALUE] = rational(float(ifd[BRIGHTNESS_VALUE]) - ev, 1_000)
        options["exif"] = exif.tobytes()

    with tempfile.TemporaryDirectory() as folder:
        tagged = os.path.join(folder, case + ".png")
        Image.open(args.input).save(tagged, **options)
        done = subprocess.run([args.bin, "auto", tagged, "-o", args.output, "--always-write"])
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
