"""The upload page in a real browser (headless Chromium driven by Playwright) against the daemon.

Fixtures expected from conftest.py: `daemon` (a running daemon: `.url` like http://127.0.0.1:PORT
and `.save_dir`) and `daemon_factory(extra_args=[...])` (starts another one with extra flags).
Chromium comes from Debian (`/usr/bin/chromium`, or FILEDROP_CHROMIUM); Playwright never downloads
a browser here.
"""

import os
import re
import time
import unicodedata
from pathlib import Path

import pytest

from browser_support import random_file, watched_page
from http_raw import fetch
from page_support import service_worker_shell, wait_until
from tls_support import file_sha256

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

BIG_FILE_BYTES = 50 * 1024 * 1024
SMALL_LIMIT_BYTES = 1024 * 1024
# The daemon flag that lowers the upload limit; adjust here if the daemon spells it otherwise.
SMALL_LIMIT_ARGS = ["--max-upload-size", str(SMALL_LIMIT_BYTES)]
UPLOAD_TIMEOUT_MS = 120_000


@pytest.fixture
def page(chromium, daemon_factory):
    # Depends on daemon_factory so the context closes before the daemons' teardown.
    with watched_page(chromium, viewport={"width": 390, "height": 844}) as page:
        yield page


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    return random_file(tmp_path_factory.mktemp("big") / "big.bin", BIG_FILE_BYTES)


def nfc(text):
    return unicodedata.normalize("NFC", text)


def stored_files(save_dir):
    """Every regular file under save_dir (hidden temporary files included), by NFC relative path."""
    root = Path(save_dir)
    return {nfc(path.relative_to(root).as_posix()): path for path in root.rglob("*") if path.is_file()}


def added_files(save_dir, before):
    """Files under save_dir that were not there in the `before` snapshot (the daemon may be shared)."""
    return {name: path for name, path in stored_files(save_dir).items() if name not in before}


def open_page(page, daemon):
    page.goto(daemon.url.rstrip("/") + "/")
    expect(page.locator("#dropzone")).to_be_visible()


def test_three_files_arrive_byte_identical_and_are_listed(page, daemon, tmp_path, big_file):
    sources = [tmp_path / "hello.txt", tmp_path / nfc("Grüße 😀 日本語.txt"), big_file]
    sources[0].write_bytes(b"hello filedrop\n")
    sources[1].write_bytes("unicode body ✓\n".encode())
    before = stored_files(daemon.save_dir)
    open_page(page, daemon)

    page.set_input_files("#file-input", [str(path) for path in sources])

    expect(page.locator('.upload[data-state="done"]')).to_have_count(3, timeout=UPLOAD_TIMEOUT_MS)
    expect(page.locator("#overall-text")).to_contain_text("3 of 3 files uploaded")
    overall = page.locator("#overall-progress")
    assert overall.evaluate("bar => bar.value === bar.max && bar.max > 1")
    for bar in page.locator(".upload progress").all():
        assert bar.evaluate("bar => bar.value === bar.max")
    stored = added_files(daemon.save_dir, before)
    assert sorted(stored) == sorted(nfc(path.name) for path in sources)
    for path in sources:
        assert file_sha256(stored[nfc(path.name)]) == file_sha256(path)
    for path in sources:
        expect(page.locator("#file-list")).to_contain_text(nfc(path.name), timeout=10_000)
    link = page.locator("#file-list a", has_text="hello.txt")
    assert link.get_attribute("href").startswith("/files/")
    assert not [p for p in page.problems if "Content Security Policy" in p], page.problems


def test_plain_form_uploads_without_javascript(chromium, daemon, tmp_path):
    source = tmp_path / "no-script.txt"
    source.write_bytes(b"sent by a plain form\n")
    before = stored_files(daemon.save_dir)
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(daemon.url.rstrip("/") + "/")
        expect(page.locator("#dropzone")).to_be_hidden()
        page.set_input_files("input[name=file]", str(source))
        with page.expect_navigation():
            page.locator("button[type=submit]").click()
        expect(page.locator("body")).to_contain_text("no-script.txt")
    finally:
        context.close()
    stored = added_files(daemon.save_dir, before)
    assert list(stored) == ["no-script.txt"]
    assert stored["no-script.txt"].read_bytes() == source.read_bytes()


def test_cancel_leaves_nothing_on_disk(page, daemon, big_file):
    before = stored_files(daemon.save_dir)
    open_page(page, daemon)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 1024 * 1024})

    page.set_input_files("#file-input", str(big_file))
    row = page.locator(".upload").first
    expect(row).to_have_attribute("data-state", "uploading")
    page.wait_for_function("() => document.querySelector('.upload progress').value > 0", timeout=20_000)
    row.get_by_role("button", name="Cancel").click()

    expect(row).to_have_attribute("data-state", "cancelled")
    expect(row.get_by_role("button", name="Retry")).to_be_visible()
    assert wait_until(lambda: not added_files(daemon.save_dir, before), timeout=10), added_files(daemon.save_dir, before)
    time.sleep(1)
    assert not added_files(daemon.save_dir, before)


@pytest.mark.parametrize("checked_by", ["page", "server"])
def test_too_large_file_shows_its_message(page, daemon_factory, tmp_path, checked_by):
    small_daemon = daemon_factory(extra_args=SMALL_LIMIT_ARGS, fill=False)
    source = tmp_path / "too-big.bin"
    source.write_bytes(os.urandom(2 * SMALL_LIMIT_BYTES))
    if checked_by == "server":
        # Without /config.json the page cannot know the limit: the daemon's 413 must reach it.
        page.route("**/config.json", lambda route: route.fulfill(status=404, body=""))
    open_page(page, small_daemon)

    page.set_input_files("#file-input", str(source))

    row = page.locator(".upload").first
    expect(row).to_have_attribute("data-state", "failed", timeout=30_000)
    expect(row.locator(".upload-error")).to_contain_text("Too large")
    assert not stored_files(small_daemon.save_dir)


def test_folder_upload_keeps_its_tree(page, daemon, tmp_path):
    album = tmp_path / "album"
    tree = {"2024/beach.jpg": os.urandom(300_000), "notes.txt": b"folder notes\n", "deep/x y/z.bin": b"\x00\x01"}
    for relative, content in tree.items():
        (album / relative).parent.mkdir(parents=True, exist_ok=True)
        (album / relative).write_bytes(content)
    before = stored_files(daemon.save_dir)
    open_page(page, daemon)

    page.set_input_files("#folder-input", str(album))

    expect(page.locator('.upload[data-state="done"]')).to_have_count(len(tree), timeout=UPLOAD_TIMEOUT_MS)
    stored = added_files(daemon.save_dir, before)
    assert sorted(stored) == sorted(f"album/{relative}" for relative in tree)
    for relative, content in tree.items():
        assert stored[f"album/{relative}"].read_bytes() == content

    page.locator("#file-list a", has_text="album").click()
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("album")
    expect(page.locator("#file-list")).to_contain_text("notes.txt")
    assert page.locator("#zip-link").get_attribute("href").endswith("/album/?zip")
    page.locator("#file-list a", has_text="deep").click()
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("deep")
    page.locator("#breadcrumb a", has_text="All files").click()
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("All files")


def test_file_names_are_shown_as_text_never_markup(page, daemon, tmp_path):
    hostile = tmp_path / '<img src=x onerror="window.pwned=1">.txt'
    hostile.write_bytes(b"x")
    open_page(page, daemon)

    page.set_input_files("#file-input", str(hostile))

    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    expect(page.locator("#file-list")).to_contain_text(hostile.name, timeout=10_000)
    # No image was made from the name: the only <img> on the page is our own QR code.
    assert page.locator("main img:not(.qr)").count() == 0
    assert page.locator("#file-list img, #queue img").count() == 0
    assert page.evaluate("() => window.pwned") is None


def test_drop_zone_opens_the_picker_from_the_keyboard(page, daemon, tmp_path):
    source = tmp_path / "keyboard.txt"
    source.write_bytes(b"chosen with Enter\n")
    before = stored_files(daemon.save_dir)
    open_page(page, daemon)

    dropzone = page.locator("#dropzone")
    dropzone.focus()
    expect(dropzone).to_be_focused()
    with page.expect_file_chooser() as chooser:
        dropzone.press("Enter")
    chooser.value.set_files(str(source))

    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    expect(page.locator("#announcer")).to_contain_text("keyboard.txt uploaded")
    assert added_files(daemon.save_dir, before)["keyboard.txt"].read_bytes() == source.read_bytes()


def test_files_dropped_on_the_drop_zone_are_uploaded(page, daemon):
    before = stored_files(daemon.save_dir)
    open_page(page, daemon)

    page.evaluate("""() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['first dropped'], 'dropped-1.txt'));
      transfer.items.add(new File(['second dropped'], 'dropped-2.txt'));
      const zone = document.getElementById('dropzone');
      for (const type of ['dragenter', 'dragover', 'drop']) {
        zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    }""")

    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    stored = added_files(daemon.save_dir, before)
    assert stored["dropped-1.txt"].read_bytes() == b"first dropped"
    assert stored["dropped-2.txt"].read_bytes() == b"second dropped"
    expect(page.locator("#dropzone")).not_to_have_class(re.compile(r"\bdragging\b"))


# Screenshots, weight and origin

SCREENSHOT_DIR = Path(__file__).resolve().parents[2] / ".build" / "screenshots"
SCREENSHOT_SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1440, "height": 900}}
# The phone is a touch device: the page words its drop zone for tapping there.
SCREENSHOT_DEVICE = {"phone": {"has_touch": True, "is_mobile": True}, "desktop": {}}
# A first visit in a secure context: the page shell the service worker keeps (its SHELL list:
# the page, every module, the styles, the manifest and the icon) and the worker itself.
MAX_GZIPPED_PAGE_BYTES = 40 * 1024


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", sorted(SCREENSHOT_SIZES))
def test_screenshots_phone_and_desktop_light_and_dark(chromium, daemon_factory, tmp_path, size, scheme):
    """Saves .build/screenshots/page-<size>-<scheme>.png (docs/screenshots/ holds copies for
    the README) after one upload, and checks the page fits the width and follows the scheme."""
    daemon = daemon_factory(fill=False)
    for name, content in {"holiday/beach.jpg": os.urandom(2_400_000), "report.pdf": os.urandom(380_000),
                          "notes.txt": b"shopping list\n" * 40}.items():
        (daemon.save_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (daemon.save_dir / name).write_bytes(content)
    source = tmp_path / "slides.key"
    source.write_bytes(os.urandom(5_000_000))
    context = chromium.new_context(viewport=SCREENSHOT_SIZES[size], color_scheme=scheme, device_scale_factor=1,
                                   **SCREENSHOT_DEVICE[size])
    try:
        page = context.new_page()
        open_page(page, daemon)
        page.set_input_files("#file-input", str(source))
        expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
        expect(page.locator("#file-list")).to_contain_text("slides.key", timeout=10_000)
        # Nothing wider than the viewport: no sideways scrolling on a phone.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= SCREENSHOT_SIZES[size]["width"]
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        channels = [int(value) for value in re.findall(r"\d+", background)[:3]]
        assert (sum(channels) < 3 * 128) == (scheme == "dark"), background
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOT_DIR / f"page-{size}-{scheme}.png"
        page.screenshot(path=str(target))
        assert target.stat().st_size > 10_000
    finally:
        context.close()


def test_page_weighs_under_40_kib_gzipped(daemon):
    total = 0
    assets = service_worker_shell() + ["/sw.js"]
    assert {"/", "/app.js", "/style.css", "/manifest.webmanifest", "/sw.js"} <= set(assets), assets
    for path in assets:
        response = fetch(daemon.url + path, headers={"Accept-Encoding": "gzip"})
        assert response.status == 200, (path, response)
        # Bodies under 256 bytes (the icon) go out as they are: gzip would not make them smaller.
        if len(response.body) >= 256:
            assert response.header("Content-Encoding") == "gzip", path
        assert int(response.header("Content-Length")) == len(response.body), path
        total += len(response.body)
    assert total < MAX_GZIPPED_PAGE_BYTES, f"the page weighs {total} bytes gzipped"


def test_page_requests_nothing_outside_its_origin(page, daemon, tmp_path):
    source = tmp_path / "origin.txt"
    source.write_bytes(b"stays on this server\n")
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    open_page(page, daemon)
    page.locator("details.phone summary").click()
    page.set_input_files("#file-input", str(source))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    expect(page.locator("#file-list")).to_contain_text("origin.txt", timeout=10_000)
    page.wait_for_load_state("networkidle")
    # data: URLs (the empty favicon) never touch the network.
    network = [url for url in requested if not url.startswith("data:")]
    assert any(url.endswith("/app.js") for url in network) and any("qr.svg" in url for url in network), network
    assert [url for url in network if not url.startswith(daemon.url + "/")] == []


def test_an_unchanged_list_poll_costs_a_304(page, daemon):
    (daemon.save_dir / "kept.txt").write_bytes(b"kept\n")
    statuses = []
    page.on("response", lambda response: statuses.append(response.status) if "format=json" in response.url else None)
    open_page(page, daemon)
    expect(page.locator("#file-list")).to_contain_text("kept.txt", timeout=10_000)
    wait_until(lambda: 304 in statuses, timeout=15)
    expect(page.locator("#file-list")).to_contain_text("kept.txt")
