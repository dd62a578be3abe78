"""The page's resumable uploads (web/tus.js) in a real browser: a 50 MB upload whose
connection breaks mid-way resumes and lands byte-identical, and so does one whose page is
reloaded; both show "resuming" while they do. Chromium comes from Debian (/usr/bin/chromium).
"""

import os
import time

import pytest

from browser_support import random_file
from page_support import cut_patches_from
from tcp_cutter import CuttingProxy
from tls_support import file_sha256

# Long (a minute or more in all): started first when the tests run in parallel (conftest.py).
pytestmark = pytest.mark.long

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

BIG_FILE_BYTES = 50 * 1024 * 1024
# The page's first PATCH (web/tus.js FIRST_CHUNK); the next ones are bigger.
CHUNK = 8 * 1024 * 1024
HUGE_FILE_BYTES = 200 * 1024 * 1024
UPLOAD_TIMEOUT_MS = 120_000
SAW_RESUMING = """
    window.sawResuming = false;
    new MutationObserver(() => {
        if (document.body && document.body.innerText.includes('resuming')) window.sawResuming = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture
def page(chromium, daemon_factory):
    # Closed before the daemons' teardown counts their descriptors.
    context = chromium.new_context()
    page = context.new_page()
    page.add_init_script(SAW_RESUMING)
    yield page
    context.close()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    return random_file(tmp_path_factory.mktemp("tus-big") / "holiday.mov", BIG_FILE_BYTES)


def open_page(page, daemon):
    page.goto(daemon.url + "/")
    expect(page.locator("#dropzone")).to_be_visible()
    page.wait_for_function("() => fetch('config.json').then(r => r.json()).then(c => c.tus === true)")


def patch_offsets(page):
    offsets = []
    page.on("request", lambda request: offsets.append(int(request.headers["upload-offset"]))
            if request.method == "PATCH" else None)
    return offsets


def answer_patches(page, which, answer):
    """tus PATCHes for which `which(route, answered)` holds get `answer(route)` instead of the
    daemon; the rest go through. Returns the requests answered so far (a list that grows)."""
    answered = []

    def handle(route):
        if route.request.method == "PATCH" and which(route, answered):
            answered.append(route.request)
            answer(route)
        else:
            route.continue_()

    page.route("**/files/.tus/**", handle)
    return answered


def send_until_done(page, daemon, source):
    page.set_input_files("#file-input", str(source))
    expect(page.locator(".upload").first).to_have_attribute("data-state", "done", timeout=UPLOAD_TIMEOUT_MS)
    assert file_sha256(daemon.save_dir / source.name) == file_sha256(source)


def test_broken_connection_mid_upload_resumes_byte_identical(page, daemon, big_file):
    open_page(page, daemon)
    broken = answer_patches(page, lambda route, answered: not answered
                            and int(route.request.headers.get("upload-offset", "0")) >= CHUNK,
                            lambda route: route.abort("connectionreset"))
    send_until_done(page, daemon, big_file)
    assert broken, "no PATCH was interrupted"
    assert page.evaluate("window.sawResuming"), "the page never said it was resuming"
    assert not list((daemon.save_dir / ".filedrop-tus").iterdir())


def test_200_mb_with_the_network_cut_twice_lands_intact(page, daemon, tmp_path):
    """The page is served through a proxy that cuts the TCP connection after 30% and after
    70% of the file (page.route would carry every 8 MiB body through Playwright: too slow)."""
    source = tmp_path / "camera-roll.zip"
    with open(source, "wb") as out:
        for _ in range(HUGE_FILE_BYTES // CHUNK):
            out.write(os.urandom(CHUNK))
    proxy = CuttingProxy(("127.0.0.1", daemon.port), [HUGE_FILE_BYTES * 3 // 10, HUGE_FILE_BYTES * 7 // 10])
    try:
        page.goto(proxy.url + "/")
        expect(page.locator("#dropzone")).to_be_visible()
        page.wait_for_function("() => fetch('config.json').then(r => r.json()).then(c => c.tus === true)")
        started = time.monotonic()
        page.set_input_files("#file-input", str(source))

        row = page.locator(".upload").first
        # The daemon's STATUS= datagrams must be read while it works, as systemd would:
        # a full notify socket would hold back its STOPPING=1 at the end.
        while row.get_attribute("data-state") != "done" and time.monotonic() - started < 60:
            daemon.drain_notifications()
            page.wait_for_timeout(200)
        elapsed = time.monotonic() - started
        expect(row).to_have_attribute("data-state", "done", timeout=1)
        assert proxy.cut_count == 2
        assert page.evaluate("window.sawResuming"), "the page never said it was resuming"
    finally:
        page.close()
        proxy.close()
    assert file_sha256(daemon.save_dir / source.name) == file_sha256(source)
    assert not list((daemon.save_dir / ".filedrop-tus").iterdir())
    assert elapsed < 60


def test_reloaded_page_resumes_where_it_stopped(page, daemon, big_file):
    open_page(page, daemon)
    # The network dies after the first chunk: the upload keeps retrying, the person reloads.
    cut_patches_from(page, CHUNK)
    page.set_input_files("#file-input", str(big_file))
    page.wait_for_function("() => window.sawResuming", timeout=60_000)
    page.unroute("**/files/.tus/**")
    page.reload()
    open_page(page, daemon)
    offsets = patch_offsets(page)

    page.set_input_files("#file-input", str(big_file))

    row = page.locator(".upload").first
    expect(row).to_have_attribute("data-state", "done", timeout=UPLOAD_TIMEOUT_MS)
    assert page.evaluate("window.sawResuming"), "the page never said it was resuming"
    assert offsets and offsets[0] == CHUNK, offsets
    stored = [path for path in daemon.save_dir.iterdir() if path.name.startswith("holiday")]
    assert [path.name for path in stored] == [big_file.name]
    assert file_sha256(stored[0]) == file_sha256(big_file)


def test_patches_grow_after_the_first(page, daemon, big_file):
    """One small PATCH first, then each at least twice the last (what the rate carries in
    a few seconds): 50 MB go up in at most three."""
    open_page(page, daemon)
    offsets = patch_offsets(page)
    send_until_done(page, daemon, big_file)
    assert offsets[:2] == [0, CHUNK], offsets
    assert len(offsets) <= 3, offsets
    sizes = [end - start for start, end in zip(offsets, offsets[1:] + [BIG_FILE_BYTES])]
    assert all(later >= 2 * earlier or end == BIG_FILE_BYTES
               for earlier, later, end in zip(sizes, sizes[1:], offsets[2:] + [BIG_FILE_BYTES])), sizes


def test_a_body_limit_on_the_way_halves_the_patches(page, daemon, big_file):
    """A proxy that refuses bodies over 8 MiB with 413: the page goes back to 8 MiB PATCHes
    and the upload still lands."""
    open_page(page, daemon)
    refused = answer_patches(page, lambda route, _: len(route.request.post_data_buffer or b"") > CHUNK,
                             lambda route: route.fulfill(status=413, body="413 Content Too Large: over the proxy's limit"))
    send_until_done(page, daemon, big_file)
    assert refused, "no PATCH was bigger than the first"


def test_cancel_terminates_the_upload_on_the_server(page, daemon, big_file):
    open_page(page, daemon)
    cut_patches_from(page, CHUNK)
    page.set_input_files("#file-input", str(big_file))
    page.wait_for_function("() => window.sawResuming", timeout=60_000)
    page.locator(".upload").first.get_by_role("button", name="Cancel").click()
    expect(page.locator(".upload").first).to_have_attribute("data-state", "cancelled")
    folder = daemon.save_dir / ".filedrop-tus"
    deadline = 50
    while list(folder.iterdir()) and deadline:
        page.wait_for_timeout(100)
        deadline -= 1
    assert not list(folder.iterdir())
    assert not (daemon.save_dir / big_file.name).exists()
