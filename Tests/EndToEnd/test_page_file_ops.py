"""The page's file operations (issue 19) in Chromium against the real daemon: rename in place,
delete after a confirm step in the row, new folder, and "Download selected as ZIP" checked
byte for byte against the files; by pointer on a phone and a desktop in light and dark, and by
keyboard alone; axe after every state; the controls follow what config.json allows."""

import io
import os
import zipfile

import pytest

from page_support import assert_accessible, assert_no_problems, browser_page, expect, open_page


@pytest.fixture
def seeded(daemon_factory):
    daemon = daemon_factory("--allow-delete", fill=False)
    (daemon.save_dir / "a.txt").write_bytes(b"alpha\n")
    (daemon.save_dir / "b.txt").write_bytes(b"bravo\n")
    (daemon.save_dir / "sub").mkdir()
    (daemon.save_dir / "sub" / "c.bin").write_bytes(os.urandom(50_000))
    return daemon


def names(page):
    return sorted(page.locator("#file-list .entry-name").all_inner_texts())


def focused_text(page):
    return page.evaluate("() => document.activeElement.getAttribute('aria-label') || document.activeElement.textContent")


@pytest.mark.parametrize("device,scheme", [("phone", "light"), ("desktop", "dark")])
def test_rename_delete_and_new_folder(browser_page, seeded, device, scheme):
    page = browser_page(device, scheme)
    open_page(page, seeded)
    expect(page.locator("#file-list .entry")).to_have_count(3)
    assert_accessible(page)

    page.get_by_role("button", name="Rename a.txt").click()
    field = page.get_by_role("textbox", name="New name for a.txt")
    expect(field).to_be_focused()
    expect(field).to_have_value("a.txt")
    assert_accessible(page)
    field.fill("renamed.txt")
    field.press("Enter")
    expect(page.locator("#file-list .entry-name", has_text="renamed.txt")).to_be_focused()
    assert names(page) == ["b.txt", "renamed.txt", "sub"]
    assert (seeded.save_dir / "renamed.txt").read_bytes() == b"alpha\n" and not (seeded.save_dir / "a.txt").exists()

    # The server's refusal is shown as it is worded; Escape gives the row back.
    page.get_by_role("button", name="Rename renamed.txt").click()
    page.get_by_role("textbox", name="New name for renamed.txt").fill("b.txt")
    page.keyboard.press("Enter")
    expect(page.locator("#file-list [role=alert]")).to_contain_text("already exists")
    assert_accessible(page)
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Rename renamed.txt")).to_be_focused()
    assert (seeded.save_dir / "b.txt").read_bytes() == b"bravo\n"

    page.get_by_role("button", name="Delete b.txt").click()
    expect(page.get_by_role("group", name="Delete b.txt?")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel")).to_be_focused()
    assert_accessible(page)
    page.get_by_role("button", name="Yes, delete").click()
    expect(page.locator("#file-list .entry")).to_have_count(2)
    assert not (seeded.save_dir / "b.txt").exists()
    assert focused_text(page) in ("renamed.txt", "sub")
    expect(page.locator("#announcer")).to_contain_text("b.txt deleted.")

    # A folder that is not empty is refused by the server, and nothing is lost.
    page.get_by_role("button", name="Delete sub").click()
    page.get_by_role("button", name="Yes, delete").click()
    expect(page.locator("#file-list [role=alert]")).to_contain_text("not empty")
    assert_accessible(page)
    page.keyboard.press("Escape")
    assert (seeded.save_dir / "sub" / "c.bin").is_file()

    page.get_by_role("button", name="New folder").click()
    folder_name = page.get_by_role("textbox", name="Folder name")
    expect(folder_name).to_be_focused()
    assert_accessible(page)
    folder_name.fill("holiday 2026")
    folder_name.press("Enter")
    expect(page.locator("#file-list .entry-name", has_text="holiday 2026")).to_be_focused()
    assert (seeded.save_dir / "holiday 2026").is_dir()
    assert_accessible(page)
    # Chromium logs the two refusals provoked above; nothing else may show up.
    assert_no_problems(page, allowed=("status of 412 (Precondition Failed)", "status of 409 (Conflict)"))


def test_download_selected_as_zip_is_the_files_byte_for_byte(browser_page, seeded):
    page = browser_page("desktop")
    open_page(page, seeded)
    expect(page.locator("#file-list .entry")).to_have_count(3)
    expect(page.locator("#zip-selected")).to_be_hidden()
    page.get_by_role("checkbox", name="Select a.txt").check()
    page.get_by_role("checkbox", name="Select sub").check()
    link = page.get_by_role("link", name="Download 2 selected as ZIP")
    expect(link).to_be_visible()
    assert_accessible(page)
    # A re-sort redraws the rows: the selection stays.
    page.locator("#sort").select_option("name")
    expect(page.get_by_role("checkbox", name="Select sub")).to_be_checked()
    with page.expect_download() as download:
        link.click()
    archive = zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read()))
    assert sorted(archive.namelist()) == ["a.txt", "sub/", "sub/c.bin"]
    assert archive.read("a.txt") == (seeded.save_dir / "a.txt").read_bytes()
    assert archive.read("sub/c.bin") == (seeded.save_dir / "sub" / "c.bin").read_bytes()
    assert_no_problems(page)


def tab_to(page, label, backwards=False, limit=60):
    """Presses Tab (Shift+Tab) until the focused element's accessible label or text is `label`."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if focused_text(page) == label:
            return
    raise AssertionError(f"{label!r} not reached by Tab; at {focused_text(page)!r}")


def test_keyboard_only(browser_page, seeded):
    page = browser_page("desktop")
    open_page(page, seeded)
    expect(page.locator("#file-list .entry")).to_have_count(3)

    tab_to(page, "Rename a.txt")
    page.keyboard.press("Enter")
    page.keyboard.type("keys")
    page.keyboard.press("Enter")
    expect(page.locator("#file-list .entry-name", has_text="keys.txt")).to_be_focused()
    assert (seeded.save_dir / "keys.txt").is_file()

    tab_to(page, "Delete keys.txt")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Cancel")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Delete keys.txt")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Yes, delete")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#file-list .entry")).to_have_count(2)
    assert not (seeded.save_dir / "keys.txt").exists()

    tab_to(page, "New folder", backwards=True)
    page.keyboard.press("Enter")
    page.keyboard.type("typed")
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="New folder")).to_be_focused()
    assert not (seeded.save_dir / "typed").exists()
    page.keyboard.press("Enter")
    page.keyboard.type("typed")
    page.keyboard.press("Enter")
    expect(page.locator("#file-list .entry-name", has_text="typed")).to_be_focused()
    assert (seeded.save_dir / "typed").is_dir()

    tab_to(page, "Select b.txt")
    page.keyboard.press("Space")
    tab_to(page, "Download 1 selected as ZIP")
    assert_accessible(page)
    assert_no_problems(page)


@pytest.mark.parametrize("flags,rename,new_folder", [([], False, True), (["--access", "read-only", "--allow-delete"], False, False)])
def test_the_controls_follow_the_server(browser_page, daemon_factory, flags, rename, new_folder):
    daemon = daemon_factory(*flags, fill=False)
    (daemon.save_dir / "a.txt").write_bytes(b"alpha\n")
    page = browser_page("phone")
    open_page(page, daemon)
    expect(page.locator("#file-list .entry")).to_have_count(1)
    expect(page.get_by_role("checkbox", name="Select a.txt")).to_be_visible()
    expect(page.get_by_role("button", name="Rename a.txt")).to_have_count(1 if rename else 0)
    expect(page.get_by_role("button", name="Delete a.txt")).to_have_count(0)
    expect(page.get_by_role("button", name="New folder")).to_have_count(1 if new_folder else 0)
    assert_accessible(page)
    assert_no_problems(page)


def test_a_refresh_waits_for_the_rename_being_typed(browser_page, seeded, tmp_path):
    """An upload finishing (which refreshes the list) must not wipe a name half typed; the
    new file shows once the rename is done with."""
    page = browser_page("phone")
    open_page(page, seeded)
    expect(page.locator("#file-list .entry")).to_have_count(3)
    page.get_by_role("button", name="Rename a.txt").click()
    field = page.get_by_role("textbox", name="New name for a.txt")
    field.fill("half typ")
    source = tmp_path / "arrived.txt"
    source.write_bytes(b"new file\n")
    # The listing the finished upload asks for, with the new file in it.
    with page.expect_response(lambda response: "format=json" in response.url and response.status == 200
                              and b"arrived.txt" in response.body()):
        page.set_input_files("#file-input", str(source))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1)
    # Two frames: the reply has been read and any render has run.
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expect(field).to_have_value("half typ")
    expect(field).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#file-list .entry-name", has_text="arrived.txt")).to_have_count(1)
    expect(page.get_by_role("button", name="Rename a.txt")).to_be_focused()
    assert_no_problems(page)
