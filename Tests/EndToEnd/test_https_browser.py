"""The upload page over HTTPS in headless Chromium (Debian's, driven by Playwright) that
trusts the test CA the way a person's browser would: the CA added to the NSS database in the
browser's home (`certutil` from libnss3-tools), nothing switched off. The page is a secure
context with no certificate interstitial on https://localhost and https://127.0.0.1, and
three files (one of 200 MB) go through its file input and land byte-identical. A browser
without the CA in its database is refused, so the trust above is what makes it work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import launch_with_home, nss_home, playwright, random_file, watched_page  # noqa: F401 (a fixture)
from conftest import CHROMIUM
from tls_support import file_sha256

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

BIG_FILE_BYTES = 200 * 1024 * 1024
UPLOAD_TIMEOUT_MS = 180_000


def launch(playwright, home: Path):
    return launch_with_home(playwright, CHROMIUM, home)


@pytest.fixture(scope="module")
def trusting_browser(playwright, tmp_path_factory, tls_pki):
    browser = launch(playwright, nss_home(tmp_path_factory, "home-trusting", tls_pki.ca))
    yield browser
    browser.close()


@pytest.fixture
def page(trusting_browser, https_daemon):
    # Depends on https_daemon so the context closes before the daemons' teardown.
    with watched_page(trusting_browser, viewport={"width": 390, "height": 844}) as page:
        yield page


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    return random_file(tmp_path_factory.mktemp("big") / "two hundred.bin", BIG_FILE_BYTES)


def open_securely(page, url: str):
    response = page.goto(url)
    assert response is not None and response.status == 200, response
    assert page.url == url, f"ended at {page.url}"
    assert page.evaluate("window.isSecureContext") is True
    assert page.evaluate("location.protocol") == "https:"
    details = response.security_details()
    assert details["protocol"] == "TLS 1.3", details
    assert details["issuer"] == "filedrop test CA" and details["subjectName"] == "localhost", details
    expect(page.locator("#dropzone")).to_be_visible()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_page_is_a_secure_context_without_interstitial(page, https_daemon, host):
    daemon = https_daemon()
    open_securely(page, f"https://{host}:{daemon.https_port}/")
    assert not page.problems, page.problems


def test_three_files_incl_200_mb_arrive_byte_identical(page, https_daemon, tmp_path, big_file):
    daemon = https_daemon()
    sources = [tmp_path / "hello.txt", tmp_path / "Grüße 😀.txt", big_file]
    sources[0].write_bytes(b"hello over https\n")
    sources[1].write_bytes("unicode body ✓\n".encode())
    open_securely(page, f"https://localhost:{daemon.https_port}/")

    page.set_input_files("#file-input", [str(path) for path in sources])

    expect(page.locator('.upload[data-state="done"]')).to_have_count(3, timeout=UPLOAD_TIMEOUT_MS)
    expect(page.locator("#overall-text")).to_contain_text("3 of 3 files uploaded")
    for path in sources:
        stored = daemon.save_dir / path.name
        assert stored.is_file(), sorted(p.name for p in daemon.save_dir.iterdir())
        assert stored.stat().st_size == path.stat().st_size
        assert file_sha256(stored) == file_sha256(path)
    assert not [p for p in page.problems if "Content Security Policy" in p or "Mixed Content" in p], page.problems


def test_a_browser_without_the_ca_gets_a_certificate_error(playwright, https_daemon, tmp_path_factory):
    daemon = https_daemon()
    browser = launch(playwright, nss_home(tmp_path_factory, "home-untrusting", None))
    try:
        context = browser.new_context()
        page = context.new_page()
        with pytest.raises(sync_api.Error) as refused:
            page.goto(f"https://localhost:{daemon.https_port}/")
        assert "ERR_CERT_AUTHORITY_INVALID" in str(refused.value), refused.value
        context.close()
    finally:
        browser.close()
