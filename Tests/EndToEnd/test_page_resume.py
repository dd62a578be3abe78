"""Resumable uploads made visible (issue 19, defect 4): an unfinished upload is remembered in
IndexedDB and listed after a reload ("choose holiday.mov again to resume"); the file chosen
again goes on from the server's offset, byte-identical, without asking; the speed counts only
this session's bytes and leaves the screen while the network is gone; a wake lock is held
while uploading and released after."""

import os
import re

import pytest

from browser_support import random_file
from page_support import (UPLOAD_TIMEOUT_MS, assert_accessible, assert_no_problems, cut_patches_from, expect,
                          new_page, open_page)
from tls_support import file_sha256

# The page's first PATCH (web/tus.js FIRST_CHUNK); the next ones are bigger.
CHUNK = 8 * 1024 * 1024
BIG_FILE_BYTES = 50 * 1024 * 1024
SAW_RESUMING = """
    window.sawResuming = false;
    new MutationObserver(() => {
        if (document.body && document.body.innerText.includes('resuming')) window.sawResuming = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
"""
FAKE_WAKE_LOCK = """
    window.wakeLog = [];
    Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: { request: async (type) => {
        window.wakeLog.push('request ' + type);
        const sentinel = new EventTarget();
        sentinel.release = async () => { window.wakeLog.push('release'); sentinel.dispatchEvent(new Event('release')); };
        return sentinel;
    } } });
"""
SPEED = re.compile(r"([\d.]+) (bytes|KiB|MiB|GiB)/s")
UNITS = {"bytes": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


@pytest.fixture
def page(chromium, daemon_factory):
    page = new_page(chromium, "desktop")
    page.add_init_script(SAW_RESUMING)
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("resume") / "holiday.mov"
    random_file(path, BIG_FILE_BYTES)
    return path


def throttle(page, bytes_per_second, offline=False):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": bytes_per_second})
    return cdp


def shown_speed(page):
    match = SPEED.search(page.locator("#overall-text").inner_text())
    return float(match.group(1)) * UNITS[match.group(2)] if match else None


def stop_after_the_first_chunk(page, big_file):
    """Sends the first chunk, then the network dies; the person reloads."""
    cut_patches_from(page, CHUNK)
    page.set_input_files("#file-input", str(big_file))
    page.wait_for_function("() => window.sawResuming", timeout=60_000)
    page.unroute("**/files/.tus/**")
    page.reload()
    open_page(page, page.daemon)


def test_an_unfinished_upload_is_listed_after_a_reload_and_resumes_when_chosen_again(page, daemon, big_file):
    page.daemon = daemon
    open_page(page, daemon)
    stop_after_the_first_chunk(page, big_file)

    listed = page.locator("#unfinished")
    expect(listed).to_be_visible()
    expect(listed).to_contain_text("holiday.mov · 16 % of 50 MiB sent. Choose holiday.mov again to resume.")
    assert_accessible(page)

    offsets = []
    page.on("request", lambda request: offsets.append(int(request.headers["upload-offset"]))
            if request.method == "PATCH" else None)
    throttle(page, 4 * 1024 * 1024)
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Choose holiday.mov again").click()
    chooser.value.set_files(str(big_file))
    expect(listed).to_be_hidden()

    # The 8 MiB already on the server are no speed: the link sends about 4 MiB/s.
    speeds = []
    row = page.locator(".upload").first
    while row.get_attribute("data-state") == "uploading" and len(speeds) < 20:
        page.wait_for_timeout(500)
        if (speed := shown_speed(page)) is not None:
            speeds.append(speed)
    expect(row).to_have_attribute("data-state", "done", timeout=UPLOAD_TIMEOUT_MS)
    assert speeds and max(speeds) < 8 * 1024 * 1024, speeds
    assert offsets and offsets[0] == CHUNK, offsets
    assert file_sha256(daemon.save_dir / big_file.name) == file_sha256(big_file)
    remembered = page.evaluate("""() => new Promise((resolve) => {
        const request = indexedDB.open('filedrop');
        request.onsuccess = () => {
            const all = request.result.transaction('unfinished-uploads').objectStore('unfinished-uploads').getAll();
            all.onsuccess = () => resolve(all.result.length);
        };
    })""")
    assert remembered == 0
    assert_no_problems(page, allowed=["ERR_INTERNET_DISCONNECTED"])


def test_forget_drops_the_upload_on_the_server(page, daemon, big_file):
    page.daemon = daemon
    open_page(page, daemon)
    stop_after_the_first_chunk(page, big_file)
    page.get_by_role("button", name="Forget holiday.mov").click()
    expect(page.locator("#unfinished")).to_be_hidden()
    expect(page.locator("#dropzone")).to_be_focused()
    folder = daemon.save_dir / ".filedrop-tus"
    for _ in range(50):
        if not list(folder.iterdir()):
            break
        page.wait_for_timeout(100)
    assert not list(folder.iterdir())
    page.reload()
    open_page(page, daemon)
    page.wait_for_timeout(500)
    expect(page.locator("#unfinished")).to_be_hidden()


def test_a_lost_network_takes_the_speed_off_the_screen(page, daemon, big_file):
    open_page(page, daemon)
    cdp = throttle(page, 2 * 1024 * 1024)
    page.set_input_files("#file-input", str(big_file))
    page.wait_for_function("() => /\\/s/.test(document.getElementById('overall-text').textContent)", timeout=30_000)
    cdp.send("Network.emulateNetworkConditions",
             {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    page.wait_for_function("() => !/\\/s/.test(document.getElementById('overall-text').textContent)", timeout=8_000)
    row = page.locator(".upload").first
    expect(row.locator(".upload-meta")).to_contain_text(re.compile("resuming|waiting for the network"))
    assert "/s" not in row.locator(".upload-meta").inner_text()
    row.get_by_role("button", name="Cancel").click()
    expect(row).to_have_attribute("data-state", "cancelled")


def test_the_screen_is_kept_on_while_uploading_and_released_after(chromium, daemon, tmp_path):
    page = new_page(chromium, "phone")
    try:
        page.add_init_script(FAKE_WAKE_LOCK)
        open_page(page, daemon)
        source = tmp_path / "keep-awake.bin"
        source.write_bytes(os.urandom(1024 * 1024))
        throttle(page, 512 * 1024)
        page.set_input_files("#file-input", str(source))
        page.wait_for_function("() => window.wakeLog.includes('request screen')")
        assert "release" not in page.evaluate("window.wakeLog")
        expect(page.locator(".upload").first).to_have_attribute("data-state", "done", timeout=30_000)
        page.wait_for_function("() => window.wakeLog.includes('release')")
        assert page.evaluate("window.wakeLog") == ["request screen", "release"]
        assert_no_problems(page)
    finally:
        page.context.close()
