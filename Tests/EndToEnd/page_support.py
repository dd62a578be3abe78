"""Shared by the page's browser tests (test_page_*.py): the two devices (a phone, 390x844 with
touch, and a desktop, 1440x900), a page that records console errors, axe-core with WCAG 2.2
AA rules plus AAA contrast (`color-contrast-enhanced`), and small waits.

Chromium is Debian's (`chromium` fixture in conftest.py); axe-core comes from PyPI's
axe-playwright-python, which bundles its own copy of axe.min.js (no network).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from browser_support import watch_problems

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 1}
DESKTOP = {"viewport": {"width": 1440, "height": 900}, "device_scale_factor": 1}
DEVICES = {"phone": PHONE, "desktop": DESKTOP}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
UPLOAD_TIMEOUT_MS = 120_000


WEB_ROOT = Path(__file__).resolve().parents[2] / "web"


def service_worker_shell():
    """The paths web/sw.js keeps for offline use (its SHELL array): the page's first load."""
    source = (WEB_ROOT / "sw.js").read_text()
    return re.findall(r"'([^']+)'", re.search(r"const SHELL = \[(.*?)\];", source, re.S).group(1))


def new_page(chromium, device="phone", scheme="light", **options):
    """A page in a fresh context; `page.problems` collects page errors and console errors."""
    return watch_problems(chromium.new_context(**DEVICES[device], color_scheme=scheme, **options).new_page())


@pytest.fixture
def browser_page(chromium, daemon_factory):
    """`browser_page(device, scheme, **context_options)`: pages closed before the daemons'
    teardown counts their descriptors (hence daemon_factory)."""
    pages = []

    def make(device="phone", scheme="light", **options):
        page = new_page(chromium, device, scheme, **options)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.context.close()


def open_page(page, daemon, path="/"):
    page.goto(daemon.url + path)
    # The configuration decides what shows; the page is ready once the phone address is in.
    page.wait_for_function("() => document.getElementById('phone-url').textContent !== ''")


def cut_patches_from(page, offset):
    """The network dies for every tus PATCH from `offset` on (until `page.unroute`)."""
    page.route("**/files/.tus/**", lambda route: route.abort("internetdisconnected")
               if route.request.method == "PATCH" and int(route.request.headers["upload-offset"]) >= offset
               else route.continue_())


def axe_violations(page):
    """axe-core's violations of WCAG 2.0-2.2 A/AA and the AAA contrast rule, as short texts."""
    Axe = pytest.importorskip("axe_playwright_python.sync_playwright",
                              reason="axe-playwright-python (Tests/EndToEnd/requirements.txt)").Axe
    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "rules": {"color-contrast-enhanced": {"enabled": True}},
               "resultTypes": ["violations"]}
    results = Axe().run(page, options=options)
    return [f"{violation['id']}: {[node['target'] for node in violation['nodes']]}"
            for violation in results.response["violations"]]


def assert_accessible(page):
    violations = axe_violations(page)
    assert violations == [], violations


def assert_no_problems(page, allowed=()):
    problems = [problem for problem in page.problems if not any(text in problem for text in allowed)]
    assert problems == [], problems


def wait_until(predicate, timeout=10.0, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
