"""Sending from the page (issue 19, defects 5, 6, 8 and 10): refusals that can never succeed
offer no Retry and say their sentence once; "saved as" is shown for a renamed big (tus) file
and never falsely for a folder's files; files go into the folder on screen and the page says
which; binary units; no "0 bytes of 0 bytes"; Clear finished clears failed rows too; pasted or
typed text is sent as a .txt file whose name can be changed, and a pasted image as a file."""

import os
from pathlib import Path

import pytest

from page_support import UPLOAD_TIMEOUT_MS, assert_accessible, assert_no_problems, browser_page, expect, new_page, open_page

TUS_FILE_BYTES = 9 * 1024 * 1024


@pytest.fixture
def page(browser_page):
    return browser_page("phone")


def rows(page):
    return page.locator(".upload")


def test_a_name_conflict_under_reject_says_it_once_and_offers_no_retry(page, daemon_factory, tmp_path):
    daemon = daemon_factory("--on-collision", "reject")
    source = tmp_path / "plain.txt"
    source.write_bytes(b"a second plain.txt\n")
    open_page(page, daemon)
    page.set_input_files("#file-input", str(source))
    row = rows(page).first
    expect(row).to_have_attribute("data-state", "failed", timeout=30_000)
    text = row.locator(".upload-error").inner_text()
    assert text.count("already exists") == 1, text
    expect(row.get_by_role("button", name="Retry")).to_have_count(0)
    expect(row.get_by_role("button", name="Remove")).to_be_visible()
    assert_accessible(page)
    assert_no_problems(page, allowed=["409"])


def test_a_read_only_refusal_offers_no_retry(page, daemon_factory, tmp_path):
    daemon = daemon_factory("--access", "read-only")
    # Without /config.json the page cannot know it is read-only: the 403 must end it.
    page.route("**/config.json", lambda route: route.fulfill(status=404, body=""))
    source = tmp_path / "refused.txt"
    source.write_bytes(b"refused\n")
    page.goto(daemon.url + "/")
    expect(page.locator("#dropzone")).to_be_visible()
    page.set_input_files("#file-input", str(source))
    row = rows(page).first
    expect(row).to_have_attribute("data-state", "failed", timeout=30_000)
    expect(row.locator(".upload-error")).to_contain_text("read-only")
    expect(row.get_by_role("button", name="Retry")).to_have_count(0)


def test_everything_failing_shows_no_zero_bytes_and_limits_are_binary(page, daemon_factory, tmp_path):
    daemon = daemon_factory("--max-upload-size", str(1024 * 1024), fill=False)
    source = tmp_path / "too-big.bin"
    source.write_bytes(os.urandom(2 * 1024 * 1024))
    open_page(page, daemon)
    expect(page.locator("#limit-note")).to_have_text("Up to 1 MiB per file")
    page.set_input_files("#file-input", str(source))
    expect(rows(page).first).to_have_attribute("data-state", "failed")
    expect(page.locator("#overall-text")).to_have_text("0 of 1 file uploaded · 1 failed")
    expect(rows(page).first).to_contain_text("2 MiB")
    expect(rows(page).first.locator(".upload-error")).to_contain_text("at most 1 MiB")
    expect(rows(page).first.get_by_role("button", name="Retry")).to_have_count(0)

    # Clear finished clears failed rows too, and the focus goes back to the drop zone.
    page.get_by_role("button", name="Clear finished").click()
    expect(rows(page)).to_have_count(0)
    expect(page.locator("#queue")).to_be_hidden()
    expect(page.locator("#dropzone")).to_be_focused()


def test_a_renamed_big_file_says_saved_as(page, daemon, tmp_path):
    (daemon.save_dir / "video.mp4").write_bytes(b"the first one")
    source = tmp_path / "video.mp4"
    source.write_bytes(os.urandom(TUS_FILE_BYTES))
    open_page(page, daemon)
    tus = []
    page.on("request", lambda request: tus.append(request.method) if "/files/.tus/" in request.url else None)
    page.set_input_files("#file-input", str(source))
    row = rows(page).first
    expect(row).to_have_attribute("data-state", "done", timeout=UPLOAD_TIMEOUT_MS)
    assert "PATCH" in tus, "the big file did not go over tus"
    expect(row.locator(".upload-meta")).to_have_text("9 MiB, saved as video (1).mp4")
    assert (daemon.save_dir / "video (1).mp4").read_bytes() == source.read_bytes()


def test_a_folders_files_show_no_false_saved_as(page, daemon, tmp_path):
    album = tmp_path / "folder1"
    for name in ["a.txt", "b.txt"]:
        (album / name).parent.mkdir(parents=True, exist_ok=True)
        (album / name).write_bytes(name.encode())
    open_page(page, daemon)
    page.set_input_files("#folder-input", str(album))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    for row in rows(page).all():
        expect(row).not_to_contain_text("saved as")


def test_files_go_into_the_folder_on_screen(page, daemon, tmp_path):
    small = tmp_path / "into-sub.txt"
    small.write_bytes(b"into the sub folder\n")
    big = tmp_path / "big-into-sub.bin"
    big.write_bytes(os.urandom(TUS_FILE_BYTES))
    open_page(page, daemon)
    expect(page.locator("#destination")).to_have_text("Files go into All files")
    page.locator("#file-list a", has_text="sub dir").click()
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("sub dir")
    expect(page.locator("#destination")).to_have_text("Files go into All files / sub dir")

    page.set_input_files("#file-input", [str(small), str(big)])
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=UPLOAD_TIMEOUT_MS)
    assert (daemon.save_dir / "sub dir" / small.name).read_bytes() == small.read_bytes()
    assert (daemon.save_dir / "sub dir" / big.name).read_bytes() == big.read_bytes()
    assert not (daemon.save_dir / small.name).exists() and not (daemon.save_dir / big.name).exists()
    expect(page.locator("#file-list")).to_contain_text(small.name, timeout=10_000)
    assert_no_problems(page)


PASTE_TEXT = """(text) => {
  const data = new DataTransfer();
  data.setData('text/plain', text);
  document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
}"""

PASTE_IMAGE = """() => {
  const data = new DataTransfer();
  const pixel = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
  data.items.add(new File([pixel], 'image.png', { type: 'image/png' }));
  document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pasted_text_is_sent_as_a_txt_file_with_the_name_chosen(chromium, daemon, scheme):
    page = new_page(chromium, "desktop", scheme)
    try:
        open_page(page, daemon)
        page.evaluate(PASTE_TEXT, "milk\neggs\n")
        expect(page.locator("#text-note")).to_have_attribute("open", "")
        expect(page.locator("#text-body")).to_have_value("milk\neggs\n")
        assert page.locator("#text-name").input_value().endswith(".txt")
        assert_accessible(page)
        page.locator("#text-name").fill("shopping list.txt")
        page.get_by_role("button", name="Send text").click()
        expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
        assert (daemon.save_dir / "shopping list.txt").read_text() == "milk\neggs\n"
        expect(page.locator("#text-summary")).to_be_focused()
        assert_no_problems(page)
    finally:
        page.context.close()


def test_typed_text_gets_a_txt_name_of_its_own(page, daemon):
    open_page(page, daemon)
    page.get_by_text("Send text as a file").click()
    page.locator("#text-body").fill("typed on a phone")
    page.locator("#text-name").fill("note")
    page.get_by_role("button", name="Send text").click()
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    assert (daemon.save_dir / "note.txt").read_text() == "typed on a phone"


def test_a_pasted_image_is_saved_as_a_file_with_a_name_of_its_own(page, daemon):
    open_page(page, daemon)
    page.evaluate(PASTE_IMAGE)
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    stored = [path.name for path in Path(daemon.save_dir).iterdir() if path.name.startswith("Pasted image ")]
    assert len(stored) == 1 and stored[0].endswith(".png"), stored
    assert (daemon.save_dir / stored[0]).read_bytes()[:4] == b"\x89PNG"


def test_text_pasted_into_the_filter_stays_there(page, daemon):
    open_page(page, daemon)
    page.locator("#filter").focus()
    page.evaluate("""() => {
      const data = new DataTransfer();
      data.setData('text/plain', 'plain');
      document.getElementById('filter').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }""")
    expect(page.locator("#text-note")).not_to_have_attribute("open", "")
