#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Feeds damaged photos to the retouch command line and reports any crash or hang.

Bad input must end in a typed error (exit codes 64-78), never a signal, a trap or a hang.
This makes small copies of the bundled sample photos (JPEG, PNG, HEIC, each also as WebP, TIFF
and AVIF, and the TIFF fixtures of the tests, which come from other writers),
damages them in seeded ways (flipped bits, random bytes, truncation, overwritten runs, extreme
header values) and runs `retouch info --analysis`, `retouch convert` and `retouch apply` on
each. A file that crashes or hangs a command is kept in the output folder under CRASH… or
HANG… with the command and its last stderr lines printed.

Usage: scripts/fuzz.py [--cases N] [--seed S] [--timeout SECONDS] [--out DIR] [--bin RETOUCH]
(build first: swift build -c release --product retouch). Exit status 1 when anything failed.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_seeds(retouch, folder):
    """Downscaled copies of the samples: small files keep every run short."""
    seeds = []
    for name in sorted(os.listdir(os.path.join(ROOT, "Samples"))):
        stem, ext = os.path.splitext(name)
        if ext.lower() not in (".jpg", ".png", ".heic"):
            continue
        for suffix in (ext.lower(), ".webp", ".tif", ".avif"):
            target = os.path.join(folder, f"seed-{stem}{suffix}")
            if target in seeds:
                continue
            subprocess.run(
                [retouch, "convert", os.path.join(ROOT, "Samples", name), target,
                 "--max-size", "320"],
                check=True, capture_output=True)
            seeds.append(target)
    fixtures = os.path.join(ROOT, "Tests", "RetouchIOTests", "Fixtures")
    for name in sorted(os.listdir(fixtures)):
        if name.endswith(".tif"):
            target = os.path.join(folder, f"seed-fixture-{name}")
            shutil.copyfile(os.path.join(fixtures, name), target)
            seeds.append(target)
    return seeds


def damaged(data, rng):
    """One seeded mutation of `data` (a bytearray)."""
    kind = rng.choice(["flip", "bytes", "truncate", "run", "extreme"])
    if kind == "flip":
        for _ in range(rng.randint(1, 20)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == "bytes":
        for _ in range(rng.randint(1, 10)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == "truncate":
        data = data[: rng.randrange(1, len(data))]
    elif kind == "run":
        start = rng.randrange(len(data))
        end = min(len(data), start + rng.randint(1, 2000))
        data[start:end] = bytes(rng.randrange(256) for _ in range(end - start))
    else:
        # Headers sit near the start: sizes, counts and offsets set to extremes.
        start = rng.randrange(min(len(data), 4096))
        value = rng.choice([0x00, 0x7F, 0x80, 0xFF])
        for i in range(start, min(len(data), start + rng.randint(1, 4))):
            data[i] = value
    return kind, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "fuzz"))
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "retouch"))
    args = parser.parse_args()
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"{args.bin} is missing: swift build -c release --product retouch")
    os.makedirs(args.out, exist_ok=True)
    seeds = small_seeds(args.bin, args.out)
    rng = random.Random(args.seed)
    failures = 0
    outcomes = {"done": 0, "typed error": 0}
    for case in range(args.cases):
        seed = rng.choice(seeds)
        kind, data = damaged(bytearray(open(seed, "rb").read()), rng)
        ext = os.path.splitext(seed)[1]
        path = os.path.join(args.out, f"case{ext}")
        with open(path, "wb") as f:
            f.write(data)
        commands = [
            ["info", "--analysis", path],
            ["convert", path, os.path.join(args.out, "converted.jpg")],
            ["apply", path, "-o", os.path.join(args.out, "applied.jpg"), "--set", "shadows=0.3"],
        ]
        for command in commands:
            label = f"case {case} ({kind} of {os.path.basename(seed)}), retouch {command[0]}"
            try:
                result = subprocess.run(
                    [args.bin] + command, capture_output=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                failures += 1
                kept = os.path.join(args.out, f"HANG{case}-{command[0]}{ext}")
                shutil.copy(path, kept)
                print(f"HANG  {label}: no answer in {args.timeout:.0f} s, kept as {kept}")
                continue
            code = result.returncode
            # 0: done; 64-78: a typed error (sysexits). Anything else is a crash or a trap.
            if code == 0:
                outcomes["done"] += 1
            elif 64 <= code <= 78:
                outcomes["typed error"] += 1
            else:
                failures += 1
                kept = os.path.join(args.out, f"CRASH{case}-{command[0]}{ext}")
                shutil.copy(path, kept)
                tail = result.stderr.decode(errors="replace").strip().splitlines()[-3:]
                print(f"CRASH {label}: exit {code}, kept as {kept}")
                for line in tail:
                    print(f"      {line}")
        if (case + 1) % 100 == 0:
            print(f"{case + 1} cases, {failures} failures", flush=True)
    print(
        f"{args.cases} cases x 3 commands: {outcomes['done']} done, "
        f"{outcomes['typed error']} typed errors, {failures} crashes or hangs")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
