"""Helpers of the browser tests (Chromium driven by Playwright): a page that collects what
went wrong in it, and the big random files the page uploads."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PIECE = 8 << 20
CERTUTIL = shutil.which("certutil")


@contextlib.contextmanager
def watched_page(browser, **context_options):
    """A page in a browser context of its own that collects uncaught errors and console
    errors in `page.problems`. The context (and its kept-alive connections) closes on exit,
    so a fixture using this must depend on the daemon fixture, whose teardown counts the
    daemon's descriptors."""
    context = browser.new_context(**context_options)
    yield watch_problems(context.new_page())
    context.close()


def watch_problems(page):
    """`page`, collecting its uncaught errors and console errors in `page.problems`."""
    # Playwright turns file-chooser interception on when the first listener comes, without
    # waiting for Chromium, so a chooser opened right after `expect_file_chooser` could be
    # missed: a listener from the start.
    page.on("filechooser", lambda chooser: None)
    page.problems = []
    page.on("pageerror", lambda error: page.problems.append(str(error)))
    page.on("console", lambda message: page.problems.append(message.text) if message.type == "error" else None)
    return page


def random_file(path: Path, size: int) -> Path:
    """`size` random bytes at `path`, written a piece at a time."""
    with open(path, "wb") as handle:
        for start in range(0, size, PIECE):
            handle.write(os.urandom(min(PIECE, size - start)))
    return path


def nss_home(tmp_path_factory, name: str, ca: Path | None) -> Path:
    """A home directory whose NSS database (what Chromium on Linux trusts besides its root
    store) holds `ca` as a trusted CA for TLS servers, or nothing."""
    home = tmp_path_factory.mktemp(name)
    database = home / ".pki" / "nssdb"
    database.mkdir(parents=True)
    subprocess.run([CERTUTIL, "-d", f"sql:{database}", "-N", "--empty-password"], check=True, timeout=30)
    if ca is not None:
        subprocess.run([CERTUTIL, "-d", f"sql:{database}", "-A", "-t", "C,,", "-n", "filedrop-test", "-i", str(ca)],
                       check=True, timeout=30)
        listed = subprocess.run([CERTUTIL, "-d", f"sql:{database}", "-L"], capture_output=True, text=True, timeout=30)
        assert "filedrop-test" in listed.stdout, listed.stdout
    return home


def launch_with_home(playwright, chromium: str, home: Path):
    """Chromium whose HOME, and so whose NSS database, is `home`."""
    return playwright.chromium.launch(executable_path=chromium, env=dict(os.environ, HOME=str(home)))


@pytest.fixture(scope="module")
def playwright():
    """Playwright for tests that launch Chromium with a home of their own (`launch_with_home`),
    failing when Chromium or certutil is missing rather than skipping."""
    from conftest import CHROMIUM
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's chromium (make deps)")
    if CERTUTIL is None:
        pytest.fail("no certutil: install Debian's libnss3-tools (make deps)")
    with sync_api.sync_playwright() as running:
        yield running
