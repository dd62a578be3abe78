"""A browser's first visit over plain HTTP while `tls = auto` is on: instead of a redirect to a
certificate warning, the `/trust` page in the reader's language, with the CA's fingerprint
and a link on to the same address over HTTPS; a device that trusts the CA already is taken
there by the page itself (a request to the HTTPS port succeeds only then). Programs (no
`Accept: text/html`) keep their 308, uploads over plain HTTP stay refused, and the page's
Content-Security-Policy allows that one request and nothing more.

Chromium (Debian's, driven by Playwright) runs twice: with a fresh NSS database (the CA not
trusted: the page stays, and is screenshot) and with the served CA imported by certutil
(the page moves on to HTTPS by itself). Screenshots go to .build/screenshots/.
"""

from __future__ import annotations

import contextlib
import html
from pathlib import Path

import pytest

from browser_support import launch_with_home, nss_home, playwright, watch_problems  # noqa: F401 (a fixture)
from conftest import CHROMIUM
from http_raw import fetch
from page_support import assert_accessible, assert_no_problems
from test_https_plain_port import ca_from_plain_http, fetch_https, start_auto

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

SCREENSHOT_DIR = Path(__file__).resolve().parents[2] / ".build" / "screenshots"
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
# What the probe's failure looks like in the console of a browser that does not trust the CA.
UNTRUSTED = "ERR_CERT_AUTHORITY_INVALID"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1}


def first_visit_policy(daemon) -> str:
    return ("default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "
            f"connect-src https://127.0.0.1:{daemon.https_port}; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'none'")


@pytest.mark.parametrize("headers", [{}, {"Accept": "*/*"}, {"Accept": "application/json"}],
                         ids=["curl", "any", "json"])
def test_a_program_still_gets_the_redirect(daemon_factory, tmp_path, headers):
    daemon = start_auto(daemon_factory, tmp_path)
    reply = fetch(daemon.url + "/files/", headers=headers)
    assert reply.status == 308, reply
    assert reply.header("Location") == daemon.https_url + "/files/"


@pytest.mark.parametrize("target", ["/", "/files/sub%20dir/?sort=size&order=desc", "/trust"])
def test_a_browser_gets_the_trust_page_instead_of_a_redirect(daemon_factory, tmp_path, target):
    daemon = start_auto(daemon_factory, tmp_path)
    _, _, fingerprint = ca_from_plain_http(daemon, tmp_path)
    reply = fetch(daemon.url + target, headers=BROWSER)
    assert reply.status == 200, reply
    body = reply.body.decode()
    assert fingerprint in body
    assert "This connection is not encrypted yet" in body
    # Where the link goes: the same resource over HTTPS; /trust itself goes on to the page.
    secure = daemon.https_url + ("/" if target == "/trust" else target)
    assert f'<a id="continue" class="button primary" href="{html.escape(secure)}">' in body
    assert '<script src="/first-visit.js" defer></script>' in body
    # The probe's one origin, and nothing else loosened.
    assert reply.header("Content-Security-Policy") == first_visit_policy(daemon)
    vary = {token.strip().lower() for value in reply.headers_named("Vary") for token in value.split(",")}
    assert "accept" in vary, vary
    assert fetch(daemon.url + "/first-visit.js").status == 200


def test_over_https_the_trust_page_has_no_script(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    _, pem, _ = ca_from_plain_http(daemon, tmp_path)
    status, headers, body = fetch_https(daemon, (pem, None), "/trust", headers=BROWSER)
    assert status == 200
    assert b"first-visit.js" not in body and b'id="continue"' not in body
    assert "script-src" not in headers["Content-Security-Policy"]
    assert "connect-src" not in headers["Content-Security-Policy"]


def test_an_upload_from_a_browser_is_still_refused(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    boundary = "----first-visit"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clear.txt\"\r\n\r\n"
            f"never in the clear\r\n--{boundary}--\r\n").encode()
    reply = fetch(daemon.url + "/upload.html", "POST", body=body,
                  headers={**BROWSER, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert reply.status == 403, reply
    assert f"{daemon.https_url}/upload.html".encode() in reply.body
    assert not (daemon.save_dir / "clear.txt").exists()


def test_the_qr_code_leads_to_the_plain_trust_page(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    _, pem, _ = ca_from_plain_http(daemon, tmp_path)
    status, _, config = fetch_https(daemon, (pem, None), "/config.json")
    assert status == 200
    assert f'"phoneURL":"{daemon.url}/trust"'.encode() in config, config


def test_the_first_visit_is_in_the_readers_language(daemon_factory, tmp_path):
    daemon = start_auto(daemon_factory, tmp_path)
    reply = fetch(daemon.url + "/", headers={**BROWSER, "Accept-Language": "de-DE,de;q=0.9"})
    assert reply.status == 200
    body = reply.body.decode()
    assert '<html lang="de" dir="ltr">' in body
    assert "Diese Verbindung ist noch nicht verschlüsselt" in body
    assert "Weiter zur sicheren Seite" in body


# Chromium: a device that does not trust the CA, and one that does.

@contextlib.contextmanager
def chromium_page(playwright, home: Path, **context_options):
    """A page of Chromium whose NSS database is `home`'s; `page.problems` collects errors."""
    browser = launch_with_home(playwright, CHROMIUM, home)
    try:
        context = browser.new_context(**context_options)
        yield watch_problems(context.new_page())
        context.close()
    finally:
        browser.close()


def is_probe(request) -> bool:
    return request.url.endswith("/healthz")


def test_a_fresh_browser_sees_the_trust_page_and_stays(playwright, daemon_factory, tmp_path, tmp_path_factory):
    daemon = start_auto(daemon_factory, tmp_path)
    _, _, fingerprint = ca_from_plain_http(daemon, tmp_path)
    with chromium_page(playwright, nss_home(tmp_path_factory, "home-fresh", None), **PHONE) as page:
        with page.expect_event("requestfailed", predicate=is_probe, timeout=15_000) as failed:
            page.goto(daemon.url + "/")
        assert UNTRUSTED in (failed.value.failure or ""), failed.value.failure
        # The probe failed, so the page stays where it is, with the steps.
        assert page.url == daemon.url + "/"
        expect(page.locator("h1")).to_have_text("Trust this server")
        expect(page.locator(".fingerprint code")).to_have_text(fingerprint)
        expect(page.locator("#continue")).to_have_attribute("href", daemon.https_url + "/")
        expect(page.locator("#first-visit-heading")).to_be_visible()
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / "first-visit-untrusted.png"))
        page.screenshot(path=str(SCREENSHOT_DIR / "first-visit-untrusted-full.png"), full_page=True)
        assert_accessible(page)
        assert_no_problems(page, allowed=(UNTRUSTED,))


def test_a_browser_that_trusts_the_ca_lands_on_https(playwright, daemon_factory, tmp_path, tmp_path_factory):
    daemon = start_auto(daemon_factory, tmp_path)
    _, pem, _ = ca_from_plain_http(daemon, tmp_path)
    with chromium_page(playwright, nss_home(tmp_path_factory, "home-trusts", pem), **PHONE) as page:
        page.goto(daemon.url + "/files/?sort=name")
        page.wait_for_url(daemon.https_url + "/files/?sort=name", timeout=15_000)
        page.goto(daemon.url + "/")
        page.wait_for_url(daemon.https_url + "/", timeout=15_000)
        expect(page.locator("#dropzone")).to_be_visible()
        assert page.evaluate("window.isSecureContext") is True
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / "first-visit-trusted.png"))
        assert_no_problems(page)


def test_without_javascript_the_link_still_leads_on(playwright, daemon_factory, tmp_path, tmp_path_factory):
    daemon = start_auto(daemon_factory, tmp_path)
    with chromium_page(playwright, nss_home(tmp_path_factory, "home-no-script", None), java_script_enabled=False) as page:
        page.goto(daemon.url + "/files/")
        link = page.locator("#continue")
        expect(link).to_be_visible()
        expect(link).to_have_attribute("href", daemon.https_url + "/files/")
        assert page.url == daemon.url + "/files/"
