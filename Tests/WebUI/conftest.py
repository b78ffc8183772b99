# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the web editor's browser tests: a `retouch serve` on a temporary library and
Debian's Chromium driven by Playwright. Run through scripts/webtest.sh."""
import io
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".build" / "webtest-artifacts"
CHROMIUM = os.environ.get("RETOUCH_CHROMIUM", "/usr/lib/chromium/chromium")


def shared_photo(photo_id):
    """Path of a photo of ../shared/photos (or $RETOUCH_PHOTOS) by its MANIFEST id."""
    folder = Path(os.environ.get("RETOUCH_PHOTOS") or ROOT.parent / "shared" / "photos")
    lines = (folder / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        if row["id"] == photo_id:
            return folder / row["path"]
    raise AssertionError(f"photo {photo_id} is not in {folder}/MANIFEST.tsv")


class Server:
    def __init__(self, library):
        binary = Path(os.environ.get("RETOUCH_BIN") or ROOT / ".build" / "release" / "retouch")
        assert binary.exists(), f"{binary} is missing; scripts/webtest.sh builds it"
        started = time.monotonic()
        self.process = subprocess.Popen(
            [str(binary), "serve", "--library", str(library), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = None
        while self.url is None:
            line = self.process.stdout.readline()
            assert line, f"retouch serve exited: {self.process.stderr.read()}"
            match = re.search(r"(http://\S+)", line)
            if match:
                self.url = match.group(1)
        self.startup_seconds = time.monotonic() - started
        self.base = self.url.split("/?")[0]
        self.token = self.url.split("token=")[1]

    def fetch_image(self, path):
        """A picture from the API, with the token (for checks beside the browser)."""
        request = urllib.request.Request(self.base + path, headers={"X-Retouch-Token": self.token})
        with urllib.request.urlopen(request, timeout=30) as answer:
            picture = Image.open(io.BytesIO(answer.read()))
            picture.load()
            return picture

    def stop(self):
        self.process.send_signal(2)  # SIGINT, like Ctrl-C
        code = self.process.wait(timeout=20)
        assert code == 0, f"retouch serve stopped with {code}: {self.process.stderr.read()}"


@pytest.fixture()
def server(tmp_path):
    library = tmp_path / "library"
    library.mkdir()
    s = Server(library)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def browser():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        # Playwright turns the back-forward cache off by default; users' browsers have it on,
        # and a page restored from it must still work.
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"],
                              ignore_default_args=["--disable-back-forward-cache"])
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    """A page that records every console error and uncaught exception; the test fails on any."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True,
                                  locale="en-US")
    page = context.new_page()
    errors = []
    # A test that provokes a refusal on purpose (a bad upload) lists the URL it expects to fail;
    # Chromium logs every 4xx answer as a console error.
    page.expected_failures = []

    def on_console(message):
        if message.type != "error":
            return
        where = message.location.get("url", "") if message.location else ""
        if "Failed to load resource" in message.text and any(u in where for u in page.expected_failures):
            return
        errors.append(f"console: {message.text} ({where})")

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    yield page
    context.close()
    assert not errors, "errors in the browser:\n" + "\n".join(errors)
